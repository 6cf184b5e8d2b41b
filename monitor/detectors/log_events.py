"""Log-event detector: the job's output lines → alerts with the analysis attached.

Input: `OutputChunk` observations (lines already attributed to ranks where the stream knows).
Each chunk is pre-filtered as a whole (plain substring searches over the joined text); only
candidate lines, and the lines of an open multi-line block, reach the event extractor.

Alerts are coalesced by name: one alert per alert name however many ranks report (an error
storm from 512 ranks is one alert listing them), its analysis updated as more lines arrive.

States and edges, per alert name:
  quiet   → pending   first event (the settle window gathers the rest of the storm)
  pending → firing    tick after `settle_seconds`: Transition(firing) with the analysis
  firing  → firing    analysis changed (culprits, category, severity): Transition again
  firing  → quiet     no new event for `resolve_after_seconds`: Transition(resolved)
Health: UNKNOWN until output was seen or while a stream source is down (blind); CRITICAL or
WARNING while alerts of that severity fire; OK otherwise.

Derived observations: `Suspicion` for implicated ranks (stragglers, observers, crashed ranks)
so the stack sampler takes evidence now; `PhaseHint` while a rank initialises NCCL.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from monitor.model import (
    Category,
    ConcernHealth,
    DetectorOutput,
    EvidenceValue,
    Health,
    MetricFamilyData,
    Observation,
    OutputChunk,
    PhaseHint,
    Scope,
    Severity,
    SourceState,
    Suspicion,
    Transition,
    counter,
)
from monitor.parse.collectives import collective_picture
from monitor.parse.ddp_check import contradictory
from monitor.parse.log_events import EventExtractor, EventKind, LogEvent
from monitor.parse.log_patterns import LIVE_LITERALS

NAME = "log_events"
_MAX_INCIDENT_EVENTS = 4000
_MAX_EVIDENCE_RANKS = 64
_COLLATERAL_EXCEPTIONS = ("DistBackendError", "ChildFailedError", "SignalException",
                          "KeyboardInterrupt", "DistNetworkError", "DistStoreError",
                          "RendezvousConnectionError")
_IO_EXCEPTIONS = frozenset({"OSError", "IOError", "FileNotFoundError", "PermissionError",
                            "BlockingIOError", "ConnectionResetError", "TimeoutError"})
_HW_XID_CAUSES = frozenset({48, 63, 64, 74, 79, 92, 94, 95, 109, 119, 120, 137, 145, 149, 154})
# A traceback whose message is one of these is reported by the alert its own line routes to
# (as triage's `own_exception` leaves them to their rules): not also a RankException.
_ROUTED_MESSAGES = ("Timed out waiting", "failed to pass monitoredBarrier", "has inconsistent",
                    "successfully reached monitoredBarrier",
                    "Detected mismatch between collectives", "PytorchStreamWriter failed",
                    "No space left on device", "Disk quota exceeded",
                    "The actor died unexpectedly")
_ROUTED_EXCEPTIONS = ("ActorDiedError", "RayActorError")
_JOINED_BY_DESIGN = re.compile(r"Detected uneven workload distribution|manually join all workers")
# A failed write the program itself handles (it retries, or logs it as a warning) may still
# succeed: it warns, never pages (as with RetriesEscalating).
_HANDLED = re.compile(r"\b(?:[Rr]etr(?:y|ying|ies)|[Ww]ill retry|WARNING|Warning)\b")


@dataclass(frozen=True)
class AlertSpec:
    alertname: str
    severity: Severity
    scope: Scope
    title: str


ALERTS: dict[str, AlertSpec] = {spec.alertname: spec for spec in (
    AlertSpec("NcclCollectiveTimeout", Severity.CRITICAL, Scope.JOB,
              "NCCL collective timed out"),
    AlertSpec("NcclWatchdogHang", Severity.CRITICAL, Scope.NODE,
              "NCCL watchdog thread stuck"),
    AlertSpec("NcclCommunicationError", Severity.CRITICAL, Scope.JOB,
              "NCCL communication error"),
    AlertSpec("GpuHardwareError", Severity.CRITICAL, Scope.NODE, "GPU hardware error"),
    AlertSpec("CudaError", Severity.CRITICAL, Scope.NODE, "CUDA error"),
    AlertSpec("GpuOutOfMemory", Severity.CRITICAL, Scope.NODE, "CUDA out of memory"),
    AlertSpec("HostOutOfMemory", Severity.CRITICAL, Scope.NODE, "host out of memory"),
    AlertSpec("DataloaderWorkerDied", Severity.CRITICAL, Scope.NODE, "DataLoader worker died"),
    AlertSpec("DataloaderTimeout", Severity.CRITICAL, Scope.NODE, "DataLoader timed out"),
    AlertSpec("RankCrashed", Severity.CRITICAL, Scope.NODE, "rank crashed"),
    AlertSpec("RankException", Severity.WARNING, Scope.NODE, "uncaught exception"),
    AlertSpec("StoreTimeout", Severity.CRITICAL, Scope.JOB,
              "c10d store or rendezvous failure"),
    AlertSpec("JobTerminatedByScheduler", Severity.CRITICAL, Scope.JOB,
              "job terminated from outside"),
    AlertSpec("RetriesExhausted", Severity.CRITICAL, Scope.JOB, "retries exhausted"),
    AlertSpec("RetriesEscalating", Severity.WARNING, Scope.JOB, "retries escalating"),
    AlertSpec("GlooCollectiveTimeout", Severity.CRITICAL, Scope.JOB,
              "gloo collective timed out waiting for a peer"),
    AlertSpec("StorageWriteFailed", Severity.CRITICAL, Scope.NODE, "write to storage failed"),
    AlertSpec("DdpModelMismatch", Severity.CRITICAL, Scope.JOB,
              "DDP model differs across ranks"),
    AlertSpec("MonitoredBarrierFailed", Severity.CRITICAL, Scope.JOB,
              "ranks did not reach the monitored barrier"),
    AlertSpec("CollectiveMismatch", Severity.CRITICAL, Scope.JOB,
              "ranks called different collectives"),
)}


def route(event: LogEvent) -> str | None:
    """Which alert an event belongs to (None: counted only)."""
    kind = event.kind
    fields = event.fields
    if kind in (EventKind.WATCHDOG_TIMEOUT, EventKind.PG_STATUS, EventKind.FR_DUMP,
                EventKind.DESYNC_REPORT, EventKind.NCCL_TEARDOWN):
        if kind is EventKind.FR_DUMP and fields.get("role") == "dump":
            return None
        if kind is EventKind.PG_STATUS and fields.get("source") == "periodic":
            return None
        return "NcclCollectiveTimeout"
    if kind is EventKind.WATCHDOG_TERMINATED:
        cause = str(fields.get("cause", ""))
        return "NcclCollectiveTimeout" if "Watchdog caught" in cause else None
    if kind is EventKind.HEARTBEAT_HANG:
        return "NcclWatchdogHang"
    if kind in (EventKind.NCCL_WARN_NET, EventKind.NCCL_ERROR, EventKind.REMOTE_ERROR):
        return "NcclCommunicationError"
    if kind is EventKind.CUDA_ERROR:
        return "GpuHardwareError" if fields.get("hardware") is True else "CudaError"
    if kind is EventKind.XID:
        hardware = fields.get("role") == "hardware" or (
            fields.get("role") == "secondary" and fields.get("caused_by") in _HW_XID_CAUSES)
        return "GpuHardwareError" if hardware else "CudaError"
    if kind is EventKind.CUDA_OOM:
        return "GpuOutOfMemory" if not fields.get("bad_size") else "CudaError"
    if kind in (EventKind.HOST_OOM, EventKind.SLURM_OOM):
        return "HostOutOfMemory"
    if kind is EventKind.DATALOADER_WORKER_DIED:
        return "HostOutOfMemory" if fields.get("cause") == "killed" else "DataloaderWorkerDied"
    if kind is EventKind.DATALOADER_TIMEOUT:
        return "DataloaderTimeout"
    if kind in (EventKind.FAULTHANDLER, EventKind.NATIVE_CRASH, EventKind.SIGNAL_KILL,
                EventKind.CHILD_FAILED_SUMMARY, EventKind.AGENT_WORKER_FAILED):
        return "RankCrashed"
    if kind is EventKind.CPP_EXCEPTION:
        return "RankCrashed" if fields.get("exc_type") else None
    if kind is EventKind.SLURM_TASK_EXIT:
        return "HostOutOfMemory" if fields.get("oom") else "RankCrashed"
    if kind is EventKind.PYTHON_TRACEBACK:
        exc = str(fields.get("exc_type") or "")
        if not exc or any(word in exc for word in (*_COLLATERAL_EXCEPTIONS,
                                                   *_ROUTED_EXCEPTIONS)):
            return None
        if any(word in str(fields.get("exc_message") or "") for word in _ROUTED_MESSAGES):
            return None
        return "RankException"
    if kind is EventKind.STORE_TIMEOUT and fields.get("phase") == "collective":
        # gloo's pair transport timed out inside a collective (or a monitored barrier), at any
        # time in the job: a collective timeout, not a store or rendezvous failure.
        return "GlooCollectiveTimeout"
    if kind in (EventKind.STORE_TIMEOUT, EventKind.STORE_CONNECTION_LOST,
                EventKind.RENDEZVOUS_ERROR):
        if fields.get("phase") == "barrier_wait" or fields.get("socket_wait"):
            # Ranks still joining (a healthy start prints it too), or c10d's socket warning,
            # which its caller may retry: the store exception that follows is the failure.
            return None
        return "StoreTimeout"
    if kind is EventKind.GPU_FAULT:
        message = str(fields.get("message") or "")
        if "AER" in event.text and "Corrected" in message:
            return None  # corrected by the hardware: counted only
        if "ermission" in message:
            return None  # nvidia-smi not allowed to see the device: not a GPU fault
        return "GpuHardwareError"
    if kind is EventKind.ACTOR_DIED:
        return "RankCrashed"
    if kind in (EventKind.STORAGE_WRITE, EventKind.CHECKPOINT_FAILED):
        return "StorageWriteFailed"
    if kind is EventKind.DDP_MISMATCH:
        named = fields.get("peer_rank") is not None or fields.get("unused_rank") is not None
        return "DdpModelMismatch" if named else None
    if kind is EventKind.MONITORED_BARRIER:
        # a program that catches the barrier's error to let uneven ranks join (WeNet,
        # CosyVoice: "Detected uneven workload distribution … manually join all workers")
        # handles it by design: counted, never paged
        return None if _JOINED_BY_DESIGN.search(event.text) else "MonitoredBarrierFailed"
    if kind is EventKind.COLLECTIVE_MISMATCH:
        return "CollectiveMismatch"
    if kind in (EventKind.SLURM_CANCEL, EventKind.AGENT_DEATH_SIGNAL):
        return "JobTerminatedByScheduler"
    if kind is EventKind.RETRY:
        if fields.get("exhausted"):
            return "RetriesExhausted"
        return None
    return None


@dataclass
class _Incident:
    alertname: str
    first_at: float
    last_at: float
    fire_at: float
    events: list[tuple[int | None, LogEvent]] = field(default_factory=list)
    count: int = 0
    ranks: set[int] = field(default_factory=set)
    firing: bool = False
    dirty: bool = True
    suspected: frozenset[int] = frozenset()
    severity: Severity | None = None  # of the last verdict sent
    handled: bool = False  # a failed write the program retries (StorageWriteFailed)


@dataclass(frozen=True)
class _Verdict:
    severity: Severity
    category: Category
    summary: str
    description: str
    culprits: tuple[int, ...]
    evidence: dict[str, EvidenceValue]
    suspects: tuple[int, ...]
    no_culprit_reason: str = ""


@dataclass
class _Stream:
    extractor: EventExtractor
    last_text: str | None = None
    last_line_at: float = 0.0


class LogEventsDetector:
    """Turns the job's output into alerts. See the module docstring for states and edges."""

    name = NAME

    def __init__(
        self,
        *,
        settle_seconds: float = 2.0,
        resolve_after_seconds: float = 900.0,
        block_idle_seconds: float = 1.0,
        nccl_init_hold_seconds: float = 600.0,
        escalating_retries: int = 3,
        escalating_window_seconds: float = 300.0,
        stream_sources: Sequence[str] = ("stream",),
        srun_label: bool = False,
        host_prefix: bool = False,
    ) -> None:
        self.settle_seconds = settle_seconds
        self.resolve_after_seconds = resolve_after_seconds
        self.block_idle_seconds = block_idle_seconds
        self.nccl_init_hold_seconds = nccl_init_hold_seconds
        self.escalating_retries = escalating_retries
        self.escalating_window_seconds = escalating_window_seconds
        self._stream_sources = set(stream_sources)
        self._extractor_factory: Callable[[], EventExtractor] = lambda: EventExtractor(
            srun_label=srun_label, host_prefix=host_prefix)
        self._streams: dict[str, _Stream] = {}
        self._incidents: dict[str, _Incident] = {}
        self._lines = 0
        self._event_counts: Counter[str] = Counter()
        self._retries: Counter[str] = Counter()
        self._escalating: deque[float] = deque()
        self._retrying_at = float("-inf")  # the last retry that was not exhausted
        self._seen_output = False
        self._blind: dict[str, str] = {}

    def add_stream_source(self, name: str) -> None:
        """A stream started while running (a job step's output file): watch its sight too."""
        self._stream_sources.add(name)

    # -- Detector protocol -----------------------------------------------------------------
    def observe(self, obs: Observation, now: float) -> Sequence[DetectorOutput]:
        if isinstance(obs, OutputChunk):
            self._seen_output = True
            return self._chunk(obs, now)
        if isinstance(obs, SourceState) and obs.source in self._stream_sources:
            if obs.up:
                self._blind.pop(obs.source, None)
            else:
                self._blind[obs.source] = obs.reason or "stream source down"
        return ()

    def tick(self, now: float) -> Sequence[DetectorOutput]:
        out: list[DetectorOutput] = []
        for stream in self._streams.values():
            idle = now - stream.last_line_at >= self.block_idle_seconds
            if stream.extractor.open_blocks and idle:
                out.extend(self._handle(stream.extractor.flush(), now))
        for name in list(self._incidents):
            incident = self._incidents[name]
            due = now >= incident.fire_at if not incident.firing else incident.dirty
            if due:
                out.extend(self._fire(incident, now))
            elif incident.firing and now - incident.last_at >= self.resolve_after_seconds:
                out.append(self._resolve(incident))
                del self._incidents[name]
        return out

    def metric_families(self, now: float) -> Sequence[MetricFamilyData]:
        return [
            counter("log_lines", "Output lines read by the log-event detector.", (),
                    self._lines),
            counter("log_events", "Log events recognised in the job's output, by kind.",
                    ("kind",), [((k,), v) for k, v in sorted(self._event_counts.items())]),
            counter("log_retries", "Retry lines in the output: recovering (attempt 1 of N), "
                    "escalating (attempt 2 and later) or exhausted.", ("outcome",),
                    [((k,), self._retries[k]) for k in ("recovering", "escalating",
                                                        "exhausted")]),
        ]

    def health(self, now: float) -> ConcernHealth:
        if self._blind:
            source, reason = next(iter(sorted(self._blind.items())))
            return ConcernHealth(self.name, Health.UNKNOWN, f"{source}: {reason}")
        if not self._seen_output:
            return ConcernHealth(self.name, Health.UNKNOWN, "no output seen yet")
        firing = [i for i in self._incidents.values() if i.firing]
        if any((i.severity or ALERTS[i.alertname].severity) is Severity.CRITICAL
               for i in firing):
            return ConcernHealth(self.name, Health.CRITICAL,
                                 ", ".join(sorted(i.alertname for i in firing)))
        firing = [i for i in firing if i.severity is not Severity.INFO]
        if firing:
            return ConcernHealth(self.name, Health.WARNING,
                                 ", ".join(sorted(i.alertname for i in firing)))
        return ConcernHealth(self.name, Health.OK)

    # -- lines -------------------------------------------------------------------------------
    def _chunk(self, chunk: OutputChunk, now: float) -> list[DetectorOutput]:
        lines = chunk.lines
        if not lines:
            return []
        self._lines += len(lines)
        stream = self._streams.get(chunk.stream)
        if stream is None:
            stream = self._streams[chunk.stream] = _Stream(self._extractor_factory())
        stream.last_line_at = now
        extractor = stream.extractor
        texts = [line.text for line in lines]
        candidates = _candidate_lines(texts)
        prev_text = stream.last_text
        stream.last_text = texts[-1]
        if not candidates and not extractor.open_blocks:
            return []
        events: list[LogEvent] = []
        feed = extractor.feed
        i = 0 if extractor.open_blocks else candidates[0]
        n = len(lines)
        ci = 0
        while i < n:
            line = lines[i]
            prev = texts[i - 1] if i > 0 else prev_text
            events.extend(feed(line.text, i, rank=line.rank, prev=prev))
            i += 1
            if extractor.open_blocks:
                continue
            while ci < len(candidates) and candidates[ci] < i:
                ci += 1
            if ci >= len(candidates):
                break
            i = candidates[ci]
        return self._handle(events, now)

    def _handle(self, events: Sequence[LogEvent], now: float) -> list[DetectorOutput]:
        out: list[DetectorOutput] = []
        for event in events:
            self._event_counts[event.kind.value] += 1
            if event.kind is EventKind.RETRY:
                self._count_retry(event, now, out)
                if not event.fields.get("exhausted"):
                    self._retrying_at = now
                    self._retried_write(now)
            elif event.kind is EventKind.NCCL_INIT:
                hint = self._phase_hint(event, now)
                if hint is not None:
                    out.append(hint)
            name = route(event)
            if name is None:
                continue
            incident = self._incidents.get(name)
            if incident is None:
                incident = self._incidents[name] = _Incident(
                    name, now, now, now + self.settle_seconds)
            incident.last_at = now
            incident.count += 1
            incident.dirty = True
            if name == "StorageWriteFailed" and (
                    _HANDLED.search(event.text) is not None
                    or now - self._retrying_at <= self.settle_seconds):
                incident.handled = True
            if event.rank is not None:
                incident.ranks.add(event.rank)
            if len(incident.events) < _MAX_INCIDENT_EVENTS:
                incident.events.append((event.rank, event))
        return out

    def _retried_write(self, now: float) -> None:
        """A retry right after a failed write (before its alert fired): the program is
        trying again, and the write may still succeed."""
        incident = self._incidents.get("StorageWriteFailed")
        if incident is not None and not incident.handled and (
                not incident.firing or now - incident.last_at <= self.settle_seconds):
            incident.handled = True
            incident.dirty = True

    def _count_retry(self, event: LogEvent, now: float, out: list[DetectorOutput]) -> None:
        attempt = event.int_field("attempt")
        if event.fields.get("exhausted"):
            self._retries["exhausted"] += 1
            return
        if attempt is None or attempt <= 1:
            self._retries["recovering"] += 1
            return
        self._retries["escalating"] += 1
        self._escalating.append(now)
        while self._escalating and now - self._escalating[0] > self.escalating_window_seconds:
            self._escalating.popleft()
        if len(self._escalating) >= self.escalating_retries:
            incident = self._incidents.get("RetriesEscalating")
            if incident is None:
                incident = self._incidents["RetriesEscalating"] = _Incident(
                    "RetriesEscalating", now, now, now + self.settle_seconds)
            incident.last_at = now
            incident.count += 1
            incident.dirty = True
            if len(incident.events) < _MAX_INCIDENT_EVENTS:
                incident.events.append((event.rank, event))

    def _phase_hint(self, event: LogEvent, now: float) -> PhaseHint | None:
        phase = event.fields.get("phase")
        if phase == "START":
            return PhaseHint(now, event.rank, "nccl_init", self.nccl_init_hold_seconds, NAME)
        if phase == "COMPLETE":
            return PhaseHint(now, event.rank, "nccl_init", 0.0, NAME)
        return None

    # -- alerts ------------------------------------------------------------------------------
    def _fire(self, incident: _Incident, now: float) -> list[DetectorOutput]:
        spec = ALERTS[incident.alertname]
        verdict = _EXPLAIN.get(incident.alertname, _explain_generic)(incident, spec)
        incident.firing = True
        incident.dirty = False
        incident.severity = verdict.severity
        evidence = verdict.evidence
        if verdict.no_culprit_reason:
            evidence = {**evidence, "no_culprit_reason": verdict.no_culprit_reason}
        out: list[DetectorOutput] = [Transition(
            detector=NAME,
            alertname=spec.alertname,
            firing=True,
            severity=verdict.severity,
            category=verdict.category,
            identity={},
            summary=verdict.summary,
            description=verdict.description,
            evidence=evidence,
            culprit_ranks=verdict.culprits,
            scope=spec.scope,
            no_culprit_reason=verdict.no_culprit_reason,
        )]
        suspects = frozenset(verdict.suspects) - incident.suspected
        if suspects:
            incident.suspected |= suspects
            out.append(Suspicion(now, tuple(sorted(suspects)),
                                 f"{spec.alertname}: {verdict.summary}"[:300], NAME))
        return out

    def _resolve(self, incident: _Incident) -> Transition:
        spec = ALERTS[incident.alertname]
        return Transition(
            detector=NAME, alertname=spec.alertname, firing=False, severity=spec.severity,
            category=Category.NONE, identity={}, scope=spec.scope,
            summary=f"{spec.title}: no new event for {self.resolve_after_seconds:.0f} s",
        )


def _candidate_lines(texts: list[str]) -> list[int]:
    """Indexes of lines holding a live pre-filter literal.

    The literals are searched over joined text, one C-speed pass each. Lines with non-ASCII
    characters (tqdm bars) are joined apart: one such character would otherwise widen the
    whole joined string to two or four bytes per character and slow every pass."""
    ascii_flags = [text.isascii() for text in texts]
    if all(ascii_flags):
        groups = [list(range(len(texts)))]
    else:
        groups = [[i for i, a in enumerate(ascii_flags) if a],
                  [i for i, a in enumerate(ascii_flags) if not a]]
    found: set[int] = set()
    for group in groups:
        if not group:
            continue
        parts = texts if len(group) == len(texts) else [texts[i] for i in group]
        hits = _hits("\n".join(parts))
        if hits:
            starts = list(itertools.accumulate((len(t) + 1 for t in parts[:-1]), initial=0))
            found.update(group[bisect.bisect_right(starts, p) - 1] for p in hits)
    return sorted(found)


def _hits(joined: str) -> list[int]:
    positions: list[int] = []
    find = joined.find
    for literal in LIVE_LITERALS:
        pos = find(literal)
        while pos >= 0:
            positions.append(pos)
            end = find("\n", pos)
            if end < 0:
                break
            pos = find(literal, end)
    return positions


# --- explanations ---------------------------------------------------------------------------


def _ranks_text(ranks: Sequence[int]) -> str:
    ordered = sorted(set(ranks))
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ", ".join(parts) or "-"


def _bounded(ranks: Sequence[int]) -> list[int]:
    return sorted(set(ranks))[:_MAX_EVIDENCE_RANKS]


def _first(incident: _Incident) -> LogEvent:
    return incident.events[0][1]


def _base_evidence(incident: _Incident) -> dict[str, EvidenceValue]:
    first = _first(incident)
    return {
        "events": incident.count,
        "ranks": _bounded(list(incident.ranks)),
        "rank_count": len(incident.ranks),
        "first_line": first.text[:300],
        "first_kind": first.kind.value,
    }


def _explain_timeout(incident: _Incident, spec: AlertSpec) -> _Verdict:
    picture = collective_picture((r, e) for r, e in incident.events if r is not None)
    evidence = _base_evidence(incident)
    evidence.update({
        "initiator_ranks": _bounded(picture.initiators),
        "observer_ranks": _bounded(picture.observers),
        "first_detector_ranks": _bounded(picture.first_detectors),
    })
    category = Category.UNDETERMINED
    culprits: tuple[int, ...] = ()
    detail = ""
    stuck = picture.primary
    if stuck is not None:
        evidence.update({
            "seq": stuck.seq, "op_type": stuck.op_type, "pg": stuck.pg,
            "timeout_ms": stuck.timeout_ms, "ran_ms": stuck.ran_ms,
            "waiting_ranks": _bounded(stuck.waiting),
            "straggler_ranks": _bounded(stuck.stragglers),
            "ahead_ranks": _bounded(stuck.ahead),
            "watchdog_late_seconds": stuck.watchdog_late_seconds,
            "counters": {
                str(rank): {"last_enqueued": status.fields.get("last_enqueued"),
                            "last_completed": status.fields.get("last_completed")}
                for rank, status in sorted(picture.statuses.items())[:_MAX_EVIDENCE_RANKS]
            },
        })
    if picture.lagging:
        category, culprits = Category.COLLECTIVE_DESYNC, picture.lagging
        detail = f"the desync report names rank(s) {_ranks_text(culprits)} as lagging"
    elif picture.mismatches and picture.mismatches[0].culprits:
        m = picture.mismatches[0]
        category, culprits = Category.SOFTWARE, m.culprits
        detail = (f"collective #{m.seq} was called differently across ranks; rank(s) "
                  f"{_ranks_text(culprits)}: {m.reason}")
    elif picture.mismatches:
        category = Category.SOFTWARE
        detail = f"collective #{picture.mismatches[0].seq} was called differently across ranks"
    elif stuck is not None and stuck.stragglers and stuck.waiting:
        category, culprits = Category.COLLECTIVE_DESYNC, stuck.stragglers
        status = stuck.straggler_status[stuck.stragglers[0]]
        detail = (f"rank(s) {_ranks_text(culprits)} never entered it (last enqueued "
                  f"{status.fields.get('last_enqueued')} == completed "
                  f"{status.fields.get('last_completed')}) while "
                  f"{len(stuck.waiting)} rank(s) wait inside it")
    where = ""
    if stuck is not None:
        where = (f" #{stuck.seq} ({stuck.op_type}, PG {stuck.pg if stuck.pg is not None else '?'})"
                 f" on rank(s) {_ranks_text(stuck.waiting)}")
    summary = f"NCCL collective{where} timed out" + (f"; {detail}" if detail else "")
    description = (
        f"Initiators (own watchdog fired): {_ranks_text(picture.initiators)}. Observers "
        f"(notified by another rank): {_ranks_text(picture.observers)}. "
        + (f"Culprit: rank(s) {_ranks_text(culprits)} ({category.value})." if culprits else
           "The ranks that printed are all waiting inside the collective: the culprit is a "
           "rank that did not print (check every node's output and stacks).")
    )
    suspects = culprits or tuple(sorted(set(picture.observers) | (
        set(stuck.stragglers) if stuck else set())))
    if not suspects:
        suspects = tuple(sorted(incident.ranks))[:_MAX_EVIDENCE_RANKS]
    return _Verdict(spec.severity, category, summary[:300], description, tuple(culprits),
                    evidence, suspects)


def _explain_communication(incident: _Incident, spec: AlertSpec) -> _Verdict:
    evidence = _base_evidence(incident)
    causes = [(r, e) for r, e in incident.events if e.fields.get("peer")
              and not e.fields.get("consequence")]
    peers = sorted({str(e.fields.get("peer")) for _, e in incident.events if e.fields.get("peer")})
    evidence["peers"] = peers[:_MAX_EVIDENCE_RANKS]
    if causes:
        rank, event = causes[0]
        host = event.fields.get("host")
        evidence["local"] = f"{host} GPU {event.fields.get('cuda_dev')}" if host else None
        local = host or (f"rank {rank}" if rank is not None else "this node")
        summary = (f"NCCL network error: {event.fields.get('error') or 'completion error'} "
                   f"between {local} and {event.fields.get('peer')}")
        culprits = (rank,) if rank is not None else ()
        return _Verdict(spec.severity, Category.NETWORK, summary[:300],
                        f"{incident.count} NCCL error line(s) from rank(s) "
                        f"{_ranks_text(list(incident.ranks))}.", culprits, evidence, culprits)
    summary = (f"NCCL communication errors on rank(s) {_ranks_text(list(incident.ranks))}: "
               "a peer closed the connection or failed (often a crashed peer)")
    return _Verdict(Severity.WARNING, Category.UNDETERMINED, summary[:300],
                    f"First: {_first(incident).text[:200]}", (), evidence,
                    tuple(sorted(incident.ranks))[:_MAX_EVIDENCE_RANKS])


def _ranks_in(text: object) -> tuple[int, ...]:
    return tuple(sorted({int(r) for r in re.findall(r"\d+", str(text or ""))}))


def _where(event: LogEvent) -> str:
    return f" on {event.host}" if event.host else " on this node"


def _gpu_role(event: LogEvent) -> str:
    """decisive: the GPU failed (nvidia-smi cannot reach it, it fell off the bus, a hardware
    CUDA error or Xid); aer: a PCIe port reported an uncorrected error (which device sits
    behind it is not said); naming: the driver's line naming the GPU its next line is about."""
    if event.kind is not EventKind.GPU_FAULT:
        return "decisive"
    if "AER" in event.text:
        return "aer"
    if event.fields.get("message"):
        return "decisive"
    return "naming"


def _explain_gpu_hardware(incident: _Incident, spec: AlertSpec) -> _Verdict:
    """A GPU failed. A CUDA error names the rank on that GPU; nvidia-smi and the kernel name
    the GPU by its PCI address, not a rank: a node-level fault, critical with that reason."""
    roles = [(rank, event, _gpu_role(event)) for rank, event in incident.events]
    decisive = [(r, e) for r, e, role in roles if role == "decisive"]
    ranked = [(r, e) for r, e in decisive if r is not None and e.kind is not EventKind.GPU_FAULT]
    pcis = sorted({str(e.fields["pci"]) for _, e, role in roles
                   if role != "aer" and e.fields.get("pci")})
    ports = sorted({str(e.fields["pci"]) for _, e, role in roles
                    if role == "aer" and e.fields.get("pci")})
    lead = (ranked or decisive or [(r, e) for r, e, _ in roles])[0][1]
    evidence = _base_evidence(incident)
    evidence["gpus"] = pcis[:_MAX_EVIDENCE_RANKS]
    evidence["pcie_ports"] = ports[:_MAX_EVIDENCE_RANKS]
    for key in ("message", "xid", "pci", "pid", "exc_message"):
        value = lead.fields.get(key)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            evidence[key] = value
    hosts = sorted({e.host for _, e in incident.events if e.host})
    if hosts:
        evidence["node"] = hosts[0]
    culprits: tuple[int, ...] = ()
    reason = ""
    if ranked:
        culprits = tuple(sorted({r for r, _ in ranked if r is not None}))
        severity, who = spec.severity, f"rank(s) {_ranks_text(culprits)}"
    else:
        gpu = f"GPU {pcis[0]}" if pcis else "a GPU"
        who = gpu + _where(lead)
        if decisive:
            severity = spec.severity
            reason = (f"a node-level fault: the line names {gpu}, not a rank; the rank on that "
                      "GPU fails with it" if pcis else "a node-level fault: a GPU on this node "
                      "failed; the line does not say which rank runs on it")
        elif ports:
            severity = Severity.WARNING
            who = f"PCIe port {ports[0]}" + _where(lead)
        else:
            severity = Severity.INFO
    summary = f"{who}: {spec.title}: {_detail(lead)}"
    if ports and not ranked:
        summary += f" (kernel PCIe AER errors on {', '.join(ports[:4])})"
    description = (f"{incident.count} event(s). First line: {_first(incident).text[:200]}. "
                   + ("Drain the node and check that GPU (nvidia-smi -q, the kernel log)."
                      if decisive else "An uncorrected PCIe error: which device sits behind "
                      "the port is not said; watch for GPU errors on this node."))
    suspects = culprits or tuple(sorted(incident.ranks))[:_MAX_EVIDENCE_RANKS]
    return _Verdict(severity, Category.GPU_CUDA, summary[:300], description, culprits, evidence,
                    suspects, reason)


def _explain_crash(incident: _Incident, spec: AlertSpec) -> _Verdict:
    """RankCrashed; a dead Ray actor or worker is named by its pid (and ip), not its rank."""
    verdict = _explain_generic(incident, spec)
    first_rank, first = incident.events[0]
    if first.kind is not EventKind.ACTOR_DIED or first_rank is not None:
        return verdict
    f = first.fields
    pid, ip = f.get("pid"), f.get("ip")
    worker = (f"Ray worker pid {pid}" if pid is not None else "a Ray worker") + (
        f" on {ip}" if ip else "")
    evidence = {**verdict.evidence, **({"ip": ip} if isinstance(ip, str) else {})}
    name = f.get("actor_name")
    if isinstance(name, str):
        evidence["actor_name"] = name
    if "worker died or was killed" in first.text:
        # raylet's line: Ray retries the worker's task by default; the job may recover.
        return replace(verdict, severity=Severity.WARNING,
                       summary=f"{worker}: a Ray worker died or was killed (Ray may retry its "
                               "task)"[:300], evidence=evidence)
    return replace(
        verdict, severity=spec.severity, evidence=evidence,
        summary=f"{worker}: the actor died: {_detail(first)}"[:300],
        no_culprit_reason=(f"Ray names the dead process as {worker}, not by rank; the "
                           "incident layer names its rank when the pid is a rank's"))


def _explain_storage(incident: _Incident, spec: AlertSpec) -> _Verdict:
    """A write failed: a full disk, a quota, torch.save's writer, a distributed checkpoint.
    The culprit is the rank that wrote (torch.distributed.checkpoint names the ranks whose
    write failed); a write the program retries, or reports as a warning, is recorded only:
    RetriesEscalating and RetriesExhausted page when the retries do not succeed."""
    evidence = _base_evidence(incident)
    writes = [(r, e) for r, e in incident.events if e.kind is EventKind.STORAGE_WRITE]
    dcp = [(r, e) for r, e in incident.events if e.kind is EventKind.CHECKPOINT_FAILED]
    named = tuple(sorted({r for _, e in dcp for r in _ranks_in(e.fields.get("ranks"))}))
    writers = tuple(sorted({r for r, _ in writes if r is not None}))
    culprits = named or writers or tuple(sorted({r for r, _ in dcp if r is not None}))
    lead = (writes or dcp)[0][1]
    message = str(lead.fields.get("message") or "")
    category = Category.STORAGE_IO if writes else Category.UNDETERMINED
    if message:
        evidence["message"] = message[:300]
    if named:
        evidence["checkpoint_failed_ranks"] = list(named)[:_MAX_EVIDENCE_RANKS]
    evidence["handled"] = incident.handled
    who = (f"rank(s) {_ranks_text(culprits)}" if culprits else
           "a process the line does not name" + _where(lead))
    what = message or (f"torch.distributed.checkpoint failed on rank(s) {_ranks_text(named)}"
                       if named else lead.text.strip())
    summary = f"{who}: {spec.title}: {what}"
    if incident.handled:
        summary += " (the program retries it or reports it as a warning)"
    reason = ""
    severity = Severity.INFO if incident.handled else spec.severity
    if not culprits and writes:
        reason = ("a storage fault: the file system refused the write; the line does not say "
                  "which rank wrote")
    description = (f"{incident.count} event(s). First line: {_first(incident).text[:200]}. "
                   "Check the target file system's free space and quota (df -h, quota -s, "
                   "lfs quota).")
    return _Verdict(severity, category, summary[:300], description, culprits, evidence,
                    culprits or tuple(sorted(incident.ranks))[:_MAX_EVIDENCE_RANKS], reason)


def _explain_ddp_mismatch(incident: _Incident, spec: AlertSpec) -> _Verdict:
    """DDP's parameter check: "Rank A has N params, while rank B has inconsistent M params".
    B is the culprit, A only the messenger. Each rank names the first rank that differs from
    it, so the odd rank names another one: the rank named by most reports is the culprit."""
    reports = [e for _, e in incident.events if e.int_field("peer_rank") is not None]
    if not reports:
        return _explain_ddp_unused(incident, spec)
    if clash := contradictory(e.fields for e in reports):
        said = "; ".join(f"rank {r}: {' or '.join(sorted(c))}" for r, c in sorted(clash.items()))
        evidence = _base_evidence(incident)
        evidence["contradicting_counts"] = said[:300]
        return _Verdict(
            spec.severity, Category.SOFTWARE,
            f"{spec.title}: the ranks built different models"[:300],
            f"{len(reports)} report(s) from DDP's model check give one rank two parameter "
            f"counts ({said}): reports of different process groups, or two ranks' lines "
            "interleaved. Compare how the ranks build the model.",
            (), evidence, tuple(sorted(incident.ranks))[:_MAX_EVIDENCE_RANKS],
            "the reports contradict each other on a rank's parameter count, so no single rank "
            "can be named")
    named = Counter(e.int_field("peer_rank") for e in reports)
    order = list(dict.fromkeys(e.int_field("peer_rank") for e in reports))
    bad = max(order, key=lambda r: named[r])
    lead = next(e for e in reports if e.int_field("peer_rank") == bad)
    reporter = lead.int_field("reporter_rank")
    evidence = _base_evidence(incident)
    evidence.update({
        "inconsistent_rank": bad, "reporter_rank": reporter,
        "reporter_params": lead.int_field("count"), "inconsistent_params": lead.int_field("expected"),
        "reports": [f"rank {e.int_field('reporter_rank')} names rank {e.int_field('peer_rank')}"
                    for e in reports[:_MAX_EVIDENCE_RANKS]],
    })
    summary = (f"rank {bad}: {spec.title}: rank {reporter} has {lead.fields.get('count')} "
               f"parameters while rank {bad} has an inconsistent {lead.fields.get('expected')}; "
               f"rank {bad} built a different model")
    description = (f"{len(reports)} report(s) from DDP's model check. Compare how rank {bad} "
                   "builds the model (rank-dependent code, a missing adapter or checkpoint, a "
                   "different config) with the other ranks.")
    culprits = (bad,) if bad is not None else ()
    return _Verdict(spec.severity, Category.SOFTWARE, summary[:300], description, culprits,
                    evidence, culprits)


def _explain_ddp_unused(incident: _Incident, spec: AlertSpec) -> _Verdict:
    """DDP's reducer: "Parameter indices which did not receive grad for rank N"."""
    ranks = tuple(sorted({r for _, e in incident.events
                          if (r := e.int_field("unused_rank")) is not None}))
    evidence = _base_evidence(incident)
    evidence["unused_parameter_ranks"] = list(ranks)[:_MAX_EVIDENCE_RANKS]
    summary = (f"rank {_ranks_text(ranks)}: DDP's reducer: parameters received no gradient in "
               "the previous iteration (unused in the forward)")
    description = ("Make every parameter take part in the loss on every rank, or construct DDP "
                   "with find_unused_parameters=True; TORCH_DISTRIBUTED_DEBUG=DETAIL names them.")
    return _Verdict(spec.severity, Category.SOFTWARE, summary[:300], description, ranks,
                    evidence, ranks)


def _explain_monitored_barrier(incident: _Incident, spec: AlertSpec) -> _Verdict:
    """gloo's monitoredBarrier: rank 0 names the ranks that did not reach it."""
    missing = tuple(sorted({r for _, e in incident.events for r in _ranks_in(e.fields.get("ranks"))}))
    evidence = _base_evidence(incident)
    evidence["missing_ranks"] = list(missing)[:_MAX_EVIDENCE_RANKS]
    reporters = sorted(incident.ranks)
    if not missing:
        # only non-root ranks spoke: rank 0 enforces the barrier's timeout and did not answer
        # them, so its own report (rank 0's node pages it) names who never arrived, or it
        # failed itself. Look soon, but nobody here can be named: a warning
        reporters = reporters or sorted({r for _, e in incident.events
                                         if (r := e.int_field("reporter_rank")) is not None})
        summary = (f"{spec.title}: rank(s) {_ranks_text(reporters) or '(not shown)'} reached "
                   "it, rank 0 did not answer them; no culprit named")
        description = ("Only rank 0 knows which rank did not arrive: read rank 0's log (its "
                       "'failed to pass monitoredBarrier' line names it, or rank 0 failed "
                       "before the barrier).")
        return _Verdict(Severity.WARNING, Category.COLLECTIVE_DESYNC, summary[:300], description,
                        (), evidence, (),
                        no_culprit_reason=("the reporting ranks reached the barrier; only rank "
                                           "0, which did not answer them, names who did not"))
    summary = (f"rank(s) {_ranks_text(missing)}: {spec.title}"
               + (f" (reported by rank {_ranks_text(reporters)})" if reporters else ""))
    description = ("The named ranks took a different path or were stuck before the barrier: "
                   "look at their last lines and stacks.")
    return _Verdict(spec.severity, Category.COLLECTIVE_DESYNC, summary[:300], description,
                    missing, evidence, missing)


_FINGERPRINT = re.compile(r"Rank (\d+) is running (?:inconsistent )?collective: "
                          r"CollectiveFingerPrint\((?:SequenceNumber=(\d+),? ?)?OpType=(\w+)")


def _explain_collective_mismatch(incident: _Incident, spec: AlertSpec) -> _Verdict:
    """Ranks called different collectives (the process-group wrapper's fingerprints, NCCL's
    "Mismatched collective detected"): each side only sees the other disagree, so no single
    rank is blamed."""
    first = _first(incident)
    sides = _FINGERPRINT.findall(str(first.fields.get("message", "")))
    around = sorted({r for _, e in incident.events if (r := e.int_field("peer_rank")) is not None})
    evidence = _base_evidence(incident)
    evidence["sides"] = [f"rank {r} {op}" + (f" #{seq}" if seq else "") for r, seq, op in sides]
    evidence["around_ranks"] = around[:_MAX_EVIDENCE_RANKS]
    detail = ""
    if len(sides) >= 2:
        (r1, s1, o1), (r2, s2, o2) = sides[0], sides[1]
        if s1 and s1 == s2 and o1 != o2:
            detail = f": at sequence number {s1} rank {r1} runs {o1}, rank {r2} runs {o2}"
        elif s1 and s1 == s2:
            detail = f": ranks {r1} and {r2} run {o1} #{s1} with different tensors"
        else:
            detail = (f": rank {r1} is in {o1}" + (f" #{s1}" if s1 else "")
                      + f", rank {r2} in {o2}" + (f" #{s2}" if s2 else ""))
    elif sides:
        r1, s1, o1 = sides[0]
        detail = f": rank {r1}'s {o1}" + (f" #{s1}" if s1 else "") + " differs from another's"
    elif around:
        detail = f": NCCL points at ranks around {_ranks_text(around)}"
    involved = {int(r) for r, _, _ in sides} | set(around) | incident.ranks
    return _Verdict(
        spec.severity, Category.COLLECTIVE_DESYNC, f"{spec.title}{detail}"[:300],
        "Find where the ranks' code paths diverge (rank-dependent branches, data-dependent "
        "shapes, a collective inside a condition); TORCH_DISTRIBUTED_DEBUG=DETAIL and the flight "
        "recorder show every rank's sequence of collectives.",
        (), evidence, tuple(sorted(involved))[:_MAX_EVIDENCE_RANKS],
        "each side only sees the other disagree: no single rank can be blamed from this report")


def _explain_gloo_timeout(incident: _Incident, spec: AlertSpec) -> _Verdict:
    """gloo's pair transport gave up waiting for a peer's send or receive: the rank that
    printed is a victim, and the line names neither the peer nor the collective."""
    first = _first(incident)
    evidence = _base_evidence(incident)
    for key in ("timeout_ms", "op"):
        value = first.fields.get(key)
        if isinstance(value, (str, int)):
            evidence[key] = value
    timeout = first.int_field("timeout_ms")
    waited = f" {timeout / 1000:.0f} s" if timeout is not None else ""
    who = (f"rank(s) {_ranks_text(list(incident.ranks))}" if incident.ranks else
           "a process the line does not name")
    summary = (f"{who}: {spec.title}: waited{waited} for a peer's {first.fields.get('op', 'data')} "
               "inside a collective or barrier")
    description = ("The ranks that printed this are victims: a peer never sent or received "
                   "(it died, is stuck elsewhere, or took another code path). Look for a rank "
                   "that died or stalled first, on every node; `rankwatch triage` over all logs.")
    return _Verdict(spec.severity, Category.UNDETERMINED, summary[:300], description, (),
                    evidence, tuple(sorted(incident.ranks))[:_MAX_EVIDENCE_RANKS],
                    "gloo's timeout names neither the peer it waited for nor the collective: "
                    "the rank that printed it is a victim")


def _explain_generic(incident: _Incident, spec: AlertSpec) -> _Verdict:
    evidence = _base_evidence(incident)
    first_rank, first = incident.events[0]
    # DeepSpeed's exit line shows the last-started worker's command, not the failed one's,
    # and a rank from an `srun -l` label there is the launcher's node: neither names it.
    deepspeed = first.fields.get("launcher") == "deepspeed"
    if deepspeed:
        first_rank = None
    category = _category_of(incident)
    culprits = (first_rank,) if first_rank is not None else ()
    severity = spec.severity
    if first_rank is not None:
        who = f"rank {first_rank}"
    else:
        # A launcher's line names the failed worker by local rank and pid (torchrun's
        # "failed (exitcode: -9) local_rank: 3 (pid: N)"); the incident layer maps the pid to
        # its global rank. A line that names no process at all is recorded, never paged.
        local_rank = None if deepspeed else first.fields.get("local_rank")
        pid = first.fields.get("pid")
        parts = [f"local rank {local_rank}" if local_rank is not None else "",
                 f"pid {pid}" if pid is not None else ""]
        who = " ".join(p for p in parts if p) or "a process the line does not name"
        if local_rank is None and pid is None and spec.alertname == "RankCrashed":
            severity = Severity.INFO
    others = sorted(incident.ranks - set(culprits))
    summary = f"{who}: {spec.title}: {_detail(first)}"
    description = (f"{incident.count} event(s)" + (
        f"; also on rank(s) {_ranks_text(others)}" if others else "") + f". First line: "
        f"{first.text[:200]}")
    for key in ("message", "signal", "cause", "exc_type", "exc_message", "xid", "pci",
                "requested", "gpu", "reason", "context", "attempt", "max_attempts", "peer",
                "pid", "local_rank", "exitcode"):
        value = first.fields.get(key)
        if isinstance(value, (str, int, float, bool)):
            evidence[key] = value
    if spec.alertname in ("JobTerminatedByScheduler", "StoreTimeout", "RetriesExhausted",
                          "RetriesEscalating"):
        culprits = ()
    return _Verdict(severity, category, summary[:300], description, culprits, evidence,
                    culprits or tuple(sorted(incident.ranks))[:_MAX_EVIDENCE_RANKS])


def _detail(event: LogEvent) -> str:
    f = event.fields
    for key in ("message", "exc_message", "what", "error", "cause"):
        value = f.get(key)
        if value:
            return str(value)[:160]
    if f.get("signal"):
        return f"killed by {f['signal']}"
    return event.text.strip()[:160]


def _category_of(incident: _Incident) -> Category:
    name = incident.alertname
    first = _first(incident)
    f = first.fields
    if name in ("GpuHardwareError", "CudaError"):
        return Category.GPU_CUDA if not f.get("bad_size") else Category.SOFTWARE
    if name in ("GpuOutOfMemory", "HostOutOfMemory"):
        return Category.OOM
    if name == "DataloaderTimeout":
        return Category.DATALOADER_STALL
    if name == "DataloaderWorkerDied":
        cause = f.get("cause")
        if cause == "bus_error" or f.get("shm"):
            return Category.INFRASTRUCTURE
        if cause == "exception":
            return Category.STORAGE_IO if f.get("exc") in _IO_EXCEPTIONS else Category.DATA
        return Category.SOFTWARE if cause == "segfault" else Category.UNDETERMINED
    if name == "RankCrashed":
        if first.kind is EventKind.ACTOR_DIED:
            # Ray lists the OOM killer, `ray stop --force` or a crash as causes: none is picked
            return Category.UNDETERMINED
        return Category.RANK_DEAD
    if name == "RankException":
        exc = str(f.get("exc_type", "")).rsplit(".", 1)[-1]
        if exc in _IO_EXCEPTIONS:
            return Category.STORAGE_IO
        return Category.DATA if f.get("in_data_code") else Category.SOFTWARE
    if name == "StoreTimeout":
        if f.get("phase") == "connect" or "Connection" in str(f.get("exc", "")):
            return Category.NETWORK
        return Category.INIT_TIMEOUT if first.kind is EventKind.STORE_TIMEOUT else (
            Category.UNDETERMINED)
    if name == "JobTerminatedByScheduler":
        if first.kind is EventKind.AGENT_DEATH_SIGNAL or f.get("reason") in (
                "time_limit", "preemption", "node_failure"):
            return Category.INFRASTRUCTURE
        return Category.UNDETERMINED
    if name in ("RetriesExhausted", "RetriesEscalating"):
        context = f.get("context")
        return {"storage": Category.STORAGE_IO, "network": Category.NETWORK}.get(
            str(context), Category.UNDETERMINED)
    if name == "NcclWatchdogHang":
        return Category.UNDETERMINED
    return Category.UNDETERMINED


_EXPLAIN: dict[str, Callable[[_Incident, AlertSpec], _Verdict]] = {
    "NcclCollectiveTimeout": _explain_timeout,
    "NcclCommunicationError": _explain_communication,
    "GpuHardwareError": _explain_gpu_hardware,
    "RankCrashed": _explain_crash,
    "StorageWriteFailed": _explain_storage,
    "DdpModelMismatch": _explain_ddp_mismatch,
    "MonitoredBarrierFailed": _explain_monitored_barrier,
    "CollectiveMismatch": _explain_collective_mismatch,
    "GlooCollectiveTimeout": _explain_gloo_timeout,
}
