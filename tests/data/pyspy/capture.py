"""Regenerate the captured py-spy dumps in this folder (run by hand, never by the test suite).

    python tests/data/pyspy/capture.py [scenario ...]

Each scenario runs the real torch job (tests/e2e/torch_job.py) under torchrun with 2 ranks and
2 DataLoader workers per rank, waits until the fault has taken hold, then dumps the processes
with `py-spy dump --json` and writes them here. Paths are rewritten to neutral prefixes (see
README.md in this folder); nothing else is changed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
JOB = HERE.parent.parent / "e2e" / "torch_job.py"

# (scenario, torch_job arguments, seconds to wait, {output name: (role, rank, worker)})
SCENARIOS: dict[str, tuple[list[str], float, dict[str, tuple[str, int, int | None]]]] = {
    "stall": (
        ["--mode", "stall_worker", "--steps", "1000", "--fault-step", "5"],
        25.0,
        {
            "stall-rank0-main": ("rank", 0, None),
            "stall-rank1-main": ("rank", 1, None),
            "stall-rank1-worker0-busy": ("worker", 1, 0),
            "stall-rank1-worker1-idle": ("worker", 1, 1),
        },
    ),
    "checkpoint": (
        ["--mode", "checkpoint_40s", "--steps", "1000", "--fault-step", "5"],
        20.0,
        {
            "checkpoint-rank0-save": ("rank", 0, None),
            "checkpoint-rank1-barrier": ("rank", 1, None),
        },
    ),
    "init": (
        ["--mode", "init_wait", "--init-delay-seconds", "60"],
        15.0,
        {"init-rank0-rendezvous": ("rank", 0, None)},
    ),
    "busy": (
        ["--mode", "busy_user", "--steps", "1000", "--fault-step", "5"],
        25.0,
        {
            "busy-rank1-user-loop": ("rank", 1, None),
            "busy-rank0-backward": ("rank", 0, None),
        },
    ),
    "healthy": (
        ["--mode", "healthy", "--steps", "100000", "--item-seconds", "0.002"],
        20.0,
        {
            "healthy-rank0-a": ("rank", 0, None),
            "healthy-rank1-a": ("rank", 1, None),
            "healthy-rank0-b": ("rank", 0, None),
            "healthy-rank1-b": ("rank", 1, None),
        },
    ),
}


def neutral_paths() -> list[tuple[str, str]]:
    """Machine-specific prefixes and the neutral ones written instead (longest first)."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    pairs = [
        (sysconfig.get_paths()["purelib"] + "/", f"/opt/venv/lib/{version}/site-packages/"),
        (sysconfig.get_paths()["stdlib"] + "/", f"/usr/lib/{version}/"),
        (str(sysconfig.get_config_var("LIBDIR")) + "/", "/usr/lib/"),
        (str(JOB.parent) + "/", "/job/"),
    ]
    return sorted(pairs, key=lambda pair: -len(pair[0]))


def rewrite(text: str) -> str:
    for old, new in neutral_paths():
        text = text.replace(old, new)
    return text


def read_pids(path: Path) -> list[dict[str, str]]:
    rows = []
    for line in path.read_text().splitlines():
        rows.append(dict(part.split("=", 1) for part in line.split()))
    return rows


def find_pid(rows: list[dict[str, str]], role: str, rank: int, worker: int | None) -> int:
    for row in rows:
        same_process = row.get("role") == role and int(row["rank"]) == rank
        if same_process and (worker is None or int(row.get("worker", -1)) == worker):
            return int(row["pid"])
    raise LookupError(f"no {role} rank={rank} worker={worker} in {rows}")


def dump(pid: int, native: bool = False) -> str:
    argv = ["py-spy", "dump", "--json", "--pid", str(pid)]
    argv += ["--native"] if native else ["--nonblocking"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=True)
    json.loads(done.stdout)  # must be valid JSON
    return rewrite(done.stdout)


def run_scenario(name: str) -> None:
    args, wait_seconds, outputs = SCENARIOS[name]
    torchrun = shutil.which("torchrun") or str(Path(sys.executable).parent / "torchrun")
    with tempfile.TemporaryDirectory() as tmp:
        pid_file = Path(tmp) / "pids.txt"
        argv = [
            torchrun,
            "--standalone",
            "--nproc_per_node",
            "2",
            str(JOB),
            *args,
            "--pid-file",
            str(pid_file),
            "--checkpoint-dir",
            tmp,
        ]
        job = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        try:
            time.sleep(wait_seconds)
            rows = read_pids(pid_file)
            for out_name, (role, rank, worker) in outputs.items():
                pid = find_pid(rows, role, rank, worker)
                (HERE / f"{out_name}.json").write_text(dump(pid))
                if out_name.endswith("-b"):
                    continue
                time.sleep(0.5)
            if name == "stall":
                pid = find_pid(rows, "rank", 0, None)
                (HERE / "stall-rank0-main-native.json").write_text(dump(pid, native=True))
        finally:
            os.killpg(job.pid, signal.SIGKILL)
            job.wait()


def capture_errors() -> None:
    """stderr of py-spy for the failures the sampler must tell apart."""
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        done = subprocess.run(
            ["py-spy", "dump", "--json", "--nonblocking", "--pid", str(sleeper.pid)],
            capture_output=True,
            text=True,
            timeout=30,
        )
        (HERE / "error-not-python.txt").write_text(done.stderr)
    finally:
        sleeper.kill()
        sleeper.wait()
    done = subprocess.run(
        ["py-spy", "dump", "--json", "--nonblocking", "--pid", str(sleeper.pid)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    (HERE / "error-no-such-process.txt").write_text(re.sub(r"\d{3,}", "<pid>", done.stderr))


def main(argv: list[str]) -> int:
    names = argv or [*SCENARIOS, "errors"]
    for name in names:
        print(f"capturing {name}", flush=True)
        if name == "errors":
            capture_errors()
        else:
            run_scenario(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
