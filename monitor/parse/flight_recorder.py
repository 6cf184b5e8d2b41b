"""PyTorch flight-recorder dumps: reading them safely and finding who never entered.

torch records every collective of a process group in a per-rank ring buffer (NCCL since 2.3;
gloo too in 2.13 with `TORCH_FR_BUFFER_SIZE`). NCCL writes it on a watchdog timeout to
`TORCH_NCCL_DEBUG_INFO_TEMP_FILE`/`TORCH_FR_DUMP_TEMP_FILE` + rank (pickle); a job can also
write it itself with `torch._C._distributed_c10d._dump_fr_trace()` (pickle) or
`_dump_fr_trace_json()` (JSON). A dump is a dict: `version`, `pg_config` (group → name, desc,
ranks), `pg_status` (group → last enqueued/started/completed), `entries` (one per collective:
`collective_seq_id`, `profiling_name` such as `nccl:all_reduce`, `state`, sizes, `frames`).

A dump is untrusted input. `load_dump` unpickles with a restricted unpickler that builds only
plain containers and scalars: anything that would import a name (GLOBAL, STACK_GLOBAL, INST,
EXT*) or call an object (REDUCE, BUILD, NEWOBJ) is refused with `DumpRefused` before it can
run, and sizes are capped (bytes, nodes, nesting, entries).

`analyse` is pure: per process group, each rank's last enqueued/started/completed collective,
then the first sequence number at which the ranks disagree — ranks that never entered the
collective the others wait in, or ranks in different operations or sizes at the same number.
"""

from __future__ import annotations

import io
import json
import pickle
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from monitor.parse.gc_pause import gc_paused

MAX_DUMP_BYTES = 256 << 20
MAX_ENTRIES = 100_000
MAX_FRAMES = 64  # frames kept of a stack
MAX_TENSORS = 64  # tensors and dimensions read of one entry's sizes
MAX_GROUPS = 10_000
MAX_TEXT = 2048
_UNPICKLE_BUFFER_BYTES = 1 << 20
_INT_ONLY = frozenset({int})  # bool is not a dimension

_NUMBERED = re.compile(r"(\d+)(?:\.json|\.pkl|\.pickle)?$")


class DumpError(ValueError):
    """The input is not a readable flight-recorder dump."""


class DumpRefused(DumpError):
    """The input would have run code, or is too large: it was refused without running it."""


# --- reading ---------------------------------------------------------------------------------


class _PlainUnpickler(pickle.Unpickler):
    """Builds plain containers and scalars only; never imports and never calls."""

    def find_class(self, module: str, name: str) -> Any:
        raise DumpRefused(f"refused: the pickle asks to import {module}.{name} "
                          "(a flight-recorder dump holds only plain data)")

    def persistent_load(self, pid: Any) -> Any:
        raise DumpRefused("refused: the pickle uses persistent ids "
                          "(a flight-recorder dump holds only plain data)")


def looks_like_dump(head: bytes) -> str | None:
    """'pickle' or 'json' when the first bytes of a file look like a dump, else None."""
    if len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5:
        return "pickle"
    text = head.lstrip()
    if text.startswith(b"{") and any(key in head for key in (
            b'"comm_lib_version"', b'"pg_config"', b'"nccl_comm_state"', b'"pg_status"')):
        return "json"
    return None


def decode_dump(data: bytes) -> dict[str, Any]:
    """The dump's top-level dict, from pickle or JSON bytes. Raises DumpError / DumpRefused."""
    if len(data) > MAX_DUMP_BYTES:
        raise DumpRefused(f"refused: {len(data)} bytes is over the {MAX_DUMP_BYTES >> 20} MiB "
                          "limit for one dump")
    kind = looks_like_dump(data[:4096])
    obj: Any
    if kind == "pickle":
        try:
            obj = _PlainUnpickler(_peekable(data)).load()
        except DumpRefused:
            raise
        except (TypeError, AttributeError) as exc:
            # REDUCE/BUILD/NEWOBJ on plain data: there is no callable, so nothing ran.
            raise DumpRefused(f"refused: the pickle tries to call or build an object ({exc})"
                              ) from exc
        except (pickle.UnpicklingError, EOFError, ValueError, IndexError, KeyError,
                MemoryError, RecursionError) as exc:
            raise DumpError(f"not a readable pickle: {type(exc).__name__}: {exc}") from exc
    elif kind == "json":
        try:
            obj = json.loads(data)
        except (ValueError, RecursionError) as exc:
            raise DumpError(f"not readable JSON: {exc}") from exc
    else:
        raise DumpError("not a flight-recorder dump (neither a pickle nor its JSON form)")
    if (isinstance(obj, dict) and "entries" not in obj and "version" in obj
            and ("pg_config" in obj or "pg_status" in obj)):
        obj = {**obj, "entries": []}  # torch leaves the key out when the buffer is empty
    if not isinstance(obj, dict) or "entries" not in obj:
        raise DumpError("not a flight-recorder dump: no top-level 'entries'")
    return obj


def _peekable(data: bytes) -> io.BufferedReader:
    """The dump as a stream the C unpickler reads in large slices: a stream without `peek`
    (a bare BytesIO) costs a Python call per opcode, twice the time of `pickle.loads`."""
    return io.BufferedReader(io.BytesIO(data), buffer_size=_UNPICKLE_BUFFER_BYTES)


# Without find_class the C unpickler can build only dict, list, tuple, set, frozenset, str,
# bytes, bytearray, int, float, bool and None; JSON builds fewer. Shared references (a small
# pickle that names one huge list a million times) are never walked here: the typed form below
# reads a bounded number of items from every container it touches.


# --- typed form ------------------------------------------------------------------------------


class FrEntry(NamedTuple):
    """One recorded operation of one rank (a tuple: cheap to build and to send between
    processes, a dump has thousands). Only what the comparison and the report use is kept."""

    pg: str  # the process group's id as the dump names it
    seq: int | None  # collective_seq_id (p2p operations: p2p_seq_id, with is_p2p)
    is_p2p: bool
    op: str  # `all_reduce`, `broadcast`, … (the profiling name without its backend)
    backend: str  # `nccl`, `gloo`, …
    state: str  # scheduled | started | completed
    input_sizes: tuple[tuple[int, ...], ...]
    frames: tuple[str, ...]  # `file:line function`, innermost first
    input_dtypes: tuple[str, ...] = ()  # `Float`, `Half`, … one per input tensor


@dataclass(frozen=True)
class PgStatus:
    last_enqueued: int | None
    last_started: int | None
    last_completed: int | None


@dataclass(frozen=True)
class RankDump:
    """One rank's dump."""

    rank: int
    source: str
    version: str
    pg_ranks: Mapping[str, tuple[int, ...]]  # group id → its members' global ranks
    pg_names: Mapping[str, str]
    status: Mapping[str, PgStatus]
    entries: tuple[FrEntry, ...]


def rank_from_name(name: str) -> int | None:
    """`nccl_trace_rank_7`, `fr_rank_7.json` → 7."""
    m = _NUMBERED.search(name.rsplit("/", 1)[-1])
    return int(m.group(1)) if m else None


def load_dump(data: bytes, *, source: str, rank: int | None = None) -> RankDump:
    """Decode and type one dump. The rank comes from `rank` or the file name's last number."""
    with gc_paused():  # a dump is ~15 containers per entry, none in a cycle
        return _typed_dump(decode_dump(data), source, rank)


def _typed_dump(raw: dict[str, Any], source: str, rank: int | None) -> RankDump:
    if rank is None:
        rank = rank_from_name(source)
    if rank is None:
        raise DumpError("cannot tell the rank: the file name ends in no number")
    entries_raw = raw.get("entries")
    if not isinstance(entries_raw, list):
        raise DumpError("'entries' is not a list")
    if len(entries_raw) > MAX_ENTRIES:
        raise DumpRefused(f"refused: {len(entries_raw):,} entries (limit {MAX_ENTRIES:,})")
    pg_ranks: dict[str, tuple[int, ...]] = {}
    pg_names: dict[str, str] = {}
    config = raw.get("pg_config")
    if isinstance(config, dict):
        if len(config) > MAX_GROUPS:
            raise DumpRefused(f"refused: {len(config):,} process groups (limit {MAX_GROUPS:,})")
        for key, value in config.items():
            if isinstance(value, dict):
                pg_ranks[str(key)] = _ranks(value.get("ranks"))
                pg_names[str(key)] = _text(value.get("desc") or value.get("name") or key)
    status: dict[str, PgStatus] = {}
    pg_status = raw.get("pg_status")
    if isinstance(pg_status, dict):
        for key, value in list(pg_status.items())[:MAX_GROUPS]:
            if isinstance(value, dict):
                status[str(key)] = PgStatus(_int(value.get("last_enqueued_collective")),
                                            _int(value.get("last_started_collective")),
                                            _int(value.get("last_completed_collective")))
    typer = _EntryTyper()
    typed = [typer.entry(item) for item in entries_raw]
    # Stacks are read for each group's newest entry only (the one a report shows): a ring of
    # 2,000 entries with 30-frame stacks is most of a dump's size.
    newest: dict[tuple[str, bool], int] = {}
    for index, e in enumerate(typed):
        if e is not None and e.seq is not None:
            key = (e.pg, e.is_p2p)
            if key not in newest or (typed[newest[key]].seq or 0) <= e.seq:  # type: ignore[union-attr]
                newest[key] = index
    for index in newest.values():
        e = typed[index]
        if e is not None:
            typed[index] = e._replace(frames=_frames(entries_raw[index].get("frames")))
    entries = tuple(e for e in typed if e is not None)
    for key, desc in typer.group_descs.items():
        if not pg_names.get(key):
            pg_names[key] = desc
        # torch's gloo recorder lists the default group under an empty name in pg_config
        if key not in pg_ranks and "" in pg_ranks and pg_names.get(key) == "default_pg":
            pg_ranks[key] = pg_ranks[""]
    if "" in pg_ranks and len(pg_ranks) > 1 and not any(e.pg == "" for e in entries):
        del pg_ranks[""]  # its entries are filed under the group's real name
    return RankDump(rank, source, _text(raw.get("version", "")), pg_ranks, pg_names, status,
                    entries)


def merge_dumps(parts: Sequence[RankDump]) -> RankDump | None:
    """One rank's several buffers (torch's CPU recorder and NCCL's) as one dump: groups and
    statuses joined (the first buffer's word wins), entries both hold counted once."""
    if len(parts) <= 1:
        return parts[0] if parts else None
    parts = sorted(parts, key=lambda p: not p.entries)  # a buffer with entries speaks first
    first = parts[0]
    seen: set[FrEntry] = set()
    entries: list[FrEntry] = []
    pg_ranks: dict[str, tuple[int, ...]] = {}
    pg_names: dict[str, str] = {}
    status: dict[str, PgStatus] = {}
    for part in parts:
        for key, members in part.pg_ranks.items():
            pg_ranks.setdefault(key, members)
        for key, name in part.pg_names.items():
            pg_names.setdefault(key, name)
        for key, st in part.status.items():
            status.setdefault(key, st)
        entries.extend(e for e in part.entries if e not in seen)
        seen.update(part.entries)  # across buffers only: one buffer may repeat a tuple
    return RankDump(first.rank, first.source, first.version, pg_ranks, pg_names, status, tuple(entries))


class _EntryTyper:
    """Types a dump's entries one by one. Equal groups, states and sizes become one object, so
    thousands of entries build (and pickle, on their way back from a worker) few values."""

    def __init__(self) -> None:
        self.op_backend: dict[str, tuple[str, str]] = {}  # profiling name → (op, backend)
        self.shared: dict[Any, Any] = {}
        self.group_descs: dict[str, str] = {}  # group id → the desc its first entry gives

    def entry(self, item: Any) -> FrEntry | None:
        if not isinstance(item, dict):
            return None
        get = item.get
        name = _text(get("profiling_name", ""))
        op_backend = self.op_backend.get(name)
        if op_backend is None:
            prefix, _, suffix = name.rpartition(":")
            op_backend = self.op_backend[name] = (suffix or name, prefix)
        group = get("process_group")
        if isinstance(group, (list, tuple)) and group:
            pg_name = _text(group[0])
            if len(group) > 1 and pg_name not in self.group_descs:
                self.group_descs[pg_name] = _text(group[1])
        else:
            pg_name = _text(get("pg_id", ""))
        is_p2p = get("is_p2p") is True
        seq = _int(get("p2p_seq_id") if is_p2p else get("collective_seq_id"))
        state = _text(get("state", ""))
        sizes = _sizes(get("input_sizes"))
        dtypes = _dtypes(get("input_dtypes"))
        op, backend = op_backend
        share = self.shared.setdefault
        pg, state, sizes = share(pg_name, pg_name), share(state, state), share(sizes, sizes)
        return FrEntry(pg, seq, is_p2p, op, backend, state, sizes, (), share(dtypes, dtypes))


def _frames(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(f"{_text(f.get('filename'))}:{_int(f.get('line'))} {_text(f.get('name'))}"
                 for f in value[:MAX_FRAMES] if isinstance(f, dict))


def _text(value: Any) -> str:
    if type(value) is str and len(value) <= MAX_TEXT:
        return value
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return str(value)[:MAX_TEXT] if value is not None else ""


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _ranks(value: Any) -> tuple[int, ...]:
    if isinstance(value, str):
        return tuple(int(x) for x in re.findall(r"-?\d+", value))
    if isinstance(value, (list, tuple)):
        return tuple(v for v in value if isinstance(v, int) and not isinstance(v, bool))
    return ()


def _dtypes(value: Any) -> tuple[str, ...]:
    """An entry's input dtypes (`["Float"]`), capped as its sizes are."""
    if not isinstance(value, (list, tuple)):
        return ()
    # (strings only: a shared object is never turned into text, so a crafted dump cannot
    # make each entry's dtypes cost the size of that object)
    return tuple(v[:32] for v in value[:MAX_TENSORS] if type(v) is str)


def _sizes(value: Any) -> tuple[tuple[int, ...], ...]:
    if not isinstance(value, (list, tuple)):
        return ()
    out = []
    for shape in value[:MAX_TENSORS]:
        if isinstance(shape, (list, tuple)):
            dims = tuple(shape[:MAX_TENSORS])
            if not _INT_ONLY.issuperset(map(type, dims)):
                dims = tuple(d for d in dims if type(d) is int)
            out.append(dims)
    return tuple(out)


# --- analysis --------------------------------------------------------------------------------


@dataclass(frozen=True)
class RankState:
    """One rank's position in one process group."""

    rank: int
    last_enqueued: int | None
    last_started: int | None
    last_completed: int | None
    last_op: str | None
    last_frames: tuple[str, ...]
    status: PgStatus | None = None  # what the backend itself recorded, when it did
    last_sizes: tuple[tuple[int, ...], ...] = ()  # input sizes of the last collective


@dataclass(frozen=True)
class GroupVerdict:
    """What the dumps say about one process group."""

    pg: str
    name: str
    members: tuple[int, ...]
    states: tuple[RankState, ...]
    no_dump: tuple[int, ...]  # members whose dump is absent
    verdict: str  # never_entered | member_mismatch | op_mismatch | size_mismatch | dtype_mismatch |
    # all_entered | absent |
    # consistent
    seq: int | None = None
    op: str | None = None
    waiting: tuple[int, ...] = ()  # ranks that entered the collective at `seq`
    never_entered: tuple[int, ...] = ()  # ranks with a dump that never entered it
    blamed: tuple[int, ...] = ()  # ranks the dumps point at, () when none can be
    sides: tuple[tuple[int, str, tuple[tuple[int, ...], ...]], ...] = ()  # rank, op, sizes
    completed_by: tuple[int, ...] = ()
    sentences: tuple[str, ...] = ()


@dataclass(frozen=True)
class FrAnalysis:
    dumps: int
    ranks: tuple[int, ...]
    groups: tuple[GroupVerdict, ...]
    problems: tuple[str, ...] = ()
    primary: GroupVerdict | None = field(default=None)


def analyse(dumps: Sequence[RankDump], problems: Iterable[str] = ()) -> FrAnalysis:
    """Compare every rank's collectives per process group and say where they part."""
    by_rank: dict[int, RankDump] = {}
    notes = list(problems)
    empty = sorted({d.rank for d in dumps if not d.entries} - {d.rank for d in dumps if d.entries})
    if empty:
        # An empty buffer (torch writes one for a recorder that saw nothing, e.g. the CPU
        # recorder of an NCCL job) says nothing of where the rank is: not "entered nothing".
        notes.append(f"rank(s) {_ranks_text(empty)}: the flight recorder holds no "
                        "collectives, so their side is unknown")
    for dump in sorted((d for d in dumps if d.entries), key=lambda d: d.rank):
        # The same rank dumped twice (pickle and JSON): keep the one that says more (stacks).
        known = by_rank.get(dump.rank)
        if known is None or _detail(dump) > _detail(known):
            by_rank[dump.rank] = dump
    groups: dict[str, tuple[str, tuple[int, ...]]] = {}
    for dump in by_rank.values():
        for pg, members in dump.pg_ranks.items():
            if pg not in groups or len(members) > len(groups[pg][1]):
                groups[pg] = (dump.pg_names.get(pg, pg), members)
        for entry in dump.entries:
            groups.setdefault(entry.pg, (entry.pg, ()))
    verdicts = [_members_agree(_group(pg, name, members, by_rank), by_rank)
                for pg, (name, members) in sorted(
                    groups.items(), key=lambda kv: (-len(kv[1][1]), kv[0]))]
    verdicts = [v for v in verdicts if v.states]
    ranked = sorted(verdicts, key=_severity)
    primary = ranked[0] if ranked and _severity(ranked[0])[0] < 3 else None
    return FrAnalysis(len(by_rank), tuple(by_rank), tuple(verdicts), tuple(notes), primary)


def _members_agree(verdict: GroupVerdict, by_rank: Mapping[int, RankDump]) -> GroupVerdict:
    """A group id whose members the ranks' dumps list differently, the lists sharing ranks
    (`3`: [0, 1, 2, 3] on ranks 0-2, [0, 1, 2] on rank 3) is no one group: its ranks created
    their groups from different lists or in different orders, so its collectives cannot be
    compared. One rank against two or more that agree is the odd one out; otherwise no single
    rank can be blamed."""
    sides: dict[tuple[int, ...], list[int]] = {}
    for rank, dump in sorted(by_rank.items()):
        members = dump.pg_ranks.get(verdict.pg)
        if members:
            sides.setdefault(members, []).append(rank)
    # Lists that share no rank are two groups under one id (torch names a mesh's subgroups in
    # order on each rank: a 2-D mesh's `1` is [0, 1] on ranks 0-1 and [2, 3] on ranks 2-3),
    # never a disagreement; only lists that overlap without being equal are one group its
    # ranks define differently.
    lists = list(sides)
    if not any(set(a) & set(b) for i, a in enumerate(lists) for b in lists[i + 1:]):
        return verdict
    blamed = _odd_one_out(sides)
    detail = "; ".join(f"rank(s) {_ranks_text(rs)}: [{', '.join(map(str, m))}]"
                       for m, rs in sides.items())
    sentences = (f"{_pg_label(verdict.name)}: the ranks' dumps list its members differently "
                 f"({detail}): they created their groups in different orders or from different "
                 "lists, so its collectives cannot be compared",
                 f"rank {blamed[0]} is the odd one out" if blamed else
                 "no single rank can be blamed: each side only sees the other disagree")
    return replace(verdict, verdict="member_mismatch", blamed=blamed, sentences=sentences,
                   never_entered=(), waiting=(), seq=None, op=None, sides=(), completed_by=())


def _detail(dump: RankDump) -> tuple[int, int]:
    return len(dump.entries), sum(len(e.frames) for e in dump.entries)


def _severity(v: GroupVerdict) -> tuple[int, int]:
    order = {"never_entered": 0, "member_mismatch": 0, "op_mismatch": 1, "size_mismatch": 1,
             "dtype_mismatch": 1, "all_entered": 2,
             "absent": 2}
    return order.get(v.verdict, 3), v.seq if v.seq is not None else 0


def _group(pg: str, name: str, members: tuple[int, ...],
           by_rank: Mapping[int, RankDump]) -> GroupVerdict:
    seqs: dict[int, dict[int, FrEntry]] = {}
    states: list[RankState] = []
    for rank, dump in by_rank.items():
        mine: dict[int, FrEntry] = {}
        for e in dump.entries:
            if e.pg == pg and not e.is_p2p and e.seq is not None:
                mine[e.seq] = e
        if not mine and members and rank not in members:
            continue
        if not mine and not members:
            continue
        seqs[rank] = mine
        started = [s for s, e in mine.items() if e.state in ("started", "completed")]
        completed = [s for s, e in mine.items() if e.state == "completed"]
        newest = mine[max(mine)] if mine else None
        states.append(RankState(rank, max(mine) if mine else None,
                                max(started) if started else None,
                                max(completed) if completed else None,
                                newest.op if newest else None, newest.frames if newest else (),
                                dump.status.get(pg), newest.input_sizes if newest else ()))
    present = tuple(sorted(seqs))
    members = members or present
    no_dump = tuple(r for r in members if r not in by_rank)
    base = GroupVerdict(pg, name, members, tuple(states), no_dump, "consistent")
    if not present:
        return base
    # Only sequence numbers every rank's ring buffer still covers can be compared.
    floor = max(min(s) if s else 0 for s in seqs.values())
    top = max((max(s) for s in seqs.values() if s), default=None)
    if top is None:
        return base
    for seq in range(floor, top + 1):
        entered = {r: s[seq] for r, s in seqs.items() if seq in s}
        if not entered:
            continue
        missing = tuple(r for r in present if r not in entered)
        ops = {e.op for e in entered.values()}
        if len(ops) > 1:
            return _mismatch(base, seq, entered, "op_mismatch", lambda e: e.op)
        sizes = {e.input_sizes for e in entered.values()}
        if len(sizes) > 1:
            return _mismatch(base, seq, entered, "size_mismatch", lambda e: e.input_sizes)
        typed = {r: e for r, e in entered.items() if e.input_dtypes}
        if len({e.input_dtypes for e in typed.values()}) > 1:
            # (the same count of elements, of another width: other bytes; a rank whose dump
            # records no dtypes is no side)
            return _mismatch(base, seq, typed, "dtype_mismatch", lambda e: e.input_dtypes)
        if missing:
            op = next(iter(ops))
            waiting = tuple(sorted(entered))
            behind = [r for r in missing if (max(seqs[r]) if seqs[r] else -1) < seq]
            sentences = [f"{_pg_label(name)}: rank(s) {_ranks_text(missing)} never entered "
                         f"collective #{seq} ({op}) that rank(s) {_ranks_text(waiting)} "
                         "entered and wait in"]
            for r in missing:
                state = next(s for s in states if s.rank == r)
                frame = user_frame(state.last_frames)
                sentences.append(
                    f"rank {r}'s last recorded collective is #{state.last_enqueued} "
                    f"({state.last_op})" + (f", called from {frame}" if frame else "")
                    + ("" if r in behind else "; it recorded later ones, so it took another "
                       "path"))
            if no_dump:
                sentences.append(f"no dump from rank(s) {_ranks_text(no_dump)}: their side is "
                                 "unknown")
            return replace(base, verdict="never_entered", seq=seq, op=op, waiting=waiting,
                           never_entered=missing, blamed=missing, sentences=tuple(sentences))
    last = {r: s[top] for r, s in seqs.items() if top in s}
    op = next(iter(last.values())).op
    done = tuple(sorted(r for r, e in last.items() if e.state == "completed"))
    everyone_there = len(last) == len(present)
    if everyone_there and not done and no_dump:
        sentences = [f"{_pg_label(name)}: every rank that wrote a dump "
                     f"({_ranks_text(present)}) is in collective #{top} ({op}) and none "
                     f"completed it; rank(s) {_ranks_text(no_dump)} wrote no dump and are the "
                     "suspects (not proven: their side is unknown)"]
        return replace(base, verdict="absent", seq=top, op=op, waiting=tuple(sorted(last)),
                       sentences=tuple(sentences))
    if everyone_there and not done and any(e.state == "started" for e in last.values()):
        sentences = [f"{_pg_label(name)}: every rank entered collective #{top} ({op}) and none "
                     "completed it"]
        return replace(base, verdict="all_entered", seq=top, op=op,
                       waiting=tuple(sorted(last)), sentences=tuple(sentences))
    sentences = [f"{_pg_label(name)}: the ranks' collectives agree up to #{top} ({op})"]
    if no_dump:
        sentences.append(f"no dump from rank(s) {_ranks_text(no_dump)}")
    return replace(base, seq=top, op=op, waiting=tuple(sorted(last)), completed_by=done,
                   sentences=tuple(sentences))


def _odd_one_out(sides: Mapping[Any, list[int]]) -> tuple[int, ...]:
    """One rank against at least two that agree: the odd one out. Otherwise no single rank."""
    ordered = sorted(sides.values(), key=len)
    if len(ordered) == 2 and len(ordered[0]) == 1 and len(ordered[1]) >= 2:
        return tuple(ordered[0])
    return ()


def _mismatch(base: GroupVerdict, seq: int, entered: Mapping[int, FrEntry], verdict: str,
              key: Any) -> GroupVerdict:
    sides = tuple((r, e.op, e.input_sizes) for r, e in sorted(entered.items()))
    groups: dict[Any, list[int]] = {}
    for r, e in sorted(entered.items()):
        groups.setdefault(key(e), []).append(r)
    blamed = _odd_one_out(groups)
    what = {"op_mismatch": "operations", "dtype_mismatch": "tensor dtypes"}.get(
        verdict, "tensor sizes")
    detail = "; ".join(f"rank(s) {_ranks_text(rs)}: "
                       + (k if verdict == "op_mismatch" else
                          "/".join(k) if verdict == "dtype_mismatch" else _sz(k))
                       for k, rs in groups.items())
    sentences = [f"{_pg_label(base.name)}: at collective #{seq} the ranks run different "
                 f"{what} ({detail})"]
    sentences.append(f"rank {blamed[0]} is the odd one out" if blamed else
                     "no single rank can be blamed: each side only sees the other disagree")
    return replace(base, verdict=verdict, seq=seq,
                   op="/".join(sorted({e.op for e in entered.values()})),
                   waiting=tuple(sorted(entered)), blamed=blamed, sides=sides,
                   sentences=tuple(sentences))


def user_frame(frames: Sequence[str]) -> str | None:
    """The innermost frame outside torch: where the job called the collective."""
    for frame in frames:
        if "/torch/" not in frame and "\\torch\\" not in frame:
            return frame
    return frames[0] if frames else None


def _sz(sizes: Any) -> str:
    return ",".join("x".join(str(d) for d in s) or "scalar" for s in sizes) or "no tensors"


def _pg_label(name: str) -> str:
    return f"process group {name!r}" if name else "the default process group"


def _ranks_text(ranks: Iterable[int]) -> str:
    return ", ".join(str(r) for r in ranks)


__all__ = [
    "MAX_DUMP_BYTES",
    "DumpError",
    "DumpRefused",
    "FrAnalysis",
    "FrEntry",
    "GroupVerdict",
    "PgStatus",
    "RankDump",
    "RankState",
    "analyse",
    "decode_dump",
    "load_dump",
    "looks_like_dump",
    "merge_dumps",
    "rank_from_name",
    "user_frame",
]
