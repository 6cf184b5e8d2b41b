"""Benchmark: the daemon's own cost watching 8 simulated ranks × 4 workers at default intervals.

Prints CPU seconds per minute (and % of one core) and peak RSS of the rankwatch process itself,
with a bare Python interpreter's RSS measured in the same run as the reference.
Duration: RW_BENCH_OVERHEAD_SECONDS (default 60).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.conftest import child_env, rankwatch_argv


@pytest.mark.benchmark
def test_daemon_overhead(tmp_path: Path) -> None:
    """CPU per minute and RSS of the daemon (targets: < 1% of a core, < 80 MB)."""
    seconds = float(os.environ.get("RW_BENCH_OVERHEAD_SECONDS", "60"))
    job = [sys.executable, str(Path(__file__).parent / "sim_job.py"), "8", "4", str(seconds)]
    proc = subprocess.Popen(
        rankwatch_argv("run", "--metrics-addr", "127.0.0.1:0", "--", *job),
        cwd=tmp_path,
        env=child_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    me = psutil.Process(proc.pid)
    time.sleep(min(5.0, seconds / 4))  # start-up (imports) is not steady-state overhead
    cpu0 = sum(me.cpu_times()[:2])
    t0 = t1 = time.monotonic()
    cpu1 = cpu0
    peak_rss = 0
    workers_seen = 0
    while proc.poll() is None and time.monotonic() - t0 < seconds:
        try:
            peak_rss = max(peak_rss, me.memory_info().rss)
            cpu1 = sum(me.cpu_times()[:2])
            workers_seen = max(workers_seen, len(me.children(recursive=True)))
        except psutil.NoSuchProcess:
            break
        t1 = time.monotonic()
        time.sleep(1.0)
    proc.wait(timeout=120)
    per_minute = (cpu1 - cpu0) / (t1 - t0) * 60
    baseline = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3)"])
    time.sleep(1.0)
    base_rss = psutil.Process(baseline.pid).memory_info().rss
    baseline.wait()
    print(
        f"\noverhead: watched {workers_seen} processes for {t1 - t0:.0f} s; daemon CPU "
        f"{per_minute:.2f} s/min = {per_minute / 60 * 100:.2f}% of one core (target < 1%); "
        f"peak RSS {peak_rss / 2**20:.1f} MiB (target < 80 MiB), "
        f"{peak_rss / base_rss:.1f}x a bare interpreter ({base_rss / 2**20:.1f} MiB)"
    )
