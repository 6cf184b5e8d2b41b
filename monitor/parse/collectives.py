"""The collective picture: from per-rank NCCL log events to who waits, who never entered.

Shared by the live log-event detector and `rankwatch triage`. Pure: it reads `(rank, event)`
pairs in time order and says, per process group:

* which collective is stuck (the SeqNum most ranks time out at),
* which ranks wait inside it (enqueued >= SeqNum, completed < SeqNum),
* which ranks never entered it — the stragglers: last enqueued < SeqNum, typically
  enqueued == completed (nothing pending) while the others are ahead,
* which ranks already went past it (a mismatch sign),
* mismatched calls (same SeqNum, different OpType or NumelIn) and the odd one out,
* initiators (their own watchdog fired) versus observers (notified through the store), the
  flight recorder's first detectors, and the desync report's lagging ranks.

SeqNums are per process group, so ranks are only compared within one group (`pg`, read from
the `[PG …]` prefix of status lines; a timeout line joins the group of the status line with
the same SeqNum from the same rank).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from monitor.parse.log_events import LogEvent
from monitor.parse.log_patterns import EventKind


@dataclass(frozen=True)
class StuckCollective:
    pg: str | None
    seq: int
    op_type: str | None
    timeout_ms: int | None
    ran_ms: int | None
    first_timeout: LogEvent | None
    waiting: tuple[int, ...]
    stragglers: tuple[int, ...]
    ahead: tuple[int, ...]
    straggler_status: Mapping[int, LogEvent]
    watchdog_late_seconds: float | None


@dataclass(frozen=True)
class Mismatch:
    pg: str | None
    seq: int
    variants: Mapping[tuple[str, int | None], tuple[int, ...]]  # (op, numel_in) → ranks
    culprits: tuple[int, ...]
    reason: str
    first_timeout: LogEvent


@dataclass(frozen=True)
class CollectivePicture:
    stuck: tuple[StuckCollective, ...]
    mismatches: tuple[Mismatch, ...]
    initiators: tuple[int, ...]
    observers: tuple[int, ...]
    first_detectors: tuple[int, ...]
    lagging: tuple[int, ...]
    timeouts: Mapping[int, LogEvent]  # rank → its first timeout
    statuses: Mapping[int, LogEvent]  # rank → its status in the primary stuck group (or any)

    @property
    def primary(self) -> StuckCollective | None:
        return self.stuck[0] if self.stuck else None


@dataclass
class _Group:
    pg: str | None
    timeouts: dict[int, LogEvent] = field(default_factory=dict)
    statuses: dict[int, LogEvent] = field(default_factory=dict)
    order: dict[int, int] = field(default_factory=dict)  # id(event) → arrival order


_STATUS_SOURCES = ("watchdog", "timeout_at")
# the desync report's list item for ranks inside a collective that never finished it
_STUCK_IN_IT = re.compile(r"\s*-\s*\[[\d, ]*\] joined but didn't finish collective #\d+")

def collective_picture(items: Iterable[tuple[int, LogEvent]]) -> CollectivePicture:
    """Build the picture from `(rank, event)` pairs given in time order."""
    timeouts: dict[int, list[LogEvent]] = defaultdict(list)
    statuses: dict[int, list[LogEvent]] = defaultdict(list)
    initiators: set[int] = set()
    observers: set[int] = set()
    detectors: set[int] = set()
    lagging: set[int] = set()
    order: dict[int, int] = {}
    for position, (rank, event) in enumerate(items):
        order[id(event)] = position
        kind = event.kind
        fields = event.fields
        if kind is EventKind.WATCHDOG_TIMEOUT:
            timeouts[rank].append(event)
            initiators.add(rank)
        elif kind is EventKind.PG_STATUS:
            statuses[rank].append(event)
            if fields.get("source") in _STATUS_SOURCES:
                initiators.add(rank)
        elif kind is EventKind.FR_DUMP:
            role = fields.get("role")
            if role == "initiator":
                initiators.add(rank)
            elif role == "observer":
                observers.add(rank)
            source = fields.get("source_rank")
            if isinstance(source, int):
                detectors.add(source)
        elif kind is EventKind.WATCHDOG_TERMINATED:
            initiators.add(rank)
        elif kind is EventKind.DESYNC_REPORT:
            ranks = fields.get("ranks")
            names_culprits = any(
                w in event.text for w in ("lagging", "didn't join", "missing ranks", "Missing ranks are",
                                          "not reaching the collective", "[ready ranks: ",
                                          "Culprit rank")
            )
            if isinstance(ranks, tuple) and not names_culprits and _STUCK_IN_IT.match(event.text):
                # its third form, `- [6] joined but didn't finish collective #1042`, as the
                # report's own list item, from a reporter not in it (a reporter that lists
                # itself was stuck with the others: no one lags)
                names_culprits = rank not in ranks
            if isinstance(ranks, tuple) and names_culprits:
                lagging.update(int(r) for r in ranks)
    groups = _groups(timeouts, statuses, order)
    stuck: list[StuckCollective] = []
    for group in groups.values():
        if group.pg is None:
            # without process-group names each distinct SeqNum may be a different group
            seqs = sorted({s for s in (t.fields.get("seq") for t in group.timeouts.values())
                           if isinstance(s, int)})
            stuck.extend(_analyse(group, seq) for seq in seqs)
            continue
        seq = _stuck_seq(group)
        if seq is not None:
            stuck.append(_analyse(group, seq))
    stuck.sort(key=lambda s: (-len(s.waiting), _first_order(s, order), s.seq))
    mismatches = tuple(_mismatches(groups, order))
    primary = stuck[0] if stuck else None
    first_timeouts = {r: min(ts, key=lambda e: order[id(e)]) for r, ts in timeouts.items()}
    rank_status: dict[int, LogEvent] = {}
    if primary is not None:
        rank_status.update(groups_status(groups, primary.pg))
    for rank, events in statuses.items():
        rank_status.setdefault(rank, events[0])
    return CollectivePicture(
        stuck=tuple(stuck),
        mismatches=mismatches,
        initiators=tuple(sorted(initiators)),
        observers=tuple(sorted(observers - initiators)),
        first_detectors=tuple(sorted(detectors)),
        lagging=tuple(sorted(lagging)),
        timeouts=first_timeouts,
        statuses=rank_status,
    )


def groups_status(groups: Mapping[str | None, _Group], pg: str | None) -> dict[int, LogEvent]:
    group = groups.get(pg)
    return dict(group.statuses) if group is not None else {}


def _first_order(stuck: StuckCollective, order: Mapping[int, int]) -> int:
    return order.get(id(stuck.first_timeout), 1 << 62) if stuck.first_timeout else 1 << 62


def _pg(event: LogEvent) -> str | None:
    pg = event.fields.get("pg")
    return pg if isinstance(pg, str) else None


def _groups(
    timeouts: Mapping[int, list[LogEvent]],
    statuses: Mapping[int, list[LogEvent]],
    order: Mapping[int, int],
) -> dict[str | None, _Group]:
    groups: dict[str | None, _Group] = {}
    for rank, events in timeouts.items():
        for timeout in events:
            pg = _pg(timeout)
            if pg is None:
                seq = timeout.fields.get("seq")
                pg = next((_pg(s) for s in statuses.get(rank, ())
                           if s.fields.get("seq") == seq and _pg(s) is not None), None)
            group = groups.setdefault(pg, _Group(pg))
            kept = group.timeouts.get(rank)
            if kept is None or _seq(timeout) < _seq(kept):
                group.timeouts[rank] = timeout
    for rank, events in statuses.items():
        for status in events:
            pg = _pg(status)
            group = groups.setdefault(pg, _Group(pg))
            kept = group.statuses.get(rank)
            if kept is None or (kept.fields.get("seq") is None
                                and status.fields.get("seq") is not None):
                group.statuses[rank] = status
    _merge_unknown_pg(groups)
    return groups


def _seq(event: LogEvent) -> int:
    seq = event.fields.get("seq")
    return seq if isinstance(seq, int) else 1 << 62


def _merge_unknown_pg(groups: dict[str | None, _Group]) -> None:
    """A rank that printed only the timeout line (no status line naming the group) joins the one
    group whose timeouts show the same SeqNum and OpType."""
    unknown = groups.get(None)
    if unknown is None:
        return
    for rank, timeout in list(unknown.timeouts.items()):
        signature = (timeout.fields.get("seq"), timeout.fields.get("op"))
        homes = [g for pg, g in groups.items() if pg is not None and any(
            (t.fields.get("seq"), t.fields.get("op")) == signature for t in g.timeouts.values())]
        if len(homes) == 1 and rank not in homes[0].timeouts:
            homes[0].timeouts[rank] = timeout
            del unknown.timeouts[rank]
    if not unknown.timeouts and not unknown.statuses:
        del groups[None]


def _stuck_seq(group: _Group) -> int | None:
    seqs = [t.fields.get("seq") for t in group.timeouts.values()]
    seqs += [s.fields.get("seq") for s in group.statuses.values()
             if s.fields.get("source") in _STATUS_SOURCES]
    known = [s for s in seqs if isinstance(s, int)]
    if not known:
        return None
    counts = Counter(known)
    best = max(counts.values())
    return min(s for s, c in counts.items() if c == best)


def _int(event: LogEvent, name: str) -> int | None:
    value = event.fields.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _analyse(group: _Group, seq: int) -> StuckCollective:
    waiting: set[int] = set()
    ahead: set[int] = set()
    stragglers: dict[int, LogEvent] = {}
    for rank, timeout in group.timeouts.items():
        t_seq = _int(timeout, "seq")
        if t_seq == seq:
            waiting.add(rank)
        elif t_seq is not None and t_seq > seq:
            ahead.add(rank)
    for rank, status in group.statuses.items():
        if rank in ahead or rank in waiting:
            continue
        enq = _int(status, "last_enqueued")
        if _int(status, "seq") == seq or (enq is not None and enq >= seq):
            waiting.add(rank)
        elif enq is not None and enq < seq:
            stragglers[rank] = status
    at_seq = [t for t in group.timeouts.values() if _int(t, "seq") == seq]
    first = at_seq[0] if at_seq else None
    timeout_ms = _int(first, "timeout_ms") if first else None
    ran_ms = _int(first, "ran_ms") if first else None
    late = None
    if ran_ms is not None and timeout_ms is not None:
        over = (ran_ms - timeout_ms) / 1000.0
        if over > max(60.0, timeout_ms / 1000.0 * 0.05):
            late = over
    return StuckCollective(
        pg=group.pg, seq=seq, op_type=str(first.fields.get("op")) if first else None,
        timeout_ms=timeout_ms, ran_ms=ran_ms, first_timeout=first,
        waiting=tuple(sorted(waiting)), stragglers=tuple(sorted(stragglers)),
        ahead=tuple(sorted(ahead)), straggler_status=stragglers, watchdog_late_seconds=late,
    )


def _mismatches(groups: Mapping[str | None, _Group], order: Mapping[int, int]) -> list[Mismatch]:
    found = []
    for group in groups.values():
        by_seq: dict[int, dict[tuple[str, int | None], list[int]]] = defaultdict(dict)
        for rank, timeout in group.timeouts.items():
            seq = _int(timeout, "seq")
            if seq is None:
                continue
            variant = (str(timeout.fields.get("op") or "?"), _int(timeout, "numel_in"))
            by_seq[seq].setdefault(variant, []).append(rank)
        for seq, variants in sorted(by_seq.items()):
            if len(variants) < 2:
                continue
            frozen = {k: tuple(sorted(v)) for k, v in variants.items()}
            culprits, reason = _odd_one_out(group, seq, frozen)
            first = min((t for t in group.timeouts.values() if _int(t, "seq") == seq),
                        key=lambda e: order.get(id(e), 0))
            found.append(Mismatch(group.pg, seq, frozen, culprits, reason, first))
    return found


def _odd_one_out(
    group: _Group, seq: int, variants: Mapping[tuple[str, int | None], tuple[int, ...]]
) -> tuple[tuple[int, ...], str]:
    sizes = sorted((len(ranks), key) for key, ranks in variants.items())
    smallest = sizes[0][0]
    if sum(1 for size, _ in sizes if size == smallest) == 1 and smallest < sizes[1][0]:
        return variants[sizes[0][1]], "its call differs from the majority's"
    # Equal camps: the camp still stuck at `seq` (nothing enqueued after it) while the other
    # camp went on is the one whose call found no partner.
    def enqueued(rank: int) -> int | None:
        status = group.statuses.get(rank)
        return _int(status, "last_enqueued") if status is not None else None

    stuck_camps = [key for key, ranks in variants.items()
                   if all((e := enqueued(r)) is not None and e <= seq for r in ranks)]
    moved = [key for key, ranks in variants.items()
             if key not in stuck_camps and any((enqueued(r) or -1) > seq for r in ranks)]
    if len(stuck_camps) == 1 and moved:
        return variants[stuck_camps[0]], (
            "the other rank(s) enqueued work after this collective; this one did not"
        )
    return (), "the logs do not show which call is the odd one"
