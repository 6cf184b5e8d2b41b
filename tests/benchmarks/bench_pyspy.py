"""Benchmarks of the stack sampler (run by path: pytest tests/benchmarks/bench_pyspy.py).

They record figures in the benchmark table; they assert only that a measurement was taken.

1. Detection latency: a DataLoader worker of rank 1 blocks in __getitem__ in the real 2-rank
   torch job under `rankwatch run` (default settings); time from the block to the
   DataloaderStalled record in the alert log, over 5 runs. Target: median under 30 s.
2. Overhead: the job's training time with the sampler dumping every 2 s versus with the sampler
   off, in alternating runs. Target ratio: under 1.01.
3. One dump pass over 8 ranks x 8 workers (72 real Python processes). Target: under 2 s.

RW_BENCH_QUICK=1 (CI) runs fewer repetitions.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import signal
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from monitor.model import ProcessInfo, ProcessSnapshot, ProcRole, ProcState
from monitor.parse.stacks import DumpResult, StackSample
from monitor.settings import PyspySettings
from monitor.sources.pyspy import PyspySampler
from tests.benchmarks.report import progress, record
from tests.e2e.watched_job import WatchedJob, stall_time

pytestmark = pytest.mark.benchmark
QUICK = os.environ.get("RW_BENCH_QUICK") == "1"


def _stop(job: WatchedJob) -> None:
    job.stop()


@pytest.mark.timeout(1800)
def test_time_from_worker_stall_to_dataloader_stalled(tmp_path: Path) -> None:
    """Record median and max seconds from a worker blocking to the DataloaderStalled record."""
    latencies = []
    runs = 1 if QUICK else 5
    for run in range(runs):
        progress(f"stall -> DataloaderStalled, run {run + 1}/{runs}")
        job = WatchedJob(
            tmp_path / f"run{run}", "--mode", "stall_worker", "--steps", "100000",
            "--fault-step", "40",
        )  # fmt: skip
        try:
            alert = job.wait_for(
                lambda r: r["status"] == "firing" and r["alertname"] == "DataloaderStalled",
                timeout=180,
            )
            stalled_at = stall_time(job)
        finally:
            _stop(job)
        assert alert is not None and stalled_at is not None, job.tail()
        fired_at = dt.datetime.fromisoformat(alert["starts_at"].replace("Z", "+00:00"))
        latencies.append(fired_at.timestamp() - stalled_at)
        progress(
            f"run {run + 1}/{runs}: DataloaderStalled {latencies[-1]:.1f} s after the worker blocked"
        )
    record(
        "pyspy",
        f"worker stall -> DataloaderStalled ({len(latencies)} runs)",
        f"median {statistics.median(latencies):.1f} s, max {max(latencies):.1f} s "
        f"(runs: {', '.join(f'{x:.1f}' for x in latencies)} s)",
        "median < 30 s",
    )


def _training_run(tmp_path: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds of the training loop, median step compute time) of one healthy run."""
    job = WatchedJob(
        tmp_path, "--mode", "healthy", "--steps", "1000" if QUICK else "2000",
        "--hidden", "1024", "--batch-size", "64", "--item-seconds", "0", env=env,
    )  # fmt: skip
    try:
        assert job.proc.wait(timeout=600) == 0, job.tail()
    finally:
        _stop(job)
    output = job.output.read_bytes()
    totals = [float(m) for m in re.findall(rb"done \d+ steps in ([\d.]+)s", output)]
    steps = [float(m) for m in re.findall(rb"step_time ([\d.]+)s", output)]
    assert len(totals) == 2 and steps, job.tail()
    return max(totals), statistics.median(steps)


@pytest.mark.timeout(1800)
def test_training_time_with_dumps_every_2_seconds(tmp_path: Path) -> None:
    """Record training wall time and median step time with the sampler dumping every 2 s
    versus with the sampler off (alternating runs), and their ratios."""
    dumping = {
        "RANKWATCH_PYSPY_BACKGROUND_INTERVAL_SECONDS": "2",
        "RANKWATCH_PYSPY_MIN_ROUND_GAP_SECONDS": "1",
        "RANKWATCH_PYSPY_SUSPECT_IDLE_SECONDS": "1000",
    }
    off = {"RANKWATCH_PYSPY_ENABLED": "false"}
    runs: dict[str, list[tuple[float, float]]] = {"off": [], "on": []}
    count = 1 if QUICK else 3
    for run in range(count):
        for name, env in (("off", off), ("on", dumping)):
            progress(f"training run {run + 1}/{count}, sampler {name}")
            runs[name].append(_training_run(tmp_path / f"{name}{run}", env))
            total, step = runs[name][-1]
            dumps = len(list((tmp_path / f"{name}{run}" / "state" / "pyspy").glob("*.json")))
            record(
                "pyspy",
                f"training run {run + 1}/{count}, sampler {name}",
                f"{total:.2f} s, median step {step * 1000:.2f} ms, {dumps} dumps",
            )
    wall = {k: statistics.median(t for t, _s in v) for k, v in runs.items()}
    median_step = {k: statistics.median(s for _t, s in v) for k, v in runs.items()}
    record(
        "pyspy",
        "training wall time, sampler off (reference) / dumping every 2 s",
        f"{wall['off']:.2f} s / {wall['on']:.2f} s, ratio {wall['on'] / wall['off']:.3f}",
        "ratio < 1.01",
    )
    record(
        "pyspy",
        "median step time, dumping every 2 s / sampler off",
        f"ratio {median_step['on'] / median_step['off']:.3f}",
        "< 1.01",
    )


WORKER_TREE = textwrap.dedent(
    """
    import os, sys, time

    def load_batch():
        while True:
            time.sleep(1)

    def train():
        while True:
            time.sleep(1)

    children = []
    for _ in range(int(sys.argv[1])):
        pid = os.fork()
        if pid == 0:
            load_batch()
        children.append(pid)
    print(" ".join(map(str, children)), flush=True)
    train()
    """
)


@pytest.fixture
def eight_by_eight() -> Iterator[list[tuple[int, list[int]]]]:
    ranks: list[subprocess.Popen[str]] = []
    tree: list[tuple[int, list[int]]] = []
    try:
        for _ in range(8):
            proc = subprocess.Popen(
                [sys.executable, "-c", WORKER_TREE, "8"], stdout=subprocess.PIPE, text=True
            )
            ranks.append(proc)
        for proc in ranks:
            assert proc.stdout is not None
            tree.append((proc.pid, [int(p) for p in proc.stdout.readline().split()]))
        time.sleep(1.0)  # let every child reach its loop
        yield tree
    finally:
        for rank_pid, workers in tree:
            for pid in [*workers, rank_pid]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        for proc in ranks:
            proc.wait()


def _info(pid: int, role: ProcRole, rank: int, rank_pid: int | None) -> ProcessInfo:
    return ProcessInfo(
        pid, os.getpid(), role, rank, rank, rank_pid, "python", ProcState.SLEEPING,
        0.0, 0, 1, True, True,
    )  # fmt: skip


@pytest.mark.parametrize("parallel", [1, 4, 8])
def test_one_pass_over_8_ranks_by_8_workers(
    tmp_path: Path, eight_by_eight: list[tuple[int, list[int]]], parallel: int
) -> None:
    """Record the wall time of one dump pass over 72 processes (target < 2 s at the default 4)."""
    infos = []
    for rank, (rank_pid, workers) in enumerate(eight_by_eight):
        infos.append(_info(rank_pid, ProcRole.RANK, rank, None))
        infos.extend(_info(pid, ProcRole.WORKER, rank, rank_pid) for pid in workers)
    snapshot = ProcessSnapshot(0.0, tuple(infos), 1, 1)
    now = [0.0]
    # A round's first pass on suspected ranks dumps their workers too (a background round
    # dumps main processes only): suspect all 8, one pass per round.
    sampler = PyspySampler(
        PyspySettings(max_parallel_dumps=parallel, background_interval_seconds=0.0, repeats=1,
                      min_round_gap_seconds=1.0, max_dump_files=1000),
        state_dir=tmp_path,
        process_table=lambda: snapshot,
        monotonic=lambda: now[0],
    )  # fmt: skip
    durations = []
    try:
        for _ in range(5):
            sampler.request("benchmark: every rank", range(8))
            started = time.perf_counter()
            out = sampler.poll(now[0])
            durations.append(time.perf_counter() - started)
            samples = [o for o in out if isinstance(o, StackSample)]
            assert len(samples) == 72
            assert all(s.result is DumpResult.OK for s in samples)
            now[0] += 10.0
    finally:
        sampler.close()
    record(
        "pyspy",
        f"one dump pass over 8 ranks x 8 workers, {parallel} dumps at a time",
        f"median {statistics.median(durations):.2f} s, max {max(durations):.2f} s",
        "< 2 s (at the default 4)",
    )
