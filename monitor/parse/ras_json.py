"""Parser for NCCL RAS JSON STATUS replies (`SET FORMAT json`, NCCL 2.28.7+).

JSON is a raw dump: the server groups nothing, so this module derives what the text report states
(each rank's status, MISMATCH, INCOMPLETE, ERROR, dead and unresponsive processes).

Damage handled, never fatal:
* the 2.28.7/2.28.9 missing comma after `"nvml_dev": N` in missing-rank objects (repaired,
  fault `json_comma_repaired`);
* acknowledgement lines (`OK`, `SERVER PROTOCOL 2`) left before the document (skipped);
* a document cut short or otherwise invalid: the communicator objects that are whole are
  salvaged one by one and the report is marked incomplete;
* zero-filled communicator entries (NCCL issue #2346: hash 0x0, size 0) are dropped and counted.

Speed: a 16,384-rank job's reply is ~27 MB and ~50,000 rank objects. With the optional extra
`fast` (msgspec) installed, a document of NCCL's own shape is decoded straight into typed
records (no dictionary per rank, types checked in C) and turned into the same report; anything
it rejects, damaged or unusual, goes the standard library way below, so both give identical
reports (tests/test_ras_parse.py checks them against each other).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter
from typing import Any

from monitor.parse.gc_pause import gc_paused
from monitor.parse.ras_model import (
    ERROR_TEXTS,
    IN_PROGRESS,
    OPS,
    CommProblem,
    CommStatus,
    Communicator,
    ErrorGroup,
    MissingRank,
    ProcessRef,
    RankRef,
    RankState,
    RasReport,
    ReportFormat,
    normalise_hash,
    parse_version,
    status_from_flags,
)

RE_MISSING_COMMA = re.compile(r'("nvml_dev": -?\d+)(\r?\n\s*"status")')
RE_TOP_STRING = re.compile(r'^  "(nccl_version|timestamp)": "([^"\n]*)"', re.MULTILINE)
RE_TOP_INT = re.compile(
    r'^  "(cuda_runtime_version|cuda_driver_version|communicators_count)": (-?\d+)', re.MULTILINE
)
RE_COMMS_ARRAY = re.compile(r'"communicators": \[')

_DECODER = json.JSONDecoder()
LARGE_REPLY_BYTES = 1 << 20
_new_tuple = tuple.__new__
_NOT_ERRORS = (0, IN_PROGRESS)
_NOT_ERRORS_SET = frozenset(_NOT_ERRORS)
_STATUS_OF = itemgetter(5)
_INIT_STATE_OF = itemgetter(6)
_ASYNC_ERROR_OF = itemgetter(7)
_COUNTS_OF = itemgetter(8)


class _Invalid(Exception):
    """A JSON value of the wrong shape (counted as a fault, never raised to the caller)."""


def _int(obj: Mapping[str, Any], key: str, default: int | None = None) -> int:
    value = obj.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Invalid(f"{key} is not an integer")
    return value


_RUNNING, _INIT, _FINALIZE, _ABORT = (
    CommStatus.RUNNING,
    CommStatus.INIT,
    CommStatus.FINALIZE,
    CommStatus.ABORT,
)


def _rank_state(entry: Mapping[str, Any]) -> RankState:
    """The fast path for NCCL's fixed layout (16k ranks must parse in tens of ms); anything
    unusual falls back to the careful reader."""
    try:
        status = entry["status"]
        counts_obj = entry["collective_counts"]
        rank, pid, gpu, nvml = entry["rank"], entry["pid"], entry["cuda_dev"], entry["nvml_dev"]
        init_state, async_error = status["init_state"], status["async_error"]
        counts = (
            counts_obj["Broadcast"],
            counts_obj["Reduce"],
            counts_obj["AllGather"],
            counts_obj["ReduceScatter"],
            counts_obj["AllReduce"],
        )
        host = entry["host"]
        if status["abort_flag"]:
            state = _ABORT
        elif status["finalize_called"] or status["destroy_flag"]:
            state = _FINALIZE
        else:
            state = _RUNNING if init_state == 0 else _INIT
    except (KeyError, TypeError):
        return _rank_state_careful(entry)
    if not (
        type(rank) is int
        and type(pid) is int
        and type(gpu) is int
        and type(nvml) is int
        and type(init_state) is int
        and type(async_error) is int
        and type(host) is str
        and type(counts[0]) is int
        and type(counts[1]) is int
        and type(counts[2]) is int
        and type(counts[3]) is int
        and type(counts[4]) is int
    ):
        return _rank_state_careful(entry)
    # tuple.__new__ directly: the NamedTuple constructor adds a Python frame per rank.
    fields = (rank, host, pid, gpu, nvml, state, init_state, async_error, counts)
    return _new_tuple(RankState, fields)


def _rank_state_careful(entry: Mapping[str, Any]) -> RankState:
    status = entry.get("status") or {}
    counts_obj = entry.get("collective_counts") or {}
    counts = tuple(int(counts_obj.get(op, 0)) for op in OPS)
    init_state = _int(status, "init_state", 0)
    return RankState(
        rank=_int(entry, "rank"),
        host=str(entry.get("host", "unknown")),
        pid=_int(entry, "pid", -1),
        gpu=_int(entry, "cuda_dev", -1),
        nvml_gpu=_int(entry, "nvml_dev", -1),
        status=status_from_flags(
            init_state,
            bool(status.get("finalize_called")),
            bool(status.get("destroy_flag")),
            bool(status.get("abort_flag")),
        ),
        init_state=init_state,
        async_error=_int(status, "async_error", 0),
        counts=counts,
    )


def _missing_rank(entry: Mapping[str, Any]) -> MissingRank:
    status = entry.get("status") or {}
    host = str(entry.get("host", "unknown"))
    pid = _int(entry, "pid", -1)
    ref = RankRef(
        _int(entry, "rank"),
        None if host == "unknown" else host,
        None if pid < 0 else pid,
        _int(entry, "cuda_dev", -1),
        _int(entry, "nvml_dev", -1),
    )
    return MissingRank(ref, bool(status.get("unresponsive")), bool(status.get("considered_dead")))


def _error_groups(kind: str, codes: Iterable[tuple[int, RankRef]]) -> tuple[ErrorGroup, ...]:
    by_code: dict[int, list[RankRef]] = {}
    for code, ref in codes:
        by_code.setdefault(code, []).append(ref)
    ordered = sorted(by_code.items(), key=lambda item: (-len(item[1]), item[0]))
    return tuple(
        ErrorGroup(kind, code, ERROR_TEXTS.get(code, "Unexpected error"), len(refs), tuple(refs))
        for code, refs in ordered
    )


def _communicator(obj: Mapping[str, Any]) -> Communicator:
    ranks = tuple(_rank_state(e) for e in obj.get("ranks") or ())
    return _assemble(
        obj.get("hash", "0x0"),
        obj.get("secondary_hash", ""),
        _int(obj, "size", 0),
        ranks,
        obj.get("missing_ranks") or (),
    )


def _assemble(
    hash_: object,
    secondary_hash: object,
    size: int,
    ranks: tuple[RankState, ...],
    missing_entries: Iterable[Any],
) -> Communicator:
    """A communicator from its answering ranks (already read) and its raw missing ranks.
    Thousands of small communicators: the common case (nobody missing, no error) skips the
    work it does not need."""
    missing = tuple(map(_missing_rank, missing_entries)) if missing_entries else ()
    problems: set[CommProblem] = set()
    missing_count = 0
    if missing:
        missing_count = sum(1 for m in missing if m.unresponsive)
        if missing_count:
            problems.add(CommProblem.INCOMPLETE)
        if missing_count < len(missing):
            problems.add(CommProblem.MISMATCH)
    # Whole-column sets (C loops): 50,000 ranks cost a few ms instead of tens.
    statuses = set(map(_STATUS_OF, ranks))
    if len(statuses) > 1 or len(set(map(_COUNTS_OF, ranks))) > 1:
        problems.add(CommProblem.MISMATCH)
    init_errors: list[tuple[int, RankRef]] = []
    async_errors: list[tuple[int, RankRef]] = []
    errors: tuple[ErrorGroup, ...] = ()
    if not set(map(_INIT_STATE_OF, ranks)) <= _NOT_ERRORS_SET:
        init_errors = [(r.init_state, r.ref) for r in ranks if r.init_state not in _NOT_ERRORS]
    if not set(map(_ASYNC_ERROR_OF, ranks)) <= _NOT_ERRORS_SET:
        async_errors = [(r.async_error, r.ref) for r in ranks if r.async_error not in _NOT_ERRORS]
    if init_errors or async_errors:
        problems.add(CommProblem.ERROR)
        errors = _error_groups("init", init_errors) + _error_groups("async", async_errors)
    if len(statuses) == 1:
        (status,) = statuses
    else:
        status = max(statuses, key=lambda s: s.order) if statuses else None
    return Communicator(
        hash=normalise_hash(str(hash_)),
        secondary_hash=str(secondary_hash),
        size=size,
        status=status,
        problems=frozenset(problems),
        ranks=ranks,
        missing=missing,
        missing_count=missing_count,
        init_error_ranks=len(init_errors),
        async_error_ranks=len(async_errors),
        errors=errors,
    )


def _processes(comms: Iterable[Communicator], *, dead: bool) -> tuple[ProcessRef, ...]:
    """Group missing ranks into processes: the dead ones, or the unresponsive-but-alive ones."""
    gpus: dict[tuple[str, int], list[int]] = {}
    for comm in comms:
        for missing in comm.missing:
            if not missing.unresponsive and not missing.dead:
                continue
            if bool(missing.dead) is not dead:
                continue
            ref = missing.ref
            key = (ref.host or "unknown", ref.pid if ref.pid is not None else -1)
            devs = gpus.setdefault(key, [])
            if ref.gpu is not None and ref.gpu not in devs:
                devs.append(ref.gpu)
    return tuple(
        ProcessRef(host, pid, tuple(sorted(devs))) for (host, pid), devs in sorted(gpus.items())
    )


def _strip_preamble(text: str) -> tuple[str, int]:
    """Drop acknowledgement lines before the document; return the rest and how many were dropped."""
    start = text.find("{")
    if start <= 0:
        return text, 0
    dropped = [line for line in text[:start].split("\n") if line.strip()]
    return text[start:], len(dropped)


def _salvage(text: str) -> tuple[dict[str, Any], list[Any], bool]:
    """Read what survives of a damaged document: top-level scalars, then whole communicators."""
    top: dict[str, Any] = {}
    for match in RE_TOP_STRING.finditer(text):
        top.setdefault(match.group(1), match.group(2))
    for match in RE_TOP_INT.finditer(text):
        top.setdefault(match.group(1), int(match.group(2)))
    comms: list[Any] = []
    array = RE_COMMS_ARRAY.search(text)
    if array is None:
        return top, comms, False
    pos = array.end()
    ended = False
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text):
            break
        if text[pos] == "]":
            ended = True
            break
        try:
            obj, pos = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError:
            break
        comms.append(obj)
    return top, comms, ended


def _decode(text: str, faults: list[str]) -> tuple[str, Any]:
    """json.loads, repairing the 2.28.7/2.28.9 missing comma first when the header says 2.28
    (or when the plain parse fails): a 16k-rank document is not scanned twice for nothing."""
    suspect = '"nccl_version": "2.28.' in text[:200]
    if suspect:
        text = _repair(text, faults)
    try:
        return text, json.loads(text)
    except json.JSONDecodeError as exc:
        if suspect:
            return text, exc
        repaired = _repair(text, faults)
        if repaired is text:
            return text, exc
        try:
            return repaired, json.loads(repaired)
        except json.JSONDecodeError as again:
            return repaired, again


def _repair(text: str, faults: list[str]) -> str:
    repaired, fixes = RE_MISSING_COMMA.subn(r"\1,\2", text)
    if not fixes:
        return text
    faults.append("json_comma_repaired")
    return repaired


def parse_json(data: str | bytes, *, fast: bool | None = None) -> RasReport:
    """Parse a JSON STATUS reply. Never raises; damage is counted in `faults`.

    `fast`: decode with msgspec (None: when it is installed; False: the standard library only).
    """
    with gc_paused(len(data) >= LARGE_REPLY_BYTES):  # ~30 containers per rank
        return _parse_json(data, _typed_decoder() if fast is not False else None)


def _parse_json(data: str | bytes, typed: Any) -> RasReport:
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    faults: list[str] = []
    text, preamble = _strip_preamble(text)
    if preamble:
        faults.append("preamble_lines_skipped")
    if typed is not None:
        report = _parse_typed(typed, text, list(faults))
        if report is not None:
            return report
    repaired, doc_or_error = _decode(text, faults)
    complete = True
    try:
        if isinstance(doc_or_error, Exception):
            raise doc_or_error
        doc = doc_or_error
        if not isinstance(doc, dict):
            raise _Invalid("document is not an object")
        top: Mapping[str, Any] = doc
        raw_comms = doc.get("communicators") or []
        if not isinstance(raw_comms, list):
            raise _Invalid("communicators is not an array")
        ras: Mapping[str, Any] = doc["ras"] if isinstance(doc.get("ras"), dict) else {}
    except (json.JSONDecodeError, _Invalid) as exc:
        complete = False
        faults.append(f"invalid_json: {str(exc)[:80]}")
        top, raw_comms, _ended = _salvage(repaired)
        ras = {}
    comms: list[Communicator] = []
    bad = 0
    for obj in raw_comms:
        try:
            if not isinstance(obj, dict):
                raise _Invalid("communicator is not an object")
            comms.append(_communicator(obj))
        except (_Invalid, TypeError, ValueError, AttributeError):
            bad += 1
    if bad:
        faults.append(f"bad_communicators: {bad}")
    return _report(text, top, ras, comms, complete, faults)


def _report(
    text: str,
    top: Mapping[str, Any],
    ras: Mapping[str, Any],
    all_comms: Sequence[Communicator],
    complete: bool,
    faults: list[str],
) -> RasReport:
    comms = [c for c in all_comms if c.size]  # #2346: zero-filled entries
    dropped_zero = len(all_comms) - len(comms)
    if dropped_zero:
        faults.append(f"zero_size_communicators: {dropped_zero}")
    version_text = top.get("nccl_version")
    version_text = version_text if isinstance(version_text, str) else None
    collection = ras.get("collection_time_sec") if ras else None
    timeouts = ras.get("timeouts_count") if ras else 0
    dead = _processes(comms, dead=True)
    unresponsive = _processes(comms, dead=False)
    recognised = version_text is not None or bool(comms)
    return RasReport(
        format=ReportFormat.JSON,
        complete=complete and recognised,
        nccl_version=version_text,
        version=parse_version(version_text) if version_text else None,
        cuda_runtime=_opt_int(top.get("cuda_runtime_version")),
        cuda_driver=_opt_int(top.get("cuda_driver_version")),
        timestamp=top.get("timestamp") if isinstance(top.get("timestamp"), str) else None,
        collection_seconds=float(collection) if isinstance(collection, (int, float)) else None,
        communicators=tuple(comms),
        communicators_total=len(comms),
        no_communicators=complete and not comms,
        unresponsive_count=len(unresponsive),
        unresponsive_processes=unresponsive,
        dead_count=len(dead),
        dead_processes=dead,
        timeouts=timeouts if isinstance(timeouts, int) else 0,
        unknown_lines=0 if recognised else text.count("\n") + 1,
        unknown_samples=() if recognised else (text[:120],),
        faults=tuple(faults),
    )


def _opt_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# ---------------------------------------------------------------------------------------
# The typed path (optional extra `fast`: msgspec). Only NCCL's own shape is accepted; msgspec
# rejects anything else (a missing field, a bool where NCCL writes an int, a non-object) and
# the caller then takes the standard library path, which reads it as before.

_TYPED: list[Any] = []  # [decoder, msgspec module], or [None] when msgspec is not installed


def _typed_decoder() -> Any:
    if not _TYPED:
        _TYPED.extend(_build_typed_decoder())
    return _TYPED[0]


def _build_typed_decoder() -> tuple[Any, Any]:
    try:
        import msgspec

        from monitor.parse.ras_json_typed import DECODER
    except ImportError:
        return None, None
    return DECODER, msgspec


def parse_json_typed(data: str | bytes) -> RasReport | None:
    """The typed path alone: the report, or None when msgspec is missing or the document is
    not NCCL's own shape (parse_json then reads it the standard library way)."""
    decoder = _typed_decoder()
    if decoder is None:
        return None
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    text, preamble = _strip_preamble(text)
    with gc_paused(len(text) >= LARGE_REPLY_BYTES):
        return _parse_typed(decoder, text, ["preamble_lines_skipped"] if preamble else [])


def _parse_typed(decoder: Any, text: str, faults: list[str]) -> RasReport | None:
    """The report from the typed decoder, or None when it rejects the document."""
    msgspec = _TYPED[1]
    document = _repair(text, faults) if '"nccl_version": "2.28.' in text[:200] else text
    try:
        doc = decoder.decode(document)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    comms = []
    for comm in doc.communicators or ():
        try:
            comms.append(
                _assemble(
                    comm.hash,
                    comm.secondary_hash,
                    comm.size,
                    _typed_ranks(comm.ranks or ()),
                    comm.missing_ranks or (),
                )
            )
        except (_Invalid, TypeError, ValueError, AttributeError):
            return None  # counted as a bad communicator by the standard library path
    top = {
        "nccl_version": doc.nccl_version,
        "cuda_runtime_version": doc.cuda_runtime_version,
        "cuda_driver_version": doc.cuda_driver_version,
        "timestamp": doc.timestamp,
    }
    ras: dict[str, Any] = {}
    if doc.ras is not None:
        ras = {"collection_time_sec": doc.ras.collection_time_sec}
        ras["timeouts_count"] = doc.ras.timeouts_count
    return _report(text, top, ras, comms, True, faults)


def _typed_ranks(ranks: Iterable[Any]) -> tuple[RankState, ...]:
    # One comprehension, no call per rank: this loop is most of the typed path's own time.
    return tuple(
        [
            _new_tuple(
                RankState,
                (
                    r.rank,
                    r.host,
                    r.pid,
                    r.cuda_dev,
                    r.nvml_dev,
                    _ABORT
                    if s.abort_flag
                    else _FINALIZE
                    if s.finalize_called or s.destroy_flag
                    else _RUNNING
                    if s.init_state == 0
                    else _INIT,
                    s.init_state,
                    s.async_error,
                    (c.Broadcast, c.Reduce, c.AllGather, c.ReduceScatter, c.AllReduce),
                ),
            )
            for r in ranks
            for s, c in ((r.status, r.collective_counts),)
        ]
    )
