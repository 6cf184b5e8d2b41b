"""Helpers for running deploy/slurm/{prolog,epilog}.sh the way slurmd does, with a fake
`rankwatch` on PATH."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SLURM_SCRIPTS = REPO / "deploy" / "slurm"
PROLOG = SLURM_SCRIPTS / "prolog.sh"
EPILOG = SLURM_SCRIPTS / "epilog.sh"

# A stand-in for the daemon: records how it was started, then runs until signalled.
# Its behaviour comes from the file "mode" next to it: normal, fail or ignore-term.
# A SIGTERM that arrives while the record is being written (the Epilog of a job that ended at
# once stops the sidecar right after the Prolog started it) is held until the record is
# complete: under the shell's default action it killed the fake half-way, and that job had no
# record at all. The record takes few processes (the ids come from /proc/$$/stat, not ps), so
# that it is complete well within the Epilog's stop_timeout_seconds.
FAKE_RANKWATCH = r"""#!/bin/sh
term=0
trap 'term=1' TERM
dir=${0%/*}
mode=normal
[ -f "$dir/mode" ] && read -r mode <"$dir/mode"
ids() { pgid=$3; sid=$4; }  # /proc/PID/stat after "(comm) ": state ppid pgrp session ...
read -r stat <"/proc/$$/stat"
ids ${stat##*) }
{
    echo "argv=$*"
    echo "pid=$$"
    echo "sid=$sid"
    echo "pgid=$pgid"
    echo "cwd=$(pwd)"
    echo "stdin=$(readlink /proc/$$/fd/0)"
    echo "stderr=$(readlink /proc/$$/fd/2)"
    env | grep -E '^(SLURM|RANKWATCH)' | sort
} >"$dir/.starting.$$" && mv "$dir/.starting.$$" "$dir/started.$$"
case "$mode" in
    fail) echo "fake rankwatch: failing on purpose" >&2; exit 3 ;;
    ignore-term) trap '' TERM ;;
    *)
        trap 'echo term >"$dir/terminated.$$"; exit 0' TERM
        [ "$term" = 0 ] || { echo term >"$dir/terminated.$$"; exit 0; }
        ;;
esac
while :; do sleep 0.1; done
"""

FAKE_LOGGER = """#!/bin/sh
echo "$*" >>"$(dirname "$0")/syslog"
"""

FAKE_SYSTEMCTL = """#!/bin/sh
echo "$*" >>"$(dirname "$0")/systemctl.calls"
"""


@dataclass
class Node:
    """A fake node's directories, the deploy config pointing at them, and the fake tools."""

    root: Path
    bin_dir: Path
    run_dir: Path
    state_dir: Path
    log_dir: Path
    sd_dir: Path
    conf: Path

    def write_conf(self, **extra: str) -> None:
        settings = {
            "PATH": f"{self.bin_dir}:$PATH",
            "run_dir": str(self.run_dir),
            "state_dir": str(self.state_dir),
            "log_dir": str(self.log_dir),
            "file_sd_dir": str(self.sd_dir),
            "metrics_host": "127.0.0.1",
            "launcher": "setsid",
            "stop_timeout_seconds": "2",
        }
        settings.update(extra)
        self.conf.write_text("".join(f'{k}="{v}"\n' for k, v in settings.items()))

    def set_mode(self, mode: str) -> None:
        (self.bin_dir / "mode").write_text(mode)

    def started(self) -> list[dict[str, str]]:
        records = []
        for path in sorted(self.bin_dir.glob("started.*")):
            lines = path.read_text().splitlines()
            records.append(dict(line.split("=", 1) for line in lines if "=" in line))
        return records

    def terminated(self) -> list[Path]:
        return sorted(self.bin_dir.glob("terminated.*"))

    def syslog(self) -> str:
        path = self.bin_dir / "syslog"
        return path.read_text() if path.exists() else ""

    def pidfile(self, job: str) -> Path:
        return self.run_dir / f"rankwatch-{job}.pid"


def make_node(root: Path) -> Node:
    node = Node(
        root=root,
        bin_dir=root / "bin",
        run_dir=root / "run",
        state_dir=root / "state",
        log_dir=root / "log",
        sd_dir=root / "file_sd",
        conf=root / "rankwatch-slurm.conf",
    )
    node.bin_dir.mkdir(parents=True)
    for name, text in (
        ("rankwatch", FAKE_RANKWATCH),
        ("logger", FAKE_LOGGER),
        ("systemctl", FAKE_SYSTEMCTL),
    ):
        tool = node.bin_dir / name
        tool.write_text(text)
        tool.chmod(0o755)
    node.write_conf()
    return node


def job_env(node: Node, job: str = "42", context: str = "prolog_slurmd") -> dict[str, str]:
    """The variables slurmd gives a Prolog (no PATH: the script must set its own)."""
    return {
        "SLURM_JOB_ID": job,
        "SLURM_JOBID": job,
        "SLURM_JOB_USER": "alice",
        "SLURM_JOB_UID": "1000",
        "SLURM_JOB_GID": "1000",
        "SLURMD_NODENAME": "gpu01",
        "SLURM_NODELIST": "gpu[01-02]",
        "SLURM_JOB_WORK_DIR": "/home/alice/run dir",
        "SLURM_JOB_STDERR": '/home/alice/run dir/%x-%j "q".err',
        "SLURM_SCRIPT_CONTEXT": context,
        "RANKWATCH_DEPLOY_CONF": str(node.conf),
    }


@dataclass
class ScriptRun:
    returncode: int
    seconds: float
    output: str


def run_like_slurmd(script: Path, env: dict[str, str], timeout: float = 30.0) -> ScriptRun:
    """Run a Prolog/Epilog as slurmd does: its own process group, stdout and stderr on a pipe
    read until EOF, then SIGTERM and SIGKILL to the whole group once the script has exited."""
    start = time.monotonic()
    proc = subprocess.Popen(
        [str(script)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, like slurmd's setpgid(0, 0)
        cwd="/",
    )
    output, _ = proc.communicate(timeout=timeout)  # EOF: nothing kept the pipe open
    seconds = time.monotonic() - start
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        time.sleep(0.01)
    return ScriptRun(proc.returncode, seconds, output.decode(errors="replace"))


def pid_alive(pid: int) -> bool:
    """Exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def wait_until(
    predicate: Callable[[], bool], timeout: float = 10.0, interval: float = 0.05
) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


def kill_quietly(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
