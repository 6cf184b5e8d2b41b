"""rankwatch → a real Alertmanager (API v2) → its webhook receiver, on loopback."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from exporters.alertmanager import AlertmanagerNotifier, alerts_url
from exporters.delivery import DeliverySink
from tests.delivery_support.alertmanager import Alertmanager
from tests.delivery_support.receivers import Received, Receiver
from tests.delivery_support.records import (
    job_record,
    poster,
    resolved,
    run,
    sink,
    stalled_record,
    wait_until,
)

pytestmark = pytest.mark.e2e


def am_sink(am: Alertmanager, spool: Path, resend_seconds: float) -> DeliverySink:
    notifier = AlertmanagerNotifier(
        poster(alerts_url(am.url)), resend_interval_seconds=resend_seconds
    )
    return sink(notifier, spool)


def notifications(rx: Receiver, status: str | None = None) -> list[Received]:
    return [r for r in rx.snapshot() if status is None or r.json["status"] == status]


def test_alert_is_notified_kept_alive_while_firing_then_resolved(tmp_path: Path) -> None:
    """The receiver gets the firing alert with our labels, annotations and generatorURL; our
    re-sends keep it firing past resolve_timeout (repeat notifications, no resolve); the
    resolve then arrives with its annotations intact."""
    with (
        Receiver() as rx,
        Alertmanager(
            tmp_path / "am", rx.url("/alertmanager"), resolve_timeout="3s", repeat_interval="2s"
        ) as am,
    ):

        async def scenario() -> DeliverySink:
            s = am_sink(am, tmp_path / "spool", resend_seconds=1.0)
            s.submit(stalled_record())
            await wait_until(lambda: len(notifications(rx, "firing")) >= 1, timeout=30)
            await asyncio.sleep(7.0)  # more than twice resolve_timeout
            assert notifications(rx, "resolved") == []
            assert len(notifications(rx, "firing")) >= 2
            s.submit(resolved(stalled_record()))
            await wait_until(lambda: len(notifications(rx, "resolved")) >= 1, timeout=30)
            await s.aclose(1.0)
            return s

        s = run(scenario)
    assert s.stats.resent >= 4
    (firing, *_rest) = notifications(rx, "firing")
    (alert,) = firing.json["alerts"]
    assert alert["labels"] == {
        "alertname": "DataloaderStalled",
        "severity": "critical",
        "category": "dataloader_stall",
        "job": "4242",
        "job_id": "4242",  # the label the Prometheus rules' alerts carry: one route for both
        "node": "gpu017",
        "rank": "13",
    }
    assert alert["annotations"]["summary"] == stalled_record().summary
    assert alert["annotations"]["culprit_ranks"] == "13"
    assert alert["generatorURL"] == stalled_record().runbook_url
    assert alert["startsAt"].startswith("2026-11-20T23:18:46.535")
    (resolution,) = notifications(rx, "resolved")[:1]
    (gone,) = resolution.json["alerts"]
    assert gone["status"] == "resolved"
    assert gone["endsAt"].startswith("2026-11-20T23:21:04.12")
    assert gone["annotations"]["summary"] == stalled_record().summary


def test_without_resends_alertmanager_resolves_on_its_own(tmp_path: Path) -> None:
    """The control for the test above: an alert that is not re-sent is resolved by
    Alertmanager after resolve_timeout, which is why firing alerts are re-sent."""
    with (
        Receiver() as rx,
        Alertmanager(tmp_path / "am", rx.url("/alertmanager"), resolve_timeout="2s") as am,
    ):

        async def scenario() -> None:
            s = am_sink(am, tmp_path / "spool", resend_seconds=3600.0)
            s.submit(stalled_record())
            await wait_until(lambda: len(notifications(rx, "resolved")) >= 1, timeout=30)
            await s.aclose(0.5)

        run(scenario)


def test_same_job_alert_from_two_nodes_is_one_notification(tmp_path: Path) -> None:
    """Two sidecars post the same job-level alert; Alertmanager holds one alert (the node is
    not a label) and the receiver gets one notification naming it once."""
    with Receiver() as rx, Alertmanager(tmp_path / "am", rx.url("/alertmanager")) as am:

        async def scenario() -> None:
            node_a = am_sink(am, tmp_path / "a", resend_seconds=60.0)
            node_b = am_sink(am, tmp_path / "b", resend_seconds=60.0)
            node_a.submit(job_record("gpu001"))
            node_b.submit(job_record("gpu002"))
            await wait_until(lambda: node_a.stats.delivered == node_b.stats.delivered == 1)
            await wait_until(lambda: len(notifications(rx)) >= 1, timeout=30)
            await asyncio.sleep(2.5)  # more than two group intervals: nothing else comes
            await node_a.aclose(0.5)
            await node_b.aclose(0.5)
            assert len(am.active_alerts()) == 1

        run(scenario)
    (notification,) = notifications(rx)
    (alert,) = notification.json["alerts"]
    assert "node" not in alert["labels"]
    assert alert["annotations"]["reported_by"] in {"gpu001", "gpu002"}
