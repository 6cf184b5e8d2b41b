"""The clock daemon under libfaketime against a real loopback chronyd server.

libfaketime shifts only the daemon's wall clock (FAKETIME_DONT_FAKE_MONOTONIC=1), which is what
a real offset or a real step does: CLOCK_MONOTONIC and CLOCK_BOOTTIME never move with the wall
clock. The NTP server runs unshifted, so the daemon's SNTP measurement sees the fake offset.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from monitor.detectors.time_sync import format_duration
from tests.chrony_support import Chronyd, start_server

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
# The MT build serialises its clock calls: the plain one parses the offset file into static
# buffers without a lock, so a thread reading the clock while another re-reads the file can
# see "+0" for a moment, a step the daemon would rightly report (libfaketime PR #547).
LIBFAKETIME_CANDIDATES = [
    "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1",
    "/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1",
    "/usr/lib/faketime/libfaketimeMT.so.1",
]
WAIT_SECONDS = 60.0


def libfaketime() -> str:
    for candidate in LIBFAKETIME_CANDIDATES:
        if os.path.exists(candidate):
            return candidate
    pytest.fail("libfaketimeMT.so.1 not found: install the Debian package 'faketime'")


def set_fake_offset(path: Path, seconds: float) -> None:
    """Replace libfaketime's offset file atomically: it re-reads the file on every clock call,
    and a truncated file read mid-write would be a jump of its own."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(f"{seconds:+}\n")
    os.replace(tmp, path)


@pytest.fixture(scope="module")
def ntp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chronyd]:
    server = start_server(tmp_path_factory.mktemp("chrony-server"))
    yield server
    server.stop()


class ClockDaemon:
    def __init__(self, workdir: Path, env: dict[str, str]) -> None:
        self.alert_log = workdir / "alerts.jsonl"
        self.snapshot = workdir / "snapshot.json"
        self.output = (workdir / "daemon.log").open("wb")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.e2e.clock_daemon",
                str(self.alert_log),
                str(self.snapshot),
            ],
            cwd=REPO,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self.output,
            stderr=subprocess.STDOUT,
        )
        self.workdir = workdir

    def records(self) -> list[dict[str, Any]]:
        if not self.alert_log.exists():
            return []
        return [json.loads(line) for line in self.alert_log.read_text().splitlines() if line]

    def metrics(self) -> dict[str, Any]:
        if not self.snapshot.exists():
            return {}
        families: dict[str, Any] = json.loads(self.snapshot.read_text())["families"]
        return families

    def wait_for(self, what: str, check: Callable[[], Any]) -> Any:
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"daemon exited {self.process.returncode}: {self.log()}")
            result = check()
            if result:
                return result
            time.sleep(0.1)
        pytest.fail(f"timed out waiting for {what}; records={self.records()} log={self.log()}")

    def firing(self, alertname: str, count: int = 1) -> list[dict[str, Any]]:
        def check() -> list[dict[str, Any]]:
            found = [
                r for r in self.records() if r["alertname"] == alertname and r["status"] == "firing"
            ]
            return found if len(found) >= count else []

        found: list[dict[str, Any]] = self.wait_for(f"{count} {alertname}", check)
        return found

    def log(self) -> str:
        self.output.flush()
        return (self.workdir / "daemon.log").read_text(errors="replace")[-4000:]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.output.close()


@pytest.fixture()
def run_daemon(tmp_path: Path, ntp_server: Chronyd) -> Iterator[Callable[..., ClockDaemon]]:
    daemons: list[ClockDaemon] = []

    def start(faketime: dict[str, str], **clock: str) -> ClockDaemon:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RANKWATCH_", "FAKETIME"))}
        env.update(
            LD_PRELOAD=libfaketime(),
            FAKETIME_DONT_FAKE_MONOTONIC="1",
            PYTHONPATH=str(REPO),
            RANKWATCH_NODE_NAME="gpu017",
            RANKWATCH_JOB_ID="4242",
            RANKWATCH_TICK_SECONDS="0.1",
            RANKWATCH_CLOCK_CHRONYC="",
            RANKWATCH_CLOCK_NTP_SERVERS=f"127.0.0.1:{ntp_server.ntp_port}",
            RANKWATCH_CLOCK_STEP_CHECK_SECONDS="0.2",
            RANKWATCH_CLOCK_OFFSET_INTERVAL_SECONDS="1",
            RANKWATCH_CLOCK_SNTP_SAMPLE_GAP_SECONDS="0.02",
        )
        env.update(faketime)
        env.update({f"RANKWATCH_CLOCK_{k.upper()}": v for k, v in clock.items()})
        daemon = ClockDaemon(tmp_path, env)
        daemons.append(daemon)
        return daemon

    yield start
    for daemon in daemons:
        daemon.stop()


@pytest.mark.parametrize(("shift", "word"), [(-2.5, "behind"), (1.5, "ahead of")])
def test_faked_offset_raises_offset_alert(
    run_daemon: Callable[..., ClockDaemon], ntp_server: Chronyd, shift: float, word: str
) -> None:
    """A daemon whose wall clock is shifted reports ClockOffsetHigh with that sign and size."""
    daemon = run_daemon({"FAKETIME": f"{shift:+}"})
    (alert,) = daemon.firing("ClockOffsetHigh")
    offset = alert["evidence"]["offset_seconds"]
    assert offset == pytest.approx(shift, abs=0.05)
    # (the summary states the measured offset to the millisecond: under load it may read
    # 2.499 for a 2.5 s shift)
    said = re.search(rf"(\d+\.\d{{3}}) s {word} 127\.0\.0\.1:{ntp_server.ntp_port}\b",
                     alert["summary"])
    assert said is not None, alert["summary"]
    assert float(said.group(1)) == pytest.approx(abs(shift), abs=0.05)
    assert alert["labels"] == {"job": "4242", "node": "gpu017"}
    assert alert["category"] == "clock" and alert["severity"] == "warning"
    metrics = daemon.wait_for("offset metric", lambda: daemon.metrics().get("clock_offset_seconds"))
    assert metrics[0][1] == pytest.approx(shift, abs=0.05)


def test_faked_backwards_jumps_raise_step_alerts_with_period(
    run_daemon: Callable[..., ClockDaemon], tmp_path: Path
) -> None:
    """Backwards jumps of the daemon's clock mid-run: a step alert per jump, then the period."""
    stamp = tmp_path / "faketime.txt"
    set_fake_offset(stamp, 0.0)
    daemon = run_daemon(
        {"FAKETIME_TIMESTAMP_FILE": str(stamp), "FAKETIME_NO_CACHE": "1"},
        step_alert_hold_seconds="1",
        periodic_min_steps="3",
    )

    def readings_seen() -> bool:
        observed = {tuple(k): v for k, v in daemon.metrics().get("observations", [])}
        return float(observed.get(("clock_local",), 0)) >= 3

    daemon.wait_for("clock readings", readings_seen)
    assert daemon.records() == []  # undisturbed, the clock agrees with the server
    shifts = [-3.0, -4.5, -6.0]  # cumulative: the clock steps back 3 s, then 1.5 s twice
    start = time.monotonic()
    for index, shift in enumerate(shifts):  # on a fixed 2 s schedule, like an NTP client's
        time.sleep(max(0.0, start + 2.0 * index - time.monotonic()))
        set_fake_offset(stamp, shift)
    stepped = daemon.firing("ClockSteppedBackwards", count=3)
    # (the summary prints the step to the millisecond: under load the paired reads of the two
    # clocks can differ by one)
    said = re.search(r"gpu017: clock stepped back (\d+\.\d{3}) s", stepped[0]["summary"])
    assert said is not None, stepped[0]["summary"]
    assert float(said[1]) == pytest.approx(3.0, abs=0.05)
    assert stepped[0]["evidence"]["step_seconds"] == pytest.approx(-3.0, abs=0.05)
    assert stepped[1]["evidence"]["step_seconds"] == pytest.approx(-1.5, abs=0.05)
    (periodic,) = daemon.firing("ClockStepsPeriodic")
    assert periodic["evidence"]["period_seconds"] == pytest.approx(2.0, abs=0.4)
    assert f"every {format_duration(periodic['evidence']['period_seconds'])}" in periodic["summary"]

    def backward_steps() -> float:
        steps = {tuple(k): v for k, v in daemon.metrics().get("clock_steps", [])}
        return float(steps.get(("backward",), 0))

    daemon.wait_for("3 backward steps counted", lambda: backward_steps() == 3)
    offset = daemon.firing("ClockOffsetHigh")[0]["evidence"]["offset_seconds"]
    assert offset < -2.9  # the SNTP measurement sees the stepped clock too


def test_no_reference_shows_unknown_not_ok(run_daemon: Callable[..., ClockDaemon]) -> None:
    """Without chronyd and NTP servers the daemon says the clock is UNKNOWN and the source down."""
    daemon = run_daemon({"FAKETIME": "+0"}, ntp_servers="")

    def blind() -> bool:
        families = daemon.metrics()
        up = {tuple(k): v for k, v in families.get("source_up", [])}
        health = {tuple(k): v for k, v in families.get("health", [])}
        return up.get(("clock_reference",)) == 0 and health.get(("clock", "unknown")) == 1

    daemon.wait_for("clock concern unknown", blind)
    concerns = json.loads(daemon.snapshot.read_text())["concerns"]
    assert concerns["clock"][0] == "unknown"
    assert "no time reference" in concerns["clock"][1]
    assert not [r for r in daemon.records() if r["alertname"] == "ClockOffsetHigh"]
