"""Shared fixtures: run the real `rankwatch` CLI as a subprocess and read its alert log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent


def rankwatch_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "monitor", *args]


def child_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


def read_alerts(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def wait_for_alert(path: Path, predicate: Any, timeout: float) -> dict[str, Any] | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for record in read_alerts(path):
            if predicate(record):
                return record
        time.sleep(0.1)
    return None


@pytest.fixture
def run_cli(tmp_path: Path) -> Any:
    def run(*args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            rankwatch_argv(*args),
            cwd=tmp_path,
            env=child_env(**env),
            capture_output=True,
            timeout=timeout,
            check=False,
        )

    return run
