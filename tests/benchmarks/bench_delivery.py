"""Benchmark: time from a detector transition to the HTTP POST at the receiver.

Direct sinks (Slack, PagerDuty, webhook, all built by build_sinks with default settings) and
the path through a real Alertmanager (group_wait 1 s) to its webhook receiver, over 20 alerts
spaced past Slack's pacing interval. The reference is a bare HTTP POST to the same kind of
local receiver, measured in the same process; ratios are against its median.

Run: python -m pytest tests/benchmarks/bench_delivery.py -m benchmark
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import structlog

from exporters.factory import build_sinks, start_sinks
from monitor.alerts import AlertPolicy
from monitor.log import configure_logging
from monitor.model import Category, Severity, Transition
from monitor.settings import DeliverySettings, GeneralSettings, Settings
from tests.benchmarks.report import record
from tests.delivery_support.alertmanager import Alertmanager
from tests.delivery_support.receivers import PD_ACCEPTED, SLACK_OK, Received, Receiver, Response

ALERTS = 20
SPACING_SECONDS = 1.1  # above Slack's default pacing (slack_min_interval_seconds = 1.0)


def transition(i: int) -> Transition:
    return Transition(
        detector="bench",
        alertname=f"BenchAlert{i:02d}",
        firing=True,
        severity=Severity.CRITICAL,
        category=Category.RANK_STOPPED,
        identity={"rank": str(i)},
        summary=f"rank {i} stopped",
    )


def arrival(rx: Receiver, sink: str, fingerprint: str) -> float | None:
    for request in rx.snapshot():
        if _names(request, sink, fingerprint):
            return request.at
    return None


def _names(request: Received, sink: str, fingerprint: str) -> bool:
    body = request.json
    if sink == "slack":
        return fingerprint[:12] in body["blocks"][-1]["elements"][0]["text"]
    if sink == "pagerduty":
        return bool(body["dedup_key"] == fingerprint)
    if sink == "webhook":
        return bool(body.get("fingerprint") == fingerprint)
    return any(a["annotations"].get("fingerprint") == fingerprint for a in body["alerts"])


def reference_post_seconds(rx: Receiver, samples: int = 20) -> list[float]:
    """Bare httpx POSTs on one reused client to a local receiver: the floor for a sink."""

    async def measure() -> list[float]:
        times = []
        async with httpx.AsyncClient() as client:
            for i in range(samples):
                started = time.monotonic()
                await client.post(rx.url("/reference"), json={"i": i})
                times.append(rx.snapshot()[-1].at - started)
        return times

    return asyncio.run(measure())


def summary(latencies: list[float], reference: float) -> str:
    med, worst = statistics.median(latencies), max(latencies)
    return (
        f"n={len(latencies)}, median {med * 1000:.1f} ms, max {worst * 1000:.1f} ms, "
        f"median/ref {med / reference:.1f}x"
    )


@pytest.fixture
def daemon_log(tmp_path: Path) -> Iterator[None]:
    """The sinks still log every delivery (JSON lines at info), into a file rather than onto
    the benchmark's output."""
    with (tmp_path / "daemon.log").open("w") as out:
        configure_logging("json", "info", stream=out)
        try:
            yield
        finally:
            structlog.reset_defaults()


@pytest.mark.benchmark
@pytest.mark.usefixtures("daemon_log")
def test_bench_transition_to_receiver(tmp_path: Path) -> None:
    """Records median and max latency per sink from transition to receiver POST."""
    with (
        Receiver(default=SLACK_OK) as slack,
        Receiver(default=PD_ACCEPTED) as pd,
        Receiver(default=Response(200)) as hook,
        Receiver(default=Response(200)) as am_rx,
        Alertmanager(tmp_path / "am", am_rx.url("/alertmanager"), group_wait="1s") as am,
    ):
        reference = statistics.median(reference_post_seconds(hook))
        for secret, value in (("slack", slack.url("/services/T/B/x")), ("pd", "k" * 32)):
            (tmp_path / secret).write_text(value)
        (tmp_path / "hook").write_text(hook.url("/hook"))
        settings = Settings(
            general=GeneralSettings(state_dir=str(tmp_path / "state"), node_name="bench01"),
            delivery=DeliverySettings(
                slack_webhook_url_file=str(tmp_path / "slack"),
                pagerduty_routing_key_file=str(tmp_path / "pd"),
                pagerduty_url=pd.url("/v2/enqueue"),
                webhook_url_file=str(tmp_path / "hook"),
                alertmanager_url=am.url,
            ),
        )
        policy = AlertPolicy("4242", "bench01", "https://example.org/rankwatch#")
        submitted: dict[str, float] = {}

        async def scenario() -> None:
            sinks = build_sinks(settings, node_is_reporting=True)
            await start_sinks(sinks)
            for i in range(ALERTS):
                started = time.monotonic()
                alert = policy.apply(transition(i), time.time())
                assert alert is not None
                for sink in sinks:
                    sink.submit(alert)
                submitted[alert.fingerprint] = started
                await asyncio.sleep(SPACING_SECONDS)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and any(
                arrival(am_rx, "alertmanager", fp) is None for fp in submitted
            ):
                await asyncio.sleep(0.1)
            for sink in sinks:
                await sink.aclose(2.0)

        asyncio.run(scenario())
        record(
            "delivery",
            f"reference: bare POST to a local receiver ({ALERTS} alerts, {SPACING_SECONDS} s apart)",
            f"median {reference * 1000:.1f} ms",
        )
        for name, rx in (
            ("slack", slack),
            ("pagerduty", pd),
            ("webhook", hook),
            ("alertmanager", am_rx),
        ):
            latencies = []
            for fp, started in submitted.items():
                at = arrival(rx, name, fp)
                assert at is not None, f"{name} never received {fp}"
                latencies.append(at - started)
            label = "via Alertmanager (gw 1 s)" if name == "alertmanager" else f"direct {name}"
            record("delivery", f"transition to receiver, {label}", summary(latencies, reference))
