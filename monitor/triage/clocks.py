"""Clock skew between the nodes whose logs a triage merges: found, corrected, and said.

Every node stamps its lines with its own clock. A *clock domain* is one clock: a host (named
by the lines' NCCL or launcher prefixes) or, when a file names no host, the file itself.
Each domain gets a *correction* (seconds added to its stamps) from, in order of trust:

* given: `--clock-offset NODE=SECONDS` (exact, as the user says);
* measured: rankwatch's own `ClockOffsetHigh` alert records found among the inputs (the
  sidecar measured `offset_seconds` = this clock minus the reference, ± its uncertainty);
* inferred from the logs, as a range, never more precise than the evidence:
  - order (hard): a flight-recorder dump signal is set by the rank whose watchdog fired
    first and read by the others from the TCPStore, so an observer's "Observed flight
    recorder dump signal" / "Received a dump signal ... from rank S" happened after rank S's
    signal line (or, without one, its watchdog timeout). An observer stamped before its
    source is a clock disagreement of at least that much;
  - latency (soft): observers poll the store every TORCH_NCCL_COORD_CHECK_MILSEC (1 s by
    default), so they see the signal within `signal_latency_seconds` of it;
  - together (soft, hosts only): the watchdog timeouts of one collective (same process
    group, SeqNum, OpType and Timeout(ms)) on different ranks fire within
    `together_seconds` of each other (ranks enter a collective in lockstep; a rank that
    entered much later is terminated by the dump signal or the teardown before its own
    watchdog fires). Files without a host take no part: files of one host share a clock.

The inference is a system of difference constraints (correction of B minus correction of A
within bounds) solved by shortest paths: every domain gets the range of corrections the
evidence allows. Hard evidence is kept first (best supported pair first); evidence that
contradicts what is already kept is set aside: a contradicted order is reported as a
violation that remains, a contradicted soft assumption is only noted. Without a measurement
the largest set of connected domains whose ranges agree is taken as right (on a tie, the set
with the clock of the lowest rank); a domain whose range excludes zero is corrected by its
range's middle (or, when the range is open on one side, by the least correction that
restores the order) and keeps the range as its uncertainty. A correction that rests only on
the "together" assumption keeps "no skew" inside its uncertainty: the same stamps fit ranks
that entered the collective that much apart, and the report says both.

Peer-closed and connection-reset lines are not used: they name a peer by IP and port, not by
process, and the process that closed the connection may have died without a line while
another process of that host logged its failure much later.

Pure: no I/O.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from monitor.parse.log_events import EventKind
from monitor.triage.evidence import GLOBAL_ORIGINS, Located

GIVEN = "given"
MEASURED = "measured"
INFERRED = "inferred"
REFERENCE = "reference"  # taken as right: most connected domains agree with it
CONSISTENT = "consistent"  # the evidence allows no correction at all
UNCONSTRAINED = "unconstrained"  # no cross-node evidence about this clock

OFFSET_ALERT = "ClockOffsetHigh"
STEP_ALERT = "ClockSteppedBackwards"

_EPS = 1e-6
_SIGNAL_STATUS_SOURCES = frozenset({"watchdog", "timeout_at"})
_MAX_EVIDENCE = 6
_MAX_VIOLATIONS = 20


@dataclass(frozen=True)
class SkewOptions:
    """Knobs of the inference (seconds)."""

    threshold_seconds: float = 1.0  # an inferred correction this large is flagged
    together_seconds: float = 5.0  # one collective's watchdog timeouts fire within this
    signal_latency_seconds: float = 2.0  # an observer reads the dump signal within this
    stamp_slack_seconds: float = 0.005  # order violations smaller than this are noise


@dataclass(frozen=True)
class KnownClock:
    """A correction known before looking at the logs."""

    domain: str
    correction: float  # seconds added to the domain's stamps
    uncertainty: float
    basis: str  # given | measured
    source: str  # "--clock-offset gpu2=45" or "alerts.jsonl:12 (ClockOffsetHigh)"


@dataclass(frozen=True)
class ClockEvidence:
    kind: str  # order | latency | together
    text: str
    locations: tuple[str, ...]


@dataclass(frozen=True)
class DomainClock:
    domain: str
    kind: str  # host | file
    basis: str  # given | measured | inferred | reference | consistent | unconstrained
    correction_seconds: float  # added to every stamp of this domain
    low_seconds: float | None  # the corrections the evidence allows (None: open side)
    high_seconds: float | None
    relative_to: tuple[str, ...]  # the domains an inferred correction is measured against
    events: int  # stamped events from this clock
    source: str | None = None
    evidence: tuple[ClockEvidence, ...] = ()
    evidence_total: int = 0
    proven: bool = False  # inferred: the order of cause and effect alone excludes no skew

    @property
    def window(self) -> tuple[float, float]:
        """How far before/after its corrected time an event of this domain may really lie.
        An inferred correction that rests only on timeouts firing together keeps "no skew at
        all" inside its window: the same stamps also fit ranks that entered late."""
        if self.basis == INFERRED:
            low = -math.inf if self.low_seconds is None else self.low_seconds
            high = math.inf if self.high_seconds is None else self.high_seconds
            if not self.proven:
                low, high = min(low, 0.0), max(high, 0.0)
            return (min(0.0, low - self.correction_seconds),
                    max(0.0, high - self.correction_seconds))
        if self.basis == MEASURED and self.low_seconds is not None \
                and self.high_seconds is not None:
            return (self.low_seconds - self.correction_seconds,
                    self.high_seconds - self.correction_seconds)
        return (0.0, 0.0)


@dataclass(frozen=True)
class ClockViolation:
    """A known order the stamps still contradict after every correction."""

    cause: str  # file:line
    effect: str
    cause_domain: str
    effect_domain: str
    seconds: float  # the effect is stamped this much before its cause, corrections applied
    text: str


@dataclass(frozen=True)
class ClockReport:
    flagged: bool  # clocks disagree beyond what is measured or beyond the threshold
    notes: tuple[str, ...]
    domains: tuple[DomainClock, ...]
    violations: tuple[ClockViolation, ...]
    threshold_seconds: float
    uncertain_entries: int = 0
    headline: str = ""  # one line for the findings when flagged

    def correction(self, domain: str | None) -> float:
        for clock in self.domains:
            if clock.domain == domain:
                return clock.correction_seconds
        return 0.0

    @property
    def applied(self) -> bool:
        return any(abs(c.correction_seconds) > 0 for c in self.domains)


# --- known clocks: --clock-offset and rankwatch alert records -----------------------------


def match_domain(name: str, domains: Iterable[str]) -> str | None:
    """The domain a user or a record names: exact, then by short host name (`gpu1` ~
    `gpu1.cluster`), then a file by its base name."""
    pool = list(domains)
    if name in pool:
        return name
    short = name.split(".", 1)[0]
    for domain in pool:
        if domain.split(".", 1)[0] == short and "/" not in domain:
            return domain
    for domain in pool:
        if domain.rsplit("/", 1)[-1] == name:
            return domain
    return None


def given_clocks(
    offsets: Mapping[str, float], domains: Iterable[str]
) -> tuple[dict[str, KnownClock], list[str]]:
    """`--clock-offset` values by domain, and a note for each name that matches nothing."""
    pool = list(domains)
    out: dict[str, KnownClock] = {}
    notes: list[str] = []
    for name, seconds in offsets.items():
        domain = match_domain(name, pool)
        if domain is None:
            notes.append(f"--clock-offset {name}={seconds:g}: no host or file of that name has "
                         "stamped lines; not applied")
            continue
        out[domain] = KnownClock(domain, seconds, 0.0, GIVEN, f"--clock-offset {name}={seconds:g}")
    return out, notes


def measured_clocks(
    records: Iterable[tuple[str, int, Mapping[str, Any]]], domains: Iterable[str]
) -> tuple[dict[str, KnownClock], list[str]]:
    """Offsets rankwatch measured on each node, as corrections, and notes on clock steps.

    `records` are (file, line, alert record). The last `ClockOffsetHigh` record of a node
    wins: firing, it carries the measured offset (this clock minus the reference) and its
    uncertainty; resolved, the offset came back under 80 % of the alert's threshold, which is
    then the uncertainty of a zero correction. Nodes without a record are left to inference.
    """
    pool = list(domains)
    latest: dict[str, tuple[str, int, Mapping[str, Any]]] = {}
    notes: list[str] = []
    for path, line, record in records:
        labels = record.get("labels")
        node = labels.get("node") if isinstance(labels, Mapping) else None
        evidence = record.get("evidence")
        if not isinstance(node, str) or not isinstance(evidence, Mapping):
            continue
        name = record.get("alertname")
        if name == OFFSET_ALERT and isinstance(evidence.get("offset_seconds"), (int, float)):
            latest[node] = (path, line, record)
        elif name == STEP_ALERT and record.get("status") == "firing":
            step = evidence.get("step_seconds")
            if isinstance(step, (int, float)):
                notes.append(f"rankwatch saw the clock of {node} step {step:+.3f} s "
                             f"({record.get('starts_at', 'time unknown')}, {path}:{line}): its "
                             "stamps around then may repeat or skip and be misordered")
    out: dict[str, KnownClock] = {}
    for node, (path, line, record) in latest.items():
        domain = match_domain(node, pool)
        if domain is None:
            continue
        evidence = record["evidence"]
        where = f"{path}:{line}"
        if record.get("status") == "resolved":
            threshold = evidence.get("threshold_seconds")
            if not isinstance(threshold, (int, float)):
                continue
            out[domain] = KnownClock(domain, 0.0, 0.8 * float(threshold), MEASURED,
                                     f"{where} ({OFFSET_ALERT} resolved: offset back under "
                                     f"{0.8 * float(threshold):g} s)")
            continue
        offset = float(evidence["offset_seconds"])
        spread = evidence.get("uncertainty_seconds")
        out[domain] = KnownClock(
            domain, -offset, float(spread) if isinstance(spread, (int, float)) else 0.0,
            MEASURED, f"{where} ({OFFSET_ALERT}: offset {offset:+.3f} s)")
    return out, notes


# --- evidence from the logs ----------------------------------------------------------------


@dataclass
class _Pair:
    """Evidence that domain `effect`'s event followed domain `cause`'s event:
    correction(effect) - correction(cause) >= low, and <= high (soft)."""

    cause: str
    effect: str
    low: float = -math.inf
    high: float = math.inf
    count: int = 0
    worst: ClockEvidence | None = None  # the pair that bounds `low`
    closest: ClockEvidence | None = None  # the pair that bounds `high`


@dataclass
class _Group:
    """Watchdog timeouts of one collective: domain → (first time, last time, items)."""

    label: str
    spans: dict[str, list[Located]] = field(default_factory=dict)


def _coarse_domains(usable: Sequence[Located]) -> set[str]:
    """Domains whose stamps are whole seconds (a shipper's date prefix): their order within a
    second is unknown."""
    fine = {i.domain for i in usable if i.event.stamp is not None
            and i.event.stamp.seconds != int(i.event.stamp.seconds)}
    return {str(i.domain) for i in usable if i.domain not in fine}


def _global_rank(item: Located) -> int | None:
    return item.rank if item.rank_origin in GLOBAL_ORIGINS else None


def _signal_sources(usable: Sequence[Located]) -> dict[int, list[Located]]:
    """Per rank, the lines that mark it setting the dump signal, in time order: its
    flight-recorder initiator lines, else its watchdog timeouts (the signal follows them)."""
    signal: dict[int, list[Located]] = defaultdict(list)
    fallback: dict[int, list[Located]] = defaultdict(list)
    for item in usable:
        rank = _global_rank(item)
        if rank is None:
            continue
        fields = item.event.fields
        if item.kind is EventKind.FR_DUMP and fields.get("role") == "initiator":
            signal[rank].append(item)
        elif (item.kind is EventKind.WATCHDOG_TIMEOUT and not fields.get("blocking_wait")) or (
                item.kind is EventKind.PG_STATUS
                and fields.get("source") in _SIGNAL_STATUS_SOURCES):
            fallback[rank].append(item)
    return {**fallback, **signal}


def _one_incident(items: Sequence[Located], options: SkewOptions) -> bool:
    """All these lines of one clock belong to one failure (a restarted job fails again later,
    and then which signal an observer read is unknown)."""
    times = [i.time for i in items if i.time is not None]
    return bool(times) and max(times) - min(times) <= options.together_seconds


def _order_pairs(usable: Sequence[Located], options: SkewOptions) -> dict[tuple[str, str], _Pair]:
    """Observers of a dump signal and the signal they read. The observer follows the earliest
    signal line of its source (whichever it read); the latency bound needs the signal it read,
    so it is kept only when the source's lines are one incident."""
    coarse = _coarse_domains(usable)
    sources = _signal_sources(usable)
    every = sorted((i for lines in sources.values() for i in lines), key=Located.order)
    single_clock = len({i.domain for i in every}) == 1
    pairs: dict[tuple[str, str], _Pair] = {}
    for item in usable:
        if item.kind is not EventKind.FR_DUMP or item.event.fields.get("role") != "observer":
            continue
        src = item.event.fields.get("source_rank")
        candidates: Sequence[Located]
        if isinstance(src, int) and not isinstance(src, bool):
            if src == _global_rank(item):
                continue
            candidates = sources.get(src, ())
        else:
            candidates = every if single_clock else ()
        if not candidates:
            continue
        cause = candidates[0]
        if cause.domain == item.domain or cause.domain is None or item.domain is None \
                or cause.time is None or item.time is None:
            continue
        gap = cause.time - item.time  # > 0: the effect is stamped before its cause
        slack = 1.0 if cause.domain in coarse or item.domain in coarse \
            else options.stamp_slack_seconds
        pair = pairs.setdefault((cause.domain, item.domain), _Pair(cause.domain, item.domain))
        pair.count += 1
        who = f"rank {src}" if isinstance(src, int) else "another rank"
        text = (f"{item.where} read the dump signal from {who} {_signed_gap(gap)} the signal "
                f"at {cause.where} by the stamps (it can only follow it)")
        evidence = ClockEvidence("order", text, (cause.where, item.where))
        if gap - slack > pair.low:
            pair.low, pair.worst = gap - slack, evidence
        if _one_incident(candidates, options):
            high = gap + options.signal_latency_seconds + slack
            if high < pair.high:
                pair.high, pair.closest = high, evidence
    return pairs


def _signed_gap(gap: float) -> str:
    if gap > 0:
        return f"{gap:.3f} s before"
    return f"{-gap:.3f} s after"


def _groups(usable: Sequence[Located], hosts: set[str], options: SkewOptions) -> list[_Group]:
    groups: dict[tuple[object, ...], _Group] = {}
    for item in usable:
        if item.kind is not EventKind.WATCHDOG_TIMEOUT or item.domain not in hosts:
            continue
        event = item.event
        seq, timeout = event.int_field("seq"), event.int_field("timeout_ms")
        ran = event.int_field("ran_ms")
        if seq is None or timeout is None or event.fields.get("blocking_wait"):
            continue
        if ran is not None and ran - timeout > options.together_seconds * 1000:
            continue  # the watchdog itself was late: its line says nothing about the start
        key = (event.fields.get("pg"), seq, event.fields.get("op"), timeout)
        label = f"collective #{seq} ({event.fields.get('op')}, timeout {timeout / 1000:g} s)"
        group = groups.setdefault(key, _Group(label))
        group.spans.setdefault(str(item.domain), []).append(item)
    return [g for g in groups.values() if len(g.spans) >= 2
            and all(_one_incident(items, options) for items in g.spans.values())]


# --- the constraint solver ----------------------------------------------------------------

_Edge = tuple[int, int, float]  # x[v] - x[u] <= w


class _System:
    """Difference constraints over corrections; node 0 is true time (x = 0)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.edges: list[_Edge] = []

    def feasible_with(self, extra: Sequence[_Edge]) -> bool:
        edges = [*self.edges, *extra]
        dist = [0.0] * self.size  # a virtual source at distance 0 from every node
        for _ in range(self.size + 1):
            changed = False
            for u, v, w in edges:
                if dist[u] + w < dist[v] - _EPS:
                    dist[v] = dist[u] + w
                    changed = True
            if not changed:
                return True
        return False

    def add_if_feasible(self, extra: Sequence[_Edge]) -> bool:
        if self.feasible_with(extra):
            self.edges.extend(extra)
            return True
        return False

    def distances(self, source: int, *, reverse: bool = False) -> list[float]:
        """Shortest paths from source (Bellman-Ford; the system is known to be feasible)."""
        dist = [math.inf] * self.size
        dist[source] = 0.0
        edges = [(v, u, w) for u, v, w in self.edges] if reverse else self.edges
        for _ in range(self.size):
            changed = False
            for u, v, w in edges:
                if dist[u] + w < dist[v] - _EPS:
                    dist[v] = dist[u] + w
                    changed = True
            if not changed:
                break
        return dist

    def ranges(self, source: int = 0) -> tuple[list[float], list[float]]:
        """For every node x: x - x[source] lies within [low, high]."""
        high = self.distances(source)
        low = [-d for d in self.distances(source, reverse=True)]
        return low, high


def _fix(node: int, value: float, spread: float = 0.0) -> list[_Edge]:
    return [(0, node, value + spread), (node, 0, -(value - spread))]


def _components(size: int, edges: Sequence[_Edge]) -> list[int]:
    parent = list(range(size))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for u, v, _w in edges:
        parent[find(u)] = find(v)
    return [find(x) for x in range(size)]


def _stab(ranges: Sequence[tuple[float, float]]) -> float:
    """The point inside the most ranges (zero when it is among the best, else the best
    point nearest zero)."""
    points = sorted({0.0, *(p for r in ranges for p in r if math.isfinite(p))})

    def inside(p: float) -> int:
        return sum(1 for low, high in ranges if low - _EPS <= p <= high + _EPS)

    best = max(inside(p) for p in points)
    if inside(0.0) == best:
        return 0.0
    return min((p for p in points if inside(p) == best), key=abs)


# --- the plan ------------------------------------------------------------------------------


@dataclass
class _Domain:
    name: str
    node: int
    kind: str
    events: int
    lowest_rank: int | None = None
    evidence: list[ClockEvidence] = field(default_factory=list)
    evidence_total: int = 0


def plan_clocks(
    located: Sequence[Located],
    file_domains: set[str],
    known: Mapping[str, KnownClock],
    options: SkewOptions,
    notes: Sequence[str] = (),
) -> ClockReport:
    """Corrections for every clock domain of `located` (raw stamps, no correction yet)."""
    usable = [i for i in located if i.time is not None and not i.time_inferred
              and i.domain is not None]
    counts: dict[str, int] = defaultdict(int)
    lowest: dict[str, int] = {}
    for item in usable:
        counts[str(item.domain)] += 1
        rank = _global_rank(item)
        if rank is not None and rank < lowest.get(str(item.domain), rank + 1):
            lowest[str(item.domain)] = rank
    for name in known:
        counts.setdefault(name, 0)
    domains: dict[str, _Domain] = {}
    for index, name in enumerate(sorted(counts), start=1):
        kind = "file" if name in file_domains else "host"
        domains[name] = _Domain(name, index, kind, counts[name], lowest.get(name))
    all_notes = list(notes)
    if len(domains) < 2 and not known:
        return ClockReport(False, tuple(all_notes), tuple(
            DomainClock(d.name, d.kind, UNCONSTRAINED, 0.0, None, None, (), d.events)
            for d in domains.values()), (), options.threshold_seconds)

    base = min((i.time for i in usable if i.time is not None), default=0.0)
    pairs = _order_pairs(usable, options)
    hosts = {name for name, d in domains.items() if d.kind == "host"}
    groups = _groups(usable, hosts, options)
    size = len(domains) + 1 + len(groups)
    system = _System(size)
    for name, clock in known.items():
        system.edges.extend(_fix(domains[name].node, clock.correction, clock.uncertainty))

    # hard: the order of cause and effect, best supported domain pair first
    rejected: list[_Pair] = []
    ordered = sorted(pairs.values(), key=lambda p: (-p.count, p.cause, p.effect))
    hard = [(p, (domains[p.effect].node, domains[p.cause].node, -p.low)) for p in ordered
            if math.isfinite(p.low)]
    if not system.add_if_feasible([edge for _, edge in hard]):
        for pair, edge in hard:
            if not system.add_if_feasible([edge]):
                rejected.append(pair)
    ordered_out: set[str] = set()  # domains in an order that their stamps contradict
    for pair in ordered:
        if pair not in rejected and pair.worst is not None:
            for name in (pair.cause, pair.effect):
                _credit(domains[name], pair.worst, pair.count)
            if pair.low > _EPS:
                ordered_out.update((pair.cause, pair.effect))

    # soft: observers read the signal soon; one collective's timeouts fire together
    soft: list[tuple[str, list[_Edge], list[tuple[_Domain, ClockEvidence, int]]]] = []
    for pair in ordered:
        if pair not in rejected and math.isfinite(pair.high) and pair.closest is not None:
            soft.append((f"the dump-signal latency bound between {pair.cause} and {pair.effect}",
                         [(domains[pair.cause].node, domains[pair.effect].node, pair.high)], []))
    for index, group in enumerate(groups):
        node = len(domains) + 1 + index
        edges: list[_Edge] = []
        evidence = _group_evidence(group, options)
        credits = []
        for name, items in group.spans.items():
            times = [i.time - base for i in items if i.time is not None]
            d = domains[name]
            edges.append((d.node, node, min(times)))
            edges.append((node, d.node, options.together_seconds - max(times)))
            credits.append((d, evidence, len(items)))
        soft.append((f"the watchdog timeouts of {group.label} firing within "
                     f"{options.together_seconds:g} s of each other", edges, credits))
    kept = soft
    if not system.add_if_feasible([edge for _, edges, _ in soft for edge in edges]):
        kept = []
        for entry in soft:
            if system.add_if_feasible(entry[1]):
                kept.append(entry)
            else:
                all_notes.append(f"not used: {entry[0]} (contradicted by stronger evidence or "
                                 "by the measured offsets)")
    for _, _, credits in kept:
        for d, evidence, lines in credits:
            _credit(d, evidence, lines)

    values, ranges, bases, relative = _assign(system, domains, known)
    clocks = []
    for name, d in sorted(domains.items()):
        given = known.get(name)
        low, high = ranges.get(name, (-math.inf, math.inf))
        clocks.append(DomainClock(
            name, d.kind, bases[name], round(values[name], 6),
            _finite(low), _finite(high), relative.get(name, ()), d.events,
            given.source if given else None, tuple(d.evidence[:_MAX_EVIDENCE]),
            d.evidence_total, bases[name] == INFERRED and name in ordered_out))
    violations = _violations(rejected, values)
    inferred = [c for c in clocks if c.basis == INFERRED]
    big = [c for c in inferred if abs(c.correction_seconds) >= options.threshold_seconds]
    all_notes[:0] = _notes(clocks, violations, options)
    return ClockReport(bool(big or violations), tuple(all_notes), tuple(clocks),
                       tuple(violations[:_MAX_VIOLATIONS]), options.threshold_seconds,
                       headline=_headline(big, violations))


def _headline(big: Sequence[DomainClock], violations: Sequence[ClockViolation]) -> str:
    if big:
        c = max(big, key=lambda x: abs(x.correction_seconds))
        relation = "behind" if c.correction_seconds > 0 else "ahead of"
        size = seconds_text(abs(c.correction_seconds), _width(c))
        how = "inferred from the order of events" if c.proven else \
            "suspected from stamps of simultaneous events"
        more = f" (and {len(big) - 1} other clock(s))" if len(big) > 1 else ""
        return (f"clock skew between nodes: {c.domain} runs about {size} {relation} "
                f"{_names(c.relative_to)}{more}, {how}; the timeline is corrected and marks "
                "with ~ what the clocks cannot order (see the clock section)")
    if not violations:
        return ""
    v = violations[0]
    return (f"clock disagreement beyond the known skew: {v.effect} ({v.effect_domain}) is "
            f"stamped {v.seconds:.3f} s before its cause {v.cause} ({v.cause_domain}) with the "
            "offsets applied; the affected entries are marked ~ (see the clock section)")


def _finite(value: float) -> float | None:
    return round(value, 6) if math.isfinite(value) else None


def _credit(domain: _Domain, evidence: ClockEvidence, lines: int) -> None:
    domain.evidence_total += lines
    if evidence not in domain.evidence:
        domain.evidence.append(evidence)


def _group_evidence(group: _Group, options: SkewOptions) -> ClockEvidence:
    """The group's stamps per clock, earliest first; beyond four clocks only the two earliest
    and the two latest are named."""
    spans = []
    for name, items in group.spans.items():
        first = min(items, key=Located.order)
        last = max(items, key=Located.order)
        spans.append((first.time or 0.0, name, first, (last.time or 0.0) - (first.time or 0.0),
                      len(items)))
    spans.sort()
    shown = spans if len(spans) <= 4 else [*spans[:2], *spans[-2:]]
    parts = []
    for _, name, first, spread, count in shown:
        stamp = first.event.stamp
        when = stamp.text() if stamp is not None else "?"
        parts.append(f"{name} at {when} ({count} line(s) within {spread:.3f} s)")
    if len(spans) > 4:
        parts.insert(2, f"{len(spans) - 4} more clock(s) in between")
    text = (f"the watchdog timeouts of {group.label}, which fire within "
            f"{options.together_seconds:g} s of each other, are stamped: " + "; ".join(parts))
    return ClockEvidence("together", text, tuple(s[2].where for s in shown))


def _assign(
    system: _System, domains: Mapping[str, _Domain], known: Mapping[str, KnownClock]
) -> tuple[dict[str, float], dict[str, tuple[float, float]], dict[str, str],
           dict[str, tuple[str, ...]]]:
    """Pick each domain's correction inside what the system allows."""
    values: dict[str, float] = {}
    ranges: dict[str, tuple[float, float]] = {}
    bases: dict[str, str] = {}
    relative: dict[str, tuple[str, ...]] = {}
    for name, clock in known.items():
        values[name] = clock.correction
        ranges[name] = (clock.correction - clock.uncertainty, clock.correction + clock.uncertainty)
        bases[name] = clock.basis
    roots = _components(system.size, system.edges)
    anchored = {roots[0]}
    references: list[str] = sorted(known)
    # components without a measurement: the largest set of agreeing clocks is taken as right
    for root in sorted({roots[d.node] for d in domains.values()} - anchored):
        members = [d for d in domains.values() if roots[d.node] == root]
        connected = any(u != v and roots[u] == root for u, v, _ in system.edges)
        if not connected:
            for d in members:
                values[d.name], bases[d.name] = 0.0, UNCONSTRAINED
            continue
        # ties go to the clock of the lowest rank (rank 0 usually hosts the store)
        ref = min(members, key=lambda d: (d.lowest_rank is None, d.lowest_rank or 0, d.name))
        low, high = system.ranges(ref.node)
        spans = [(low[d.node], high[d.node]) for d in members]
        point = _stab(spans)
        agree = [d for d in members
                 if low[d.node] - _EPS <= point <= high[d.node] + _EPS]
        agree.sort(key=lambda d: (-d.events, d.name))
        if not system.add_if_feasible([e for d in agree for e in _fix(d.node, 0.0)]):
            agree = [d for d in agree if system.add_if_feasible(_fix(d.node, 0.0))]
        for d in agree:
            values[d.name], bases[d.name] = 0.0, REFERENCE
        references.extend(sorted(d.name for d in agree))
    # the rest: corrected when the evidence excludes zero, else left as they are
    while True:
        pending = [d for d in domains.values() if d.name not in values]
        if not pending:
            break
        low, high = system.ranges(0)
        need = [d for d in pending if not low[d.node] - _EPS <= 0.0 <= high[d.node] + _EPS]
        if not need:
            if system.add_if_feasible([e for d in pending for e in _fix(d.node, 0.0)]):
                for d in pending:
                    values[d.name] = 0.0
                    ranges[d.name] = (low[d.node], high[d.node])
                    bases[d.name] = CONSISTENT
                break
            d = pending[0]
            system.add_if_feasible(_fix(d.node, 0.0))
            values[d.name], ranges[d.name] = 0.0, (low[d.node], high[d.node])
            bases[d.name] = CONSISTENT
            continue
        d = max(need, key=lambda x: (x.events, x.name))
        lo, hi = low[d.node], high[d.node]
        # the middle of the range, or the least correction that restores the order
        value = (lo + hi) / 2 if math.isfinite(lo) and math.isfinite(hi) else (
            lo if lo > 0 else hi)
        system.add_if_feasible(_fix(d.node, value))
        values[d.name], ranges[d.name], bases[d.name] = value, (lo, hi), INFERRED
        relative[d.name] = tuple(r for r in references
                                 if roots[domains[r].node] == roots[d.node])
    for name, basis in bases.items():
        if basis == CONSISTENT and not domains[name].evidence:
            bases[name] = UNCONSTRAINED
    return values, ranges, bases, relative


def _violations(rejected: Sequence[_Pair], values: Mapping[str, float]) -> list[ClockViolation]:
    out = []
    for pair in rejected:
        excess = pair.low - (values[pair.effect] - values[pair.cause])
        if excess <= _EPS or pair.worst is None:
            continue
        cause, effect = pair.worst.locations
        out.append(ClockViolation(
            cause, effect, pair.cause, pair.effect, round(excess, 6),
            f"{effect} ({pair.effect}) is stamped {excess:.3f} s before its cause {cause} "
            f"({pair.cause}) even with the clock corrections applied: the clocks of "
            f"{pair.cause} and {pair.effect} disagree beyond what is measured (or a clock "
            "stepped); the order of their events closer than that is unknown"))
    out.sort(key=lambda v: -v.seconds)
    return out


def _notes(clocks: Sequence[DomainClock], violations: Sequence[ClockViolation],
           options: SkewOptions) -> list[str]:
    out: list[str] = []
    for clock in clocks:
        c = clock.correction_seconds
        if clock.basis in (GIVEN, MEASURED) and clock.source:
            spread = "" if clock.basis == GIVEN or clock.high_seconds is None else \
                f" ± {clock.high_seconds - c:.3f} s"
            agree = ""
            if clock.evidence_total and not any(clock.domain in (v.cause_domain, v.effect_domain)
                                                for v in violations):
                agree = f"; {clock.evidence_total} line(s) of cross-node evidence agree with it"
            out.append(f"{clock.domain}: {c:+.3f} s{spread} applied to its stamps "
                       f"({clock.basis}: {clock.source}){agree}")
        elif clock.basis == INFERRED:
            out.append(_inferred_note(clock, options))
    out.extend(v.text for v in violations[:5])
    return out


def _inferred_note(clock: DomainClock, options: SkewOptions) -> str:
    c = clock.correction_seconds
    relation = "behind" if c > 0 else "ahead of"
    against = _names(clock.relative_to)
    open_side = clock.low_seconds is None or clock.high_seconds is None
    size = f"at least {seconds_text(abs(c), 0.001)}" if open_side else \
        f"about {seconds_text(abs(c), _width(clock))}"
    below = "" if abs(c) >= options.threshold_seconds else \
        f" (below the {options.threshold_seconds:g} s threshold)"
    evidence = "; ".join(e.text for e in clock.evidence[:2])
    if clock.proven:
        lead = (f"clock skew: the clock of {clock.domain} runs {size} {relation} that of "
                f"{against} (inferred from the order of events; correction {_span(clock)})")
    else:
        lead = (f"clock skew suspected: the stamps of {clock.domain} are {size} {relation} those "
                f"of {against} for events that normally happen within seconds of each other "
                f"(correction {_span(clock)}); either its clock is off by that much, or those "
                "events were that far apart (ranks that entered the collective apart, a dump "
                "signal read late)")
    return (f"{lead}{below}. The timeline adds {c:+.3f} s to {clock.domain}'s stamps and marks "
            f"with ~ the entries whose order the clocks cannot settle. Evidence: {evidence}")


def _names(names: Sequence[str]) -> str:
    if not names:
        return "the other nodes"
    if len(names) <= 3:
        return ", ".join(names)
    return f"{', '.join(names[:3])} and {len(names) - 3} more"


def _width(clock: DomainClock) -> float:
    if clock.low_seconds is None or clock.high_seconds is None:
        return 0.001
    return clock.high_seconds - clock.low_seconds


def seconds_text(value: float, uncertainty: float) -> str:
    """Seconds with no more decimals than the uncertainty supports (at most 3)."""
    decimals = 3 if uncertainty <= 0 else max(0, min(3, 1 - math.floor(math.log10(uncertainty))))
    return f"{value:.{decimals}f} s"


def _span(clock: DomainClock) -> str:
    low, high = clock.low_seconds, clock.high_seconds
    if low is not None and high is not None:
        return f"between {low:+.3f} and {high:+.3f} s"
    if low is not None:
        return f"{low:+.3f} s or more"
    if high is not None:
        return f"{high:+.3f} s or less"
    return "unbounded"


# --- applying the plan ---------------------------------------------------------------------


def order_uncertain(items: Sequence[tuple[float | None, str | None, float, float]]) -> list[bool]:
    """For (time, domain, window before, window after) items: which ones may lie on the other
    side of an item of another domain once the windows are counted (at least one of the two
    windows not empty). Items of one domain keep their order: they share a clock."""
    n = len(items)
    marks = [False] * n
    wide: dict[str, list[tuple[float, float]]] = defaultdict(list)
    points: list[tuple[float, str]] = []
    for time, domain, before, after in items:
        if time is None or domain is None:
            continue
        if before or after:
            wide[domain].append((time + before, time + after))
        else:
            points.append((time, domain))
    if not wide:
        return marks
    unions = {d: _merge(spans) for d, spans in wide.items()}
    points.sort()
    point_times = [t for t, _ in points]
    # next_other[k]: first index >= k whose domain differs from points[k]'s
    next_other = [len(points)] * (len(points) + 1)
    for k in range(len(points) - 2, -1, -1):
        next_other[k] = k + 1 if points[k + 1][1] != points[k][1] else next_other[k + 1]
    for index, (time, domain, before, after) in enumerate(items):
        if time is None or domain is None:
            continue
        low, high = time + before, time + after
        if any(_overlaps(union, low, high) for d, union in unions.items() if d != domain):
            marks[index] = True
            continue
        if before or after:
            k = bisect_left(point_times, low)
            if k < len(points) and points[k][1] == domain:
                k = next_other[k]
            marks[index] = k < len(points) and point_times[k] <= high
    return marks


def _merge(spans: list[tuple[float, float]]) -> tuple[list[float], list[float]]:
    spans.sort()
    lows: list[float] = []
    highs: list[float] = []
    for low, high in spans:
        if lows and low <= highs[-1]:
            highs[-1] = max(highs[-1], high)
        else:
            lows.append(low)
            highs.append(high)
    return lows, highs


def _overlaps(union: tuple[list[float], list[float]], low: float, high: float) -> bool:
    lows, highs = union
    k = bisect_right(lows, high) - 1
    return k >= 0 and highs[k] >= low


__all__ = [
    "CONSISTENT", "GIVEN", "INFERRED", "MEASURED", "REFERENCE", "UNCONSTRAINED",
    "ClockEvidence", "ClockReport", "ClockViolation", "DomainClock", "KnownClock",
    "SkewOptions", "given_clocks", "match_domain", "measured_clocks", "order_uncertain",
    "plan_clocks",
]
