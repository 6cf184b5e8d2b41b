"""Typed data shared by sources, detectors, the alert policy and the sinks.

Everything here is frozen: sources build observations, detectors read them and emit
transitions, the policy turns transitions into alert records. Closed sets are enums whose
values double as Prometheus label values and as the words of the alert contract.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Union


class Category(str, enum.Enum):
    """Root-cause categories: a closed set shared by live alerts and triage."""

    DATALOADER_STALL = "dataloader_stall"
    COLLECTIVE_DESYNC = "collective_desync"
    COLLECTIVE_HANG = "collective_hang"
    RANK_DEAD = "rank_dead"
    RANK_STOPPED = "rank_stopped"
    OOM = "oom"
    GPU_CUDA = "gpu_cuda"
    NETWORK = "network"
    STORAGE_IO = "storage_io"
    DATA = "data"
    CLOCK = "clock"
    INIT_TIMEOUT = "init_timeout"
    INFRASTRUCTURE = "infrastructure"
    SOFTWARE = "software"
    UNDETERMINED = "undetermined"
    NONE = "none"


class Severity(str, enum.Enum):
    """The severity contract: critical means a person must act now on a real fault and names the
    culprit rank (or says why it cannot); warning means look soon; info is recorded only (alert
    log, metrics, `rankwatch status`), never sent to a pager."""

    INFO = "info"
    WARNING = "warning"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        return _SEVERITY_ORDER[self]


_SEVERITY_ORDER = {Severity.INFO: 0, Severity.WARNING: 1, Severity.CRITICAL: 2}


class Health(str, enum.Enum):
    """What a concern (detector or source) can currently say. UNKNOWN means blind, never OK."""

    OK = "ok"
    UNKNOWN = "unknown"
    WARNING = "warning"
    CRITICAL = "critical"

    @staticmethod
    def worst(states: list[Health]) -> Health:
        if not states:
            return Health.UNKNOWN
        return max(states, key=lambda s: _HEALTH_ORDER[s])


# Worst-of ordering: a blind concern is worse than a healthy one, better than a known problem.
_HEALTH_ORDER = {Health.OK: 0, Health.UNKNOWN: 1, Health.WARNING: 2, Health.CRITICAL: 3}


class ProcState(str, enum.Enum):
    RUNNING = "running"
    SLEEPING = "sleeping"
    DISK_SLEEP = "disk_sleep"
    STOPPED = "stopped"
    ZOMBIE = "zombie"
    GONE = "gone"
    OTHER = "other"


class ProcRole(str, enum.Enum):
    LAUNCHER = "launcher"
    RANK = "rank"
    WORKER = "worker"


class Scope(str, enum.Enum):
    """Who should report an alert: the node concerned, or one node for the whole job."""

    NODE = "node"
    JOB = "job"


# ---------------------------------------------------------------------------------------
# Observations: what sources saw. `at` is monotonic seconds (never wall time).
# Sources and detectors may define their own subclasses next to their parsers.


@dataclass(frozen=True, slots=True)
class Observation:
    at: float


class OutputLine(NamedTuple):
    """One line of the job's output, with the rank it is attributed to (None: unknown).

    A NamedTuple rather than a frozen dataclass: it is built once per line on the hot path,
    where construction cost decides whether the stream keeps up with 300k lines/s."""

    rank: int | None
    text: str


@dataclass(frozen=True, slots=True)
class OutputChunk(Observation):
    """Lines read together from one stream; batching keeps the bus cheap at 300k lines/s."""

    stream: str
    lines: tuple[OutputLine, ...]


@dataclass(frozen=True, slots=True)
class ProcessInfo:
    pid: int
    ppid: int
    role: ProcRole
    rank: int | None
    local_rank: int | None
    rank_pid: int | None  # for a worker: the pid of the rank it belongs to
    name: str
    state: ProcState
    cpu_seconds: float
    rss_bytes: int
    threads: int
    is_python: bool
    env_readable: bool
    world_size: int | None = None  # from the rank's environment; None when unknown


@dataclass(frozen=True, slots=True)
class ProcessSnapshot(Observation):
    """The watched process tree at one instant, plus node memory."""

    processes: tuple[ProcessInfo, ...]
    mem_total_bytes: int
    mem_available_bytes: int


@dataclass(frozen=True, slots=True)
class ProcessExit(Observation):
    """A watched process disappeared. exit_code/signal are None when nobody could tell."""

    pid: int
    role: ProcRole
    rank: int | None
    exit_code: int | None
    signal: int | None
    last_rss_bytes: int
    mem_total_bytes: int
    mem_available_bytes: int
    status_source: str  # "wait", "proc_connector", "zombie", "unknown"
    oom_killed: bool = False  # its memory cgroup's OOM-kill counter rose as it died


@dataclass(frozen=True, slots=True)
class SourceFault(Observation):
    """A source failed to see something. Counted, logged once per type, never fatal."""

    source: str
    error_type: str
    message: str


@dataclass(frozen=True, slots=True)
class SourceState(Observation):
    """A source became able (up) or unable (down) to see. Down makes its concerns UNKNOWN."""

    source: str
    up: bool
    reason: str


@dataclass(frozen=True, slots=True)
class Suspicion(Observation):
    """A cheap signal that something is wrong: asks the stack sampler for evidence now."""

    ranks: tuple[int, ...]
    reason: str
    detector: str


@dataclass(frozen=True, slots=True)
class PhaseHint(Observation):
    """A rank is in a known long phase (checkpoint, evaluation, init) for up to `hold_seconds`."""

    rank: int | None
    phase: str
    hold_seconds: float
    origin: str


@dataclass(frozen=True, slots=True)
class StopRequested(Observation):
    """Someone asked the job to stop: a signal forwarded by `rankwatch run`, the epilog, scancel
    or a time limit, the launcher's own shutdown. What dies after this is not a fault."""

    reason: str
    origin: str  # "signal", "scheduler", "launcher", "epilog"


@dataclass(frozen=True, slots=True)
class JobEnded(Observation):
    """The watched job is over (wrap child exited, or stop requested)."""

    exit_code: int | None


# ---------------------------------------------------------------------------------------
# Transitions: what detectors concluded. The policy turns them into alert records.

EvidenceValue = Union[str, int, float, bool, None, list[Any], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Transition:
    """A detector's state change for one alert identity.

    `identity` holds the labels that make this alert distinct (e.g. {"rank": "3"}); the policy
    adds job and node. `firing=False` resolves an alert previously fired with the same identity.
    """

    detector: str
    alertname: str
    firing: bool
    severity: Severity
    category: Category
    identity: Mapping[str, str]
    summary: str
    description: str = ""
    evidence: Mapping[str, EvidenceValue] = field(default_factory=dict)
    culprit_ranks: tuple[int, ...] = ()
    scope: Scope = Scope.NODE
    # Why no rank is blamed (a whole-job network hang, a node-level fault). A critical finding
    # with neither culprits nor this reason is only a warning (the severity contract).
    no_culprit_reason: str = ""
    # Set by the incident layer: every record of one failure carries the same id.
    incident_id: str = ""


# Anything a detector returns: alert transitions, or derived observations fed back to the bus.
DetectorOutput = Union[Transition, Observation]


@dataclass(frozen=True, slots=True)
class AlertRecord:
    """The alert contract (architecture §4.2): every sink receives exactly this."""

    status: str  # "firing" | "resolved"
    alertname: str
    severity: Severity
    category: Category
    labels: Mapping[str, str]
    summary: str
    description: str
    evidence: Mapping[str, EvidenceValue]
    culprit_ranks: tuple[int, ...]
    starts_at: str
    ends_at: str | None
    fingerprint: str
    runbook_url: str
    scope: Scope = Scope.NODE
    detector: str = ""
    incident_id: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "alertname": self.alertname,
            "severity": self.severity.value,
            "category": self.category.value,
            "labels": dict(self.labels),
            "summary": self.summary,
            "description": self.description,
            "evidence": dict(self.evidence),
            "culprit_ranks": list(self.culprit_ranks),
            "starts_at": self.starts_at,
            "ends_at": self.ends_at,
            "fingerprint": self.fingerprint,
            "runbook_url": self.runbook_url,
            "scope": self.scope.value,
            "detector": self.detector,
            "incident_id": self.incident_id,
        }


# ---------------------------------------------------------------------------------------
# Metrics as plain data: components describe their series; the Prometheus collector renders
# them at scrape time from the latest immutable snapshot.


class MetricKind(str, enum.Enum):
    GAUGE = "gauge"
    COUNTER = "counter"
    INFO = "info"


@dataclass(frozen=True, slots=True)
class MetricFamilyData:
    name: str  # without the rankwatch_ prefix; counters without _total
    kind: MetricKind
    help: str
    label_names: tuple[str, ...] = ()
    samples: tuple[tuple[tuple[str, ...], float], ...] = ()


def gauge(
    name: str, help_text: str, label_names: tuple[str, ...] = (), samples: Any = ()
) -> MetricFamilyData:
    return MetricFamilyData(name, MetricKind.GAUGE, help_text, label_names, _samples(samples))


def counter(
    name: str, help_text: str, label_names: tuple[str, ...] = (), samples: Any = ()
) -> MetricFamilyData:
    return MetricFamilyData(name, MetricKind.COUNTER, help_text, label_names, _samples(samples))


def _samples(samples: Any) -> tuple[tuple[tuple[str, ...], float], ...]:
    if isinstance(samples, (int, float)):
        return (((), float(samples)),)
    return tuple((tuple(labels), float(value)) for labels, value in samples)


@dataclass(frozen=True, slots=True)
class ConcernHealth:
    concern: str
    health: Health
    reason: str = ""


@dataclass(frozen=True, slots=True)
class HealthSnapshot:
    """Immutable view of the daemon, swapped atomically and read by the collector at scrape time."""

    taken_at_wall: float
    families: tuple[MetricFamilyData, ...]
    concerns: tuple[ConcernHealth, ...]
    firing: tuple[AlertRecord, ...] = ()

    def family(self, name: str) -> MetricFamilyData | None:
        for fam in self.families:
            if fam.name == name:
                return fam
        return None


EMPTY_SNAPSHOT = HealthSnapshot(taken_at_wall=0.0, families=(), concerns=())


class SnapshotHolder:
    """Holds the latest HealthSnapshot: the daemon writes it, readers (the Prometheus collector)
    take it; a plain attribute swap is atomic under the GIL."""

    def __init__(self) -> None:
        self.current: HealthSnapshot = EMPTY_SNAPSHOT
