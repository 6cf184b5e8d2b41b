"""The daemon: wiring only. Sources → bounded bus → detectors → policy → sinks, plus the
health snapshot that the Prometheus collector reads at scrape time."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from exporters.sink import AlertSink
from monitor import __version__
from monitor.alerts import AlertPolicy
from monitor.clock import Clock
from monitor.detectors.base import Detector
from monitor.incidents import IncidentLayer
from monitor.model import (
    AlertRecord,
    ConcernHealth,
    Health,
    HealthSnapshot,
    MetricFamilyData,
    Observation,
    Severity,
    SnapshotHolder,
    Transition,
    counter,
    gauge,
)
from monitor.runner import (
    Bus,
    MetricSource,
    ObservationListener,
    PolledSource,
    SourceRunner,
    StreamingSource,
)

log = structlog.get_logger("rankwatch.daemon")
SNAPSHOT_SECONDS = 5.0  # the health snapshot is rebuilt at least this often


@dataclass(frozen=True)
class JobIdentity:
    job: str
    node: str
    mode: str


@dataclass
class DaemonStats:
    detector_errors: dict[str, int] = field(default_factory=dict)
    alerts_by_name: dict[tuple[str, str], int] = field(default_factory=dict)
    records: list[AlertRecord] = field(default_factory=list)


class Daemon:
    def __init__(
        self,
        *,
        identity: JobIdentity,
        clock: Clock,
        bus: Bus,
        sources: Sequence[PolledSource | StreamingSource],
        detectors: Sequence[Detector],
        policy: AlertPolicy,
        sinks: Sequence[AlertSink],
        tick_seconds: float = 0.5,
        shutdown_grace_seconds: float = 5.0,
        snapshot_holder: SnapshotHolder | None = None,
        record_filter: Callable[[AlertRecord], AlertRecord] | None = None,
        incidents: IncidentLayer | None = None,
    ) -> None:
        self.identity = identity
        self.clock = clock
        self.bus = bus
        self.sources = list(sources)
        self.detectors = list(detectors)
        self.policy = policy
        self.sinks = list(sinks)
        self.tick_seconds = tick_seconds
        self.shutdown_grace_seconds = shutdown_grace_seconds
        self.snapshots = snapshot_holder or SnapshotHolder()
        self.stats = DaemonStats()
        self.runner = SourceRunner(bus, clock.monotonic)
        self._tasks: list[asyncio.Task[None]] = []
        self._started_wall = clock.wall()
        self._listeners = [s for s in self.sources if isinstance(s, ObservationListener)]
        # Applied to every record before anyone sees it (the secret scrubber).
        self.record_filter = record_filter
        # Findings pass through the incident layer; without one they reach the policy as they are.
        self.incidents = incidents
        self._snapshot_at = float("-inf")
        self._records_since_snapshot = 0

    # -- lifecycle -----------------------------------------------------------------------
    def start_sources(self) -> None:
        self.bus.bind_loop()
        for source in self.sources:
            self._start(source)

    def add_source(self, source: PolledSource | StreamingSource) -> None:
        """Start a source while running (a job step's output file appeared). Loop thread only."""
        self.sources.append(source)
        if isinstance(source, ObservationListener):
            self._listeners.append(source)
        self._start(source)

    def _start(self, source: PolledSource | StreamingSource) -> None:
        if isinstance(source, PolledSource):
            coro = self.runner.run_polled(source)
        else:
            coro = self.runner.run_streaming(source)
        self._tasks.append(asyncio.create_task(coro, name=f"source:{source.name}"))

    async def run(self, stop: asyncio.Event) -> None:
        """Process observations and tick detectors until `stop` is set."""
        if not self._tasks:
            self.start_sources()
        self.rebuild_snapshot()
        next_tick = self.clock.monotonic()
        # Two waits live across iterations (a timeout does not cost new ones); bursts are
        # drained without waiting at all.
        stop_wait: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
        get: asyncio.Future[Any] | None = None
        try:
            while not stop.is_set():
                self.drain()
                now = self.clock.monotonic()
                if now >= next_tick:
                    self.tick(now)
                    next_tick = now + self.tick_seconds
                timeout = max(0.0, min(next_tick - self.clock.monotonic(), self.tick_seconds))
                if get is None:
                    get = asyncio.ensure_future(self.bus.queue.get())
                done, _pending = await asyncio.wait(
                    {stop_wait, get}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
                )
                if get in done:
                    self.dispatch(get.result())
                    get = None
        finally:
            stop_wait.cancel()
            if get is not None and not get.done():
                get.cancel()
            elif get is not None:
                self.dispatch(get.result())  # taken off the queue: not to be lost

    async def stop_sources(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            try:
                await task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 - shutting down
                pass
        self._tasks.clear()

    async def close_sinks(self) -> None:
        deadline = self.shutdown_grace_seconds
        for sink in self.sinks:
            try:
                await asyncio.wait_for(sink.aclose(deadline), timeout=deadline + 1)
            except Exception as exc:  # noqa: BLE001 - a sink that fails to close must not hang us
                log.warning("sink_close_failed", sink=sink.name, error=str(exc))

    def finish(self, reason: str) -> None:
        """Resolve what is still firing: the job is over."""
        for record in self.policy.resolve_all(self.clock.wall(), reason):
            self.deliver(record)
        self.rebuild_snapshot()

    # -- the detector loop ---------------------------------------------------------------
    def drain(self, limit: int = 10_000) -> int:
        handled = 0
        while handled < limit:
            try:
                obs = self.bus.queue.get_nowait()
            except asyncio.QueueEmpty:
                break
            self.dispatch(obs)
            handled += 1
        return handled

    def dispatch(self, obs: Observation) -> None:
        now = self.clock.monotonic()
        if self.incidents is not None:
            # The lifecycle changes before the detectors see what changed it.
            self._to_policy(self.incidents.observe(obs, now))
        for detector in self.detectors:
            try:
                outputs = detector.observe(obs, now)
            except Exception as exc:  # noqa: BLE001 - the detector loop is one of three broad catches
                self._detector_failed(detector.name, exc)
                continue
            self._handle(outputs)

    def tick(self, now: float) -> None:
        for detector in self.detectors:
            try:
                outputs = detector.tick(now)
            except Exception as exc:  # noqa: BLE001 - the detector loop is one of three broad catches
                self._detector_failed(detector.name, exc)
                continue
            self._handle(outputs)
        if self.incidents is not None:
            self._to_policy(self.incidents.tick(now))
        # The snapshot is read at scrape time (every 15 s or so): rebuilding it on every tick
        # was most of the daemon's own CPU. Rebuild when something was said, or every 5 s.
        if self._records_since_snapshot or now - self._snapshot_at >= SNAPSHOT_SECONDS:
            self.rebuild_snapshot()

    def _handle(self, outputs: Sequence[Transition | Observation]) -> None:
        for out in outputs:
            if isinstance(out, Transition):
                if self.incidents is not None:
                    self._to_policy(self.incidents.judge(out, self.clock.monotonic()))
                else:
                    self._to_policy([out])
            else:
                for listener in self._listeners:
                    try:
                        listener.on_observation(out)
                    except Exception as exc:  # noqa: BLE001 - a listener must not stop the loop
                        self._detector_failed(f"listener:{type(listener).__name__}", exc)
                self.bus.emitter("detectors")(out)

    def _to_policy(self, transitions: Sequence[Transition]) -> None:
        for transition in transitions:
            record = self.policy.apply(transition, self.clock.wall())
            if record is not None:
                self.deliver(record)

    def deliver(self, record: AlertRecord) -> None:
        if self.record_filter is not None:
            record = self.record_filter(record)
        self.stats.records.append(record)
        self._records_since_snapshot += 1
        del self.stats.records[:-1000]  # bounded memory: keep the recent records for summaries
        key = (record.alertname, record.status)
        self.stats.alerts_by_name[key] = self.stats.alerts_by_name.get(key, 0) + 1
        log.info(
            "alert",
            alertname=record.alertname,
            status=record.status,
            severity=record.severity.value,
            culprit_ranks=list(record.culprit_ranks),
            incident_id=record.incident_id,
            summary=record.summary,
        )
        for sink in self.sinks:
            try:
                sink.submit(record)
            except Exception as exc:  # noqa: BLE001 - submit must never raise; guard anyway
                log.warning("sink_submit_failed", sink=sink.name, error=str(exc))

    def _detector_failed(self, name: str, exc: Exception) -> None:
        first = name not in self.stats.detector_errors
        self.stats.detector_errors[name] = self.stats.detector_errors.get(name, 0) + 1
        if first:
            log.error("detector_error", detector=name, error=f"{type(exc).__name__}: {exc}")

    # -- the snapshot --------------------------------------------------------------------
    def rebuild_snapshot(self) -> None:
        now = self.clock.monotonic()
        self._snapshot_at = now
        self._records_since_snapshot = 0
        families: list[MetricFamilyData] = [
            gauge(
                "job_info",
                "Identity of the watched job and this node (value 1).",
                ("job", "node", "mode", "version"),
                [((self.identity.job, self.identity.node, self.identity.mode, __version__), 1)],
            ),
            gauge("start_time_seconds", "Unix time the daemon started.", (), self._started_wall),
        ]
        families.extend(self.runner.metric_families())
        if self.incidents is not None:
            families.extend(self.incidents.metric_families())
        concerns: list[ConcernHealth] = []
        for detector in self.detectors:
            try:
                families.extend(detector.metric_families(now))
                concerns.append(detector.health(now))
            except Exception as exc:  # noqa: BLE001 - a broken detector shows as UNKNOWN
                self._detector_failed(detector.name, exc)
                concerns.append(ConcernHealth(detector.name, Health.UNKNOWN, "detector error"))
        for component in [*self.sources, *self.sinks]:
            if isinstance(component, MetricSource):
                families.extend(component.metric_families())
        firing = self.policy.firing()
        families.append(
            gauge(
                "health",
                "Health of each concern: 1 for its current state (ok, unknown, warning, critical).",
                ("concern", "state"),
                [
                    ((c.concern, h.value), 1.0 if c.health is h else 0.0)
                    for c in concerns
                    for h in Health
                ],
            )
        )
        families.append(
            gauge(
                "alerts_firing",
                "Alerts currently firing on this node, by name and severity.",
                ("alertname", "severity"),
                _count_firing(firing),
            )
        )
        families.append(
            counter(
                "alerts",
                "Alert records emitted, by name and status.",
                ("alertname", "status"),
                [((n, s), c) for (n, s), c in sorted(self.stats.alerts_by_name.items())],
            )
        )
        families.append(
            counter(
                "detector_errors",
                "Exceptions raised inside a detector (a bug; the detector shows UNKNOWN).",
                ("detector",),
                # Every detector from 0, so rate() and dashboards see a healthy node too.
                [
                    ((n,), self.stats.detector_errors.get(n, 0))
                    for n in sorted({d.name for d in self.detectors} | set(self.stats.detector_errors))
                ],
            )
        )
        self.snapshots.current = HealthSnapshot(
            taken_at_wall=self.clock.wall(),
            families=tuple(families),
            concerns=tuple(concerns),
            firing=firing,
        )


def _count_firing(firing: tuple[AlertRecord, ...]) -> list[tuple[tuple[str, str], float]]:
    counts: dict[tuple[str, str], int] = {}
    for record in firing:
        key = (record.alertname, record.severity.value)
        counts[key] = counts.get(key, 0) + 1
    # Keep series for known severities present at 0 so rules can test for absence cheaply.
    for record in firing:
        for sev in Severity:
            counts.setdefault((record.alertname, sev.value), 0)
    return [(k, float(v)) for k, v in sorted(counts.items())]


def monotonic_now() -> float:
    return time.monotonic()
