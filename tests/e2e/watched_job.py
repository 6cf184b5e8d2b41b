"""Running the real `rankwatch run` around the real torch job (tests/e2e/torch_job.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
JOB = Path(__file__).resolve().parent / "torch_job.py"
Record = dict[str, Any]


class WatchedJob:
    """rankwatch wrapping torchrun wrapping tests/e2e/torch_job.py."""

    def __init__(self, tmp_path: Path, *job_args: str, env: dict[str, str] | None = None) -> None:
        tmp_path.mkdir(parents=True, exist_ok=True)
        self.alert_log = tmp_path / "alerts.jsonl"
        self.pid_file = tmp_path / "pids.txt"
        self.state_dir = tmp_path / "state"
        self.output = tmp_path / "output.txt"
        argv = [
            sys.executable, "-m", "monitor", "run",
            "--alert-log", str(self.alert_log),
            "--state-dir", str(self.state_dir),
            "--metrics-addr", "",
            "--",
            sys.executable, "-m", "torch.distributed.run",
            "--standalone", "--nproc_per_node", "2",
            str(JOB), *job_args,
            "--pid-file", str(self.pid_file),
            "--checkpoint-dir", str(tmp_path),
        ]  # fmt: skip
        child_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
        self._out = self.output.open("wb")
        self.proc = subprocess.Popen(
            argv, cwd=tmp_path, env=child_env, stdout=self._out, stderr=subprocess.STDOUT
        )

    def pids(self, role: str, rank: int, count: int = 1, timeout: float = 120.0) -> list[int]:
        """Pids the job announced for `role` on `rank`, once `count` of them are known."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            rows = []
            if self.pid_file.exists():
                for line in self.pid_file.read_text().splitlines():
                    rows.append(dict(part.split("=", 1) for part in line.split()))
            found = [
                int(r["pid"]) for r in rows if r.get("role") == role and int(r["rank"]) == rank
            ]
            if len(found) >= count:
                return found
            assert self.proc.poll() is None, self.tail()
            time.sleep(0.2)
        raise TimeoutError(f"{role} of rank {rank} never announced\n{self.tail()}")

    def worker_pid(self, rank: int, worker: int) -> int:
        for line in self.pid_file.read_text().splitlines():
            row = dict(part.split("=", 1) for part in line.split())
            if (
                row.get("role") == "worker"
                and int(row["rank"]) == rank
                and int(row["worker"]) == worker
            ):
                return int(row["pid"])
        raise LookupError(f"worker {worker} of rank {rank}")

    def wait_for_steps(self, step: int, timeout: float = 120.0) -> None:
        needle = f"step {step}/".encode()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if needle in self.output.read_bytes():
                return
            assert self.proc.poll() is None, self.tail()
            time.sleep(0.2)
        raise TimeoutError(f"no {needle!r} in the output\n{self.tail()}")

    def records(self) -> list[Record]:
        if not self.alert_log.exists():
            return []
        lines = self.alert_log.read_text().splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def wait_for(self, match: Callable[[Record], bool], timeout: float) -> Record | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for record in self.records():
                if match(record):
                    return record
            time.sleep(0.1)
        return None

    def tail(self) -> str:
        return self.output.read_bytes()[-4000:].decode(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._out.close()


def stall_time(job: WatchedJob) -> float | None:
    """Unix time at which the job's stalling worker blocked (from its `event=stall` line)."""
    if not job.pid_file.exists():
        return None
    for line in job.pid_file.read_text().splitlines():
        row = dict(part.split("=", 1) for part in line.split())
        if row.get("event") == "stall":
            return float(row["at"])
    return None
