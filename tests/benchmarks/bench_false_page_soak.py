"""False-page soak (run by path: pytest -m benchmark tests/benchmarks/bench_false_page_soak.py).

A healthy job under the real `rankwatch run`, default settings, for RW_BENCH_SOAK_SECONDS
(default 1200 s = 20 minutes; CI passes less), in three segments — the job and two restarts —
each going through every phase of the false-page matrix: a long start before the first step,
checkpoints that keep writing, evaluations on rank 0 alone and on every rank, slow steps logged
every 10 steps, and an end asked from outside (SIGTERM, SIGINT, or the job exiting 0). It prints
pages (warning or critical records) per job-hour; the target is 0. It asserts only that the job
ran and rankwatch recorded its ends.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from tests.benchmarks.report import progress, record
from tests.emulated_nccl.harness import EmulatedJob, scenario

pytestmark = pytest.mark.benchmark
SOAK_SECONDS = float(os.environ.get("RW_BENCH_SOAK_SECONDS", "1200"))

# Three segments: the job, restarted twice, each ended another way.
SEGMENTS: list[dict[str, Any]] = [
    {"end": signal.SIGTERM, "eval_ranks": "rank0", "step_seconds": 0.1, "log_every": 1},
    {"end": signal.SIGINT, "eval_ranks": "all", "step_seconds": 0.5, "log_every": 10},
    {"end": None, "eval_ranks": "rank0", "step_seconds": 0.1, "log_every": 5},
]


def _segment_knobs(seconds: float, segment: dict[str, Any]) -> dict[str, Any]:
    step = segment["step_seconds"]
    phase = max(10.0, seconds / 8)  # each phase a good share of the segment
    steps_per_phase = max(20, int(phase / max(step, 0.05)))
    knobs: dict[str, Any] = {
        "step_seconds": step,
        "log_every": segment["log_every"],
        "startup_delay_seconds": min(120.0, phase),
        "checkpoint_every": steps_per_phase,
        "checkpoint_seconds": phase,
        "eval_every": steps_per_phase + steps_per_phase // 2,
        "eval_seconds": phase,
        "eval_ranks": segment["eval_ranks"],
    }
    if segment["end"] is None:
        knobs["steps"] = int(3 * steps_per_phase)
    return knobs


@pytest.mark.timeout(7200)
def test_false_pages_per_job_hour(tmp_path: Path) -> None:
    per_segment = SOAK_SECONDS / len(SEGMENTS)
    pages: list[tuple[int, dict[str, Any]]] = []
    ran = 0.0
    recorded = 0
    for index, segment in enumerate(SEGMENTS):
        knobs = _segment_knobs(per_segment, segment)
        progress(f"soak segment {index + 1}/{len(SEGMENTS)}: {per_segment:.0f} s")
        job = EmulatedJob(scenario("none", **knobs), tmp_path / f"segment-{index}").start()
        started = time.monotonic()
        try:
            while time.monotonic() - started < per_segment and job.running():
                time.sleep(1.0)
            if job.running() and segment["end"] is not None:
                assert job.proc is not None
                job.proc.send_signal(segment["end"])
                job.proc.wait(timeout=120)
        finally:
            outcome = job.stop()
        ran += time.monotonic() - started
        firing = [a for a in outcome.alerts if a["status"] == "firing"]
        recorded += len(firing)
        pages += [(index, a) for a in firing if a["severity"] in ("warning", "critical")]
    hours = ran / 3600
    # A page about the machine (its clock has no time service, its memory runs short) may be
    # true of a sandbox while the job is healthy: counted apart, never hidden.
    about_node = [p for p in pages if p[1]["alertname"].startswith(("Clock", "Memory"))]
    about_job = [p for p in pages if p not in about_node]
    record(
        "false_page_soak",
        f"healthy job {ran / 60:.1f} min, 3 segments (the job + 2 restarts), every phase",
        f"{len(about_job)} pages about the job = {len(about_job) / hours:.2f} per job-hour; "
        f"{len(about_node)} about the node; {recorded} records in all",
        "0 pages about the job",
    )
    for index, a in pages:
        record(
            "false_page_soak",
            f"page in segment {index}",
            f"{a['severity']} {a['alertname']}: {a['summary']}"[:160],
        )
    assert ran > 0 and recorded > 0
