"""deploy/slurm/prolog.sh and epilog.sh, run directly the way slurmd runs them, with a fake
`rankwatch` on PATH."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deploy.scripts import (
    EPILOG,
    PROLOG,
    Node,
    job_env,
    kill_quietly,
    make_node,
    pid_alive,
    run_like_slurmd,
    wait_until,
)


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    node = make_node(tmp_path)
    yield node
    for record in node.started():  # never leave a fake sidecar behind
        kill_quietly(int(record["pid"]))


def _start(node: Node, job: str = "42") -> dict[str, str]:
    run = run_like_slurmd(PROLOG, job_env(node, job))
    assert run.returncode == 0, run.output
    assert wait_until(lambda: len(node.started()) == 1), node.syslog()
    return node.started()[0]


def test_prolog_returns_fast_and_sidecar_outlives_the_process_group(node: Node) -> None:
    """The prolog exits 0 in well under a second, slurmd's pipe reaches EOF at once, and the
    sidecar survives slurmd killing the prolog's process group."""
    run = run_like_slurmd(PROLOG, job_env(node))
    assert run.returncode == 0
    assert run.seconds < 1.0, f"prolog took {run.seconds:.3f}s"
    assert wait_until(lambda: len(node.started()) == 1)
    sidecar = node.started()[0]
    pid = int(sidecar["pid"])
    assert sidecar["sid"] == sidecar["pid"]  # a session leader of its own
    assert sidecar["pgid"] == sidecar["pid"]
    assert sidecar["stdin"] == "/dev/null"
    assert sidecar["stderr"] == str(node.log_dir / "rankwatch-42.log")
    assert sidecar["cwd"] == str(node.state_dir / "42")
    assert node.pidfile("42").read_text().strip() == sidecar["pid"]
    # run_like_slurmd already sent SIGTERM and SIGKILL to the prolog's group
    assert wait_until(lambda: False, timeout=0.3) is False
    assert pid_alive(pid)
    assert node.terminated() == []


def test_prolog_passes_the_job_context_and_metrics_address(node: Node) -> None:
    """The sidecar is `rankwatch run --slurm-job ID`, with the SLURM variables, the metrics
    address and its state dir, and without the deploy-only RANKWATCH_DEPLOY_CONF."""
    node.write_conf(metrics_port_base="9000", metrics_port_span="100", metrics_bind="127.0.0.1")
    sidecar = _start(node, "1234")
    assert sidecar["argv"] == "run --slurm-job 1234"
    assert sidecar["SLURM_JOB_ID"] == "1234"
    assert sidecar["SLURM_JOB_STDERR"] == '/home/alice/run dir/%x-%j "q".err'
    assert sidecar["RANKWATCH_METRICS_ADDR"] == "127.0.0.1:9034"
    assert sidecar["RANKWATCH_STATE_DIR"] == str(node.state_dir / "1234")
    assert "RANKWATCH_DEPLOY_CONF" not in sidecar


def test_prolog_passes_the_config_file(node: Node) -> None:
    """`rankwatch_config` becomes `--config FILE` on the sidecar's command line."""
    node.write_conf(rankwatch_config="/etc/rankwatch/rankwatch.toml")
    sidecar = _start(node)
    assert sidecar["argv"] == "run --slurm-job 42 --config /etc/rankwatch/rankwatch.toml"


def test_prolog_registers_node_for_prometheus_and_epilog_removes_it(node: Node) -> None:
    """A file_sd JSON file with job_id, user and node labels appears with the prolog and
    disappears with the epilog."""
    _start(node)
    sd_file = node.sd_dir / "rankwatch-42-gpu01.json"
    registration = json.loads(sd_file.read_text())
    assert registration == [
        {
            "targets": ["127.0.0.1:9824"],
            "labels": {"job_id": "42", "user": "alice", "node": "gpu01"},
        }
    ]
    assert list(node.sd_dir.glob(".*")) == []  # no temporary file left behind
    run = run_like_slurmd(EPILOG, job_env(node, context="epilog_slurmd"))
    assert run.returncode == 0
    assert not sd_file.exists()


def test_epilog_stops_the_sidecar_with_sigterm(node: Node) -> None:
    """The epilog verifies the pid file against /proc/PID/cmdline, sends SIGTERM, waits for
    the exit, removes the pid file and exits 0."""
    pid = int(_start(node)["pid"])
    run = run_like_slurmd(EPILOG, job_env(node, context="epilog_slurmd"))
    assert run.returncode == 0
    assert len(node.terminated()) == 1
    assert not pid_alive(pid)
    assert not node.pidfile("42").exists()
    assert "epilog: sidecar pid" in node.syslog() and "stopped" in node.syslog()


def test_epilog_kills_a_sidecar_that_ignores_sigterm(node: Node) -> None:
    """A sidecar that ignores SIGTERM is SIGKILLed after stop_timeout_seconds; exit 0."""
    node.write_conf(stop_timeout_seconds="1")
    node.set_mode("ignore-term")
    pid = int(_start(node)["pid"])
    run = run_like_slurmd(EPILOG, job_env(node, context="epilog_slurmd"))
    assert run.returncode == 0
    assert 1.0 <= run.seconds < 10
    assert wait_until(lambda: not pid_alive(pid), timeout=5)
    assert node.terminated() == []
    assert "sent SIGKILL" in node.syslog()


def test_epilog_with_nothing_started_exits_zero(node: Node) -> None:
    """On a node where the prolog never ran, the epilog has nothing to stop and exits 0."""
    run = run_like_slurmd(EPILOG, job_env(node, "77", "epilog_slurmd"))
    assert run.returncode == 0
    assert "no sidecar was started" in node.syslog()


def test_epilog_leaves_a_reused_pid_alone(node: Node) -> None:
    """A pid file naming a process that is not this job's sidecar (PID reuse, or another
    job's sidecar) is not signalled."""
    node.run_dir.mkdir(parents=True)
    stranger = subprocess.Popen(["sleep", "60"])
    other_job = subprocess.Popen(["sh", "-c", "sleep 60", "rankwatch", "--slurm-job", "43"])
    try:
        for victim in (stranger, other_job):
            node.pidfile("42").write_text(f"{victim.pid}\n")
            run = run_like_slurmd(EPILOG, job_env(node, context="epilog_slurmd"))
            assert run.returncode == 0
            assert victim.poll() is None, "an unrelated process was killed"
        assert "not this job's sidecar" in node.syslog()
    finally:
        stranger.kill()
        other_job.kill()
        stranger.wait()
        other_job.wait()


def test_prolog_exits_zero_when_rankwatch_fails_or_is_missing(node: Node) -> None:
    """A sidecar that dies at once, or no rankwatch at all, never fails the prolog; the node
    is still registered so that Prometheus reports the sidecar as down."""
    node.set_mode("fail")
    run = run_like_slurmd(PROLOG, job_env(node))
    assert run.returncode == 0
    assert run.seconds < 1.0
    assert wait_until(lambda: "failing on purpose" in _daemon_log(node))
    (node.bin_dir / "rankwatch").unlink()
    run = run_like_slurmd(PROLOG, job_env(node, "43"))
    assert run.returncode == 0
    assert "not found; sidecar not started" in node.syslog()
    assert (node.sd_dir / "rankwatch-43-gpu01.json").exists()


def _daemon_log(node: Node) -> str:
    path = node.log_dir / "rankwatch-42.log"
    return path.read_text() if path.exists() else ""


def test_scripts_exit_zero_on_a_broken_config_or_job_id(node: Node) -> None:
    """A syntax error in the admin's config or a strange job id still exits 0."""
    node.conf.write_text("if then fi (\n")
    for script in (PROLOG, EPILOG):
        assert run_like_slurmd(script, job_env(node)).returncode == 0
    node.write_conf()
    for script in (PROLOG, EPILOG):
        run = run_like_slurmd(script, job_env(node, "../../etc"))
        assert run.returncode == 0
    assert node.started() == []
    assert "no usable SLURM_JOB_ID" in node.syslog()


def test_prolog_does_not_start_a_second_sidecar(node: Node) -> None:
    """Running the prolog twice for one job keeps the one sidecar."""
    first = _start(node)
    run = run_like_slurmd(PROLOG, job_env(node))
    assert run.returncode == 0
    assert len(node.started()) == 1
    assert node.pidfile("42").read_text().strip() == first["pid"]
    assert "already running" in node.syslog()


def test_systemd_launcher_writes_env_file_and_uses_the_template_unit(node: Node) -> None:
    """Under systemd the prolog writes the job's environment for the unit (quoted for
    EnvironmentFile) and starts rankwatch@ID without waiting; the epilog stops it."""
    node.write_conf(launcher="systemd")
    run = run_like_slurmd(PROLOG, job_env(node, "41"))
    assert run.returncode == 0
    assert (node.run_dir / "rankwatch-41.env").exists()  # written without a config file too
    node.write_conf(launcher="systemd", rankwatch_config="/etc/rankwatch/rw.toml")
    run = run_like_slurmd(PROLOG, job_env(node))
    assert run.returncode == 0
    calls = (node.bin_dir / "systemctl.calls").read_text().splitlines()
    assert calls[-1] == "start --no-block rankwatch@42.service"
    env_file = node.run_dir / "rankwatch-42.env"
    lines = env_file.read_text().splitlines()
    assert 'SLURM_JOB_STDERR="/home/alice/run dir/%x-%j \\"q\\".err"' in lines
    assert 'RANKWATCH_METRICS_ADDR="0.0.0.0:9824"' in lines
    assert 'RW_EXTRA_ARGS="--config /etc/rankwatch/rw.toml"' in lines
    assert not any(line.startswith("RANKWATCH_DEPLOY_CONF") for line in lines)
    assert oct(env_file.stat().st_mode & 0o777) == "0o600"
    run = run_like_slurmd(EPILOG, job_env(node, context="epilog_slurmd"))
    assert run.returncode == 0
    calls = (node.bin_dir / "systemctl.calls").read_text().splitlines()
    assert calls[-1] == "stop rankwatch@42.service"
    assert not env_file.exists()


def test_scripts_pass_shellcheck() -> None:
    """The scripts are POSIX sh and shellcheck-clean (they run under dash on Debian)."""
    scripts = [str(p) for p in (PROLOG, EPILOG, PROLOG.parent / "rankwatch-common.sh")]
    done = subprocess.run(
        ["shellcheck", "-s", "sh", "-x", *scripts],
        capture_output=True,
        text=True,
        cwd=PROLOG.parent,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_systemd_unit_verifies(tmp_path: Path) -> None:
    """The template unit passes `systemd-analyze verify` (ExecStart pointed at a real file)."""
    unit = (PROLOG.parents[1] / "systemd" / "rankwatch@.service").read_text()
    assert "CAP_DAC_READ_SEARCH" not in unit.split("CapabilityBoundingSet=")[1].splitlines()[0]
    for key in ("MemoryMax=", "CPUQuota=", "Nice=", "CapabilityBoundingSet=CAP_SYS_PTRACE"):
        assert key in unit
    (tmp_path / "rankwatch@.service").write_text(
        unit.replace("/usr/local/bin/rankwatch", shutil.which("true") or "/bin/true")
    )
    done = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(tmp_path / "rankwatch@42.service")],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "SYSTEMD_LOG_LEVEL": "notice"},
    )
    assert done.returncode == 0 and done.stderr.strip() == "", done.stderr
