"""`rankwatch status` against a real sidecar: its lifecycle, concerns and firing alerts from the
metrics endpoint, and the recorded alerts (info included) from its alert log."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import child_env, rankwatch_argv
from tests.e2e.services import free_port

pytestmark = pytest.mark.e2e

JOB = "import time\nfor i in range(1, 10**6):\n    print(f'step {i}', flush=True)\n    time.sleep(0.2)\n"


def status(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        rankwatch_argv("status", *args), capture_output=True, text=True, env=child_env(), timeout=30
    )


def test_status_shows_the_lifecycle_and_the_info_records_of_a_stop(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "alerts.jsonl"
    proc = subprocess.Popen(
        rankwatch_argv(
            "run", "--metrics-addr", f"127.0.0.1:{port}", "--alert-log", str(log),
            "--", sys.executable, "-c", JOB,
        ),
        env=child_env(RANKWATCH_RAS_ENABLED="false"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/metrics"
    try:
        deadline = time.monotonic() + 60
        seen = ""
        while time.monotonic() < deadline:
            done = status("--metrics-url", url)
            seen = done.stdout
            if done.returncode == 0 and ": running," in seen:
                break
            time.sleep(1.0)
        assert ": running, 0 incident(s) open" in seen, seen
        assert "concerns: " in seen and "process ok" in seen and "firing: nothing" in seen
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    after = status("--metrics-url", url, "--alert-log", str(log))
    assert after.returncode == 1 and "no rankwatch metrics at" in after.stdout  # it stopped
    assert "INFO" in after.stdout and "RankDead culprit 0" in after.stdout, after.stdout
