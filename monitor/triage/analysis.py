"""The post-mortem diagnosis: from every file's events to a category and culprit ranks.

Pure: `diagnose(scans, problems)` reads what the reader found and decides. Every conclusion
carries the lines it rests on; when the logs do not show the cause the category is
`undetermined` and suspects are listed as suspects, never as culprits. The rules and their
order live in `monitor.triage.rules`.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from monitor.model import Category
from monitor.parse.collectives import CollectivePicture, StuckCollective, collective_picture
from monitor.parse.flight_recorder import FrAnalysis
from monitor.parse.log_events import EventKind, Level, LogEvent
from monitor.triage.clocks import (
    ClockReport,
    KnownClock,
    SkewOptions,
    given_clocks,
    measured_clocks,
    order_uncertain,
    plan_clocks,
)
from monitor.triage.dumps import combine, read_dumps
from monitor.triage.evidence import (
    Located,
    compress_ranks,
    describe,
    locate,
    retime,
    shift,
    sole_rank,
    whereabouts,
    who,
)
from monitor.triage.ras import analyse as analyse_replies
from monitor.triage.ras import combine as combine_ras
from monitor.triage.reader import FileScan, InputProblem
from monitor.triage.rules import (
    RULES,
    Context,
    Finding,
    nfs_answered_again,
    one_subject,
    still_failing,
    table_entries,
)
from monitor.triage.rules.base import went_on_past
from monitor.triage.rules.devices import nccl_init_went_on
from monitor.triage.rules.network import barrier_completed
from monitor.triage.subjects import placed_pods
from monitor.triage.topology import ONE_NODE, SRUN_RANK, promoted, read_topology


@dataclass(frozen=True)
class FileLine:
    file: str
    line: int
    text: str


@dataclass(frozen=True)
class RankRow:
    rank: int
    rank_origin: str
    pg: str | None = None
    seq: int | None = None
    op_type: str | None = None
    numel_in: int | None = None
    numel_out: int | None = None
    timeout_ms: int | None = None
    ran_ms: int | None = None
    last_enqueued: int | None = None
    last_started: int | None = None
    last_completed: int | None = None
    role: str = ""  # initiator | observer | ""
    state: str = ""  # waiting | not_entered | ahead | idle | crashed | ""
    first_error: FileLine | None = None
    events: int = 0
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class StuckSummary:
    pg: str | None
    seq: int
    op_type: str | None
    timeout_ms: int | None
    ran_ms: int | None
    timed_out_at: str | None
    started_at: str | None  # the timeout time minus how long the collective ran
    waiting_ranks: tuple[int, ...]
    stragglers: tuple[int, ...]
    ahead_ranks: tuple[int, ...]
    watchdog_late_seconds: float | None


@dataclass(frozen=True)
class TimelineEntry:
    time: str | None
    file: str
    line: int
    rank: int | None
    kind: str
    level: str
    text: str
    repeat: int = 1
    stamp: str | None = None  # the line's own stamp when a clock correction moved `time`
    clock_correction: float = 0.0
    clock_domain: str | None = None
    order_uncertain: bool = False  # its order against another node's entries is unknown


@dataclass(frozen=True)
class ChainStep:
    time: str | None
    what: str
    file: str
    line: int
    order_uncertain: bool = False  # clock skew: its order against a step of another node
    clock_correction: float = 0.0


@dataclass(frozen=True)
class InputStats:
    files: int
    lines: int
    bytes: int
    seconds: float = 0.0


@dataclass(frozen=True)
class Diagnosis:
    category: Category
    culprit_ranks: tuple[int, ...]
    culprits: tuple[str, ...]
    initiator_ranks: tuple[int, ...]
    observer_ranks: tuple[int, ...]
    first_detectors: tuple[int, ...]
    ranks: tuple[RankRow, ...]
    stuck: tuple[StuckSummary, ...]
    first_error: FileLine | None
    timeline: tuple[TimelineEntry, ...]
    timeline_total: int
    events: Mapping[str, int]
    findings: tuple[str, ...]
    summary: str
    causal_chain: tuple[ChainStep, ...]
    key_files: tuple[str, ...]
    recommendations: tuple[str, ...]
    inputs: InputStats
    problems: tuple[InputProblem, ...]
    silent_ranks: tuple[int, ...] = ()
    world_size: int | None = None
    retries: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    clock: ClockReport | None = None
    flight_recorder: FrAnalysis | None = None


_NOISE = frozenset({EventKind.PROGRESS, EventKind.NCCL_INIT, EventKind.NCCL_NET_CALL_FAILED})


def diagnose(
    scans: Sequence[FileScan],
    problems: Sequence[InputProblem] = (),
    *,
    clock_offsets: Mapping[str, float] | None = None,
    timeline_limit: int = 200,
    seconds: float = 0.0,
    skew: SkewOptions | None = None,
) -> Diagnosis:
    scans, earlier = _last_attempt(scans)
    problems = [*problems, *earlier]
    located, clock = _clocked(scans, clock_offsets or {}, skew or SkewOptions())
    topology = read_topology(located)
    located = promoted(located, topology)
    located.extend(_last_progress(scans, located))
    located.sort(key=Located.order)
    by_kind: dict[EventKind, list[Located]] = defaultdict(list)
    for item in located:
        by_kind[item.kind].append(item)
    # A report that names the missing ranks in its text counts whoever printed it.
    picture = collective_picture(
        (i.rank if i.rank is not None else -1, i.event)
        for i in located
        if i.rank is not None or i.kind is EventKind.DESYNC_REPORT
    )
    world = _world_size(located)
    ctx = Context(located, by_kind, picture, {id(i.event): i for i in located}, scans, world,
                  topology)

    finding: Finding | None = None
    for rule in RULES:
        finding = rule(ctx)
        if finding is not None:
            break
    # (a thread's traceback the job went on after: nothing in its record is the job's failure)
    errors = [e for e in located if e.event.level >= Level.ERROR and e.kind not in _NOISE
              and not ctx.passed_over(e.file_index, e.event.line)
              and not nfs_answered_again(ctx, e)
              # (a write its rank logged and went on after, as the storage rule reads it: a
              # save retried after a WARNING, the rank's steps going on)
              and not (e.kind is EventKind.STORAGE_WRITE and went_on_past(ctx, e))
              # (an NCCL probe's `Cuda failure` its process's communicator came up past)
              and not (e.kind is EventKind.CUDA_ERROR and nccl_init_went_on(ctx, e))
              # (a store-based barrier's wait that it then says completed)
              and not (e.kind is EventKind.STORE_TIMEOUT and barrier_completed(ctx, e))]
    if finding is None:
        # a failing line no pattern made an error of (an exception line whose only event is
        # the lost connection in it) still says the job failed
        sign = next((e for e in located if _failure_sign(e)
                     and not ctx.passed_over(e.file_index, e.event.line)), None)
        failed = errors or sign is not None or any(
            still_failing(ctx, index) for index in range(len(scans)))
        # say what shows the failure (a traceback cut before its exception line: a shell's
        # `Terminated` after it says only that the process was stopped)
        shown = (f"{describe(sign)} ({sign.where}); no line says why",) if sign else ()
        finding = _unexplained(errors[0]) if errors else Finding(
            Category.UNDETERMINED, evidence=shown) if failed else Finding(Category.NONE)
    fr = read_dumps([s.fr_dump for s in scans if s.fr_dump is not None])
    finding, fr_notes = combine(finding, fr, picture.stuck, _stopped_by_launcher(ctx))
    # (NCCL RAS replies, oldest first: their order is their files' names' order)
    ras = analyse_replies([s.ras_reply for s in sorted(scans, key=lambda s: s.path)
                           if s.ras_reply is not None])
    finding, ras_notes = combine_ras(finding, ras, waited=bool(
        picture.stuck or by_kind.get(EventKind.WATCHDOG_TIMEOUT)),
        replies_only=all(s.ras_reply is not None for s in scans))
    fr_notes = [*fr_notes, *ras_notes]
    finding = _in_a_world_of_one(ctx, finding)
    finding = _subject_named(ctx, finding)
    finding = replace(finding, culprits=_pods_placed(
        _as_launched(_placed(finding.culprits, located), located), scans))

    stuck = tuple(_stuck_summary(ctx, s) for s in picture.stuck)
    seen = {i.rank for i in located if i.rank is not None and i.kind not in _NOISE}
    silent = tuple(r for r in range(world) if r not in seen) if world else ()
    context = [*_context_findings(ctx, stuck, silent, finding), *fr_notes]
    if clock.flagged:
        context.insert(0, clock.headline)
    findings = tuple(dict.fromkeys([*finding.evidence, *context]))
    counts: Counter[str] = Counter()
    for scan in scans:
        counts.update(scan.counts)
    first_error = errors[0] if errors else None
    timeline, timeline_total, uncertain = _timeline(located, timeline_limit)
    clock = replace(clock, uncertain_entries=uncertain)
    recommendations = [*finding.recommendations,
                       *_context_recommendations(ctx, stuck, finding, silent)]
    if clock.flagged:
        recommendations.append(
            "Synchronise the nodes' clocks (chrony/NTP) and keep rankwatch's clock checks on: "
            "its alert log records each node's measured offset, which triage then applies "
            "(or pass --clock-offset NODE=SECONDS).")
    return Diagnosis(
        category=finding.category,
        culprit_ranks=finding.culprit_ranks,
        culprits=finding.culprits,
        initiator_ranks=picture.initiators,
        observer_ranks=picture.observers,
        first_detectors=picture.first_detectors,
        ranks=_rows(located, picture),
        stuck=stuck,
        first_error=_file_line(first_error),
        timeline=timeline,
        timeline_total=timeline_total,
        events=dict(sorted(counts.items())),
        findings=findings,
        summary=_summary(finding, [c for c in context if c not in finding.evidence]),
        causal_chain=_causal_chain(finding, located, stuck, ctx),
        key_files=_key_files(finding, located, first_error),
        recommendations=tuple(dict.fromkeys(recommendations)),
        inputs=InputStats(len(scans), sum(s.lines for s in scans),
                          sum(s.size_bytes for s in scans), seconds),
        problems=tuple(problems),
        silent_ranks=silent,
        world_size=world,
        retries=_retry_summary(scans),
        clock=clock,
        flight_recorder=fr,
    )


_BARE_RANK = re.compile(r"rank (\d+)")

# An attempt's own folder or file among a restarted job's logs: torchrun's `--log-dir` tree
# (`attempt_0/3/stderr.log`), a script's `attempt-1.log`
_ATTEMPT = re.compile(r"(?:^|(?<=[/_.-]))attempt[_-]?(\d+)(?=[/._-]|$)")


def _last_attempt(scans: Sequence[FileScan]) -> tuple[list[FileScan], list[InputProblem]]:
    """A restarted job's logs, each attempt in its own folder or file: the last attempt is
    what ended the job (its failure, or its clean end after an earlier one failed), so the
    earlier attempts' files are set aside, and said to be. Files of no attempt (the launcher's
    console, its failure table) are kept, and so is every attempt where the last wrote
    nothing."""
    attempts: dict[str, dict[int, list[FileScan]]] = defaultdict(lambda: defaultdict(list))
    where: dict[tuple[str, int], str] = {}  # each attempt's folder, or its one file
    for scan in scans:
        m = _ATTEMPT.search(scan.path)
        if m is not None:
            attempts[scan.path[:m.start()]][int(m[1])].append(scan)
            where[(scan.path[:m.start()], int(m[1]))] = scan.path[:m.end()]
    earlier: set[str] = set()
    notes: list[InputProblem] = []
    for group, numbers in attempts.items():
        if len(numbers) < 2:
            continue
        last = max(numbers)
        if not any(scan.lines for scan in numbers[last]):
            continue  # the last attempt wrote nothing: the earlier ones are all there is
        for number, files in sorted(numbers.items()):
            if number < last:
                earlier.update(scan.path for scan in files)
                failed = " (it failed)" if any(
                    e.level >= Level.ERROR for scan in files for e in scan.events) else ""
                notes.append(InputProblem(
                    where[(group, number)],
                    f"attempt {number}{failed}, {len(files)} file(s), set aside: the job "
                    f"restarted, and attempt {last} is the one that ended it", True))
    return [scan for scan in scans if scan.path not in earlier], notes


# the categories whose culprit is the process that failed (not one end of a link, nor a stop
# from outside)
_PROCESS_FAULTS = frozenset({Category.SOFTWARE, Category.OOM, Category.GPU_CUDA,
                             Category.STORAGE_IO, Category.DATA})


def _in_a_world_of_one(ctx: Context, finding: Finding) -> Finding:
    """A job of one process (its world's size stated as 1, by NCCL's communicator or the job's
    first lines, and no other rank seen): the process that failed is rank 0, whatever its
    lines are prefixed with. Only for a failure of the process itself, or a crash the finding
    pins on a process."""
    if finding.culprit_ranks or not (finding.category in _PROCESS_FAULTS or (
            finding.category is Category.UNDETERMINED and finding.culprits)):
        return finding
    worlds = {s for scan in ctx.scans for s in scan.declared_worlds}
    if ctx.world_size is not None:
        worlds.add(ctx.world_size)
    if worlds != {1} or any(i.rank not in (None, 0) for i in ctx.located):
        return finding
    return replace(finding, culprit_ranks=(0,), culprits=(
        "rank 0 (the job's only process)", *finding.culprits))


# the categories whose culprit a pod's or node's name can be: a process that failed, a node
# stopped under the job, or a failure whose cause is not shown (never a link's two ends)
_SUBJECT_FAULTS = _PROCESS_FAULTS | {Category.INFRASTRUCTURE, Category.CLOCK,
                                     Category.UNDETERMINED}


def _subject_named(ctx: Context, finding: Finding) -> Finding:
    """A finding that names no culprit names the pod or node the scheduler's or
    orchestrator's output in its file states (`kubectl describe pod w-2`, an LSF report's
    execution host): the failing line (`Evicted`, `TERM_LOAD`) seldom names it. The file of
    the line that decided; where that states none (a pod's own log beside its `kubectl
    describe`) or no event decided, the one subject all files state."""
    if finding.culprit_ranks or finding.culprits or finding.category not in _SUBJECT_FAULTS:
        return finding
    scans = [ctx.scans[finding.cause.file_index]] if finding.cause is not None else ctx.scans
    named = (one_subject(scans) or (one_subject(ctx.scans) if len(scans) < len(ctx.scans) else ())
             or (_pod_of_file(ctx, finding.cause.file_index) if finding.cause is not None else ()))
    return replace(finding, culprits=named) if named else finding


# a pod's own log as `kubectl logs w-1 > w-1.log` saves it
_LOG_SUFFIX = re.compile(r"(?:\.(?:log|txt|out|err))+$")


def _pod_of_file(ctx: Context, index: int) -> tuple[str, ...]:
    """The pod whose own log the deciding file is, where the file is named after a pod the
    orchestrator's output in the files places on a node (`kubectl get pods -o wide`, a
    drain's evictions): the line that decided (a SIGTERM the launcher received) names no
    pod, its file does."""
    stem = _LOG_SUFFIX.sub("", ctx.scans[index].path.replace("\\", "/").rsplit("/", 1)[-1])
    known = {pod for scan in ctx.scans for pod in scan.pod_nodes}
    return (f"pod {stem}",) if stem in known else ()


def _stopped_by_launcher(ctx: Context) -> set[int]:
    """Ranks torchrun's failure table shows ended by SIGTERM: its teardown of the others
    once one worker failed (or a stop of the whole job)."""
    return {rank for table in ctx.of(EventKind.CHILD_FAILED_SUMMARY)
            for entry in table_entries(table)
            if entry.get("signal") == "SIGTERM" and isinstance(rank := entry.get("rank"), int)}


def _unexplained(first: Located) -> Finding:
    """An error no rule concludes on: the report says which one, rather than nothing."""
    return Finding(Category.UNDETERMINED, evidence=(
        f"{who(first)}: {first.kind.value} ({first.where}): {first.event.text.strip()[:160]}; "
        "no rule explains it, and these lines do not show its cause",), cause=first)


def _placed(culprits: tuple[str, ...], located: Sequence[Located]) -> tuple[str, ...]:
    """A culprit named by its rank alone gets where that rank ran, when any of its own lines
    (a `[rankN]:` line with NCCL's `host:pid`) says so: the page then names the node."""
    places: dict[int, Counter[str]] = defaultdict(Counter)
    for item in located:
        if item.rank is not None and item.rank_origin in ("global", "file", ONE_NODE, SRUN_RANK):
            where = whereabouts(item)
            if ":" in where:  # host and pid, not a bare pid
                places[item.rank][where] += 1
    out = []
    for name in culprits:
        m = _BARE_RANK.fullmatch(name)
        if m is not None and places.get(int(m.group(1))):
            name = f"{name} ({places[int(m.group(1))].most_common(1)[0][0]})"
        out.append(name)
    return tuple(out)


_HOST_PID = re.compile(r"(?P<host>[\w.\-]+):(?P<pid>\d+)")


def _as_launched(culprits: tuple[str, ...], located: Sequence[Located]) -> tuple[str, ...]:
    """A culprit rank torchrun's failure table lists, with what the table says of it (its
    local rank, pid and host) where the culprit does not say it yet: the page names the
    process and machine as the launcher did."""
    said: dict[int, dict[str, str]] = {}
    for item in located:
        if item.kind is not EventKind.CHILD_FAILED_SUMMARY:
            continue
        for entry in table_entries(item):
            rank = entry.get("rank")
            if isinstance(rank, int) and rank not in said:
                said[rank] = {k: str(v) for k in ("local_rank", "pid", "host")
                              if (v := entry.get(k)) not in (None, "")}
    if not said:
        return culprits
    out = []
    for name in culprits:
        m = _BARE_RANK.match(name)
        m = m if m is not None and name[m.end():m.end() + 2] in ("", " (") else None
        facts = said.get(int(m.group(1)), {}) if m is not None else {}
        placed = _HOST_PID.fullmatch(name[m.end() + 2:-1]) if m is not None else None
        if placed is not None and facts.get("pid") and placed["pid"] != facts["pid"]:
            # (a host:pid read off another process's line in the rank's file: the launcher's
            # own pid for the rank says which process it was)
            name = name[:m.end()] if m is not None else name
        more = [f"{k} {v}" for k, v in facts.items()
                if (k not in name if k == "local_rank" else v not in name)]
        if m is not None and more:
            head, rest = name[:m.end()], name[m.end():]
            inner = rest[2:-1] + ", " if rest.startswith(" (") and rest.endswith(")") else ""
            name = f"{head} ({inner}{', '.join(more)})" if not rest or inner else name
        out.append(name)
    return tuple(out)


def _pods_placed(culprits: tuple[str, ...], scans: Sequence[FileScan]) -> tuple[str, ...]:
    """A culprit that names a pod gets the node it ran on, where the orchestrator's output in
    the files says (its scheduler's binding, `kubectl get pods -o wide`): the page then names
    the machine to look at. A pod the files place on two nodes is left as it is."""
    seen: dict[str, set[str]] = defaultdict(set)
    for scan in scans:
        for pod, node in scan.pod_nodes.items():
            seen[pod].add(node)
    nodes = {pod: next(iter(n)) for pod, n in seen.items() if len(n) == 1}
    return tuple(placed_pods(c, nodes) for c in culprits) if nodes else culprits


def _clocked(
    scans: Sequence[FileScan], offsets: Mapping[str, float], options: SkewOptions
) -> tuple[list[Located], ClockReport]:
    """The events on one time axis: each clock corrected by what is given, measured or
    inferred, with the uncertainty that remains."""
    paths = {scan.path for scan in scans}
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in sorted(paths):
        by_name[path.rsplit("/", 1)[-1]].append(path)
    expanded: dict[str, float] = {}  # a file named by path or base name is its own clock
    for key, seconds in offsets.items():
        files = [key] if key in paths else by_name.get(key, [])
        expanded.update({path: seconds for path in files} if files else {key: seconds})
    own = {key for key in expanded if key in paths}
    raw = locate(scans, own)
    domains = {str(i.domain) for i in raw if i.domain is not None and i.time is not None}
    given, notes = given_clocks(expanded, domains | own)
    records = [(scan.path, line, record) for scan in scans for line, record in scan.clock_records]
    measured, step_notes = measured_clocks(records, domains)
    known: dict[str, KnownClock] = {**measured, **given}
    report = plan_clocks(raw, paths, known, options, [*notes, *step_notes])
    corrections = {c.domain: c.correction_seconds for c in report.domains}
    windows = {c.domain: c.window for c in report.domains}
    for violation in report.violations:
        for domain in (violation.cause_domain, violation.effect_domain):
            before, after = windows.get(domain, (0.0, 0.0))
            windows[domain] = (min(before, -violation.seconds), max(after, violation.seconds))
    return retime(raw, corrections, windows), report


def _time_text(item: Located) -> str | None:
    stamp = item.event.stamp
    if stamp is None:
        return None
    return shift(stamp, item.correction).text() if item.correction else stamp.text()


def _file_line(item: Located | None) -> FileLine | None:
    return FileLine(item.file, item.event.line, item.event.text) if item is not None else None


_FAILED_SOCKET = ("Call to ", "Proxy thread error", "Connection reset", "Connection closed")


def _failure_sign(item: Located) -> bool:
    """A warning that still shows something failed: a traceback cut before its exception
    line, NCCL's socket calls that failed. Logs with one are not "no failure found"."""
    if item.kind is EventKind.PYTHON_TRACEBACK:
        return True
    message = str(item.event.fields.get("message", ""))
    return item.kind is EventKind.NCCL_WARN and any(w in message for w in _FAILED_SOCKET)


def _world_size(located: Sequence[Located]) -> int | None:
    sizes = [e.event.int_field("nranks") for e in located if e.kind is EventKind.NCCL_INIT]
    known = [s for s in sizes if s is not None]
    return max(known) if known else None


def _last_progress(scans: Sequence[FileScan], located: Sequence[Located]) -> list[Located]:
    """The last progress line of each file: where each writer stopped advancing."""
    placed = {id(item.event): item for item in located}
    out: list[Located] = []
    for index, scan in enumerate(scans):
        for tail in reversed(scan.tail):
            if tail.progress is None:
                continue
            rank, origin = tail.rank, ("global" if tail.rank is not None else None)
            if rank is None and (rank := sole_rank(scan)) is not None:
                origin = "file"
            fields = {k: v for k, v in tail.progress.items() if isinstance(v, (str, int))}
            before = [e for e in scan.events if e.line <= tail.line and e.stamp is not None]
            source = placed.get(id(before[-1])) if before else None
            stamp = before[-1].stamp if before else None
            event = LogEvent(EventKind.PROGRESS, Level.INFO, rank, origin,
                             {**fields, "last": True}, tail.text, tail.line, tail.line,
                             stamp=stamp)
            if source is None or source.time is None:
                out.append(Located(event, scan.path, index, rank, origin, None, False))
            else:
                out.append(Located(event, scan.path, index, rank, origin, source.time, True,
                                   source.domain, source.correction, source.window))
            break
    return out


def _stuck_summary(ctx: Context, s: StuckCollective) -> StuckSummary:
    timed_out = started = None
    if s.first_timeout is not None and s.first_timeout.stamp is not None:
        placed = ctx.at(s.first_timeout)
        correction = placed.correction if placed is not None else 0.0
        stamp = shift(s.first_timeout.stamp, correction) if correction else s.first_timeout.stamp
        timed_out = stamp.text()
        span = s.ran_ms if s.ran_ms is not None else s.timeout_ms
        if span is not None:
            started = shift(stamp, -span / 1000.0).text()
    return StuckSummary(s.pg, s.seq, s.op_type, s.timeout_ms, s.ran_ms, timed_out, started,
                        s.waiting, s.stragglers, s.ahead, s.watchdog_late_seconds)


def _rows(located: Sequence[Located], picture: CollectivePicture) -> tuple[RankRow, ...]:
    primary = picture.primary
    first_error: dict[int, Located] = {}
    files: dict[int, set[str]] = defaultdict(set)
    counts: Counter[int] = Counter()
    origins: dict[int, str] = {}
    crashed: set[int] = set()
    for item in located:
        if item.rank is None:
            continue
        counts[item.rank] += 1
        files[item.rank].add(item.file)
        if item.rank not in origins or item.rank_origin == "global":
            origins[item.rank] = item.rank_origin or ""
        if item.event.level >= Level.ERROR and item.kind not in _NOISE:
            first_error.setdefault(item.rank, item)
        if item.kind in (EventKind.FAULTHANDLER, EventKind.NATIVE_CRASH, EventKind.SIGNAL_KILL):
            crashed.add(item.rank)
    rows = []
    for rank in sorted(counts):
        row = RankRow(rank=rank, rank_origin=origins.get(rank, ""), events=counts[rank],
                      files=tuple(sorted(files[rank])),
                      role="initiator" if rank in picture.initiators else (
                          "observer" if rank in picture.observers else ""))
        timeout = picture.timeouts.get(rank)
        status = picture.statuses.get(rank)
        if primary is not None:
            if rank in primary.stragglers:
                row = replace(row, state="not_entered")
            elif rank in primary.waiting:
                row = replace(row, state="waiting")
            elif rank in primary.ahead:
                row = replace(row, state="ahead")
        if timeout is not None:
            row = replace(row, seq=timeout.int_field("seq"), op_type=timeout.str_field("op"),
                          numel_in=timeout.int_field("numel_in"),
                          numel_out=timeout.int_field("numel_out"),
                          timeout_ms=timeout.int_field("timeout_ms"),
                          ran_ms=timeout.int_field("ran_ms"), pg=timeout.str_field("pg"))
        if status is not None:
            row = replace(
                row,
                pg=row.pg or status.str_field("pg"),
                seq=row.seq if row.seq is not None else status.int_field("seq"),
                last_enqueued=status.int_field("last_enqueued"),
                last_started=status.int_field("last_started"),
                last_completed=status.int_field("last_completed"),
            )
            if not row.state and row.last_enqueued is not None \
                    and row.last_enqueued == row.last_completed:
                row = replace(row, state="idle")
        if not row.state and rank in crashed:
            row = replace(row, state="crashed")
        if rank in first_error:
            row = replace(row, first_error=_file_line(first_error[rank]))
        rows.append(row)
    return tuple(rows)


def _context_findings(
    ctx: Context, stuck: Sequence[StuckSummary], silent: Sequence[int], finding: Finding,
) -> list[str]:
    out: list[str] = []
    for s in stuck:
        if s.watchdog_late_seconds:
            out.append(
                f"the watchdog reported collective #{s.seq} {s.watchdog_late_seconds / 3600:.1f} h "
                f"after its {(s.timeout_ms or 0) / 1000:.0f} s timeout: the watchdog thread itself "
                "was blocked (a CUDA/NCCL call hung)"
            )
    for s in stuck:
        where = f"PG {s.pg}" if s.pg is not None else "process group not shown"
        line = (f"collective #{s.seq} ({s.op_type or 'op unknown'}, {where}): rank(s) "
                f"{compress_ranks(s.waiting_ranks) or '-'} waiting inside it")
        if s.started_at:
            line += (f"; it started at {s.started_at} (timed out {s.timed_out_at} after "
                     f"{(s.ran_ms or s.timeout_ms or 0) / 1000:.1f} s)")
        out.append(line)
        if s.seq == 1:
            out.append("the very first collective never completed: rendezvous, network set-up "
                       "or a rank that never reached it")
    detectors = ctx.picture.first_detectors
    if detectors:
        out.append(f"flight recorder: first detector rank(s) {compress_ranks(detectors)} (a "
                   "victim that noticed first, not necessarily the culprit)")
    if silent and ctx.timed_out_ranks:
        out.append(f"rank(s) {compress_ranks(silent)} of {ctx.world_size} printed nothing here: "
                   "suspects, since the culprit is often the rank that stays silent")
    hangs = ctx.of(EventKind.HEARTBEAT_HANG)
    if hangs:
        out.append(f"{who(hangs[0])}: the NCCL heartbeat monitor found the watchdog stuck "
                   f"({hangs[0].where})")
    if finding.category is Category.UNDETERMINED:
        consequences = [e for e in ctx.of(EventKind.NCCL_WARN_NET)
                        if e.event.fields.get("consequence")]
        if consequences:
            out.append("the network errors are consequences (peer closed, broken pipe, reset): "
                       f"a peer process probably died first ({consequences[0].where})")
        for item in ctx.of(EventKind.CHILD_FAILED_SUMMARY)[:1]:
            out.append(f"torchrun: first observed failure rank {item.event.fields.get('root_rank')}"
                       f" exit code {item.event.fields.get('root_exitcode')} ({item.where})")
    return out


def _context_recommendations(
    ctx: Context, stuck: Sequence[StuckSummary], finding: Finding, silent: Sequence[int]
) -> list[str]:
    recs: list[str] = []
    if ctx.timed_out_ranks and finding.category in (Category.UNDETERMINED,
                                                    Category.COLLECTIVE_HANG):
        recs.append("Collect the logs of every rank: the culprit is usually the rank whose "
                    "last enqueued == last completed (it never entered the collective) or that "
                    "printed nothing.")
        if not ctx.of(EventKind.DESYNC_REPORT):
            recs.append("Set TORCH_NCCL_DESYNC_DEBUG=1 (with TORCH_NCCL_TRACE_BUFFER_SIZE=2000 "
                        "and TORCH_NCCL_DUMP_ON_TIMEOUT=1): the next timeout then names the "
                        "lagging ranks and leaves a flight record per rank.")
    if any(e.event.fields.get("stack_recorded") is False for e in ctx.of(EventKind.FR_DUMP)):
        recs.append("The flight recorder was off ('Stack trace of the failed collective not "
                    "found'): set TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.")
    if any(s.watchdog_late_seconds for s in stuck) or ctx.of(EventKind.HEARTBEAT_HANG):
        recs.append("The watchdog thread was blocked: check the node's kernel log for Xid "
                    "errors or a GPU that fell off the bus.")
    if any(s.seq == 1 for s in stuck):
        recs.append("The first collective never completed: check NCCL_SOCKET_IFNAME/NCCL_IB_HCA "
                    "and that every rank reached init_process_group.")
    if silent:
        recs.append(f"Get the output of rank(s) {compress_ranks(silent)}: it is missing here.")
    if finding.category is Category.NONE and not finding.evidence:
        recs.append("No failure found in these logs.")
    return recs


def _retry_summary(scans: Sequence[FileScan]) -> dict[str, dict[str, int]]:
    """Retries by context: recovering (always attempt 1/N), escalating (2..N-1), exhausted."""
    out: dict[str, dict[str, int]] = {}
    for scan in scans:
        for context, attempts in scan.retry_attempts.items():
            entry = out.setdefault(context, {"recovering": 0, "escalating": 0, "exhausted": 0})
            for attempt in attempts:
                entry["recovering" if attempt <= 1 else "escalating"] += 1
        for context, count in scan.retry_exhausted.items():
            entry = out.setdefault(context, {"recovering": 0, "escalating": 0, "exhausted": 0})
            entry["exhausted"] += count
    return out


_CHAIN_KINDS = (EventKind.WATCHDOG_TIMEOUT, EventKind.HEARTBEAT_HANG, EventKind.FR_DUMP,
                EventKind.NCCL_TEARDOWN, EventKind.WATCHDOG_TERMINATED, EventKind.CPP_EXCEPTION,
                EventKind.SIGNAL_KILL, EventKind.AGENT_WORKER_FAILED,
                EventKind.CHILD_FAILED_SUMMARY, EventKind.SLURM_TASK_EXIT,
                EventKind.SLURM_CANCEL)


def _causal_chain(
    finding: Finding, located: Sequence[Located], stuck: Sequence[StuckSummary], ctx: Context
) -> tuple[ChainStep, ...]:
    """From the first trigger to the final crash: the cause, then the first of each symptom.
    A step says so when the clocks cannot settle its order against a step of another node,
    or whether another node's event of the same kind came first."""
    steps: list[tuple[tuple[float, int, int], ChainStep, Located, bool]] = []
    firsts: dict[tuple[EventKind, str | None], Located] = {}
    for item in located:
        if item.time is not None:
            firsts.setdefault((item.kind, item.domain), item)

    def rivalled(item: Located, shift_by: float = 0.0) -> bool:
        rivals = [r for (kind, domain), r in firsts.items()
                  if kind is item.kind and domain != item.domain]
        if not rivals or item.time is None:
            return False
        marks = order_uncertain([(item.time, item.domain, *item.window)]
                                + [((r.time or 0.0) + shift_by, r.domain, *r.window)
                                   for r in rivals])
        return marks[0]

    def add(item: Located | None, what: str | None = None, *, first: bool = False) -> None:
        if item is not None:
            steps.append((item.order(), ChainStep(_time_text(item), what or describe(item),
                                                  item.file, item.event.line,
                                                  clock_correction=item.correction), item,
                          first and rivalled(item)))

    if stuck and stuck[0].started_at:
        s = stuck[0]
        first = ctx.at(ctx.picture.stuck[0].first_timeout)
        if first is not None and first.time is not None:
            span = (s.ran_ms or s.timeout_ms or 0) / 1000.0
            started = replace(first, time=first.time - span)
            steps.append(((first.time - span, -1, 0), ChainStep(
                s.started_at, f"collective #{s.seq} ({s.op_type}) started and never completed",
                first.file, first.event.line, clock_correction=first.correction), started,
                rivalled(first)))
    add(finding.cause, finding.evidence[0] if finding.evidence else None)
    for kind in _CHAIN_KINDS:
        add(next((e for e in located if e.kind is kind and e is not finding.cause), None),
            first=True)
    steps.sort(key=lambda step: step[0])
    seen: set[tuple[str, int, str]] = set()
    kept: list[tuple[ChainStep, Located, bool]] = []
    for _, step, item, rival in steps:
        key = (step.file, step.line, step.what)
        if key not in seen:
            seen.add(key)
            kept.append((step, item, rival))
    kept = kept[:12]
    marks = order_uncertain([(i.time, i.domain, *i.window) for _, i, _ in kept])
    return tuple(replace(step, order_uncertain=True) if mark or rival else step
                 for (step, _, rival), mark in zip(kept, marks, strict=True))


_TIMELINE_INFO = frozenset({EventKind.FR_DUMP, EventKind.NCCL_INIT, EventKind.NCCL_PEER_CLOSED})


def _timeline(
    located: Sequence[Located], limit: int
) -> tuple[tuple[TimelineEntry, ...], int, int]:
    """Time-ordered entries; a run of the same low-level event from one writer is one entry.
    Returns the entries kept, how many there were, and how many have an uncertain order."""
    entries: list[TimelineEntry] = []
    items: list[Located] = []
    last_key: tuple[str, int | None, str] | None = None
    for item in located:
        wanted = (item.event.level >= Level.WARNING or item.kind in _TIMELINE_INFO
                  or (item.kind is EventKind.PROGRESS and item.event.fields.get("last")))
        if not wanted:
            continue
        key = (item.kind.value, item.rank, item.file)
        if key == last_key and item.event.level <= Level.WARNING and entries:
            entries[-1] = replace(entries[-1], repeat=entries[-1].repeat + 1)
            continue
        last_key = key
        stamp = item.event.stamp
        entries.append(TimelineEntry(
            _time_text(item), item.file, item.event.line, item.rank, item.kind.value,
            item.event.level.name.lower(), describe(item),
            stamp=stamp.text() if stamp is not None and item.correction else None,
            clock_correction=item.correction, clock_domain=item.domain))
        items.append(item)
    marks = order_uncertain([(i.time, i.domain, *i.window) for i in items])
    uncertain = sum(marks)
    if uncertain:
        entries = [replace(e, order_uncertain=True) if m else e
                   for e, m in zip(entries, marks, strict=True)]
    return tuple(entries[:limit]), len(entries), uncertain


def _key_files(
    finding: Finding, located: Sequence[Located], first_error: Located | None
) -> tuple[str, ...]:
    files: list[str] = []
    if finding.cause is not None:
        files.append(finding.cause.file)
    for rank in finding.culprit_ranks:
        files.extend(e.file for e in located if e.rank == rank and e.event.level >= Level.ERROR)
    if first_error is not None:
        files.append(first_error.file)
    first_timeout = next((e for e in located if e.kind is EventKind.WATCHDOG_TIMEOUT), None)
    if first_timeout is not None:
        files.append(first_timeout.file)
    errors = Counter(e.file for e in located if e.event.level >= Level.ERROR)
    files.extend(f for f, _ in errors.most_common(5))
    return tuple(dict.fromkeys(files))[:10]


def _summary(finding: Finding, context: Sequence[str]) -> str:
    if finding.category is Category.NONE:
        # a failure the job got past (an attempt its launcher restarted) says so
        return (f"No failure ended the job: {finding.evidence[0]}." if finding.evidence
                else "No failure found: no error, timeout or crash in these logs.")
    if finding.culprits:
        lead = f"{finding.category.value}: culprit {', '.join(finding.culprits)}."
    else:
        lead = f"{finding.category.value}: the logs do not show the culprit."
    detail = finding.evidence[0] if finding.evidence else (context[0] if context else "")
    return f"{lead} {detail}".strip()
