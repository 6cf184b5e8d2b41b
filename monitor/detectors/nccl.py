"""NCCL RAS detector: dead ranks, unresponsive ranks, communicator errors and stalled collectives.

Pure: RAS snapshots and `now` (monotonic) in; transitions and Suspicion observations out. Every
alert is job-scoped (any RAS poller sees the whole job, so the primary and the backup agree and
their records share one fingerprint).

Alerts, their states and edges:

* RankDead (critical, rank_dead), one per node (IP) with dead processes.
  quiet -> firing: a report lists DEAD processes on that node (fires within one poll; positive
  evidence is taken even from a partial report). firing -> firing (update): more processes of that
  node die. firing -> resolved: the job ends, or a complete report no longer counts them dead (a
  restarted job). Dead is permanent in NCCL, so nothing else resolves it.
* RasRanksMissing (warning -> critical, rank_stopped): processes that do not answer and are not
  dead (INCOMPLETE). quiet -> warning: a report has some. warning -> critical: still missing
  `missing_hold_seconds` after first seen (measured between reports). -> resolved: a complete
  report has none (they answer again, or became DEAD and RankDead took over).
* NcclCommError (critical): a communicator with init/async errors or ABORT status; category from
  the error code. -> resolved: a complete report shows the communicator clean or gone.
* CollectiveDesync (warning -> critical, collective_desync): a RUNNING communicator whose
  collective counts differ between ranks and have not moved for the stall window; the ranks of the
  lowest group (they never launched the collective the others wait in) are the culprits.
  warning at one window, critical at two, or at once when the lagging rank's own stack (taken
  since the job's last step) shows it away from the collective. Also due, before its window,
  once the job has made no step for its own stall window and two looks saw the same mismatch
  (a first look after the fault has no RAS pace to learn). -> resolved: the counts move, or the mismatch clears.
* CollectiveHang (warning -> critical, collective_hang): JSON reports only (per-rank counts): every
  communicator seen advancing before is frozen with equal counts for the stall window (all ranks
  launched, none completed: NCCL issue #1730, which RAS itself reports as OK). Counts already up
  at our first look, in a job seen stepping, count as a move (NCCL's counts start at zero); such
  a hang is paced by the job's step window and needs every local stack waiting for its peers.
  Never while the job steps after the counts froze. -> resolved: any count moves, or the job
  steps.

The stall window comes from the job's pace, not from how often we happened to look: a gap is
recorded only when a poll saw the counts frozen and a later one saw them move (a freeze that
ended); polls whose counts simply moved on add no gap. The window is `stall_multiplier` x the
longest recent freeze, within [stall_floor_seconds, stall_ceiling_seconds] (twice the floor until
a first advance has been seen), and never under two poll intervals. Once the communicator's rate
(operations per second between two observations with counts: text MISMATCH replies, JSON
replies; polls stretched while communicators initialise do not count) is known, its floor is
`paced_floor_seconds`; before RAS gives one, operation counts in the job's log lines (NCCL COLL
opCount lines, torch's periodic SeqNum line: monitor/detectors/op_pace.py) pace it the same
way, their longest recent gap between advances counting as a freeze that ended; and a freeze first seen in a new MISMATCH is dated from that rate (when
the count it stopped at was reached, not the poll that saw it). The category of a desync comes
from what the lagging ranks' hosts do (JobView host states from the stack detector): waiting on
a GPU whose count is behind is `gpu_cuda` (a kernel that does not finish); a DataLoader wait is
`dataloader_stall`; user code, or a host this node cannot see, `collective_desync`. A
MISMATCH whose counts keep advancing is normal skew and stays quiet. Stall alerts do not start while
RankDead or RasRanksMissing fire (those name the cause) or while a PhaseHint (checkpoint,
evaluation) is active. Each new or escalated alert, and any communicator frozen for half a window,
emits a Suspicion so the stack sampler collects evidence.

Health: UNKNOWN when this node does not poll, the source is down, no report arrived yet, or the
last report is stale (older than three intervals); otherwise the worst firing severity, else OK.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

from monitor.detectors.op_pace import OpPace, Pace
from monitor.incidents import JobFacts
from monitor.model import (
    Category,
    ConcernHealth,
    DetectorOutput,
    Health,
    JobEnded,
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
    gauge,
)
from monitor.parse.op_counts import is_comm_init, match_op_count
from monitor.parse.ras_model import (
    OPS,
    CommProblem,
    CommStatus,
    Communicator,
    ProcessRef,
    RankRef,
    RasPollingOff,
    RasReport,
    RasSnapshot,
    ReportFormat,
    is_world,
    world_rank_map,
)
from monitor.settings import RasSettings

DETECTOR = "nccl"
RECENT_GAPS = 8
STALE_INTERVALS = 3.0
CRITICAL_WINDOWS = 2.0  # a stall this many windows long is critical
COLD_FLOORS = 2.0  # window, in floors, before any advance of a communicator has been seen
MAX_OP_SERIES = 512  # bound on ras_collective_ops series
MAX_LISTED = 16  # ranks/processes spelled out in a summary

# Categories of init/async error codes (ncclResult_t).
_ERROR_CATEGORY = {
    1: Category.GPU_CUDA,
    2: Category.NETWORK,
    3: Category.SOFTWARE,
    4: Category.SOFTWARE,
    5: Category.SOFTWARE,
    6: Category.NETWORK,
}


def _ranks_text(ranks: Iterable[int]) -> str:
    """`0-7,13` style, at most MAX_LISTED runs."""
    runs: list[list[int]] = []
    for rank in sorted(set(ranks)):
        if runs and rank == runs[-1][1] + 1:
            runs[-1][1] = rank
        else:
            runs.append([rank, rank])
    if not runs:
        return "?"
    words = [str(a) if a == b else f"{a}-{b}" for a, b in runs]
    text = ",".join(words[:MAX_LISTED])
    return text + (",..." if len(words) > MAX_LISTED else "")


def _ranks_phrase(ranks: Iterable[int]) -> str:
    values = set(ranks)
    return ("rank " if len(values) == 1 else "ranks ") + _ranks_text(values)


def _gpus_text(gpus: Iterable[int]) -> str:
    values = sorted(set(gpus))
    return ("GPU " if len(values) == 1 else "GPUs ") + ",".join(str(g) for g in values)


@dataclass
class _Located:
    """Ranks of some processes, found in a report: global where known, else comm-local."""

    global_ranks: set[int] = field(default_factory=set)
    local: dict[str, list[int]] = field(default_factory=dict)  # comm hash -> local ranks


class _View:
    """One report with lookups built at most once: a 16k-rank report is walked once per poll,
    not once per communicator or process."""

    def __init__(self, report: RasReport) -> None:
        self.report = report
        comms = report.communicators
        largest = max((c.size or 0 for c in comms), default=0)
        self.world = {c.key for c in comms if is_world(c, report, largest)}
        self._world_map: dict[tuple[str, int, int], int] | None = None

    @property
    def world_map(self) -> dict[tuple[str, int, int], int]:
        if self._world_map is None:
            self._world_map = world_rank_map(self.report)
        return self._world_map

    def global_ranks(self, comm: Communicator, refs: Iterable[RankRef]) -> set[int]:
        if comm.key in self.world:
            return {ref.rank for ref in refs}
        out = set()
        for ref in refs:
            if ref.host is not None and ref.pid is not None and ref.gpu is not None:
                rank = self.world_map.get((ref.host, ref.pid, ref.gpu))
                if rank is not None:
                    out.add(rank)
        return out

    def locate(self, processes: Iterable[tuple[str, int]]) -> _Located:
        """Where the given (host, pid) processes sit among the missing or listed ranks (a dead
        or silent process is never among the answering ones). World communicators come first:
        their ranks are global, so the world map is built only for ranks they do not show."""
        wanted = set(processes)
        found = _Located()
        placed: set[tuple[str, int, int | None]] = set()
        comms = sorted(self.report.communicators, key=lambda c: c.key not in self.world)
        for comm in comms:
            refs: list[RankRef] = [m.ref for m in comm.missing]
            for group in comm.count_groups:
                refs += group.ranks
            mine = [
                ref for ref in refs
                if ref.host is not None and ref.pid is not None and (ref.host, ref.pid) in wanted
            ]
            if not mine:
                continue
            local = found.local.setdefault(comm.hash, [])
            local += sorted({ref.rank for ref in mine} - set(local))
            if comm.key in self.world:
                found.global_ranks |= {ref.rank for ref in mine}
                placed |= {(ref.host or "", ref.pid or 0, ref.gpu) for ref in mine}
                continue
            unplaced = [r for r in mine if (r.host or "", r.pid or 0, r.gpu) not in placed]
            if unplaced:
                found.global_ranks |= self.global_ranks(comm, unplaced)
        return found

    def world_missing(self) -> set[int]:
        """Missing members of the world communicator: global ranks even when the report does not
        say which process they belong to (2.24/2.25 list missing ranks by number only)."""
        return {
            m.ref.rank
            for comm in self.report.communicators
            if comm.key in self.world
            for m in comm.missing
            if m.unresponsive
        }

    def answering(self, wanted: set[tuple[str, int]]) -> set[tuple[str, int]]:
        """Which of the `wanted` (host, pid) processes answer in some communicator (JSON)."""
        found: set[tuple[str, int]] = set()
        for comm in self.report.communicators:
            for r in comm.ranks:
                if (r.host, r.pid) in wanted:
                    found.add((r.host, r.pid))
        return found


@dataclass
class _Lower:
    """The lagging side of a mismatched communicator."""

    op: str
    value: int
    lead_value: int
    size: int
    refs: tuple[RankRef, ...]  # listed members (text lists outliers only)


def _count_signature(comm: Communicator) -> int | None:
    """What must change for a communicator to count as advancing (None: nothing to compare).
    Kept as a hash so that the previous report's rank records can be freed."""
    if comm.ranks:
        return hash(tuple((r.rank, r.counts) for r in comm.ranks))
    if comm.count_groups:
        return hash(tuple((g.op, g.value, g.size) for g in comm.count_groups))
    return None


def _progress_count(comm: Communicator) -> int | None:
    """How far the communicator got: the leading count of each collective type, summed."""
    if comm.ranks:
        return sum(max(r.counts[i] for r in comm.ranks) for i in range(len(OPS)))
    if comm.count_groups:
        lead: dict[str, int] = {}
        for group in comm.count_groups:
            lead[group.op] = max(lead.get(group.op, 0), group.value)
        return sum(lead.values())
    return None


def _lower_groups(comm: Communicator) -> list[_Lower]:
    """Per collective type with differing counts: the group with the lowest count."""
    lowers: list[_Lower] = []
    if comm.ranks:
        first = comm.ranks[0].counts
        if all(r.counts == first for r in comm.ranks):
            return lowers
        for index, op in enumerate(OPS):
            values = [r.counts[index] for r in comm.ranks]
            low, high = min(values), max(values)
            if low == high:
                continue
            refs = tuple(r.ref for r in comm.ranks if r.counts[index] == low)
            lowers.append(_Lower(op, low, high, len(refs), refs))
        return lowers
    by_op: dict[str, list[tuple[int, int, tuple[RankRef, ...]]]] = {}
    for group in comm.count_groups:
        by_op.setdefault(group.op, []).append((group.value, group.size, group.ranks))
    for op, groups in by_op.items():
        if len(groups) < 2:
            continue
        value, size, refs = min(groups, key=lambda g: g[0])
        lowers.append(_Lower(op, value, max(g[0] for g in groups), size, refs))
    return lowers


@dataclass
class _Track:
    """Count history of one communicator."""

    signature: int | None
    changed_at: float
    advanced_ever: bool = False
    inferred: bool = False  # advanced_ever only from counts already up at our first look
    gaps: deque[float] = field(default_factory=lambda: deque(maxlen=RECENT_GAPS))
    severity: Severity | None = None
    suspected: bool = False
    text: bool = False
    unchanged_polls: int = 0  # polls since the last change that saw the same counts


@dataclass
class _Firing:
    severity: Severity
    culprits: tuple[int, ...]
    processes: dict[int, ProcessRef] = field(default_factory=dict)  # RankDead: pid -> process


class NcclRasDetector:
    """See the module docstring for states and edges."""

    name = DETECTOR

    def __init__(
        self,
        settings: RasSettings,
        *,
        local_hosts: Collection[str] = (),
        source_name: str = "nccl_ras",
        view: JobFacts | None = None,
    ) -> None:
        self._settings = settings
        self._view = view
        # communicator -> (when, progress count) of its last observation with counts, and its
        # rate in operations per second: the job's pace, kept across MISMATCHes that clear.
        self._seen_count: dict[str, tuple[float, int]] = {}
        self._rate: dict[str, float] = {}
        # The job's pace from its own log lines (NCCL COLL opCount, torch SeqNum), for
        # communicators RAS has not given a rate yet.
        self._op_pace = OpPace()
        self._local_hosts = frozenset(local_hosts)
        self._source = source_name
        self._polling_off: str | None = None
        self._source_down: str | None = None
        self._last: RasSnapshot | None = None
        self._dead: dict[str, _Firing] = {}
        self._missing: _Firing | None = None
        self._missing_since: float | None = None
        self._errors: dict[str, _Firing] = {}
        self._tracks: dict[str, _Track] = {}
        self._job_last_advance: float | None = None
        self._job_gaps: deque[float] = deque(maxlen=RECENT_GAPS)
        self._job_unchanged_polls = 0
        self._desync: dict[str, _Firing] = {}
        self._hang: _Firing | None = None
        self._hang_suspected = False
        self._phase_until = 0.0
        self._reports: dict[str, int] = {}
        self._unknown_lines = 0
        self._faults: dict[str, int] = {}

    # -- Detector protocol --------------------------------------------------------------------
    def observe(self, obs: Observation, now: float) -> Sequence[DetectorOutput]:
        if isinstance(obs, RasSnapshot):
            return self._snapshot(obs, now)
        if isinstance(obs, OutputChunk):
            self._op_lines(obs)
            return []
        if isinstance(obs, RasPollingOff):
            self._polling_off = obs.reason
            return []
        if isinstance(obs, SourceState) and obs.source == self._source:
            self._source_down = None if obs.up else (obs.reason or "RAS source down")
            return []
        if isinstance(obs, PhaseHint):
            self._phase_until = max(self._phase_until, now + obs.hold_seconds)
            return []
        if isinstance(obs, JobEnded):
            return self._resolve_all("the job ended")
        return []

    def tick(self, now: float) -> Sequence[DetectorOutput]:
        return []  # every conclusion needs a report: time alone proves nothing here

    def health(self, now: float) -> ConcernHealth:
        if self._polling_off is not None:
            return ConcernHealth(self.name, Health.UNKNOWN, f"not polling: {self._polling_off}")
        if self._source_down is not None:
            return ConcernHealth(self.name, Health.UNKNOWN, f"RAS blind: {self._source_down}")
        if self._last is None:
            return ConcernHealth(self.name, Health.UNKNOWN, "no RAS report yet")
        interval = max(self._last.poll_interval_seconds, self._settings.interval_seconds)
        age = now - self._last.at
        if age > STALE_INTERVALS * interval:
            return ConcernHealth(self.name, Health.UNKNOWN, f"last RAS report {age:.0f} s old")
        severities = [f.severity for f in self._all_firing()]
        if Severity.CRITICAL in severities:
            return ConcernHealth(self.name, Health.CRITICAL, self._firing_names())
        if severities:
            return ConcernHealth(self.name, Health.WARNING, self._firing_names())
        return ConcernHealth(self.name, Health.OK)

    def metric_families(self, now: float) -> Sequence[MetricFamilyData]:
        families = [
            counter("ras_reports", "RAS reports received, by completeness.", ("result",),
                    [((k,), v) for k, v in sorted(self._reports.items())]),
            counter("ras_report_unknown_lines", "Report lines the parser did not recognise.", (),
                    self._unknown_lines),
            counter("ras_report_faults", "Damaged or odd reports, by fault type.", ("fault",),
                    [((k,), v) for k, v in sorted(self._faults.items())]),
        ]
        snap = self._last
        if snap is None:
            return families
        report = snap.report
        families += [
            gauge("ras_report_age_seconds", "Seconds since the last RAS report.", (),
                  max(0.0, now - snap.at)),
            gauge("ras_nccl_info", "NCCL version reported by RAS (value 1).", ("version",),
                  [((report.nccl_version or "unknown",), 1)]),
            gauge("ras_communicators", "Communicators in the last report, by status.",
                  ("status",), self._comm_counts(report)),
            gauge("ras_missing_ranks",
                  "Ranks missing from the most incomplete communicator (dead or unresponsive).",
                  (), max((c.missing_count for c in report.communicators), default=0)),
            gauge("ras_unresponsive_processes", "Job processes that did not answer (not dead).",
                  (), report.unresponsive_count),
            gauge("ras_dead_processes", "Job processes NCCL considers dead.", (),
                  report.dead_count),
            gauge("ras_stall_window_seconds",
                  "Current collective stall window (adapts to the observed advance rate).", (),
                  self._hang_window(snap.poll_interval_seconds)),
            gauge("ras_collective_ops",
                  "Collectives launched per communicator (hash), rank (local to it) and type, "
                  "for this node's ranks (JSON reports only).",
                  ("comm", "rank", "op"), self._op_samples(report)),
        ]
        if self._job_last_advance is not None:
            families.append(
                gauge("ras_counts_frozen_seconds",
                      "Seconds between the last count advance and the last report.", (),
                      max(0.0, snap.at - self._job_last_advance))
            )
        return families

    def _in_phase(self, now: float) -> bool:
        """A known long phase (checkpoint, evaluation, init) holds freezes back. The job's view
        ends a phase when the job steps again; without a view, the hint's own hold does."""
        if self._view is not None:
            return self._view.in_phase(now) is not None
        return now < self._phase_until

    def _steps_stalled(self, now: float) -> float | None:
        """Seconds since the job's last step when it was seen stepping and has made no step
        for its own stall window (the progress detector's); else None."""
        view = self._view
        if view is None or view.last_progress_at is None or not view.stall_window_seconds:
            return None
        quiet = now - view.last_progress_at
        return quiet if quiet >= view.stall_window_seconds else None

    def _last_step(self) -> float | None:
        """When the job last stepped (monotonic), if it was ever seen stepping."""
        return self._view.last_progress_at if self._view is not None else None

    # -- log lines ----------------------------------------------------------------------------
    def _op_lines(self, chunk: OutputChunk) -> None:
        """Operation counts in the job's output feed the pace; nothing else is kept."""
        pace = self._op_pace
        for line in chunk.lines:
            text = line.text
            if "opCount " in text or "Work update periodically" in text:
                op = match_op_count(text)
                if op is not None:
                    pace.observe(op, chunk.at)
            elif "- Init " in text and is_comm_init(text):
                pace.reset()  # a communicator being created: initialisation is not pace

    # -- snapshots ----------------------------------------------------------------------------
    def _snapshot(self, snap: RasSnapshot, now: float) -> list[DetectorOutput]:
        self._last = snap
        report = snap.report
        if any(c.status is CommStatus.INIT for c in report.communicators) or any(
            row.status is CommStatus.INIT for row in report.groups
        ):
            self._op_pace.reset()  # lines while communicators initialise are not pace
        self._polling_off = None
        complete = not snap.partial and report.complete
        key = "complete" if complete else "partial"
        self._reports[key] = self._reports.get(key, 0) + 1
        self._unknown_lines += report.unknown_lines
        for fault in report.faults:
            kind = fault.split(":", 1)[0]
            self._faults[kind] = self._faults.get(kind, 0) + 1
        view = _View(report)
        out: list[DetectorOutput] = []
        out += self._dead_processes(view, complete, now)
        out += self._missing_processes(view, complete, snap.at, now)
        out += self._comm_errors(view, complete, now)
        if complete:
            out += self._stalls(snap, view, now)
        return out

    def _emit(
        self, out: list[DetectorOutput], transition: Transition, now: float, suspect: bool = True
    ) -> None:
        out.append(transition)
        if transition.firing and suspect:
            out.append(
                Suspicion(now, transition.culprit_ranks,
                          f"{transition.alertname}: {transition.summary}", DETECTOR)
            )

    def _dead_processes(self, view: _View, complete: bool, now: float) -> list[DetectorOutput]:
        report = view.report
        out: list[DetectorOutput] = []
        by_host: dict[str, list[ProcessRef]] = {}
        for proc in report.dead_processes:
            by_host.setdefault(proc.host, []).append(proc)
        for host, procs in sorted(by_host.items()):
            located = view.locate((p.host, p.pid) for p in procs)
            if not located.global_ranks and report.unresponsive_count == 0:
                located.global_ranks = view.world_missing()
            previous = self._dead.get(host)
            known = previous.processes if previous is not None else {}
            merged = {**known, **{p.pid: p for p in procs}}
            culprits = set(located.global_ranks) | set(previous.culprits if previous else ())
            if previous is not None and merged.keys() == known.keys() and culprits <= set(
                previous.culprits
            ):
                continue  # nothing new: RankDead fires once per node
            self._dead[host] = _Firing(Severity.CRITICAL, tuple(sorted(culprits)), merged)
            self._emit(out, self._dead_transition(host, list(merged.values()), located,
                                                  culprits), now)
        unlisted = report.dead_count - len(report.dead_processes)
        if unlisted > 0 and "unlisted" not in self._dead:
            self._dead["unlisted"] = _Firing(Severity.CRITICAL, ())
            self._emit(out, Transition(
                detector=DETECTOR, alertname="RankDead", firing=True,
                severity=Severity.CRITICAL, category=Category.RANK_DEAD,
                identity={"ras_node": "unlisted"},
                summary=f"NCCL RAS: {unlisted} job processes are DEAD (not listed by plain "
                        "STATUS; JSON or ras.verbose shows which)",
                evidence={"dead_processes": report.dead_count},
                scope=Scope.JOB,
            ), now)
        for host in self._returned_hosts(view, complete, set(by_host), unlisted):
            firing = self._dead.pop(host)
            self._emit(out, Transition(
                detector=DETECTOR, alertname="RankDead", firing=False,
                severity=firing.severity, category=Category.RANK_DEAD,
                identity={"ras_node": host},
                summary=f"NCCL RAS no longer reports dead processes on {host}",
                scope=Scope.JOB,
            ), now)
        return out

    def _returned_hosts(
        self, view: _View, complete: bool, listed: set[str], unlisted: int
    ) -> list[str]:
        """Nodes whose dead processes are positively back: DEAD is permanent in NCCL, so only a
        complete text report (its DEAD block is job-wide) or the processes answering again (a
        restarted job) resolve RankDead."""
        if not complete:
            return []
        report = view.report
        candidates = {
            (host, pid)
            for host, firing in self._dead.items()
            if host != "unlisted" and host not in listed
            for pid in firing.processes
        }
        answering = view.answering(candidates) if candidates else set()
        returned = []
        for host, firing in self._dead.items():
            if host == "unlisted":
                if report.format is ReportFormat.TEXT and unlisted <= 0:
                    returned.append(host)
                continue
            pids = firing.processes.keys()
            back = bool(pids) and all((host, pid) in answering for pid in pids)
            unlisted_now = report.format is ReportFormat.TEXT and unlisted <= 0
            if back or (unlisted_now and host not in listed):
                returned.append(host)
        return returned

    def _dead_transition(
        self, host: str, procs: list[ProcessRef], located: _Located, culprits: set[int]
    ) -> Transition:
        gpus = sorted({g for p in procs for g in p.gpus})
        ranks = sorted(culprits)
        if len(procs) == 1:
            who = f"process {procs[0].pid} on node {host} ({_gpus_text(gpus)}"
        else:
            who = f"{len(procs)} processes on node {host} ({_gpus_text(gpus)}"
        who += f", {_ranks_phrase(ranks)})" if ranks else ")"
        verb = "is" if len(procs) == 1 else "are"
        return Transition(
            detector=DETECTOR,
            alertname="RankDead",
            firing=True,
            severity=Severity.CRITICAL,
            category=Category.RANK_DEAD,
            identity={"ras_node": host},
            summary=f"NCCL RAS: {who} {verb} DEAD",
            description=(
                "NCCL's RAS network declared these processes dead (unreachable for about 60 s). "
                "Their collectives can never complete: the job will hang until the watchdog "
                "fires. Check the node and the processes' last output."
            ),
            evidence={
                "node": host,
                "pids": [p.pid for p in procs],
                "gpus": gpus,
                "ranks": ranks,
                "comm_ranks": {h: sorted(r) for h, r in sorted(located.local.items())},
            },
            culprit_ranks=tuple(ranks),
            scope=Scope.JOB,
        )

    def _missing_processes(
        self, view: _View, complete: bool, seen_at: float, now: float
    ) -> list[DetectorOutput]:
        report = view.report
        out: list[DetectorOutput] = []
        count = report.unresponsive_count
        if count <= 0:
            if complete and self._missing is not None:
                became_dead = report.dead_count > 0
                self._emit(out, Transition(
                    detector=DETECTOR, alertname="RasRanksMissing", firing=False,
                    severity=self._missing.severity, category=Category.RANK_STOPPED,
                    identity={},
                    summary="NCCL RAS: " + ("the missing processes are now DEAD"
                                           if became_dead else "every process answers again"),
                    scope=Scope.JOB,
                ), now)
                self._missing = None
                self._missing_since = None
            elif complete:
                self._missing_since = None
            return out
        if self._missing_since is None:
            self._missing_since = seen_at
        held = seen_at - self._missing_since
        severity = (
            Severity.CRITICAL if held >= self._settings.missing_hold_seconds else Severity.WARNING
        )
        procs = report.unresponsive_processes
        located = view.locate((p.host, p.pid) for p in procs)
        if not located.global_ranks and report.dead_count == 0:
            located.global_ranks = view.world_missing()
        culprits = tuple(sorted(located.global_ranks))
        if (
            self._missing is not None
            and self._missing.severity is severity
            and self._missing.culprits == culprits
        ):
            return out
        self._missing = _Firing(severity, culprits)
        listed = ", ".join(
            f"process {p.pid} on {p.host} ({_gpus_text(p.gpus)})" for p in procs[:MAX_LISTED]
        )
        summary = f"NCCL RAS: {count} job process{'es' if count != 1 else ''} not answering"
        summary += f": {listed}" if listed else ""
        if culprits:
            summary += f" ({_ranks_phrase(culprits)})"
        self._emit(out, Transition(
            detector=DETECTOR,
            alertname="RasRanksMissing",
            firing=True,
            severity=severity,
            category=Category.RANK_STOPPED,
            identity={},
            summary=summary,
            description=(
                f"Missing from RAS for {held:.0f} s. An unresponsive process is stopped "
                "(SIGSTOP, debugger), wedged, or cut off from the network; NCCL declares it DEAD "
                "after about 60 s without contact."
            ),
            evidence={
                "processes": [
                    {"node": p.host, "pid": p.pid, "gpus": list(p.gpus)} for p in procs
                ],
                "unresponsive_processes": count,
                "timeouts": report.timeouts,
                "missing_seconds": round(held, 1),
                "comm_ranks": {h: sorted(r) for h, r in sorted(located.local.items())},
            },
            culprit_ranks=culprits,
            scope=Scope.JOB,
        ), now)
        return out

    def _comm_errors(self, view: _View, complete: bool, now: float) -> list[DetectorOutput]:
        report = view.report
        out: list[DetectorOutput] = []
        current: dict[str, tuple[Communicator | None, str]] = {}
        blocked_groups = set()
        for comm in report.communicators:
            # comm.status is the highest rank status: ABORT when any answering rank aborts.
            aborted = comm.status is CommStatus.ABORT or any(
                g.status is CommStatus.ABORT for g in comm.status_groups
            )
            if CommProblem.ERROR in comm.problems or aborted:
                current[comm.hash] = (comm, comm.text_id)
            if comm.text_id:
                blocked_groups.add(comm.text_id.split("-")[0])
        for row in report.groups:  # text: an ABORTed group without its own block
            if row.status is CommStatus.ABORT and f"#{row.group}" not in blocked_groups:
                current[f"group-of-{row.size}-ranks"] = (None, f"#{row.group}")
        for key, (found, text_id) in current.items():
            if key in self._errors:
                continue
            transition = self._error_transition(view, key, found, text_id)
            self._errors[key] = _Firing(Severity.CRITICAL, transition.culprit_ranks)
            self._emit(out, transition, now)
        if complete:
            for key in [k for k in self._errors if k not in current]:
                del self._errors[key]
                self._emit(out, Transition(
                    detector=DETECTOR, alertname="NcclCommError", firing=False,
                    severity=Severity.CRITICAL, category=Category.UNDETERMINED,
                    identity={"comm": key},
                    summary=f"NCCL RAS: communicator {key} no longer reports errors",
                    scope=Scope.JOB,
                ), now)
        return out

    def _error_transition(
        self, view: _View, key: str, comm: Communicator | None, text_id: str
    ) -> Transition:
        parts: list[str] = []
        refs: list[RankRef] = []
        codes: list[int] = []
        if comm is not None:
            for group in comm.errors:
                kind = "init" if group.kind == "init" else "async"
                parts.append(f"{group.size} rank{'s' if group.size != 1 else ''} {kind} "
                             f"'{group.text}'")
                refs += group.ranks
                if group.code is not None:
                    codes.append(group.code)
            aborted = [g for g in comm.status_groups if g.status is CommStatus.ABORT]
            refs += [ref for g in aborted for ref in g.ranks]
            refs += [r.ref for r in comm.ranks if r.status is CommStatus.ABORT]
            if aborted or comm.status is CommStatus.ABORT:
                parts.append("ABORT")
        else:
            parts.append("ABORT")
        culprits = tuple(sorted(view.global_ranks(comm, refs))) if comm is not None else ()
        category = _ERROR_CATEGORY.get(codes[0], Category.UNDETERMINED) if codes else (
            Category.UNDETERMINED
        )
        where = f"communicator {key}" + (f" ({text_id})" if text_id else "")
        summary = f"NCCL RAS: {where}: " + "; ".join(parts)
        if culprits:
            summary += f" ({_ranks_phrase(culprits)})"
        return Transition(
            detector=DETECTOR,
            alertname="NcclCommError",
            firing=True,
            severity=Severity.CRITICAL,
            category=category,
            identity={"comm": key},
            summary=summary,
            description=(
                "NCCL reports errors or an abort on this communicator: its collectives will not "
                "complete. The first failing rank's log usually names the cause."
            ),
            evidence={
                "comm": key,
                "size": comm.size if comm is not None else None,
                "init_error_ranks": comm.init_error_ranks if comm is not None else 0,
                "async_error_ranks": comm.async_error_ranks if comm is not None else 0,
                "errors": [
                    {"kind": g.kind, "code": g.code, "text": g.text, "ranks": g.size,
                     "local_ranks": sorted(r.rank for r in g.ranks)}
                    for g in (comm.errors if comm is not None else ())
                ],
                "processes": sorted({f"{r.host}:{r.pid}" for r in refs if r.host}),
            },
            culprit_ranks=culprits,
            scope=Scope.JOB,
        )

    # -- stalls -------------------------------------------------------------------------------
    def _learn_pace(self, comm: Communicator, at: float, interval: float) -> float:
        """Record the communicator's count; return since when it has been at that count, dated
        from its rate when the rate is known (else the moment of this observation)."""
        count = _progress_count(comm)
        if count is None:
            return at
        previous = self._seen_count.get(comm.key)
        if previous is None or count != previous[1]:
            self._seen_count[comm.key] = (at, count)
        if previous is None:
            return at
        seen_at, seen_count = previous
        elapsed = at - seen_at
        stretched = interval > 1.5 * self._settings.interval_seconds
        if count > seen_count and elapsed > 0 and not stretched:
            measured = (count - seen_count) / elapsed
            old = self._rate.get(comm.key)
            # Lean to the slowest recent pace: a freeze must be long against the job at its slowest.
            self._rate[comm.key] = measured if old is None else min(measured, 0.5 * (old + measured))
        pace = self._rate.get(comm.key)
        if count == seen_count:
            return seen_at  # nothing moved since we first saw this count
        if pace is None or pace <= 0:
            return at
        # At its pace the communicator reached `count` this long after our last look.
        return min(at, seen_at + (count - seen_count) / pace)

    def _window(
        self, gaps: Iterable[float], interval: float, *, cold: bool = True, paced: bool = False
    ) -> float:
        """multiplier x the longest recent gap, within [floor, ceiling]; before anything is
        learned, twice the floor when learning is possible (JSON: a slow job must not alarm
        before its pace is known) or the floor (text shows counts only once mismatched); never
        under two poll intervals."""
        settings = self._settings
        recent = list(gaps)
        floor = settings.paced_floor_seconds if paced else settings.stall_floor_seconds
        unlearned = (1.0 if paced or not cold else COLD_FLOORS) * floor
        learned = settings.stall_multiplier * max(recent) if recent else unlearned
        window = min(max(learned, floor), settings.stall_ceiling_seconds)
        return max(window, 2.0 * max(interval, 0.0))

    def _hang_window(self, interval: float, *, inferred: bool = False) -> float:
        """RAS's own pace; for counts only inferred to have moved (no RAS rate can exist yet),
        the job's step window, within the paced floor and the ceiling."""
        steps = self._view.stall_window_seconds if self._view is not None and inferred else None
        window = self._window(self._job_gaps, interval,
                              paced=bool(self._rate) or steps is not None)  # fmt: skip
        if steps is not None:
            window = min(max(window, steps), self._settings.stall_ceiling_seconds)
        return window

    def _stalls(self, snap: RasSnapshot, view: _View, now: float) -> list[DetectorOutput]:
        report = snap.report
        at = snap.at
        out: list[DetectorOutput] = []
        seen: set[str] = set()
        advanced_any = False
        first_look = self._reports.get("complete") == 1  # counted before this call
        for comm in report.communicators:
            if comm.status not in (CommStatus.RUNNING, None) or not comm.size:
                continue
            signature = _count_signature(comm)
            if signature is None:
                continue
            seen.add(comm.key)
            frozen_since = self._learn_pace(comm, at, snap.poll_interval_seconds)
            track = self._tracks.get(comm.key)
            if track is None:
                # A sidecar's first look may come after the counts last moved (started late,
                # restarted): NCCL's counts start at zero, so counts already up in a job seen
                # stepping have moved. Only at the first look: a communicator created later
                # (a restarted job loading its model) has simply not begun.
                moved = (first_look and self._last_step() is not None
                         and bool(_progress_count(comm)))
                self._tracks[comm.key] = _Track(signature, frozen_since, advanced_ever=moved,
                                                inferred=moved, text=not comm.ranks)  # fmt: skip
                continue
            if signature != track.signature:
                if track.unchanged_polls:
                    track.gaps.append(at - track.changed_at)  # a freeze that ended
                track.signature = signature
                track.changed_at = at
                track.unchanged_polls = 0
                track.advanced_ever = True
                track.inferred = False
                track.suspected = False
                advanced_any = True
                out += self._clear_desync(comm.key, "its collective counts advance again", now)
            else:
                track.unchanged_polls += 1
        for key in [k for k in self._tracks if k not in seen]:
            track = self._tracks.pop(key)
            advanced_any = advanced_any or track.text  # a text mismatch that cleared moved on
            out += self._clear_desync(key, "the mismatch cleared", now)
        json_report = report.format is ReportFormat.JSON
        if advanced_any and json_report:
            if self._job_last_advance is not None and self._job_unchanged_polls:
                self._job_gaps.append(at - self._job_last_advance)  # a freeze that ended
            self._job_last_advance = at
            self._job_unchanged_polls = 0
            out += self._clear_hang(now)
        elif json_report and self._job_last_advance is None and self._tracks:
            self._job_last_advance = min(t.changed_at for t in self._tracks.values())
        elif json_report:
            self._job_unchanged_polls += 1
        quiet = bool(self._dead or self._missing) or self._in_phase(now)
        interval = snap.poll_interval_seconds
        for comm in report.communicators:
            track = self._tracks.get(comm.key)
            if track is None:
                continue
            lowers = _lower_groups(comm)
            if not lowers:
                continue
            log_pace = None if comm.key in self._rate else self._op_pace.pace(comm.size, at)
            if log_pace is not None:
                # No RAS rate yet (text shows counts only inside a MISMATCH): the job's log
                # lines pace it, their longest recent gap counting as a freeze that ended.
                window = self._window(
                    [*track.gaps, log_pace.longest_gap_seconds], interval, paced=True
                )
            else:
                window = self._window(
                    track.gaps, interval, cold=not track.text, paced=comm.key in self._rate
                )
            frozen = at - track.changed_at
            out += self._check_desync(
                view, comm, track, lowers, frozen, window, quiet, now, log_pace
            )
        if json_report and not self._desync:
            out += self._hang_check(report, at, interval, quiet, now)
        return out

    def _check_desync(
        self,
        view: _View,
        comm: Communicator,
        track: _Track,
        lowers: list[_Lower],
        frozen: float,
        window: float,
        quiet: bool,
        now: float,
        log_pace: Pace | None = None,
    ) -> list[DetectorOutput]:
        out: list[DetectorOutput] = []
        refs = [ref for low in lowers for ref in low.refs]
        culprits = tuple(sorted(view.global_ranks(comm, refs)))
        if frozen >= window / 2 and not track.suspected and not quiet:
            track.suspected = True
            out.append(Suspicion(now, culprits,
                                 f"RAS counts of communicator {comm.hash} frozen "
                                 f"{frozen:.0f} s with a mismatch", DETECTOR))
        # The job's own pace may say it first: no step for its stall window, and two looks saw
        # the same mismatch. A first look that came after the fault has no RAS pace to learn.
        steps_quiet = self._steps_stalled(now) if track.unchanged_polls >= 1 else None
        if (frozen < window and steps_quiet is None) or (quiet and comm.key not in self._desync):
            return out
        category, host_note = self._lagging_host(culprits)
        # Two sources agreeing is enough to page: the counts name the rank and its own stack
        # shows it away from the collective (or waiting on its GPU). RAS alone waits two windows.
        agreed = bool(culprits) and bool(host_note) and "inside a collective" not in host_note
        long_frozen = frozen >= CRITICAL_WINDOWS * window
        severity = Severity.CRITICAL if long_frozen or agreed else Severity.WARNING
        previous = self._desync.get(comm.key)
        if previous is not None and previous.severity is severity:
            return out
        self._desync[comm.key] = _Firing(severity, culprits)
        lagging = "; ".join(
            f"{low.size} rank{'s' if low.size != 1 else ''} at {low.op} {low.value} "
            f"(others at {low.lead_value})" for low in lowers
        )
        unlisted = any(len(low.refs) < low.size for low in lowers)
        local = sorted({ref.rank for ref in refs})
        who = (
            _ranks_phrase(culprits) if culprits
            else (f"local {_ranks_phrase(local)}" if local else "lagging ranks (not listed)")
        )
        rate = self._rate.get(comm.key)
        pace_source = "ras" if rate else None
        if not rate and log_pace is not None:
            rate = log_pace.ops_per_second
            pace_source = "log_lines" if log_pace.matched_by_size else "log_lines_job_wide"
        pace_note = (
            f", about {rate * frozen:.0f} operations missing at {rate:.1f}/s" if rate else ""
        )
        if pace_source and pace_source != "ras":
            pace_note += " (the job's pace from its NCCL log lines)"
        steps_note = (
            f"; the job has made no step for {steps_quiet:.0f} s, past its stall window"
            if steps_quiet is not None and frozen < window else ""
        )

        self._emit(out, Transition(
            detector=DETECTOR,
            alertname="CollectiveDesync",
            firing=True,
            severity=severity,
            category=category,
            identity={"comm": comm.hash},
            summary=(f"NCCL RAS: communicator {comm.hash}: {who} never launched the collective "
                     f"the others wait in ({lagging}; frozen {frozen:.0f} s{pace_note}"
                     f"{steps_note})"
                     + (f"; {host_note}" if host_note else "")),
            description=(
                "The counts of this communicator differ between ranks and have not moved for "
                f"{frozen:.0f} s (window {window:.0f} s). The lagging ranks' host threads never "
                "reached the collective: look at their stacks (data loading, I/O, a Python "
                "exception, a different code path)."
                + (" The text report does not list every lagging rank; JSON (NCCL 2.28.7+) or "
                   "ras.verbose does." if unlisted else "")
            ),
            evidence={
                "comm": comm.hash,
                "size": comm.size,
                "ops_per_second": round(rate, 2) if rate else None,
                "pace_source": pace_source,
                "lagging_host_state": host_note or None,
                "frozen_seconds": round(frozen, 1),
                "window_seconds": round(window, 1),
                "steps_quiet_seconds": round(steps_quiet, 1) if steps_quiet is not None else None,
                "lagging": [
                    {"op": low.op, "count": low.value, "others": low.lead_value,
                     "ranks": low.size, "local_ranks": sorted(r.rank for r in low.refs),
                     "processes": sorted({f"{r.host}:{r.pid}" for r in low.refs if r.host})}
                    for low in lowers
                ],
            },
            culprit_ranks=culprits,
            scope=Scope.JOB,
        ), now)
        return out

    def _lagging_host(self, culprits: Sequence[int]) -> tuple[Category, str]:
        """What the lagging ranks' hosts do (stacks of the local ranks), and so the category."""
        states = (
            self._view.host_states_since(self._last_step()) if self._view is not None else {}
        )
        seen = {rank: states[rank] for rank in culprits if rank in states}
        if not seen:
            return Category.COLLECTIVE_DESYNC, ""
        kinds = {state for state, _frame in seen.values()}
        rank, (state, frame) = min(seen.items())
        where = f" at {frame}" if frame else ""
        if kinds == {"gpu_wait"}:
            return Category.GPU_CUDA, (
                f"rank {rank}'s host waits on its GPU{where} while its count is behind: a kernel "
                "on that GPU does not finish"
            )
        if kinds == {"dataloader_wait"}:
            return Category.DATALOADER_STALL, f"rank {rank} waits for a batch{where}"
        if kinds <= {"in_collective"}:
            return Category.COLLECTIVE_DESYNC, f"rank {rank} is inside a collective{where}"
        return Category.COLLECTIVE_DESYNC, f"rank {rank}'s host is in {state}{where}"

    def _clear_desync(self, key: str, why: str, now: float) -> list[DetectorOutput]:
        hash_part = key.split(":", 1)[0]
        firing = self._desync.pop(key, None)
        if firing is None:
            return []
        return [Transition(
            detector=DETECTOR, alertname="CollectiveDesync", firing=False,
            severity=firing.severity, category=Category.COLLECTIVE_DESYNC,
            identity={"comm": hash_part},
            summary=f"NCCL RAS: communicator {hash_part}: {why}",
            scope=Scope.JOB,
        )]

    def _hang_check(
        self, report: RasReport, at: float, interval: float, quiet: bool, now: float
    ) -> list[DetectorOutput]:
        out: list[DetectorOutput] = []
        active = [
            (comm, self._tracks[comm.key])
            for comm in report.communicators
            if comm.key in self._tracks and self._tracks[comm.key].advanced_ever and comm.ranks
        ]
        if not active or self._job_last_advance is None:
            return out
        if any(_lower_groups(comm) for comm, _track in active):
            return out  # a mismatch is a desync in the making, not an equal-count hang
        frozen_since = max(track.changed_at for _c, track in active)
        stepped = self._last_step()
        if stepped is not None and stepped > frozen_since + interval:
            # The job stepped after its counts froze: they are not its pace (a communicator
            # used at start-up only, steps without collectives); whatever fired is over.
            return self._clear_hang(now)
        frozen = at - frozen_since
        inferred = all(track.inferred for _c, track in active)
        window = self._hang_window(interval, inferred=inferred)
        if frozen >= window / 2 and not self._hang_suspected and not quiet:
            self._hang_suspected = True
            out.append(Suspicion(now, (), f"RAS counts frozen {frozen:.0f} s on every "
                                          "active communicator", DETECTOR))
        if frozen < window or (quiet and self._hang is None):
            return out
        # The local stacks agreeing (every local rank waits for its peers) confirms it at once.
        states = (
            self._view.host_states_since(self._last_step()) if self._view is not None else {}
        )
        agreed = bool(states) and all(
            state in ("in_collective", "gpu_wait") for state, _frame in states.values()
        )
        if inferred and not agreed:
            return out  # a move we did not see is confirmed by the stacks or not at all
        long_frozen = frozen >= CRITICAL_WINDOWS * window
        severity = Severity.CRITICAL if long_frozen or agreed else Severity.WARNING
        if self._hang is not None and self._hang.severity is severity:
            return out
        self._hang = _Firing(severity, ())
        last = max(active, key=lambda ct: ct[1].changed_at)[0]
        counts = {OPS[i]: v for i, v in enumerate(last.ranks[0].counts) if v}
        self._emit(out, Transition(
            detector=DETECTOR,
            alertname="CollectiveHang",
            firing=True,
            severity=severity,
            category=Category.COLLECTIVE_HANG,
            identity={},
            summary=(f"NCCL RAS: collective counts frozen {frozen:.0f} s and equal on every "
                     f"rank ({len(active)} communicator{'s' if len(active) != 1 else ''}): "
                     "all ranks launched, none completed"),
            description=(
                "Every rank launched the same collectives and none moved on: the hang is on the "
                "GPU or network side (a kernel or a link), not a rank that never arrived. RAS "
                "itself still says OK here because its counts are launch counts. Check NCCL "
                "WARN lines, GPU health (Xid) and the network."
            ),
            evidence={
                "frozen_seconds": round(frozen, 1),
                "window_seconds": round(window, 1),
                "communicators": [c.hash for c, _t in active][:MAX_LISTED],
                "last_active_comm": last.hash,
                "counts": counts,
                "local_ranks_waiting": sorted(states) if agreed else [],
            },
            scope=Scope.JOB,
            no_culprit_reason=(
                "every rank launched the same collective and none completed: a network or "
                "GPU-side hang, not a rank that never arrived"
            ),
        ), now)
        return out

    def _clear_hang(self, now: float) -> list[DetectorOutput]:
        self._hang_suspected = False
        if self._hang is None:
            return []
        firing, self._hang = self._hang, None
        return [Transition(
            detector=DETECTOR, alertname="CollectiveHang", firing=False,
            severity=firing.severity, category=Category.COLLECTIVE_HANG, identity={},
            summary="NCCL RAS: collective counts advance again", scope=Scope.JOB,
        )]

    # -- bookkeeping --------------------------------------------------------------------------
    def _all_firing(self) -> list[_Firing]:
        items = [*self._dead.values(), *self._errors.values(), *self._desync.values()]
        items += [f for f in (self._missing, self._hang) if f is not None]
        return items

    def _firing_names(self) -> str:
        names = []
        if self._dead:
            names.append("RankDead")
        if self._missing:
            names.append("RasRanksMissing")
        if self._errors:
            names.append("NcclCommError")
        if self._desync:
            names.append("CollectiveDesync")
        if self._hang:
            names.append("CollectiveHang")
        return ", ".join(names)

    def _resolve_all(self, reason: str) -> list[DetectorOutput]:
        out: list[DetectorOutput] = []

        def resolved(alertname: str, firing: _Firing, identity: dict[str, str],
                     category: Category) -> None:
            out.append(Transition(
                detector=DETECTOR, alertname=alertname, firing=False, severity=firing.severity,
                category=category, identity=identity, summary=f"NCCL RAS: {reason}",
                scope=Scope.JOB,
            ))

        for host, firing in self._dead.items():
            resolved("RankDead", firing, {"ras_node": host}, Category.RANK_DEAD)
        if self._missing is not None:
            resolved("RasRanksMissing", self._missing, {}, Category.RANK_STOPPED)
        for key, firing in self._errors.items():
            resolved("NcclCommError", firing, {"comm": key}, Category.UNDETERMINED)
        for key, firing in self._desync.items():
            resolved("CollectiveDesync", firing, {"comm": key.split(":", 1)[0]},
                     Category.COLLECTIVE_DESYNC)
        if self._hang is not None:
            resolved("CollectiveHang", self._hang, {}, Category.COLLECTIVE_HANG)
        self._dead.clear()
        self._errors.clear()
        self._desync.clear()
        self._tracks.clear()
        self._missing = self._hang = None
        self._missing_since = self._job_last_advance = None
        self._job_gaps.clear()
        return out

    def _comm_counts(self, report: RasReport) -> list[tuple[tuple[str], float]]:
        counts = {status.value: 0 for status in CommStatus}
        if report.format is ReportFormat.TEXT:
            for row in report.groups:
                counts[row.status.value] += row.comms
        else:
            for comm in report.communicators:
                if comm.status is not None:
                    counts[comm.status.value] += 1
        return [((k,), float(v)) for k, v in counts.items()]

    def _op_samples(self, report: RasReport) -> list[tuple[tuple[str, str, str], float]]:
        samples: list[tuple[tuple[str, str, str], float]] = []
        if not self._local_hosts:
            return samples
        for comm in report.communicators:
            for rank in comm.ranks:
                if rank.host not in self._local_hosts:
                    continue
                for op, value in zip(OPS, rank.counts, strict=True):
                    samples.append(((comm.hash, str(rank.rank), op), float(value)))
                    if len(samples) >= MAX_OP_SERIES:
                        return samples
        return samples
