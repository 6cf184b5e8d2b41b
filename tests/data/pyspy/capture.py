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

# scenario → (torch_job arguments, {output name: (role, rank, worker, awaited function)}).
# Each process is dumped once the awaited function shows in its main thread ("" = at once).
Wanted = tuple[str, int, "int | None", str]
SCENARIOS: dict[str, tuple[list[str], dict[str, Wanted]]] = {
    "stall": (
        ["--mode", "stall_worker", "--steps", "1000", "--fault-step", "5"],
        {
            "stall-rank1-worker0-busy": ("worker", 1, 0, "Event.wait"),
            "stall-rank1-worker1-idle": ("worker", 1, 1, "_worker_loop"),
            "stall-rank1-main": ("rank", 1, None, "_try_get_data"),
            "stall-rank0-main": ("rank", 0, None, "_engine_run_backward"),
        },
    ),
    "checkpoint": (
        ["--mode", "checkpoint_40s", "--steps", "1000", "--fault-step", "5"],
        {
            "checkpoint-rank0-save": ("rank", 0, None, "ThrottledFile.write"),
            "checkpoint-rank1-barrier": ("rank", 1, None, "barrier"),
        },
    ),
    "init": (
        ["--mode", "init_wait", "--init-delay-seconds", "120"],
        {"init-rank0-rendezvous": ("rank", 0, None, "init_process_group")},
    ),
    "busy": (
        ["--mode", "busy_user", "--steps", "1000", "--fault-step", "5"],
        {
            "busy-rank1-user-loop": ("rank", 1, None, "spin_in_user_code"),
            "busy-rank0-backward": ("rank", 0, None, "_engine_run_backward"),
        },
    ),
    "healthy": (
        ["--mode", "healthy", "--steps", "100000", "--item-seconds", "0.002"],
        {
            "healthy-rank0-a": ("rank", 0, None, "Tensor.backward"),
            "healthy-rank1-a": ("rank", 1, None, "__next__"),
            "healthy-rank0-b": ("rank", 0, None, "DistributedDataParallel.forward"),
            "healthy-rank1-b": ("rank", 1, None, ""),
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
    if not path.exists():
        return []
    return [
        dict(part.split("=", 1) for part in line.split()) for line in path.read_text().splitlines()
    ]


def find_pid(path: Path, role: str, rank: int, worker: int | None, deadline: float) -> int:
    while time.monotonic() < deadline:
        for row in read_pids(path):
            same_process = row.get("role") == role and int(row["rank"]) == rank
            if same_process and (worker is None or int(row.get("worker", -1)) == worker):
                return int(row["pid"])
        time.sleep(0.5)
    raise LookupError(f"no {role} rank={rank} worker={worker} in {path}")


def dump(pid: int, native: bool = False) -> str:
    argv = ["py-spy", "dump", "--json", "--pid", str(pid)]
    argv += ["--native"] if native else ["--nonblocking"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=True)
    json.loads(done.stdout)  # must be valid JSON
    return rewrite(done.stdout)


def dump_when(pid: int, function: str, deadline: float) -> str:
    """Dump `pid` once `function` is in its main thread's stack (nonblocking dumps can race
    with the interpreter: retry those too)."""
    while time.monotonic() < deadline:
        try:
            text = dump(pid)
        except (subprocess.CalledProcessError, json.JSONDecodeError):
            time.sleep(0.5)
            continue
        threads = json.loads(text)
        main = next((t for t in threads if t["os_thread_id"] == pid), threads[0])
        if not function or any(f["name"].endswith(function) for f in main["frames"]):
            return text
        time.sleep(0.3)
    raise TimeoutError(f"{function} never showed in {pid}")


def run_scenario(name: str) -> None:
    args, outputs = SCENARIOS[name]
    torchrun = shutil.which("torchrun") or str(Path(sys.executable).parent / "torchrun")
    with tempfile.TemporaryDirectory() as tmp:
        pid_file = Path(tmp) / "pids.txt"
        argv = [
            torchrun, "--standalone", "--nproc_per_node", "2", str(JOB),
            *args, "--pid-file", str(pid_file), "--checkpoint-dir", tmp,
        ]  # fmt: skip
        # A clean environment and a neutral working directory for the job.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        job = subprocess.Popen(
            argv,
            cwd=tmp,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 240
            for out_name, (role, rank, worker, function) in outputs.items():
                pid = find_pid(pid_file, role, rank, worker, deadline)
                (HERE / f"{out_name}.json").write_text(dump_when(pid, function, deadline))
            if name == "stall":
                pid = find_pid(pid_file, "rank", 0, None, deadline)
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
