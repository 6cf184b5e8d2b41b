"""A rankwatch daemon with only the clock probes and the clock detector, for end-to-end tests.

    python -m tests.e2e.clock_daemon ALERT_LOG SNAPSHOT_JSON

Settings come from the environment (RANKWATCH_CLOCK_*, RANKWATCH_NODE_NAME, ...), as in the
real daemon; RANKWATCH_CLOCK_ENABLED=false leaves only the bare daemon loop. Alerts go to
ALERT_LOG as JSON lines (JsonLogSink); after every tick the metric snapshot is written to
SNAPSHOT_JSON so a test can see what the daemon sees. SIGTERM stops it.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys

from exporters.jsonlog import JsonLogSink
from monitor.alerts import AlertPolicy
from monitor.clock import SystemClock
from monitor.daemon import Daemon, JobIdentity
from monitor.detectors.time_sync import ClockDetector
from monitor.runner import Bus, PolledSource
from monitor.settings import load_settings
from monitor.sources.time_sync_probe import ClockReferenceProbe, LocalClockProbe


def write_snapshot(daemon: Daemon, path: str) -> None:
    snap = daemon.snapshots.current
    data = {
        "families": {
            f.name: [[list(labels), value] for labels, value in f.samples] for f in snap.families
        },
        "concerns": {c.concern: [c.health.value, c.reason] for c in snap.concerns},
    }
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh)
    os.replace(tmp, path)  # readers never see half a file


async def main(alert_log: str, snapshot_path: str) -> int:
    settings = load_settings()
    node = settings.general.node_name or "testnode"
    enabled = settings.clock.enabled  # disabled: the bare daemon loop, a benchmark's reference
    sources: list[PolledSource] = []
    if enabled:
        sources = [LocalClockProbe(settings.clock), ClockReferenceProbe(settings.clock)]
    detectors = [ClockDetector(settings.clock, node)] if enabled else []
    daemon = Daemon(
        identity=JobIdentity(job=settings.general.job_id or "e2e", node=node, mode="test"),
        clock=SystemClock(),
        bus=Bus(settings.general.queue_size),
        sources=sources,
        detectors=detectors,
        policy=AlertPolicy(
            settings.general.job_id or "e2e", node, settings.general.runbook_base_url
        ),
        sinks=[JsonLogSink(alert_log)],
        tick_seconds=settings.general.tick_seconds,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    original_rebuild = daemon.rebuild_snapshot

    def rebuild_and_write() -> None:
        original_rebuild()
        write_snapshot(daemon, snapshot_path)

    daemon.rebuild_snapshot = rebuild_and_write  # type: ignore[method-assign]
    await daemon.run(stop)
    daemon.finish("daemon stopped")
    await daemon.stop_sources()
    await daemon.close_sinks()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2])))
