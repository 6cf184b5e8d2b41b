"""Fault → first page on the emulated NCCL job: what each fault must be named as, and a runner
that measures it. Shared by the end-to-end tests and the benchmark."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.emulated_nccl.harness import Alert, Outcome, run_scenario, scenario

FAULT_RANK = 1
FAULT_STEP = 100


@dataclass(frozen=True)
class Expected:
    fault: str
    categories: frozenset[str]  # what the first page may call it
    culprit: tuple[int, ...]  # () for a whole-job hang: no rank can be blamed
    bar_seconds: float
    knobs: Mapping[str, Any]


EXPECTED: tuple[Expected, ...] = (
    Expected("user_deadlock", frozenset({"collective_desync"}), (FAULT_RANK,), 30.0, {}),
    Expected("kernel_hang", frozenset({"gpu_cuda"}), (FAULT_RANK,), 30.0, {}),
    Expected("network_hang", frozenset({"collective_hang"}), (), 30.0, {}),
    Expected("dl_stall", frozenset({"dataloader_stall"}), (FAULT_RANK,), 30.0, {}),
    Expected("dead_reaped", frozenset({"rank_dead"}), (FAULT_RANK,), 15.0, {}),
    Expected("dead_unreaped", frozenset({"rank_dead"}), (FAULT_RANK,), 15.0, {}),
    Expected("sigstop", frozenset({"rank_stopped"}), (FAULT_RANK,), 15.0, {}),
    Expected("segfault", frozenset({"rank_dead", "software"}), (FAULT_RANK,), 15.0, {}),
    Expected("exit_error", frozenset({"rank_dead", "software"}), (FAULT_RANK,), 15.0, {}),
    Expected("oom", frozenset({"oom"}), (FAULT_RANK,), 15.0, {}),
)
BY_FAULT = {e.fault: e for e in EXPECTED}


@dataclass(frozen=True)
class Measured:
    fault: str
    seconds_to_first_page: float | None  # fault → first warning/critical record
    first: Alert | None
    seconds_to_named: float | None  # fault → first page with the right culprit and category
    named: Alert | None
    pages: int  # firing warning/critical records in all
    outcome: Outcome


def started(alert: Alert) -> float:
    return dt.datetime.fromisoformat(alert["starts_at"].replace("Z", "+00:00")).timestamp()


def is_page(alert: Alert) -> bool:
    return alert["status"] == "firing" and alert["severity"] in ("warning", "critical")


def names_it(alert: Alert, expected: Expected) -> bool:
    return (
        is_page(alert)
        and alert["category"] in expected.categories
        and tuple(alert["culprit_ranks"]) == expected.culprit
    )


def measure(
    fault: str, workdir: Path, *, timeout: float = 60.0, fault_step: int = FAULT_STEP, **knobs: Any
) -> Measured:
    """Run the fault under `rankwatch run` and time the first page and the first right one."""
    expected = BY_FAULT[fault]
    spec = scenario(
        fault,
        fault_rank=FAULT_RANK,
        # 10 s of steps: RAS (a poll every 5 s) has seen the job run before the fault, as it
        # has in any job that fails after its first seconds (a first look after the fault is
        # tests/test_ras_detector.py's)
        fault_step=fault_step,
        step_seconds=0.1,
        **{**expected.knobs, **knobs},
    )
    outcome = run_scenario(
        spec,
        workdir,
        until=lambda alerts: any(names_it(a, expected) for a in alerts),
        timeout=timeout,
    )
    fault_at = outcome.fault.wall if outcome.fault is not None else outcome.started_wall
    pages = [a for a in outcome.alerts if is_page(a)]
    first = min(pages, key=started, default=None)
    named = min((a for a in pages if names_it(a, expected)), key=started, default=None)
    return Measured(
        fault,
        started(first) - fault_at if first is not None else None,
        first,
        started(named) - fault_at if named is not None else None,
        named,
        len(pages),
        outcome,
    )
