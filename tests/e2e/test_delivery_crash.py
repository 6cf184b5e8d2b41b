"""Crash safety: an alert survives SIGKILL of the daemon and reaches each receiver once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.delivery_support.receivers import PD_ACCEPTED, SLACK_OK, Receiver, free_port

pytestmark = pytest.mark.e2e

REPO_ROOT = Path(__file__).resolve().parents[2]
ROUTING_KEY = "CrashTestRoutingKey0123456789abc"
SLACK_PATH = "/services/TCRASH/BCRASH/CrashHookSecret"


class DaemonProcess:
    """tests/e2e/delivery_daemon.py as a child process, its stdout collected line by line."""

    def __init__(self, args: list[str]) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.e2e.delivery_daemon", *args],
            cwd=REPO_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._cond:
                self.lines.append(line.rstrip("\n"))
                self._cond.notify_all()

    def wait_for(self, predicate: Callable[[str], bool], timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for line in self.lines:
                    if predicate(line):
                        return line
                left = deadline - time.monotonic()
                if left <= 0 or (self.process.poll() is not None and not self._reader.is_alive()):
                    raise AssertionError("daemon output never matched:\n" + "\n".join(self.lines))
                self._cond.wait(min(left, 0.5))

    def wait_status(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        def matches(line: str) -> bool:
            return line.startswith("STATUS ") and predicate(json.loads(line[7:]))

        return dict(json.loads(self.wait_for(matches)[7:]))

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        self._reader.join(timeout=10)

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)
        self._reader.join(timeout=10)


def test_alert_survives_sigkill_and_is_delivered_exactly_once(tmp_path: Path) -> None:
    """Run 1 cannot reach the receivers (connection refused) and is SIGKILLed; run 2 starts on
    the same state directory once the receivers are up, submits nothing, and delivers the
    spooled alert; run 2 is SIGKILLed too, and run 3, whose detectors fire the same alert
    again, sends nothing new until the resolve. Each receiver sees exactly one trigger and one
    resolve, and no secret appears in any daemon output."""
    pd_port, slack_port = free_port(), free_port()
    key_file = tmp_path / "routing_key"
    key_file.write_text(ROUTING_KEY + "\n")
    slack_file = tmp_path / "slack_url"
    slack_file.write_text(f"http://127.0.0.1:{slack_port}{SLACK_PATH}\n")
    for secret in (key_file, slack_file):
        secret.chmod(0o600)
    state = tmp_path / "state"
    args = [
        "--state-dir", str(state),
        "--pagerduty-url", f"http://127.0.0.1:{pd_port}/v2/enqueue",
        "--routing-key-file", str(key_file),
        "--slack-url-file", str(slack_file),
    ]  # fmt: skip
    outputs: list[str] = []

    first = DaemonProcess([*args, "--submit", "firing"])
    first.wait_for(lambda line: line == "SUBMITTED firing")
    first.wait_status(lambda s: s["pagerduty"]["retries"] >= 2 and s["slack"]["retries"] >= 2)
    first.kill()
    outputs += first.lines
    assert len(list((state / "delivery" / "pagerduty" / "pending").glob("*.json"))) == 1

    with (
        Receiver(default=PD_ACCEPTED, port=pd_port) as pd,
        Receiver(default=SLACK_OK, port=slack_port) as slack,
    ):
        second = DaemonProcess(args)  # submits nothing: only the spool can deliver
        second.wait_status(
            lambda s: s["pagerduty"]["delivered"] == 1 and s["slack"]["delivered"] == 1
        )
        time.sleep(0.5)
        second.kill()
        outputs += second.lines

        third = DaemonProcess([*args, "--submit", "firing,resolved"])
        final = third.wait_status(
            lambda s: s["pagerduty"]["delivered"] == 1 and s["slack"]["delivered"] == 1
        )
        time.sleep(0.5)
        third.stop()
        outputs += third.lines
        pd_events = [(r.json["dedup_key"], r.json["event_action"]) for r in pd.snapshot()]
        slack_messages = [r.json["text"] for r in slack.snapshot()]

    assert final["pagerduty"]["skipped"] == {"already_delivered": 1}
    dedup_key = pd_events[0][0]
    assert pd_events == [(dedup_key, "trigger"), (dedup_key, "resolve")]
    assert len(slack_messages) == 2
    assert "[CRITICAL]" in slack_messages[0]
    assert "[RESOLVED]" in slack_messages[1]
    text = "\n".join(outputs)
    assert "STOPPED" in text
    assert ROUTING_KEY not in text
    assert "CrashHookSecret" not in text
