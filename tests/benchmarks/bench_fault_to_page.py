"""Fault → first page on the emulated NCCL job (run by path:
pytest -m benchmark tests/benchmarks/bench_fault_to_page.py).

Each fault of tests/emulated_nccl (rank 1 at step 100 of a 2-rank job, 0.1 s steps, RAS polled
every 5 s) runs under the real `rankwatch run` with default detector settings; the benchmark
prints, per fault, the seconds from the fault to the first page and to the first page that names
the right rank and category, against the bar (30 s for stalls and hangs, 15 s for dead and
stopped ranks). RW_BENCH_QUICK=1 (CI) runs each fault once, otherwise three times;
RW_BENCH_FAULTS=a,b,... measures only those faults (CI: one of each kind, to keep its time).
It asserts only that every fault was measured.
"""

from __future__ import annotations

import os
import statistics
from pathlib import Path

import pytest

from tests.benchmarks.report import progress, record
from tests.emulated_nccl.faults import BY_FAULT, EXPECTED, Measured, measure, started
from tests.emulated_nccl.harness import run_scenario, scenario

pytestmark = pytest.mark.benchmark
QUICK = os.environ.get("RW_BENCH_QUICK") == "1"
ONLY = [f for f in os.environ.get("RW_BENCH_FAULTS", "").split(",") if f]
LATE_FAULT_STEP = 15  # 1.5 s of steps: the fault comes before RAS's first complete look


def _fmt(values: list[float]) -> str:
    return f"{statistics.median(values):5.1f} s" if values else "   never"


@pytest.mark.timeout(3600)
def test_fault_to_first_page_per_fault(tmp_path: Path) -> None:
    runs = 1 if QUICK else 3
    chosen = [e for e in EXPECTED if not ONLY or e.fault in ONLY]
    results: dict[str, list[Measured]] = {}
    for expected in chosen:
        for run in range(runs):
            progress(f"fault {expected.fault}, run {run + 1}/{runs}")
            results.setdefault(expected.fault, []).append(
                measure(expected.fault, tmp_path / f"{expected.fault}-{run}", timeout=60)
            )
    for expected in chosen:
        measured = results[expected.fault]
        first = [m.seconds_to_first_page for m in measured if m.seconds_to_first_page is not None]
        named = [m.seconds_to_named for m in measured if m.seconds_to_named is not None]
        ok = len(named) == len(measured) and max(named) <= expected.bar_seconds
        example = next((m.named for m in measured if m.named is not None), None)
        how = (
            f"{example['alertname']} {example['severity']} {example['category']} "
            f"culprit {example['culprit_ranks']}"
            if example
            else "not named"
        )
        record(
            "fault_to_page",
            f"{expected.fault} (median of {runs})",
            f"first page {_fmt(first).strip()}, named {_fmt(named).strip()}: {how}",
            f"<= {expected.bar_seconds:.0f} s ({'met' if ok else 'NOT met'})",
        )
    assert all(len(v) == runs for v in results.values())


@pytest.mark.timeout(1200)
@pytest.mark.skipif(bool(ONLY) and "odd_one_out" not in ONLY, reason="not in RW_BENCH_FAULTS")
def test_odd_one_out_to_first_page(tmp_path: Path) -> None:
    """A user-code deadlock where the waiting ranks sit in a library no rule recognises: four
    ranks, no RAS, the stacks alone (tests/e2e/test_odd_one_out.py is the same scenario)."""
    runs = 1 if QUICK else 3
    seconds: list[float] = []
    for run in range(runs):
        progress(f"odd one out, run {run + 1}/{runs}")
        spec = scenario("user_deadlock", ranks=4, host_wait="vendor", ras=False, fault_rank=1,
                        fault_step=30, step_seconds=0.1, workers=0)  # fmt: skip
        outcome = run_scenario(
            spec, tmp_path / f"odd-{run}", timeout=90,
            until=lambda alerts: any(_odd_one(a) for a in alerts),
        )  # fmt: skip
        named = [a for a in outcome.alerts if _odd_one(a)]
        if named and outcome.fault is not None:
            seconds.append(started(named[0]) - outcome.fault.wall)
    ok = len(seconds) == runs and max(seconds) <= 30.0
    record(
        "fault_to_page",
        f"user_deadlock, waits in an unknown library, 4 ranks, no RAS (median of {runs})",
        f"named {_fmt(seconds).strip()}: RankNotInCollective warning collective_desync "
        "culprit [1] (the odd one out)",
        f"<= 30 s ({'met' if ok else 'NOT met'})",
    )
    assert len(seconds) == runs


@pytest.mark.timeout(1200)
@pytest.mark.skipif(bool(ONLY) and "late_look" not in ONLY, reason="not in RW_BENCH_FAULTS")
def test_first_look_after_the_fault_to_first_page(tmp_path: Path) -> None:
    """The fault comes 1.5 s into the steps, before RAS's first complete look (as on the real
    NCCL run of tests/data/nccl_gpu/hang): no RAS pace can be learned, the job's own stall
    window decides."""
    runs = 1 if QUICK else 3
    for fault in ("kernel_hang", "user_deadlock"):
        expected = BY_FAULT[fault]
        measured = []
        for run in range(runs):
            progress(f"{fault}, first look after the fault, run {run + 1}/{runs}")
            measured.append(measure(fault, tmp_path / f"late-{fault}-{run}", timeout=90,
                                    fault_step=LATE_FAULT_STEP))  # fmt: skip
        named = [m.seconds_to_named for m in measured if m.seconds_to_named is not None]
        ok = len(named) == runs and max(named) <= expected.bar_seconds
        example = next((m.named for m in measured if m.named is not None), None)
        how = (f"{example['alertname']} {example['severity']} {example['category']} "
               f"culprit {example['culprit_ranks']}" if example else "not named")  # fmt: skip
        record(
            "fault_to_page",
            f"{fault}, RAS's first look after the fault (median of {runs})",
            f"named {_fmt(named).strip()}: {how}",
            f"<= {expected.bar_seconds:.0f} s ({'met' if ok else 'NOT met'})",
        )
        assert len(measured) == runs


def _odd_one(alert: dict[str, object]) -> bool:
    return (
        alert["alertname"] == "RankNotInCollective"
        and alert["status"] == "firing"
        and alert["culprit_ranks"] == [1]
    )
