"""Typed view of one NCCL RAS STATUS reply, whatever its format (text or JSON) or NCCL version.

The text and JSON parsers both produce a `RasReport`; the RAS source wraps it, with the facts of
the exchange (address, duration, partial or not), in a `RasSnapshot` observation. Per-rank records
are NamedTuples rather than dataclasses because a 16k-rank JSON reply holds ~50k of them.

Vocabulary (NCCL's own): a *node* is an IP address; a *process* is one NCCL process (pid as seen in
its own namespace); ranks are *local to their communicator*; a communicator is keyed by its hash
(16 lowercase hex digits, the text form) plus, in JSON, a secondary hash.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, NamedTuple

from monitor.model import Observation

# Collective types in NCCL's order (2.26+). 2.24/2.25 keep one aggregate counter: LEGACY_OP.
OPS: tuple[str, ...] = ("Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce")
LEGACY_OP = "Collective"

# Error texts NCCL prints in ERROR blocks, by ncclResult_t code.
ERROR_TEXTS: dict[int, str] = {
    1: "Unhandled CUDA error",
    2: "System error",
    3: "Internal error",
    4: "Invalid argument",
    5: "Invalid usage",
    6: "Remote process error",
    7: "NCCL operation in progress",
}
ERROR_CODES: dict[str, int] = {text: code for code, text in ERROR_TEXTS.items()}
IN_PROGRESS = 7  # ncclInProgress: not an error


class CommStatus(str, enum.Enum):
    """A rank's status in a communicator, lowest to highest. 2.24/2.25 print NOCOMM as UNKNOWN."""

    NOCOMM = "NOCOMM"
    INIT = "INIT"
    RUNNING = "RUNNING"
    FINALIZE = "FINALIZE"
    ABORT = "ABORT"

    @property
    def order(self) -> int:
        return _STATUS_ORDER[self]

    @staticmethod
    def from_word(word: str) -> CommStatus:
        return CommStatus.NOCOMM if word == "UNKNOWN" else CommStatus(word)


_STATUS_ORDER = {s: i for i, s in enumerate(CommStatus)}


class CommProblem(str, enum.Enum):
    """The bits of a communicator's error word (`OK` is the empty set)."""

    INCOMPLETE = "INCOMPLETE"
    ERROR = "ERROR"
    MISMATCH = "MISMATCH"

    @staticmethod
    def parse_word(word: str) -> frozenset[CommProblem]:
        if word == "OK":
            return frozenset()
        return frozenset(CommProblem(part) for part in word.split(","))


class ReportFormat(str, enum.Enum):
    TEXT = "text"
    JSON = "json"


# ---------------------------------------------------------------------------------------
# Per-rank records (NamedTuples: cheap to build by the ten thousand).


class RankRef(NamedTuple):
    """A communicator-local rank and, when the report says, where it runs."""

    rank: int
    host: str | None = None
    pid: int | None = None
    gpu: int | None = None  # CUDA device id
    nvml_gpu: int | None = None  # NVML id, only when it differs from the CUDA id


class RankState(NamedTuple):
    """An answering rank of a communicator (JSON only: text never lists healthy ranks)."""

    rank: int
    host: str
    pid: int
    gpu: int
    nvml_gpu: int
    status: CommStatus
    init_state: int
    async_error: int
    counts: tuple[int, ...]  # one per OPS entry

    @property
    def ref(self) -> RankRef:
        return RankRef(self.rank, self.host, self.pid, self.gpu, self.nvml_gpu)


class MissingRank(NamedTuple):
    """A member that did not report this communicator.

    `unresponsive`: its process did not answer (False means NOCOMM: it answered without this
    communicator). `dead`: the process is considered dead; None when the report does not say
    (text reports name dead processes in the job-level DEAD block instead).
    """

    ref: RankRef
    unresponsive: bool
    dead: bool | None


class ProcessRef(NamedTuple):
    """An NCCL process: node (IP), pid, and the CUDA (and NVML, when different) GPUs it manages."""

    host: str
    pid: int
    gpus: tuple[int, ...] = ()
    nvml_gpus: tuple[int, ...] = ()


# ---------------------------------------------------------------------------------------
# Text-only structures: the grouped views the server computes for text replies.


@dataclass(frozen=True, slots=True)
class CountGroup:
    """`N ranks have launched up to operation V` (op LEGACY_OP on 2.24/2.25) and the listed members.

    Text lists members only for outlier groups, so `len(ranks)` may be less than `size`.
    """

    op: str
    value: int
    size: int
    ranks: tuple[RankRef, ...] = ()


@dataclass(frozen=True, slots=True)
class StatusGroup:
    status: CommStatus
    size: int
    ranks: tuple[RankRef, ...] = ()


@dataclass(frozen=True, slots=True)
class ErrorGroup:
    """Ranks that reported the same init or async error code (`code` None: not a known code)."""

    kind: str  # "init" | "async"
    code: int | None
    text: str
    size: int
    ranks: tuple[RankRef, ...] = ()


@dataclass(frozen=True, slots=True)
class CommGroupRow:
    """One row of the text Communicators table: a group of alike communicators."""

    group: int
    comms: int
    nodes: int
    ranks_per_node_min: int
    ranks_per_node_max: int
    size: int
    ranks_in_group: int
    status: CommStatus
    problems: frozenset[CommProblem]


@dataclass(frozen=True, slots=True)
class JobSummary:
    nodes: int | None = None
    processes: int | None = None
    gpus: int | None = None
    # (nodes, processes per node) and (processes, GPUs per process) rows of layouts B and C.
    processes_per_node: tuple[tuple[int, int], ...] = ()
    gpus_per_process: tuple[tuple[int, int], ...] = ()
    # The server reads these pids from the wrong place (a quirk of every version): do not trust.
    outlier_nodes: tuple[tuple[str, tuple[int, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class Communicator:
    """What the report says about one communicator.

    From text: only communicators with an Errors/Warnings block appear here (healthy ones exist
    only as table rows); `status` and `problems` come from their group's row. From JSON: every
    communicator, with `ranks` (answering members, full counts) and `missing`.
    """

    hash: str  # 16 lowercase hex digits
    secondary_hash: str = ""
    size: int | None = None
    status: CommStatus | None = None
    problems: frozenset[CommProblem] = frozenset()
    text_id: str = ""  # "#g-c" in text; unstable between queries
    ranks: tuple[RankState, ...] = ()
    missing: tuple[MissingRank, ...] = ()
    missing_count: int = 0  # members whose process did not answer (NOCOMM excluded from 2.26)
    count_groups: tuple[CountGroup, ...] = ()
    status_groups: tuple[StatusGroup, ...] = ()
    init_error_ranks: int = 0
    async_error_ranks: int = 0
    errors: tuple[ErrorGroup, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.hash}:{self.secondary_hash}" if self.secondary_hash else self.hash


@dataclass(frozen=True, slots=True)
class RasReport:
    """One STATUS reply, parsed. `complete` is False when the reply was cut short or invalid."""

    format: ReportFormat
    complete: bool
    nccl_version: str | None = None  # "2.29.7" (suffix kept: "2.27.3a0")
    version: tuple[int, int, int] | None = None
    cuda_version: str | None = None
    cuda_runtime: int | None = None
    cuda_driver: int | None = None
    timestamp: str | None = None  # JSON only: server local time, no zone
    job: JobSummary | None = None
    collection_seconds: float | None = None
    groups: tuple[CommGroupRow, ...] = ()
    communicators: tuple[Communicator, ...] = ()
    communicators_total: int | None = None  # text: sum of table rows; JSON: array length
    no_communicators: bool = False
    unresponsive_count: int = 0  # job processes that did not answer (not dead)
    unresponsive_processes: tuple[ProcessRef, ...] = ()
    dead_count: int = 0
    dead_processes: tuple[ProcessRef, ...] = ()
    unlisted_processes: int = 0  # "[could not find information on N processes]"
    timeouts: int = 0
    unknown_lines: int = 0
    unknown_samples: tuple[str, ...] = ()  # the first few unrecognised lines, for the fault message
    faults: tuple[str, ...] = ()  # e.g. "json_comma_repaired", "truncated"

    @property
    def recognised(self) -> bool:
        """True when the reply looked like a RAS report at all (version line or JSON document)."""
        return self.version is not None or self.groups != () or self.communicators != ()


# ---------------------------------------------------------------------------------------
# The observation the RAS source emits.


@dataclass(frozen=True, slots=True)
class RasSnapshot(Observation):
    """A RAS poll that got a reply; `partial` when it was cut (deadline, size, early close)."""

    report: RasReport
    address: str = ""
    partial: bool = False
    partial_reason: str = ""
    duration_seconds: float = 0.0
    reply_bytes: int = 0
    poll_interval_seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class RasPollingOff(Observation):
    """This node does not poll RAS (policy), so the RAS concern is blind here by design."""

    reason: str


# ---------------------------------------------------------------------------------------
# Helpers shared by the parsers and the detector.


def parse_version(text: str) -> tuple[int, int, int] | None:
    """`2.28.9` or `2.27.3a0` -> (2, 28, 9) / (2, 27, 3); None when it is not a version."""
    parts = text.split(".")
    if len(parts) < 3:
        return None
    digits = ""
    for ch in parts[2]:
        if not ch.isdigit():
            break
        digits += ch
    if not (parts[0].isdigit() and parts[1].isdigit() and digits):
        return None
    return int(parts[0]), int(parts[1]), int(digits)


def normalise_hash(text: str) -> str:
    """JSON `0xb7d1e44c2a93f15` and text `0b7d1e44c2a93f15` name the same communicator."""
    value = text[2:] if text.lower().startswith("0x") else text
    return value.lower().rjust(16, "0")


def status_from_flags(
    init_state: int, finalize_called: bool, destroy_flag: bool, abort_flag: bool
) -> CommStatus:
    """A rank's status from its raw JSON flags, checked in NCCL's order."""
    if abort_flag:
        return CommStatus.ABORT
    if finalize_called or destroy_flag:
        return CommStatus.FINALIZE
    if init_state == 0:
        return CommStatus.RUNNING
    return CommStatus.INIT


def is_error_code(code: int) -> bool:
    return code not in (0, IN_PROGRESS)


def world_rank_map(report: RasReport) -> dict[tuple[str, int, int], int]:
    """(host, pid, CUDA GPU) -> rank in the job's world communicator, as far as the report says.

    The world communicator is the largest one whose size covers the job's GPUs (text: the job
    summary's total; JSON: every distinct (host, pid, GPU) seen). Its local ranks are global ranks.
    """
    if not report.communicators:
        return {}
    largest = max(c.size or 0 for c in report.communicators)
    if largest <= 0:
        return {}
    total = report.job.gpus if report.job is not None else None
    if total is None:
        seen: set[tuple[str | None, int | None, int | None]] = set()
        for comm in report.communicators:
            seen.update((r.host, r.pid, r.gpu) for r in comm.ranks)
            seen.update((m.ref.host, m.ref.pid, m.ref.gpu) for m in comm.missing)
        total = len(seen)
    mapping: dict[tuple[str, int, int], int] = {}
    for comm in report.communicators:
        if comm.size != largest or largest < total:
            continue
        for ref in iter_rank_refs(comm):
            if ref.host is not None and ref.pid is not None and ref.gpu is not None:
                mapping[(ref.host, ref.pid, ref.gpu)] = ref.rank
    return mapping


def is_world(comm: Communicator, report: RasReport, largest: int | None = None) -> bool:
    """Whether the communicator spans the whole job (so its local ranks are global ranks).

    `largest` (the largest communicator size in the report) saves a walk when asked often."""
    if comm.size is None:
        return False
    if report.job is not None and report.job.gpus is not None:
        return comm.size >= report.job.gpus
    if largest is None:
        largest = max((c.size or 0) for c in report.communicators)
    return comm.size == largest


def iter_rank_refs(comm: Communicator) -> Iterable[RankRef]:
    """Every rank the report locates for this communicator (answering, missing, listed)."""
    for state in comm.ranks:
        yield state.ref
    for missing in comm.missing:
        yield missing.ref
    for cgroup in comm.count_groups:
        yield from cgroup.ranks
    for sgroup in comm.status_groups:
        yield from sgroup.ranks
    for egroup in comm.errors:
        yield from egroup.ranks


def to_plain(value: Any) -> Any:
    """JSON-ready plain data (goldens, debugging): dataclasses and NamedTuples become dicts,
    enums their values, frozensets sorted lists."""
    if isinstance(value, enum.Enum):
        return value.value
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {k: to_plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (frozenset, set)):
        return sorted(to_plain(v) for v in value)
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in value.items()}
    return value

