"""Source runner: the one place that times polls, counts failures and reports up/down.

Two kinds of source (as in telegraf): *polled* sources answer `poll(now)` on a cadence, run in
a worker thread so blocking I/O (psutil, sockets, subprocesses) never stalls the event loop;
*streaming* sources run their own loop and push observations through `emit`. Either may raise:
the runner translates the error into a SourceFault, marks the source down, and carries on.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import structlog

from monitor.errors import SourceError
from monitor.model import (
    MetricFamilyData,
    Observation,
    SourceFault,
    SourceState,
    counter,
    gauge,
)

log = structlog.get_logger("rankwatch.runner")

Emit = Callable[[Observation], None]


@runtime_checkable
class PolledSource(Protocol):
    name: str
    interval_seconds: float

    def poll(self, now: float) -> Sequence[Observation]:
        """Blocking read; runs in a worker thread. Raise SourceError when blind."""


@runtime_checkable
class StreamingSource(Protocol):
    name: str

    async def run(self, emit: Emit) -> None:
        """Run until cancelled, emitting observations as they come."""


@runtime_checkable
class ObservationListener(Protocol):
    """A source that reacts to derived observations (e.g. the sampler to a Suspicion)."""

    def on_observation(self, obs: Observation) -> None: ...


@runtime_checkable
class MetricSource(Protocol):
    def metric_families(self) -> Sequence[MetricFamilyData]: ...


@dataclass
class SourceStats:
    up: bool | None = None
    polls: int = 0
    last_duration_seconds: float = 0.0
    errors: dict[str, int] = field(default_factory=dict)
    dropped: int = 0
    emitted: int = 0


class Bus:
    """The bounded observation queue between sources and the detector loop."""

    def __init__(self, maxsize: int) -> None:
        self.queue: asyncio.Queue[Observation] = asyncio.Queue(maxsize)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.stats: dict[str, SourceStats] = {}

    def bind_loop(self) -> None:
        self.loop = asyncio.get_running_loop()

    def emitter(self, source: str) -> Emit:
        stats = self.stats.setdefault(source, SourceStats())

        def emit(obs: Observation) -> None:
            if isinstance(obs, SourceState) and obs.source == source:
                stats.up = obs.up  # a streaming source reporting its own sight (source_up)
            try:
                self.queue.put_nowait(obs)
                stats.emitted += 1
            except asyncio.QueueFull:
                stats.dropped += 1

        return emit

    def threadsafe_emitter(self, source: str) -> Emit:
        """An emitter callable from any thread (streaming readers run in threads)."""
        emit = self.emitter(source)
        loop = self.loop
        assert loop is not None, "bind_loop() first"

        def emit_threadsafe(obs: Observation) -> None:
            try:
                loop.call_soon_threadsafe(emit, obs)
            except RuntimeError:  # loop closed during shutdown
                pass

        return emit_threadsafe


class SourceRunner:
    def __init__(self, bus: Bus, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._bus = bus
        self._monotonic = monotonic
        self._lock = threading.Lock()

    def _set_up(self, name: str, up: bool, reason: str, quiet: bool = False) -> None:
        stats = self._bus.stats.setdefault(name, SourceStats())
        if stats.up is up:
            return
        stats.up = up
        if up:
            log.info("source_up", source=name)
        elif quiet:
            log.info("source_down", source=name, reason=reason)
        else:
            log.warning("source_down", source=name, reason=reason)
        self._bus.emitter(name)(SourceState(self._monotonic(), name, up, reason))

    def _fault(self, name: str, error_type: str, message: str, quiet: bool = False) -> None:
        stats = self._bus.stats.setdefault(name, SourceStats())
        first = error_type not in stats.errors
        stats.errors[error_type] = stats.errors.get(error_type, 0) + 1
        if first:
            report = log.info if quiet else log.warning
            report("source_error", source=name, error_type=error_type, error=message)
        self._bus.emitter(name)(SourceFault(self._monotonic(), name, error_type, message))

    async def run_polled(self, source: PolledSource) -> None:
        emit = self._bus.emitter(source.name)
        stats = self._bus.stats.setdefault(source.name, SourceStats())
        while True:
            started = self._monotonic()
            try:
                observations = await asyncio.to_thread(source.poll, started)
            except asyncio.CancelledError:
                raise
            except SourceError as exc:
                self._fault(source.name, exc.error_type, str(exc), exc.quiet)
                self._set_up(source.name, False, str(exc), exc.quiet)
            except Exception as exc:  # noqa: BLE001 - the runner is one of three broad catches
                self._fault(source.name, type(exc).__name__, str(exc))
                self._set_up(source.name, False, f"{type(exc).__name__}: {exc}")
            else:
                for obs in observations:
                    emit(obs)
                self._set_up(source.name, True, "")
            finally:
                stats.polls += 1
                stats.last_duration_seconds = self._monotonic() - started
            interval = max(0.05, float(source.interval_seconds))
            delay = max(0.0, interval - (self._monotonic() - started))
            wake = getattr(source, "wake", None)
            if isinstance(wake, asyncio.Event):
                # A source may be asked to look now (a suspicion wants fresh evidence).
                try:
                    await asyncio.wait_for(wake.wait(), timeout=delay)
                except asyncio.TimeoutError:
                    pass
                wake.clear()
            else:
                await asyncio.sleep(delay)

    async def run_streaming(self, source: StreamingSource) -> None:
        emit = self._bus.emitter(source.name)
        self._set_up(source.name, True, "")
        try:
            await source.run(emit)
        except asyncio.CancelledError:
            raise
        except SourceError as exc:
            self._fault(source.name, exc.error_type, str(exc))
            self._set_up(source.name, False, str(exc))
        except Exception as exc:  # noqa: BLE001 - the runner is one of three broad catches
            self._fault(source.name, type(exc).__name__, str(exc))
            self._set_up(source.name, False, f"{type(exc).__name__}: {exc}")

    def metric_families(self) -> list[MetricFamilyData]:
        stats = sorted(self._bus.stats.items())
        return [
            gauge(
                "source_up",
                "1 when the source can see, 0 when it is blind (its concerns are UNKNOWN).",
                ("source",),
                [((n,), 1.0 if s.up else 0.0) for n, s in stats if s.up is not None],
            ),
            gauge(
                "source_poll_duration_seconds",
                "Duration of the source's last poll.",
                ("source",),
                [((n,), s.last_duration_seconds) for n, s in stats if s.polls],
            ),
            counter(
                "source_polls",
                "Polls run, by source.",
                ("source",),
                [((n,), s.polls) for n, s in stats if s.polls],
            ),
            counter(
                "source_errors",
                "Source failures, by source and error type.",
                ("source", "error_type"),
                [((n, et), c) for n, s in stats for et, c in sorted(s.errors.items())],
            ),
            counter(
                "observations_dropped",
                "Observations dropped because the bounded queue was full.",
                ("source",),
                [((n,), s.dropped) for n, s in stats],
            ),
            counter(
                "observations",
                "Observations emitted, by source.",
                ("source",),
                [((n,), s.emitted) for n, s in stats],
            ),
        ]
