"""A watch session: build the daemon for a target (wrapped command or attached pids), run it,
and report how the job ended. The component tables here are the one place where sources,
detectors and sinks are registered."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import structlog

from exporters.console import ConsoleSink
from exporters.jsonlog import JsonLogSink
from exporters.prometheus import MetricsServer
from exporters.sink import AlertSink
from monitor.alerts import AlertPolicy
from monitor.clock import Clock, SystemClock
from monitor.daemon import Daemon, JobIdentity
from monitor.detectors.base import Detector
from monitor.detectors.memory import MemoryDetector
from monitor.detectors.process import ProcessDetector, signal_name
from monitor.detectors.progress import ProgressDetector
from monitor.detectors.stacks import StackDetector
from monitor.model import JobEnded, Observation, ProcessExit
from monitor.runner import Bus, PolledSource, StreamingSource
from monitor.settings import Settings
from monitor.sources.exit_events import ExitEventsSource, ExitStatus, ExitStatusBook
from monitor.sources.process_probe import ProcessProbe
from monitor.sources.pyspy import PyspySampler
from monitor.sources.stream import Attribution, FollowedFile, PipeStream

log = structlog.get_logger("rankwatch.session")

FORWARDED_SIGNALS = (
    signal.SIGINT,
    signal.SIGTERM,
    signal.SIGHUP,
    signal.SIGQUIT,
    signal.SIGUSR1,
    signal.SIGUSR2,
)


# Python 3.11 has process_group; 3.10 (DGX OS 6) needs setpgid in the child.
_OWN_GROUP: dict[str, Any] = (
    {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}
)


@dataclass(frozen=True)
class WrapTarget:
    command: list[str]


@dataclass(frozen=True)
class AttachTarget:
    pids: list[int]
    stderr_paths: list[str] = field(default_factory=list)


@dataclass
class SessionResult:
    exit_code: int
    child_status: int | None
    dead_ranks: list[ProcessExit]
    alerts_sent: int
    critical_sent: int
    metrics_url: str | None


class CommandNotFound(Exception):
    def __init__(self, command: str, exit_code: int, reason: str) -> None:
        self.command = command
        self.exit_code = exit_code
        self.reason = reason
        super().__init__(f"{command}: {reason}")


def exit_code_of(returncode: int) -> int:
    """Shell convention: a child killed by signal N gives 128+N."""
    return 128 - returncode if returncode < 0 else returncode


def node_name(settings: Settings) -> str:
    return settings.general.node_name or socket.gethostname().split(".")[0]


@dataclass
class Components:
    sources: list[PolledSource | StreamingSource]
    detectors: list[Detector]
    sinks: list[AlertSink]
    probe: ProcessProbe
    pipes: list[PipeStream]
    followers: list[FollowedFile]
    book: ExitStatusBook


def build_components(
    settings: Settings,
    roots: Any,
    clock: Clock,
    pipes: Sequence[tuple[str, int, int | None]] = (),
    stderr_paths: Sequence[str] = (),
    console: TextIO | None = None,
) -> Components:
    book = ExitStatusBook()
    probe = ProcessProbe(roots, book, settings.process.interval_seconds)
    attribution = Attribution(
        srun_label=settings.stream.srun_label_prefix, host_prefix=settings.stream.host_prefix
    )
    pipe_sources = [
        PipeStream(name, fd, through, settings.stream.max_line_bytes, attribution, clock.monotonic)
        for name, fd, through in pipes
    ]
    followers = [
        FollowedFile(
            path,
            settings.stream.max_line_bytes,
            attribution,
            settings.stream.follow_poll_seconds,
            clock.monotonic,
        )
        for path in stderr_paths
    ]
    sources: list[PolledSource | StreamingSource] = [probe, *pipe_sources, *followers]
    if settings.process.exit_events:
        sources.append(ExitEventsSource(book))
    detectors: list[Detector] = [
        ProcessDetector(settings.process),
        ProgressDetector(settings.progress),
        MemoryDetector(settings.memory),
    ]
    if settings.pyspy.enabled:
        # The sampler dumps the ranks and workers of the probe's latest process table.
        sources.append(
            PyspySampler(
                settings.pyspy,
                state_dir=settings.general.state_dir,
                process_table=lambda: probe.latest,
            )
        )
        detectors.append(StackDetector(settings.pyspy, settings.progress))
    sinks: list[AlertSink] = [ConsoleSink(console)]
    if settings.general.alert_log:
        sinks.append(JsonLogSink(settings.general.alert_log))
    return Components(sources, detectors, sinks, probe, pipe_sources, followers, book)


class Session:
    def __init__(
        self,
        settings: Settings,
        target: WrapTarget | AttachTarget,
        *,
        clock: Clock | None = None,
        console: TextIO | None = None,
        announce: TextIO | None = None,
        on_metrics_url: Callable[[str | None], None] | None = None,
    ) -> None:
        self.on_metrics_url = on_metrics_url
        self.settings = settings
        self.target = target
        self.clock = clock or SystemClock()
        self.console = console
        self.announce = announce or sys.stderr
        self.child: subprocess.Popen[bytes] | None = None
        self.metrics: MetricsServer | None = None
        self.daemon: Daemon | None = None
        self._stop = asyncio.Event()
        self._child_status: int | None = None

    # -- the child -----------------------------------------------------------------------
    def _start_child(self, command: list[str]) -> subprocess.Popen[bytes]:
        try:
            # Own process group: terminal signals reach rankwatch, which forwards them to the
            # whole job (like a shell's foreground group), so nothing is signalled twice.
            return subprocess.Popen(
                command, stdin=None, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **_OWN_GROUP
            )
        except FileNotFoundError as exc:
            raise CommandNotFound(command[0], 127, "command not found") from exc
        except PermissionError as exc:
            raise CommandNotFound(command[0], 126, "permission denied") from exc
        except OSError as exc:
            raise CommandNotFound(command[0], 126, exc.strerror or str(exc)) from exc

    def _forward(self, signum: int) -> None:
        if self.child is not None and self.child.poll() is None:
            try:
                os.killpg(self.child.pid, signum)
            except (ProcessLookupError, PermissionError):
                pass
        elif isinstance(self.target, AttachTarget) or self.child is None:
            self._stop.set()

    # -- run -----------------------------------------------------------------------------
    async def run(self) -> SessionResult:
        s = self.settings
        loop = asyncio.get_running_loop()
        pipes: list[tuple[str, int, int | None]] = []
        roots: Any
        if isinstance(self.target, WrapTarget):
            self.child = self._start_child(self.target.command)
            assert self.child.stdout is not None and self.child.stderr is not None
            pipes = [
                ("stdout", os.dup(self.child.stdout.fileno()), sys.stdout.fileno()),
                ("stderr", os.dup(self.child.stderr.fileno()), sys.stderr.fileno()),
            ]
            self.child.stdout.close()
            self.child.stderr.close()
            child_pid = self.child.pid
            roots = lambda: [child_pid]  # noqa: E731 - a tiny closure is clearest here
            mode = "wrap"
        else:
            attach_pids = list(self.target.pids)
            roots = lambda: attach_pids  # noqa: E731
            mode = "attach"
        parts = build_components(
            s,
            roots,
            self.clock,
            pipes,
            self.target.stderr_paths if isinstance(self.target, AttachTarget) else (),
            self.console,
        )
        identity = JobIdentity(s.general.job_id, node_name(s), mode)
        policy = AlertPolicy(identity.job, identity.node, s.general.runbook_base_url)
        self.daemon = daemon = Daemon(
            identity=identity,
            clock=self.clock,
            bus=Bus(s.general.queue_size),
            sources=parts.sources,
            detectors=parts.detectors,
            policy=policy,
            sinks=parts.sinks,
            tick_seconds=s.general.tick_seconds,
            shutdown_grace_seconds=s.general.shutdown_grace_seconds,
        )
        metrics_url = self._start_metrics(daemon)
        if self.on_metrics_url is not None:
            self.on_metrics_url(metrics_url)
        for signum in FORWARDED_SIGNALS:
            loop.add_signal_handler(signum, self._forward, signum)
        daemon.start_sources()
        runner = asyncio.create_task(daemon.run(self._stop))
        try:
            if self.child is not None:
                returncode = await asyncio.to_thread(self.child.wait)
                self._child_status = returncode
                code, sig = (None, -returncode) if returncode < 0 else (returncode, None)
                parts.book.record(self.child.pid, ExitStatus(code, sig, "wait"))
                await self._drain_pipes(parts.pipes)
            else:
                await self._wait_attached(parts.probe)
            await self._final_pass(daemon, parts)
        finally:
            self._stop.set()
            await runner
            for signum in FORWARDED_SIGNALS:
                loop.remove_signal_handler(signum)
            for follower in parts.followers:
                follower.stop()
            await daemon.stop_sources()
            daemon.finish("job ended")
            await daemon.close_sinks()
            if self.metrics is not None:
                self.metrics.stop()
        dead = [d for d in _process_detector(daemon).dead]
        sent = sum(
            c for (_, status), c in daemon.stats.alerts_by_name.items() if status == "firing"
        )
        critical = sum(
            1
            for r in daemon.stats.records
            if r.status == "firing" and r.severity.value == "critical"
        )
        exit_code = exit_code_of(self._child_status) if self._child_status is not None else 0
        return SessionResult(exit_code, self._child_status, dead, sent, critical, metrics_url)

    def _start_metrics(self, daemon: Daemon) -> str | None:
        addr = self.settings.general.metrics_addr
        if not addr:
            return None
        self.metrics = MetricsServer(daemon.snapshots, addr)
        try:
            url = self.metrics.start()
        except OSError as exc:
            # A busy port must not stop the job from running: carry on without the endpoint.
            log.warning("metrics_unavailable", addr=addr, error=str(exc))
            self.announce.write(
                f"rankwatch: metrics endpoint {addr} unavailable: {exc.strerror or exc}\n"
            )
            self.metrics = None
            return None
        log.info("metrics_listening", url=url)
        return url

    async def _drain_pipes(self, pipes: list[PipeStream]) -> None:
        # A daemonised grandchild may keep the pipes open: wait a little, never forever.
        for pipe in pipes:
            await asyncio.to_thread(pipe.eof.wait, 3.0)

    async def _wait_attached(self, probe: ProcessProbe) -> None:
        import psutil

        pids = self.target.pids if isinstance(self.target, AttachTarget) else []
        while not self._stop.is_set():
            if not any(psutil.pid_exists(p) for p in pids):
                return
            try:
                await asyncio.wait_for(self._stop.wait(), timeout=1.0)
            except asyncio.TimeoutError:
                continue

    async def _final_pass(self, daemon: Daemon, parts: Components) -> None:
        """One last look after the job ended: exits, the last lines, then a final tick."""
        now = self.clock.monotonic()
        observations: list[Observation] = []
        for _ in range(2):  # a second poll lets deferred exit statuses settle
            try:
                observations.extend(await asyncio.to_thread(parts.probe.poll, now))
            except Exception:  # noqa: BLE001 - the job is gone; the probe may be blind now
                break
        for obs in observations:
            daemon.dispatch(obs)
        daemon.drain()
        daemon.dispatch(JobEnded(self.clock.monotonic(), self._child_status))
        daemon.tick(self.clock.monotonic())


def _process_detector(daemon: Daemon) -> ProcessDetector:
    for detector in daemon.detectors:
        if isinstance(detector, ProcessDetector):
            return detector
    raise LookupError("process detector missing")


def summary_line(result: SessionResult) -> str:
    parts = [f"rankwatch: job exited with status {result.exit_code}"]
    if result.dead_ranks:
        deaths = []
        for d in result.dead_ranks:
            how = (
                signal_name(d.signal)
                if d.signal
                else (f"code {d.exit_code}" if d.exit_code is not None else "status unknown")
            )
            deaths.append(f"rank {d.rank} ({how})")
        parts.append("failed ranks: " + ", ".join(deaths))
        if result.exit_code == 0:
            parts.append("WARNING: the launcher exited 0 although a rank failed")
    parts.append(f"{result.alerts_sent} alert(s), {result.critical_sent} critical")
    return "; ".join(parts)
