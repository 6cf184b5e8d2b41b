"""Incidents and the job lifecycle: one failure is one incident, named by its first cause.

Pure: observations, detector findings (transitions) and a monotonic `now` in; the transitions
the alert policy turns into records out. Detectors read the lifecycle and the job's pace through
the read-only `JobView`.

Lifecycle (the `lifecycle` metric and `rankwatch status` show it):
    STARTING --first progress step (PaceUpdate)--> RUNNING
    STARTING/RUNNING --StopRequested (signal forwarded to the job, the epilog, scancel)
                     | a scheduler or launcher stop line (JobTerminatedByScheduler)
                     | ranks dying of SIGTERM/SIGINT/SIGHUP while no incident is open
                     --> STOPPING
    STOPPING --stop_grace_seconds and the job still runs--> RUNNING
    any --JobEnded--> ENDED
Everything found while STOPPING or after a clean end (status 0) is recorded as info.

Findings, in order:
1. A finding about a stop asked from outside (JobTerminatedByScheduler for a scancel, a time
   limit, a preemption, the launcher's own shutdown) moves the job to STOPPING and is info.
2. A firing finding that belongs to no incident waits `settle_seconds` with the findings
   arriving beside it; then they are ranked by cause (CAUSE_ORDER: a rank killed by SIGKILL or
   a segfault before the peers its launcher terminated; a cause before its symptoms). The first
   opens an incident, or leads the open one when it names a culprit the lead could not (or,
   naming none like the lead, is a critical that says why none can be named while the lead is
   not critical); the others join it as evidence, recorded as info with the same incident_id,
   never paged.
3. The severity contract: critical names the culprit rank or says why it cannot
   (`no_culprit_reason`); a critical finding with neither is a warning.
4. When the lead resolves, the strongest member still firing leads; with none the incident
   closes.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from monitor.model import (
    Category,
    JobEnded,
    MetricFamilyData,
    Observation,
    OutputChunk,
    OutputLine,
    PhaseHint,
    ProcessSnapshot,
    ProcRole,
    Severity,
    StopRequested,
    Transition,
    counter,
    gauge,
)
from monitor.settings import IncidentSettings

TEARDOWN_SIGNALS = frozenset({"SIGTERM", "SIGINT", "SIGHUP"})
# Causes before the symptoms they produce, in the order triage's rules test them.
CAUSE_ORDER: tuple[Category, ...] = (
    Category.GPU_CUDA,
    Category.OOM,
    Category.RANK_STOPPED,
    Category.DATALOADER_STALL,
    Category.STORAGE_IO,
    Category.DATA,
    Category.COLLECTIVE_DESYNC,
    Category.RANK_DEAD,
    Category.CLOCK,
    Category.NETWORK,
    Category.INIT_TIMEOUT,
    Category.INFRASTRUCTURE,
    Category.SOFTWARE,
    Category.COLLECTIVE_HANG,
    Category.UNDETERMINED,
    Category.NONE,
)
_CAUSE_INDEX = {c: i for i, c in enumerate(CAUSE_ORDER)}
# Scheduler cancel reasons that are a fault, not a stop someone asked for.
_FAULT_CANCEL_WORDS = ("NODE FAIL", "NODE_FAIL")
_MAX_RELATED = 12
_MAX_PIDS = 4096
_TAIL_LINES = 10


class Lifecycle(str, enum.Enum):
    STARTING = "starting"
    RUNNING = "running"
    STOPPING = "stopping"
    ENDED = "ended"


@dataclass(frozen=True, slots=True)
class PaceUpdate(Observation):
    """The job's own pace, learned by the progress detector from its step lines."""

    steps_seen: int
    stall_window_seconds: float | None  # None: the cadence is not known yet


@dataclass(frozen=True, slots=True)
class HostStates(Observation):
    """What each local rank's host thread does, from its latest stacks (the stack detector)."""

    states: tuple[tuple[int, str, str], ...]  # (rank, state, frame)
    sampled_at: tuple[tuple[int, float], ...] = ()  # (rank, when its latest stacks were taken)


@dataclass(frozen=True, slots=True)
class LiveEvidence(Observation):
    """What a job that opted in said about itself (its debug servers), as sentences."""

    source: str
    sentences: tuple[str, ...]


class JobFacts(Protocol):
    """What detectors may read of the job (read-only)."""

    @property
    def lifecycle(self) -> Lifecycle: ...

    @property
    def stop_reason(self) -> str: ...

    @property
    def stall_window_seconds(self) -> float | None: ...

    @property
    def last_progress_at(self) -> float | None: ...

    @property
    def stopping(self) -> bool: ...

    @property
    def host_states(self) -> dict[int, tuple[str, str]]: ...

    def host_states_since(self, since: float | None) -> dict[int, tuple[str, str]]: ...

    def in_phase(self, now: float) -> str | None: ...


@dataclass
class JobView:
    """The lifecycle and pace of the job; written by the incident layer only."""

    lifecycle: Lifecycle = Lifecycle.STARTING
    stop_reason: str = ""
    stop_asked_at: float | None = None
    exit_code: int | None = None
    steps_seen: int = 0
    stall_window_seconds: float | None = None
    last_progress_at: float | None = None  # when the job last stepped (monotonic)
    phase: str | None = None
    phase_since: float = 0.0
    phase_until: float = 0.0
    host_states: dict[int, tuple[str, str]] = field(default_factory=dict)
    host_sampled_at: dict[int, float] = field(default_factory=dict)
    live_evidence: tuple[str, ...] = ()  # what the job's own debug servers said last

    def host_states_since(self, since: float | None) -> dict[int, tuple[str, str]]:
        """The host states sampled at or after `since`: a stack taken before a stall began
        (at start-up, say) says nothing about the stall. Without a time, all of them."""
        if since is None:
            return dict(self.host_states)
        return {
            rank: state
            for rank, state in self.host_states.items()
            if self.host_sampled_at.get(rank, since) >= since
        }

    def in_phase(self, now: float) -> str | None:
        """The known long phase (checkpoint, evaluation, init) the job is in now, if any."""
        return self.phase if self.phase is not None and now < self.phase_until else None

    @property
    def stopping(self) -> bool:
        """A stop was asked or the job is over: deaths and silence are expected now."""
        return self.lifecycle is Lifecycle.STOPPING or (
            self.lifecycle is Lifecycle.ENDED
            and (self.stop_asked_at is not None or self.exit_code == 0)
        )


# A step line seen this soon after a phase began may have been printed before it.
_PHASE_END_SLACK = 1.0
# A step ends these phases; an evaluation keeps its hold (its own progress bar reads like
# steps). A checkpoint ends with the first step after it: a save done in the background while
# the job steps freezes nothing.
ENDED_BY_A_STEP = frozenset({"init", "nccl_init", "checkpoint"})

FindingKey = tuple[str, str, tuple[tuple[str, str], ...]]


def finding_key(t: Transition) -> FindingKey:
    return (t.detector, t.alertname, tuple(sorted(t.identity.items())))


def is_teardown_death(t: Transition) -> bool:
    """A rank that died of a signal a launcher or a person sends to end a job."""
    return t.category in (Category.RANK_DEAD, Category.OOM) and (
        str(t.evidence.get("signal") or "") in TEARDOWN_SIGNALS
    )


def is_stop_finding(t: Transition) -> bool:
    """A log line saying the job is being stopped from outside (scancel, time limit,
    preemption, the launcher receiving a death signal), as opposed to a node failure."""
    if t.alertname != "JobTerminatedByScheduler":
        return False
    reason = " ".join(str(t.evidence.get(k) or "") for k in ("reason", "message")).upper()
    return not any(word in reason for word in _FAULT_CANCEL_WORDS)


def cause_key(t: Transition) -> tuple[int, int, int, int]:
    """Sort key: the first cause first."""
    return (
        1 if is_teardown_death(t) else 0,
        0 if t.culprit_ranks else 1,
        _CAUSE_INDEX.get(t.category, len(CAUSE_ORDER)),
        -t.severity.rank,
    )


def contract_severity(t: Transition) -> Severity:
    """Critical must name the culprit or say why it cannot; otherwise it is a warning."""
    if t.severity is Severity.CRITICAL and not t.culprit_ranks and not t.no_culprit_reason:
        return Severity.WARNING
    return t.severity


@dataclass
class Incident:
    id: str
    opened_at: float
    lead: FindingKey
    members: dict[FindingKey, Transition] = field(default_factory=dict)
    announced: set[FindingKey] = field(default_factory=set)  # sent above info
    tail: list[Any] | None = None  # the job's last output lines when it opened

    @property
    def lead_finding(self) -> Transition:
        return self.members[self.lead]


@dataclass
class _Pending:
    at: float
    finding: Transition


class IncidentLayer:
    """Between the detectors and the alert policy (architecture §2)."""

    name = "incidents"

    def __init__(self, settings: IncidentSettings, id_prefix: str = "") -> None:
        self.settings = settings
        self.view = JobView()
        self._prefix = id_prefix
        self._count = 0
        self._open: list[Incident] = []
        self._closed_keys: dict[FindingKey, str] = {}
        self._pending: list[_Pending] = []
        self.opened_total = 0
        self.findings_total: dict[str, int] = {}
        self._rank_of_pid: dict[int, int] = {}
        self._tail: deque[OutputLine] = deque(maxlen=_TAIL_LINES)

    # -- lifecycle -------------------------------------------------------------------------
    def observe(self, obs: Observation, now: float) -> list[Transition]:
        """Lifecycle inputs. Called before the detectors see the observation."""
        if isinstance(obs, StopRequested):
            self._stop(obs.reason, now)
        elif isinstance(obs, PaceUpdate):
            if obs.steps_seen > self.view.steps_seen:
                self.view.last_progress_at = obs.at
                if (
                    self.view.in_phase(now) in ENDED_BY_A_STEP
                    and obs.at - self.view.phase_since >= _PHASE_END_SLACK
                ):
                    # The job trains: start-up or the save is over (a stack seen in
                    # init_process_group must not hold every freeze back for the whole
                    # first-step grace, nor a checkpoint for the whole save grace).
                    # Evaluations keep their hold: their own progress bar reads like steps.
                    self.view.phase_until = obs.at
            self.view.steps_seen = obs.steps_seen
            self.view.stall_window_seconds = obs.stall_window_seconds
            if obs.steps_seen > 0 and self.view.lifecycle is Lifecycle.STARTING:
                self.view.lifecycle = Lifecycle.RUNNING
        elif isinstance(obs, OutputChunk):
            # The job's last words, for the page: a bounded tail, attributed to ranks.
            self._tail.extend(obs.lines[-_TAIL_LINES:])
        elif isinstance(obs, ProcessSnapshot):
            for info in obs.processes:
                if info.role is ProcRole.RANK and info.rank is not None:
                    self._rank_of_pid[info.pid] = info.rank
            while len(self._rank_of_pid) > _MAX_PIDS:
                self._rank_of_pid.pop(next(iter(self._rank_of_pid)))
        elif isinstance(obs, LiveEvidence):
            self.view.live_evidence = obs.sentences
        elif isinstance(obs, HostStates):
            self.view.host_states = {rank: (state, frame) for rank, state, frame in obs.states}
            self.view.host_sampled_at = dict(obs.sampled_at)
        elif isinstance(obs, PhaseHint):
            if self.view.in_phase(now) != obs.phase:
                self.view.phase = obs.phase
                self.view.phase_since = now
            self.view.phase_until = max(self.view.phase_until, now + obs.hold_seconds)
        elif isinstance(obs, JobEnded):
            # What was found before the end is judged as it was found, not in its light.
            out = self._release(now, force=True)
            self.view.exit_code = obs.exit_code
            self.view.lifecycle = Lifecycle.ENDED
            return out
        return []

    def _stop(self, reason: str, now: float) -> None:
        if self.view.lifecycle is Lifecycle.ENDED or self.view.stop_asked_at is not None:
            return
        self.view.lifecycle = Lifecycle.STOPPING
        self.view.stop_reason = reason
        self.view.stop_asked_at = now

    def tick(self, now: float) -> list[Transition]:
        view = self.view
        if (
            view.lifecycle is Lifecycle.STOPPING
            and view.stop_asked_at is not None
            and now - view.stop_asked_at >= self.settings.stop_grace_seconds
        ):
            # The stop did not end the job: watch it as a running job again.
            view.lifecycle = Lifecycle.RUNNING if view.steps_seen else Lifecycle.STARTING
            view.stop_asked_at = None
            view.stop_reason = ""
        return self._release(now)

    # -- findings ----------------------------------------------------------------------------
    def judge(self, t: Transition, now: float) -> list[Transition]:
        """A detector's finding in; what the policy should hear out (maybe nothing yet)."""
        t = self._named(t)
        key = finding_key(t)
        if t.firing:
            self.findings_total[t.alertname] = self.findings_total.get(t.alertname, 0) + 1
        if not t.firing:
            return self._resolved(key, t)
        incident = self._incident_of(key)
        if self.view.stopping:
            self._forget_pending(key)
            return [self._info(t, incident, f"stop asked: {self.view.stop_reason or 'job ended'}")]
        if is_stop_finding(t):
            self._stop(t.summary, now)
            self._forget_pending(key)
            return [self._info(t, incident, "a stop was asked from outside the job")]
        if incident is not None:
            return self._update(incident, key, t)
        self._forget_pending(key)
        self._pending.append(_Pending(now, t))
        if self.view.lifecycle is Lifecycle.ENDED:
            return self._release(now, force=True)
        return []

    def _named(self, t: Transition) -> Transition:
        """A finding that names a process but no rank (a launcher's summary line) gets the
        rank that process had."""
        pid = t.evidence.get("pid")
        if t.culprit_ranks or not isinstance(pid, int) or pid not in self._rank_of_pid:
            return t
        rank = self._rank_of_pid[pid]
        return replace(t, culprit_ranks=(rank,), summary=f"rank {rank}: {t.summary}")

    def _forget_pending(self, key: FindingKey) -> None:
        self._pending = [p for p in self._pending if finding_key(p.finding) != key]

    def _release(self, now: float, force: bool = False) -> list[Transition]:
        if not self._pending:
            return []
        if not force and now - self._pending[0].at < self.settings.settle_seconds:
            return []
        batch = [p.finding for p in self._pending]
        self._pending.clear()
        if self.view.stopping:
            why = f"stop asked: {self.view.stop_reason or 'job ended'}"
            return [self._info(t, None, why) for t in batch]
        if not self._open and all(is_teardown_death(t) for t in batch):
            ranks = sorted({r for t in batch for r in t.culprit_ranks})
            signals = sorted({str(t.evidence.get("signal")) for t in batch})
            reason = (
                f"rank {','.join(map(str, ranks))} received {'/'.join(signals)} from outside the "
                "job, with no failure before it"
            )
            self._stop(reason, now)
            return [self._info(t, None, f"stop asked: {reason}") for t in batch]
        out: list[Transition] = []
        for t in sorted(batch, key=cause_key):
            incident = self._open[-1] if self._open else None
            if incident is None:
                out.extend(self._open_incident(t, now))
            else:
                out.extend(self._update(incident, finding_key(t), t))
        return out

    def _open_incident(self, t: Transition, now: float) -> list[Transition]:
        self._count += 1
        self.opened_total += 1
        incident = Incident(f"{self._prefix}{self._count}", now, finding_key(t))
        self._open.append(incident)
        incident.members[incident.lead] = t
        return [self._lead_out(incident, t)]

    def _update(self, incident: Incident, key: FindingKey, t: Transition) -> list[Transition]:
        incident.members[key] = t
        if key == incident.lead:
            return [self._lead_out(incident, t)]
        lead = incident.lead_finding
        if self._better(t, lead):
            return self._promote(incident, key)
        return [self._info(t, incident, f"part of incident {incident.id}: {lead.summary}")]

    @staticmethod
    def _better(t: Transition, lead: Transition) -> bool:
        """Does `t` say more about the failure than the current lead?"""
        if is_teardown_death(t):
            return False
        if is_teardown_death(lead):
            return True
        if t.culprit_ranks and not lead.culprit_ranks:
            return contract_severity(t).rank >= Severity.WARNING.rank
        if t.culprit_ranks:
            return contract_severity(t).rank > contract_severity(lead).rank
        # Neither names a culprit: a critical that says why none can be named (a whole-job
        # hang) says more than a stall warning naming nobody.
        return (not lead.culprit_ranks and contract_severity(t) is Severity.CRITICAL
                and contract_severity(lead) is not Severity.CRITICAL)

    def _promote(self, incident: Incident, key: FindingKey) -> list[Transition]:
        old = incident.lead_finding
        out: list[Transition] = []
        if incident.lead in incident.announced:
            incident.announced.discard(incident.lead)
            out.append(
                replace(
                    old,
                    firing=False,
                    incident_id=incident.id,
                    summary=f"{old.summary} (superseded: {incident.members[key].summary})",
                )
            )
        incident.lead = key
        out.append(self._lead_out(incident, incident.members[key]))
        return out

    def _resolved(self, key: FindingKey, t: Transition) -> list[Transition]:
        self._forget_pending(key)
        incident = self._incident_of(key)
        if incident is None:
            return [replace(t, incident_id=self._closed_keys.get(key, ""))]
        incident.members.pop(key, None)
        out = [replace(t, incident_id=incident.id)]
        incident.announced.discard(key)
        if key != incident.lead:
            return out
        if incident.members and not self.view.stopping and self.view.lifecycle is not Lifecycle.ENDED:
            best = min(incident.members, key=lambda k: cause_key(incident.members[k]))
            incident.lead = best
            out.append(self._lead_out(incident, incident.members[best]))
        else:
            self._open.remove(incident)
            self._closed_keys[key] = incident.id
        return out

    def _incident_of(self, key: FindingKey) -> Incident | None:
        for incident in self._open:
            if key in incident.members:
                return incident
        return None

    # -- what the policy hears ---------------------------------------------------------------
    def _lead_out(self, incident: Incident, t: Transition) -> Transition:
        severity = contract_severity(t)
        if severity is not Severity.INFO:
            incident.announced.add(incident.lead)
        related: list[Any] = [
            f"{m.alertname}: {m.summary}"[:200]
            for k, m in incident.members.items()
            if k != incident.lead
        ][:_MAX_RELATED]
        evidence = dict(t.evidence)
        if related:
            evidence["related"] = related
        # Sources that blame someone else are stated, not hidden.
        disagree: list[Any] = [
            f"{m.alertname} ({m.detector}) names rank {','.join(map(str, m.culprit_ranks))}"
            for k, m in incident.members.items()
            if k != incident.lead and m.culprit_ranks and set(m.culprit_ranks) != set(t.culprit_ranks)
            and not is_teardown_death(m)
        ][:_MAX_RELATED]
        if disagree:
            evidence["disagreeing"] = disagree
        if incident.tail is None:  # the output as it was when the incident opened
            incident.tail = [
                (f"[rank{line.rank}] " if line.rank is not None else "") + line.text[:200]
                for line in self._tail
            ]
        if incident.tail:
            evidence["last_output_lines"] = list(incident.tail)
        if self.view.live_evidence:
            evidence["torch_debug"] = list(self.view.live_evidence[:_MAX_RELATED])
        if severity is not t.severity:
            evidence["severity_note"] = (
                f"{t.severity.value} lowered to {severity.value}: no culprit rank named"
            )
        return replace(t, severity=severity, incident_id=incident.id, evidence=evidence)

    @staticmethod
    def _info(t: Transition, incident: Incident | None, why: str) -> Transition:
        evidence = dict(t.evidence)
        evidence["recorded_as_info"] = why[:300]
        return replace(
            t,
            severity=Severity.INFO,
            incident_id=incident.id if incident is not None else "",
            evidence=evidence,
        )

    # -- reporting ---------------------------------------------------------------------------
    def metric_families(self) -> Sequence[MetricFamilyData]:
        return [
            gauge(
                "job_lifecycle",
                "The job's lifecycle state as rankwatch sees it (1 for the current state).",
                ("state",),
                [((s.value,), 1.0 if s is self.view.lifecycle else 0.0) for s in Lifecycle],
            ),
            gauge("incidents_open", "Incidents open on this node.", (), len(self._open)),
            counter("incidents", "Incidents opened on this node.", (), self.opened_total),
        ]

