"""Benchmark: what clock watching costs, and how accurate the SNTP offset is.

1. CPU per minute of daemon time: the per-call CPU of each part (local clock probe, detector,
   one SNTP measurement, one chronyc call) composed at the default cadence; then a real clock
   daemon at default settings against a reference run of the bare daemon loop in the same test.
2. SNTP accuracy on loopback, where the true offset is exactly zero (server and client share
   this host's clock), against chronyd's own estimate; and under libfaketime with a known shift.

Duration: RW_BENCH_CLOCK_SECONDS (default 60) per daemon run; RW_BENCH_QUICK=1
shortens everything.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from monitor.detectors.time_sync import ClockDetector
from monitor.parse.time_sync_model import ClockMeasurement, ClockReading
from monitor.settings import ClockSettings
from monitor.sources.time_sync_probe import ClockReferenceProbe, LocalClockProbe
from tests.benchmarks.report import progress, record
from tests.chrony_support import Chronyd, start_client, start_server

QUICK = os.environ.get("RW_BENCH_QUICK") == "1"
DAEMON_SECONDS = float(os.environ.get("RW_BENCH_CLOCK_SECONDS", "15" if QUICK else "60"))
ROUNDS = 10 if QUICK else 40
REPO = Path(__file__).resolve().parents[2]
LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"


@pytest.fixture(scope="module")
def chrony_pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Chronyd, Chronyd]]:
    server = start_server(tmp_path_factory.mktemp("server"))
    client = start_client(tmp_path_factory.mktemp("client"), server.ntp_port)
    yield server, client
    client.stop()
    server.stop()


def cpu_per_call(call: Callable[[], object], repeats: int) -> float:
    """CPU seconds per call: this thread's CPU plus any children's (chronyc)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.thread_time()
    for _ in range(repeats):
        call()
    own = time.thread_time() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = (after.ru_utime - children.ru_utime) + (after.ru_stime - children.ru_stime)
    return (own + child) / repeats


@pytest.mark.benchmark
def test_clock_probe_cpu_per_minute(chrony_pair: tuple[Chronyd, Chronyd], tmp_path: Path) -> None:
    """Per-part CPU composed per minute, then a real daemon against the bare daemon loop."""
    server, client = chrony_pair
    defaults = ClockSettings()
    sntp = ClockSettings(chronyc="", ntp_servers=(f"127.0.0.1:{server.ntp_port}",))
    chrony = ClockSettings(chronyc="chronyc", chronyc_host=str(client.command_socket))

    local = LocalClockProbe(defaults)
    local.poll(0.0)
    local_cpu = cpu_per_call(lambda: local.poll(0.0), 20_000)
    detector = ClockDetector(defaults, "bench")
    reading = ClockReading(1.0, 1.7e9, 1.0, 1.0, 1.0, 1.0, 1e-6)
    detect_cpu = cpu_per_call(lambda: detector.observe(reading, 1.0), 20_000)
    sntp_probe = ClockReferenceProbe(sntp)
    sntp_cpu = cpu_per_call(lambda: sntp_probe.poll(time.monotonic()), 5 if QUICK else 20)
    chrony_probe = ClockReferenceProbe(chrony)
    chrony_cpu = cpu_per_call(lambda: chrony_probe.poll(time.monotonic()), 5 if QUICK else 20)

    per_minute_local = 60 / defaults.step_check_seconds * (local_cpu + detect_cpu)
    per_minute_ref = 60 / defaults.offset_interval_seconds
    composed_sntp = per_minute_local + per_minute_ref * sntp_cpu
    composed_chrony = per_minute_local + per_minute_ref * chrony_cpu
    record("clock", "local probe, CPU per call", f"{local_cpu * 1e6:.1f} us")
    record("clock", "detector, CPU per call", f"{detect_cpu * 1e6:.1f} us")
    record(
        "clock",
        f"SNTP measurement ({defaults.sntp_samples} samples), CPU per call",
        f"{sntp_cpu * 1e3:.2f} ms",
    )
    record(
        "clock", "chronyc tracking (incl. the child), CPU per call", f"{chrony_cpu * 1e3:.2f} ms"
    )
    record(
        "clock",
        "composed per minute at defaults, SNTP",
        f"{composed_sntp * 1e3:.2f} ms/min = {composed_sntp / 60 * 100:.4f}% of one core",
    )
    record(
        "clock",
        "composed per minute at defaults, chrony",
        f"{composed_chrony * 1e3:.2f} ms/min = {composed_chrony / 60 * 100:.4f}% of one core",
    )

    progress(f"clock daemon at defaults, {DAEMON_SECONDS:.0f} s")
    clock_cpu = daemon_cpu_per_minute(tmp_path / "clock", server, enabled=True)
    progress(f"bare daemon loop, {DAEMON_SECONDS:.0f} s")
    bare_cpu = daemon_cpu_per_minute(tmp_path / "bare", server, enabled=False)
    record(
        "clock",
        f"clock daemon at defaults over {DAEMON_SECONDS:.0f} s, CPU",
        f"{clock_cpu * 1e3:.1f} ms/min",
    )
    record("clock", "bare daemon loop (reference), CPU", f"{bare_cpu * 1e3:.1f} ms/min")
    record(
        "clock",
        "clock watching adds",
        f"{(clock_cpu - bare_cpu) * 1e3:.1f} ms/min = {(clock_cpu - bare_cpu) / 60 * 100:.3f}% "
        f"of one core ("
        + (f"{clock_cpu / bare_cpu:.2f}x the bare loop" if bare_cpu > 0 else
           "the bare loop used less than the 10 ms CPU clock tick")
        + ")",
    )


def daemon_cpu_per_minute(workdir: Path, server: Chronyd, *, enabled: bool) -> float:
    workdir.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RANKWATCH_")}
    env.update(
        PYTHONPATH=str(REPO),
        RANKWATCH_CLOCK_ENABLED="true" if enabled else "false",
        RANKWATCH_CLOCK_CHRONYC="",
        RANKWATCH_CLOCK_NTP_SERVERS=f"127.0.0.1:{server.ntp_port}",
        RANKWATCH_LOG_LEVEL="warning",
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.e2e.clock_daemon",
            str(workdir / "a.jsonl"),
            str(workdir / "s.json"),
        ],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    me = psutil.Process(proc.pid)
    try:
        time.sleep(3.0)  # imports and start-up are not steady-state cost
        cpu0, t0 = sum(me.cpu_times()[:2]), time.monotonic()
        time.sleep(DAEMON_SECONDS)
        cpu1, t1 = sum(me.cpu_times()[:2]), time.monotonic()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return float(cpu1 - cpu0) / (t1 - t0) * 60


@pytest.mark.benchmark
def test_sntp_accuracy_against_chrony(chrony_pair: tuple[Chronyd, Chronyd]) -> None:
    """On loopback the true offset is 0: SNTP's error next to chronyd's own estimate."""
    server, client = chrony_pair
    sntp_probe = ClockReferenceProbe(
        ClockSettings(
            chronyc="", ntp_servers=(f"127.0.0.1:{server.ntp_port}",), sntp_sample_gap_seconds=0.05
        )
    )
    chrony_probe = ClockReferenceProbe(
        ClockSettings(chronyc="chronyc", chronyc_host=str(client.command_socket))
    )
    sntp: list[ClockMeasurement] = []
    chrony: list[ClockMeasurement] = []
    for _ in range(ROUNDS):
        sntp += [o for o in sntp_probe.poll(time.monotonic()) if isinstance(o, ClockMeasurement)]
        chrony += [
            o for o in chrony_probe.poll(time.monotonic()) if isinstance(o, ClockMeasurement)
        ]
        time.sleep(0.1)
    s_off = [m.offset_seconds or 0.0 for m in sntp]
    c_off = [m.offset_seconds or 0.0 for m in chrony]
    within = sum(abs(m.offset_seconds or 0.0) <= (m.uncertainty_seconds or 0.0) for m in sntp)
    delays = [m.delay_seconds or 0.0 for m in sntp]
    s_err = statistics.fmean(abs(x) for x in s_off)
    c_err = statistics.fmean(abs(x) for x in c_off)
    record(
        "clock",
        f"SNTP on loopback ({len(sntp)} measurements of {ClockSettings().sntp_samples} samples)",
        f"mean |offset| {s_err * 1e6:.1f} us, max {max(map(abs, s_off)) * 1e6:.1f} us, "
        f"stdev {statistics.pstdev(s_off) * 1e6:.1f} us",
    )
    record("clock", "SNTP on loopback, median delay", f"{statistics.median(delays) * 1e6:.1f} us")
    record("clock", "SNTP |offset| within its uncertainty", f"{within}/{len(sntp)}")
    record(
        "clock",
        "chronyd's estimate (reference)",
        f"mean |offset| {c_err * 1e6:.2f} us, max {max(map(abs, c_off)) * 1e6:.2f} us",
    )
    record("clock", "SNTP error / chronyd error", f"{s_err / c_err:.1f}x")
    progress("SNTP under libfaketime")
    shifted = sntp_under_faketime(server.ntp_port, shift=-0.25)
    errors = [abs(x - -0.25) for x in shifted]
    record(
        "clock",
        f"SNTP, client clock shifted -0.250 s by libfaketime ({len(shifted)} measurements)",
        f"mean error {statistics.fmean(errors) * 1e6:.1f} us, max {max(errors) * 1e6:.1f} us",
    )


def sntp_under_faketime(port: int, shift: float) -> list[float]:
    env = dict(
        os.environ,
        LD_PRELOAD=LIBFAKETIME,
        FAKETIME=f"{shift:+}",
        FAKETIME_DONT_FAKE_MONOTONIC="1",
        PYTHONPATH=str(REPO),
    )
    out = subprocess.run(
        [sys.executable, "-m", "tests.benchmarks.bench_clock", "measure", str(port), str(ROUNDS)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    return [float(line) for line in out.split()]


def _measure(port: int, rounds: int) -> None:
    probe = ClockReferenceProbe(
        ClockSettings(chronyc="", ntp_servers=(f"127.0.0.1:{port}",), sntp_sample_gap_seconds=0.05)
    )
    for _ in range(rounds):
        for obs in probe.poll(time.monotonic()):
            if isinstance(obs, ClockMeasurement):
                print(obs.offset_seconds)


if __name__ == "__main__" and sys.argv[1:2] == ["measure"]:
    _measure(int(sys.argv[2]), int(sys.argv[3]))
