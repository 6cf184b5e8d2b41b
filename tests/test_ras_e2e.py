"""End to end: the daemon with the RAS source, the NCCL detector and the JSON alert log, against
the fake RAS server on loopback."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from exporters.jsonlog import JsonLogSink
from exporters.prometheus import SnapshotCollector
from monitor.alerts import AlertPolicy
from monitor.clock import SystemClock
from monitor.daemon import Daemon, JobIdentity
from monitor.detectors.nccl import NcclRasDetector
from monitor.model import Health
from monitor.runner import Bus
from monitor.settings import RasSettings
from monitor.sources.nccl_ras import NcclRasSource
from tests.fake_ras import Event, FakeRasServer, JobShape, scenario

INTERVAL = 5.0  # the fastest RAS polling allowed
DIES_AFTER = 2.0  # seconds after the fake server starts


def build_daemon(settings: RasSettings, alert_log: Path) -> tuple[Daemon, NcclRasSource]:
    source = NcclRasSource(settings, node_index=0)
    detector = NcclRasDetector(settings, local_hosts={"10.0.0.11"})
    daemon = Daemon(
        identity=JobIdentity("e2e", "node0", "wrap"),
        clock=SystemClock(),
        bus=Bus(1000),
        sources=[source],
        detectors=[detector],
        policy=AlertPolicy("e2e", "node0", "https://example.invalid/docs/alerts.md#"),
        sinks=[JsonLogSink(str(alert_log))],
        tick_seconds=0.1,
    )
    return daemon, source


async def run_until(
    daemon: Daemon, source: NcclRasSource, done: Callable[[], bool], limit: float
) -> None:
    """Run the daemon until `done()` is true or `limit` seconds pass, then shut down cleanly."""
    stop = asyncio.Event()
    task = asyncio.create_task(daemon.run(stop))
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and not done():
        await asyncio.sleep(0.05)
    stop.set()
    await task
    source.close()
    await daemon.stop_sources()
    await daemon.close_sinks()


def records(path: Path) -> list[dict[str, object]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.e2e
def test_dead_rank_reaches_the_alert_log_within_one_poll_interval(tmp_path: Path) -> None:
    """A rank goes DEAD: its RankDead record is in the alert log within one poll interval plus
    one second, naming node, pid, GPU and rank."""
    alert_log = tmp_path / "alerts.jsonl"
    script = scenario(Event.DEAD, shape=JobShape(version="2.29.7"), after_seconds=DIES_AFTER,
                      culprit_ranks=(5,), dead_after_extra_queries=0)
    with FakeRasServer(script) as srv:
        died_at = srv._started + DIES_AFTER  # the fake's own clock: when rank 5 became DEAD
        settings = RasSettings(
            addr=srv.address, interval_seconds=INTERVAL, settle_seconds=0.0,
            handshake_timeout_seconds=0.5, reply_timeout_seconds=3.0, skip_versions=(),
        )
        daemon, source = build_daemon(settings, alert_log)
        seen_at: list[float] = []

        def dead_logged() -> bool:
            if any(r["alertname"] == "RankDead" for r in records(alert_log)):
                seen_at.append(time.monotonic())
                return True
            return False

        asyncio.run(run_until(daemon, source, dead_logged, limit=INTERVAL * 3 + DIES_AFTER))
        assert srv.stats.status_queries >= 2 and not srv.sent_control()
    assert seen_at, "no RankDead record in the alert log"
    delay = seen_at[0] - died_at
    print(f"RankDead in the alert log {delay:.2f} s after the rank died (limit {INTERVAL + 1} s)")
    assert delay <= INTERVAL + 1.0
    (dead,) = [r for r in records(alert_log) if r["alertname"] == "RankDead"]
    assert dead["status"] == "firing" and dead["severity"] == "critical"
    assert dead["category"] == "rank_dead" and dead["culprit_ranks"] == [5]
    assert dead["scope"] == "job" and dead["labels"]["ras_node"] == "10.0.0.11"  # type: ignore[index]
    assert "process 4105 on node 10.0.0.11 (GPU 5, rank 5) is DEAD" in str(dead["summary"])

    daemon.rebuild_snapshot()
    registry = CollectorRegistry()
    registry.register(SnapshotCollector(daemon.snapshots))
    exposed = {
        sample.name: sample.value
        for family in text_string_to_metric_families(generate_latest(registry).decode())
        for sample in family.samples
    }
    assert exposed["rankwatch_ras_up"] == 1.0
    assert exposed["rankwatch_ras_dead_processes"] == 1.0
    assert exposed["rankwatch_ras_polls_total"] >= 2
    assert "rankwatch_ras_collective_ops" in exposed


@pytest.mark.e2e
def test_refused_port_makes_the_concern_unknown_never_ok(tmp_path: Path) -> None:
    """With nothing on the RAS port, the daemon carries on: source_up 0, RAS health UNKNOWN."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = RasSettings(addr=f"127.0.0.1:{port}", interval_seconds=INTERVAL, settle_seconds=0.0)
    daemon, source = build_daemon(settings, tmp_path / "alerts.jsonl")

    def polled_once() -> bool:
        stats = daemon.bus.stats.get("nccl_ras")
        return stats is not None and stats.polls >= 1

    asyncio.run(run_until(daemon, source, polled_once, limit=10))
    daemon.rebuild_snapshot()
    snapshot = daemon.snapshots.current
    (concern,) = [c for c in snapshot.concerns if c.concern == "nccl"]
    assert concern.health is Health.UNKNOWN and "refused" in concern.reason
    up = snapshot.family("source_up")
    assert up is not None and (("nccl_ras",), 0.0) in up.samples
    ras_up = snapshot.family("ras_up")
    assert ras_up is not None and ras_up.samples == (((), 0.0),)
    assert records(tmp_path / "alerts.jsonl") == []
