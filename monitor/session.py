"""A watch session: build the daemon for a target (wrapped command or attached pids), run it,
and report how the job ended. The component tables here are the one place where sources,
detectors and sinks are registered."""

from __future__ import annotations

import asyncio
import dataclasses
import errno
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import structlog

from exporters.console import ConsoleSink
from exporters.factory import build_sinks, settings_scrubber, start_sinks
from exporters.jsonlog import JsonLogSink
from exporters.notify_policy import is_reporting_node
from exporters.prometheus import MetricsServer
from exporters.sink import AlertSink, CallbackSink
from monitor.alerts import AlertPolicy
from monitor.clock import Clock, SystemClock
from monitor.daemon import Daemon, JobIdentity
from monitor.detectors.base import Detector
from monitor.detectors.log_events import LogEventsDetector
from monitor.detectors.memory import MemoryDetector
from monitor.detectors.nccl import NcclRasDetector
from monitor.detectors.process import ProcessDetector, signal_name
from monitor.detectors.progress import ProgressDetector
from monitor.detectors.stacks import StackDetector
from monitor.detectors.time_sync import ClockDetector
from monitor.errors import RankwatchError
from monitor.incidents import IncidentLayer
from monitor.model import AlertRecord, JobEnded, Observation, ProcessExit, StopRequested
from monitor.runner import Bus, PolledSource, StreamingSource
from monitor.settings import Settings
from monitor.slurm.context import (
    JobDetails,
    JobProcesses,
    OutputFile,
    Scontrol,
    SlurmContext,
    SlurmError,
)
from monitor.slurm.job_source import SlurmJobSource
from monitor.sources.exit_events import ExitEventsSource, ExitStatus, ExitStatusBook
from monitor.sources.nccl_ras import NcclRasSource, local_addresses
from monitor.sources.process_probe import ProcessProbe
from monitor.sources.pyspy import PyspySampler
from monitor.sources.stream import Attribution, FollowedFile, Opener, PipeStream
from monitor.sources.time_sync_probe import ClockReferenceProbe, LocalClockProbe
from monitor.sources.torch_debug import TorchDebugOnSuspicion
from monitor.sources.user_file import RefusedFile, UserIdentity, open_user_file

log = structlog.get_logger("rankwatch.session")

FORWARDED_SIGNALS = (
    signal.SIGINT,
    signal.SIGTERM,
    signal.SIGHUP,
    signal.SIGQUIT,
    signal.SIGUSR1,
    signal.SIGUSR2,
)
# Forwarded signals that ask the job to end (SIGUSR1/2 and SIGQUIT ask it for other things).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


# Python 3.11 has process_group; 3.10 (DGX OS 6) needs setpgid in the child.
_OWN_GROUP: dict[str, Any] = (
    {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}
)


@dataclass(frozen=True)
class WrapTarget:
    command: list[str]
    # Where the job's own output goes: our stdout/stderr (None), or one file (the demo).
    output_path: str | None = None


@dataclass(frozen=True)
class AttachTarget:
    pids: list[int]
    stderr_paths: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SlurmTarget:
    """A SLURM job on this node, as the prolog starts rankwatch (`run --slurm-job ID`)."""

    job_id: str
    env: Mapping[str, str] | None = None  # the prolog environment; default os.environ


class SessionError(RankwatchError):
    """The session cannot start (e.g. the SLURM prolog environment is incomplete)."""


@dataclass
class SessionResult:
    exit_code: int
    child_status: int | None
    dead_ranks: list[ProcessExit]
    alerts_sent: int
    critical_sent: int
    metrics_url: str | None
    ended_by_scheduler: list[ProcessExit] = field(default_factory=list)
    stop_reason: str = ""  # a stop someone asked for: the deaths after it are not failures


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


def configured_node_index(settings: Settings, env: Mapping[str, str] | None = None) -> int | None:
    """This node's index in the job outside `--slurm-job`: the setting, else SLURM_NODEID
    (rankwatch started inside a job step), else None (one node: it polls RAS and reports)."""
    if settings.general.node_index >= 0:
        return settings.general.node_index
    value = (env if env is not None else os.environ).get("SLURM_NODEID", "")
    return int(value) if value.isdigit() else None


def with_general(settings: Settings, **changes: Any) -> Settings:
    return dataclasses.replace(settings, general=dataclasses.replace(settings.general, **changes))


@dataclass
class Components:
    sources: list[PolledSource | StreamingSource]
    detectors: list[Detector]
    sinks: list[AlertSink]
    probe: ProcessProbe
    pipes: list[PipeStream]
    followers: list[FollowedFile]
    book: ExitStatusBook
    log_events: LogEventsDetector | None = None
    ras: NcclRasSource | None = None
    incidents: IncidentLayer | None = None


def build_components(
    settings: Settings,
    roots: Any,
    clock: Clock,
    pipes: Sequence[tuple[str, int, int | None]] = (),
    stderr_paths: Sequence[str] = (),
    console: TextIO | None = None,
    *,
    node_index: int | None = None,
    signal_death_hold_seconds: float = 0.0,
) -> Components:
    """Every source, detector and sink of a session; `node_index` None means one node (wrap)."""
    book = ExitStatusBook()
    incidents = IncidentLayer(settings.incidents, id_prefix=f"{node_name(settings)}-")
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
        ProcessDetector(settings.process, signal_death_hold_seconds=signal_death_hold_seconds),
        ProgressDetector(settings.progress, view=incidents.view),
        MemoryDetector(settings.memory),
    ]
    log_events: LogEventsDetector | None = None
    if settings.log_events.enabled:
        ev = settings.log_events
        log_events = LogEventsDetector(
            settle_seconds=ev.settle_seconds,
            resolve_after_seconds=ev.resolve_after_seconds,
            block_idle_seconds=ev.block_idle_seconds,
            nccl_init_hold_seconds=ev.nccl_init_hold_seconds,
            escalating_retries=ev.escalating_retries,
            escalating_window_seconds=ev.escalating_window_seconds,
            stream_sources=[p.name for p in pipe_sources] + [f.name for f in followers],
            srun_label=settings.stream.srun_label_prefix,
            host_prefix=settings.stream.host_prefix,
        )
        detectors.append(log_events)
    ras: NcclRasSource | None = None
    if settings.ras.enabled:
        # The ranks' environments tell the RAS address (NCCL_RAS_ADDR) when it is not given.
        ras = NcclRasSource(
            settings.ras,
            node_index=node_index,
            rank_environments=lambda: list(probe.environments.values()),
        )
        sources.append(ras)
        detectors.append(
            NcclRasDetector(settings.ras, local_hosts=local_addresses(), view=incidents.view)
        )
    if settings.pyspy.enabled:
        # The sampler dumps the ranks and workers of the probe's latest process table.
        sources.append(
            PyspySampler(
                settings.pyspy,
                state_dir=settings.general.state_dir,
                process_table=lambda: probe.latest,
            )
        )
        detectors.append(StackDetector(settings.pyspy, settings.progress, view=incidents.view))
    if settings.torch_debug.base_port:
        # The job opted in: a suspicion also asks its ranks' debug servers, without ptrace.
        sources.append(
            TorchDebugOnSuspicion(
                settings.torch_debug.base_port,
                lambda: probe.latest,
                timeout_seconds=settings.torch_debug.timeout_seconds,
                min_gap_seconds=settings.torch_debug.min_gap_seconds,
            )
        )
    if settings.clock.enabled:
        sources.extend([LocalClockProbe(settings.clock), ClockReferenceProbe(settings.clock)])
        detectors.append(ClockDetector(settings.clock, node_name(settings)))
    sinks: list[AlertSink] = [ConsoleSink(console)]
    if settings.general.alert_log:
        sinks.append(JsonLogSink(settings.general.alert_log))
    sinks.extend(
        build_sinks(
            settings,
            node_is_reporting=is_reporting_node(node_index),
            node_name=node_name(settings),
        )
    )
    return Components(
        sources, detectors, sinks, probe, pipe_sources, followers, book, log_events, ras, incidents
    )


@dataclass
class SlurmJob:
    """What the prolog environment and one `scontrol show job` tell about the job."""

    context: SlurmContext
    details: JobDetails | None
    scontrol: Scontrol
    user: UserIdentity | None


def prepare_slurm(settings: Settings, target: SlurmTarget) -> SlurmJob:
    """Read the job context; the one slurmctld call of the whole job is made here."""
    env = target.env if target.env is not None else os.environ
    try:
        context = SlurmContext.from_env(env, target.job_id)
    except SlurmError as exc:
        raise SessionError(f"--slurm-job {target.job_id}: {exc}") from exc
    scontrol = Scontrol(settings.slurm.scontrol, settings.slurm.scontrol_timeout_seconds)
    details: JobDetails | None = None
    try:
        details = scontrol.show_job(context.job_id)
    except SlurmError as exc:
        # Without it only the per-task files and the prolog's patterns are known: carry on.
        log.warning("slurm_show_job_failed", job=context.job_id, error=str(exc))
    user = UserIdentity.lookup(context.uid, context.gid) if context.uid is not None else None
    return SlurmJob(context, details, scontrol, user)


def user_file_opener(user: UserIdentity | None) -> Opener:
    """Open a job's output file only as its user could (never a planted symlink to root's)."""

    def opener(path: str) -> int:
        try:
            handle = open_user_file(path, user)
        except RefusedFile as exc:
            if exc.reason == "not_found":
                raise FileNotFoundError(errno.ENOENT, "no such file", path) from exc
            raise PermissionError(errno.EACCES, str(exc)) from exc
        try:
            return os.dup(handle.fileno())
        finally:
            handle.close()

    return opener


class Session:
    def __init__(
        self,
        settings: Settings,
        target: WrapTarget | AttachTarget | SlurmTarget,
        *,
        clock: Clock | None = None,
        console: TextIO | None = None,
        announce: TextIO | None = None,
        on_metrics_url: Callable[[str | None], None] | None = None,
        on_record: Callable[[AlertRecord], None] | None = None,
    ) -> None:
        self.on_metrics_url = on_metrics_url
        self.on_record = on_record
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
        self._parts: Components | None = None
        self._slurm_source: SlurmJobSource | None = None
        self._slurm_user: UserIdentity | None = None
        self._owned_fds: list[int] = []

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

    def _output_file(self, path: str) -> int:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self._owned_fds.append(fd)
        return fd

    def _forward(self, signum: int) -> None:
        if self.daemon is not None and signum in STOP_SIGNALS:
            # A stop someone asked for: what dies from here on is not a fault.
            how = "the epilog" if isinstance(self.target, SlurmTarget) else "rankwatch run"
            self.daemon.dispatch(
                StopRequested(
                    self.clock.monotonic(),
                    f"{signal_name(signum)} sent to {how}",
                    "epilog" if isinstance(self.target, SlurmTarget) else "signal",
                )
            )
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
        node_index = configured_node_index(s)
        hold = 0.0
        slurm: SlurmJob | None = None
        if isinstance(self.target, WrapTarget):
            self.child = self._start_child(self.target.command)
            assert self.child.stdout is not None and self.child.stderr is not None
            through_out, through_err = sys.stdout.fileno(), sys.stderr.fileno()
            if self.target.output_path is not None:
                through_out = through_err = self._output_file(self.target.output_path)
            pipes = [
                ("stdout", os.dup(self.child.stdout.fileno()), through_out),
                ("stderr", os.dup(self.child.stderr.fileno()), through_err),
            ]
            self.child.stdout.close()
            self.child.stderr.close()
            child_pid = self.child.pid
            roots = lambda: [child_pid]  # noqa: E731 - a tiny closure is clearest here
            mode = "wrap"
        elif isinstance(self.target, SlurmTarget):
            slurm = await asyncio.to_thread(prepare_slurm, s, self.target)
            context = slurm.context
            s = self.settings = with_general(
                s,
                job_id=s.general.job_id or context.job_id,
                node_name=s.general.node_name or context.node_name,
            )
            node_index = context.node_index
            hold = s.slurm.teardown_grace_seconds
            roots = lambda: self._slurm_source.rank_pids if self._slurm_source else []  # noqa: E731
            mode = "slurm"
        else:
            attach_pids = list(self.target.pids)
            roots = lambda: attach_pids  # noqa: E731
            mode = "attach"
        self._parts = parts = build_components(
            s,
            roots,
            self.clock,
            pipes,
            self.target.stderr_paths if isinstance(self.target, AttachTarget) else (),
            self.console,
            node_index=node_index,
            signal_death_hold_seconds=hold,
        )
        if self.on_record is not None:
            parts.sinks.append(CallbackSink(self.on_record))
        if slurm is not None:
            self._slurm_user = slurm.user
            self._slurm_source = SlurmJobSource(
                slurm.context,
                slurm.details,
                JobProcesses(
                    slurm.scontrol, slurm.context.job_id, s.slurm.listpids_interval_seconds
                ),
                # Called from the source's worker thread: start followers on the loop.
                on_new_file=lambda found: _ignore(
                    loop.call_soon_threadsafe(self._follow_job_file, found)
                ),
                follow_shared_output=s.slurm.follow_shared_output,
            )
            parts.sources.insert(0, self._slurm_source)
        identity = JobIdentity(s.general.job_id, node_name(s), mode)
        policy = AlertPolicy(identity.job, identity.node, s.general.runbook_base_url)
        # Secrets configured for the sinks never reach any output, ours included.
        scrubber = settings_scrubber(s.delivery)
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
            record_filter=scrubber.record,
            incidents=parts.incidents,
        )
        metrics_url = self._start_metrics(daemon)
        if self.on_metrics_url is not None:
            self.on_metrics_url(metrics_url)
        for signum in FORWARDED_SIGNALS:
            loop.add_signal_handler(signum, self._forward, signum)
        daemon.start_sources()
        await start_sinks(parts.sinks)  # alerts spooled by an earlier run go out now
        runner = asyncio.create_task(daemon.run(self._stop))
        try:
            if self.child is not None:
                returncode = await asyncio.to_thread(self.child.wait)
                self._child_status = returncode
                code, sig = (None, -returncode) if returncode < 0 else (returncode, None)
                parts.book.record(self.child.pid, ExitStatus(code, sig, "wait"))
                await self._drain_pipes(parts.pipes)
            elif slurm is not None:
                await self._stop.wait()  # the epilog stops us (SIGTERM) when the job ends
            else:
                await self._wait_attached(parts.probe)
            await self._final_pass(daemon, parts)
        finally:
            self._stop.set()
            if parts.ras is not None:
                parts.ras.close()  # cut a RAS reply wait short
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
            for fd in self._owned_fds:
                os.close(fd)
        process = _process_detector(daemon)
        sent = sum(
            c for (_, status), c in daemon.stats.alerts_by_name.items() if status == "firing"
        )
        critical = sum(
            1
            for r in daemon.stats.records
            if r.status == "firing" and r.severity.value == "critical"
        )
        exit_code = exit_code_of(self._child_status) if self._child_status is not None else 0
        return SessionResult(
            exit_code,
            self._child_status,
            list(process.dead),
            sent,
            critical,
            metrics_url,
            ended_by_scheduler=list(process.ended_by_scheduler),
            stop_reason=parts.incidents.view.stop_reason if parts.incidents else "",
        )

    def _follow_job_file(self, found: OutputFile) -> None:
        """Follow an output file of a job step as the job's user could read it (loop thread)."""
        parts, daemon = self._parts, self.daemon
        if parts is None or daemon is None or self._stop.is_set():
            return
        s = self.settings
        attribution = Attribution(
            srun_label=s.stream.srun_label_prefix,
            host_prefix=s.stream.host_prefix,
            # A task's own file (%t) holds that task's lines only.
            default_rank=found.task_id if found.origin == "task" else None,
        )
        follower = FollowedFile(
            found.path,
            s.stream.max_line_bytes,
            attribution,
            s.stream.follow_poll_seconds,
            self.clock.monotonic,
            opener=user_file_opener(self._slurm_user),
            name=f"{found.stream}:{os.path.basename(found.path)}",
        )
        parts.followers.append(follower)
        if parts.log_events is not None:
            parts.log_events.add_stream_source(follower.name)
        log.info("following_output", path=found.path, origin=found.origin, step=found.step)
        daemon.add_source(follower)

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


def _ignore(_value: object) -> None:
    return None


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
        if result.stop_reason:
            parts.append(f"stopped ({result.stop_reason}); ranks ended: " + ", ".join(deaths))
        else:
            parts.append("failed ranks: " + ", ".join(deaths))
        if result.exit_code == 0 and not result.stop_reason:
            parts.append("WARNING: the launcher exited 0 although a rank failed")
    if result.ended_by_scheduler:
        ranks = ", ".join(str(d.rank) for d in result.ended_by_scheduler)
        parts.append(f"ranks ended by the scheduler (scancel, time limit): {ranks}")
    parts.append(f"{result.alerts_sent} alert(s), {result.critical_sent} critical")
    return "; ".join(parts)
