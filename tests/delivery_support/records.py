"""Sample alert records, golden-file comparison, and small helpers shared by delivery tests."""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from exporters._http import HttpPoster
from exporters.delivery import DeliveryConfig, DeliverySink, Notifier
from exporters.secrets import Scrubber
from monitor.model import AlertRecord, Category, MetricFamilyData, Scope, Severity

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "data" / "delivery"
UPDATE_ENV = "RANKWATCH_UPDATE_GOLDEN"

FAST = DeliveryConfig(
    coalesce_seconds=0.0,
    queue_size=100,
    give_up_seconds=60.0,
    initial_backoff_seconds=0.05,
    max_backoff_seconds=0.5,
    retry_after_max_seconds=30.0,
    attempt_timeout_seconds=10.0,
)

T = TypeVar("T")


def stalled_record(**changes: Any) -> AlertRecord:
    """A firing, critical, node-level DataloaderStalled record with fixed timestamps."""
    record = AlertRecord(
        status="firing",
        alertname="DataloaderStalled",
        severity=Severity.CRITICAL,
        category=Category.DATALOADER_STALL,
        labels={"job": "4242", "node": "gpu017", "rank": "13"},
        summary="rank 13: DataLoader worker 81234 stuck 42 s in dataset.py:88 __getitem__",
        description="The rank waits in DataLoader.__next__; its worker made no progress.",
        evidence={
            "worker_pid": "81234",
            "frames": [
                "dataset.py:88 __getitem__",
                "fetch.py:52 fetch",
                "worker.py:308 _worker_loop",
            ],
            "stuck_seconds": 42,
        },
        culprit_ranks=(13,),
        starts_at="2026-11-20T23:18:46.535Z",
        ends_at=None,
        fingerprint="4f1c2a9d0e7b6a5c4f1c2a9d0e7b6a5c",
        runbook_url="https://example.org/rankwatch/docs/alerts.md#runbook-dataloader-stalled",
        scope=Scope.NODE,
        detector="stacks",
    )
    return replace(record, **changes)


def resolved(record: AlertRecord, ends_at: str = "2026-11-20T23:21:04.120Z") -> AlertRecord:
    return replace(record, status="resolved", ends_at=ends_at)


def job_record(node: str, **changes: Any) -> AlertRecord:
    """A job-level alert as node `node` would report it (same fingerprint on every node)."""
    base = stalled_record(
        alertname="CollectiveHang",
        category=Category.COLLECTIVE_HANG,
        labels={"job": "4242", "node": node},
        summary="all ranks entered AllReduce seq 1842; none completed for 180 s",
        description="",
        evidence={"op": "AllReduce", "seq": 1842},
        culprit_ranks=(),
        fingerprint="9b8a7c6d5e4f3a2b1c0d9e8f7a6b5c4d",
        runbook_url="https://example.org/rankwatch/docs/alerts.md#runbook-collective-hang",
        scope=Scope.JOB,
        detector="nccl",
    )
    return replace(base, **changes)


def assert_golden(name: str, actual: Any) -> None:
    """Compare with tests/data/delivery/<name>; rewrite it when RANKWATCH_UPDATE_GOLDEN=1."""
    path = GOLDEN_DIR / name
    text = json.dumps(actual, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if os.environ.get(UPDATE_ENV) == "1":
        path.write_text(text, encoding="utf-8")
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert expected == actual


def run(coro_fn: Callable[[], Awaitable[T]], timeout: float = 120.0) -> T:
    """Run one async scenario on a fresh event loop with an overall deadline."""

    async def bounded() -> T:
        return await asyncio.wait_for(coro_fn(), timeout)

    return asyncio.run(bounded())


async def wait_until(predicate: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


def poster(url: str, *, timeout: float = 5.0, secrets: Sequence[str] = ()) -> HttpPoster:
    return HttpPoster(url, timeout_seconds=timeout, scrubber=Scrubber(secrets))


def sink(
    notifier: Notifier,
    spool_dir: Path,
    config: DeliveryConfig = FAST,
    secrets: Sequence[str] = (),
    **kwargs: Any,
) -> DeliverySink:
    return DeliverySink(
        notifier,
        spool_dir=spool_dir,
        config=config,
        scrubber=Scrubber(secrets),
        rng=random.Random(7),
        **kwargs,
    )


def sample(families: Sequence[MetricFamilyData], name: str, *labels: str) -> float:
    """The value of one series (0 when the family or the series is absent)."""
    for family in families:
        if family.name == name:
            for label_values, value in family.samples:
                if label_values == tuple(labels):
                    return value
    return 0.0
