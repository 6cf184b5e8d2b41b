"""Reading log inputs for triage: every file, every line, none sampled.

Paths may be files, directories (walked recursively), glob patterns and `.gz` files. Bad
inputs are reported once each and skipped: missing or unreadable paths, non-regular files,
empty directories, binary files; truncated gzip streams, mixed encodings and overlong lines
are read as far as possible and noted.

A rankwatch alert log (JSON lines of alert records, `--alert-log`) among the inputs is read
as such, not as a training log: its clock records (`Clock*` alerts: measured offsets, steps)
are kept for the clock-skew correction, and its text is not searched for training events.

Speed comes from pre-filtering whole chunks: each `PREFILTER_LITERALS` substring is searched
over a multi-megabyte buffer with `bytes.find` (C speed), and only the lines containing a hit
are decoded and fed to the event extractor — plus every line while a multi-line block
(traceback, C++ frames) is open. The last 64 KiB of each file are always parsed line by line:
they hold each writer's last activity (the progress bar it was showing when it stopped).
"""

from __future__ import annotations

import bisect
import codecs
import contextlib
import glob
import io
import json
import os
import re
import shutil
import stat
import subprocess
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, BinaryIO

from monitor.parse.envelope import (
    SKYPILOT_TAG,
    line_rank,
    split_envelope,
    without_colour,
    without_relay,
)
from monitor.parse.flight_recorder import (
    MAX_DUMP_BYTES,
    DumpError,
    RankDump,
    load_dump,
    looks_like_dump,
)
from monitor.parse.gc_pause import gc_paused
from monitor.parse.log_events import (
    PREFILTER_LITERALS,
    EventExtractor,
    EventKind,
    Level,
    LogEvent,
    progress_fields,
)
from monitor.parse.log_patterns import FieldValue
from monitor.parse.ras_saved import (
    MAX_REPLY_BYTES,
    RasReply,
    looks_like_reply,
    read_reply,
)
from monitor.triage.lexicon import logged_below_error, looks_failed
from monitor.triage.subjects import pod_nodes, stated_subjects

CHUNK_BYTES = 4 << 20
MAX_LINE_BYTES = 1 << 20  # longer lines are read around their events only
SEGMENT_BYTES = 64 << 10  # at most this much of one line is handed to the extractor
TAIL_BYTES = 64 << 10
TAIL_LINES = 40
LOOSE_LINES = 200  # failing lines kept from a file's tail for the lexicon
LOOSE_CHARS = 2000  # of each: gRPC's one-line JSON puts the reason deep in the line
TAIL_CHARS = 1000  # of each tail line: a retried connect's endpoint can come late in its JSON
CONTINUATION_LINES = 3  # lines after a failing line read as the rest of its record
CONTINUATION_CHARS = 500  # of each
BINARY_SNIFF_BYTES = 8192
MAX_EVENTS_PER_KIND = 4000  # per file; counts stay exact beyond it

_LITERALS = tuple(literal.encode() for literal in PREFILTER_LITERALS)
_GLOB_CHARS = frozenset("*?[")
_TEXT_CONTROLS = frozenset(b"\t\n\r\f\b\x1b\x07\x00")


@dataclass(frozen=True)
class InputProblem:
    """Something about one input that the report must mention once."""

    path: str
    problem: str
    skipped: bool  # True: nothing was read from it


@dataclass(frozen=True)
class TailLine:
    line: int
    rank: int | None
    text: str
    progress: dict[str, FieldValue] | None


@dataclass
class FileScan:
    """What one file said."""

    path: str
    size_bytes: int
    lines: int = 0
    events: list[LogEvent] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    ranks: set[int] = field(default_factory=set)
    prefixes: set[str] = field(default_factory=set)
    # the machines whose syslog (journald) lines the tail holds: `Apr  3 00:21:04 node17 …`
    syslog_hosts: set[str] = field(default_factory=set)
    tail: list[TailLine] = field(default_factory=list)
    # failing lines of the tail that the pattern table may not know (the lexicon reads them)
    loose: list[TailLine] = field(default_factory=list)
    # the text of the lines that continue a failing or event line of the tail: the kernel's
    # `CPU: 6 PID: 208253 Comm: python` under `invoked oom-killer`, the end of a line a paster
    # wrapped (line number of the head → its continuation, bounded)
    continued: dict[int, str] = field(default_factory=dict)
    retry_attempts: dict[str, list[int]] = field(default_factory=dict)  # context → attempts
    retry_exhausted: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    pid_ranks: dict[tuple[str, int], tuple[int, int]] = field(default_factory=dict)
    clock_records: list[tuple[int, dict[str, object]]] = field(default_factory=list)
    alert_log: bool = False  # a rankwatch alert log: clock records read, no training events
    fr_dump: RankDump | None = None  # a flight-recorder dump: read as such, no lines
    ras_reply: RasReply | None = None  # a saved NCCL RAS STATUS reply (its lines read as well)
    # a paste of several processes' outputs under the commands that printed them (`$ kubectl
    # logs w-2`, tail's `==> rank3.log <==`): (first line, whose output) of each section
    sections: list[tuple[int, str]] = field(default_factory=list)
    # the one pod or node its scheduler's or orchestrator's output says the file is about
    # (`kubectl describe pod w-2`, an LSF job report's execution host)
    subjects: tuple[str, ...] = ()
    # each pod's node, as the orchestrator's output in the file states it
    pod_nodes: dict[str, str] = field(default_factory=dict)
    # the root cause torchrun's failure table in the file names (the writer of its unprefixed
    # lines, where no line is prefixed with a rank)
    table_ranks: set[int] = field(default_factory=set)
    # the global ranks the file's first lines declare for the process that writes it
    # (`RANK=9 LOCAL_RANK=1 WORLD_SIZE=16`, Lightning's `GLOBAL_RANK: 6, MEMBER: 7/8`)
    declared_ranks: set[int] = field(default_factory=set)
    # the shell commands a paste shows in the file's head (`$ torchrun … train.py`), each
    # with its line: what ran, where the file's last lines no longer show it
    head_commands: list[tuple[int, str]] = field(default_factory=list)
    # the sizes of the job's world its first lines state (`world_size=1`, `MPI size: 1`)
    declared_worlds: set[int] = field(default_factory=set)


ProgressCallback = Callable[[int], None]


def expand_inputs(paths: Sequence[str]) -> tuple[list[str], list[InputProblem]]:
    """Files to read, in a stable order, and the problems found while expanding."""
    files: list[str] = []
    problems: list[InputProblem] = []
    seen: set[str] = set()

    def add(path: str) -> None:
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            files.append(path)

    for raw in paths:
        if os.path.isdir(raw):
            found = _walk(raw, add, problems)
            if not found:
                problems.append(InputProblem(raw, "empty directory: no files in it", True))
            continue
        if os.path.lexists(raw):
            _add_file(raw, add, problems)
            continue
        if _GLOB_CHARS & set(raw):
            matches = sorted(glob.glob(raw, recursive=True))
            if not matches:
                problems.append(InputProblem(raw, "no file matches this pattern", True))
            for match in matches:
                if os.path.isdir(match):
                    _walk(match, add, problems)
                else:
                    _add_file(match, add, problems)
            continue
        problems.append(InputProblem(raw, "cannot read: no such file or directory", True))
    return files, problems


def _walk(root: str, add: Callable[[str], None], problems: list[InputProblem]) -> int:
    found = 0
    for dirpath, dirnames, filenames in os.walk(root, onerror=None):
        dirnames.sort()
        for name in sorted(filenames):
            found += 1
            _add_file(os.path.join(dirpath, name), add, problems)
    return found


def _add_file(path: str, add: Callable[[str], None], problems: list[InputProblem]) -> None:
    try:
        info = os.stat(path)
    except OSError as exc:
        problems.append(InputProblem(path, f"cannot read: {_reason(exc)}", True))
        return
    if not stat.S_ISREG(info.st_mode):
        problems.append(InputProblem(path, "not a regular file (skipped)", True))
        return
    add(path)


def _reason(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()


def scan_file(path: str, on_bytes: ProgressCallback | None = None) -> FileScan | InputProblem:
    """Read one file completely. Returns an InputProblem when nothing could be read."""
    try:
        size = os.path.getsize(path)
        raw: BinaryIO = open(path, "rb")  # noqa: SIM115 - closed below, also on every error path
    except OSError as exc:
        return InputProblem(path, f"cannot read: {_reason(exc)}", True)
    scan = FileScan(path=path, size_bytes=size)
    try:
        with raw:
            head = raw.read(4096)
            raw.seek(0)
            if looks_like_dump(head) is not None:
                return _read_dump(path, raw, size, on_bytes)
            if looks_like_reply(head) and size <= MAX_REPLY_BYTES:
                scan.ras_reply = read_reply(path, raw.read(MAX_REPLY_BYTES))
                if scan.ras_reply.report.unknown_lines == 0:
                    # a reply and nothing else: its own words (`Errors`, `Remote process
                    # error`) are the reply's, read as such, not a log's failing lines
                    if on_bytes is not None:
                        on_bytes(size)
                    return scan
                # a paste that holds more than the reply (the job's log after it): its lines
                # are read as a log too, so nothing is lost
                raw.seek(0)
            gzipped = _is_gzip(raw)
            source: BinaryIO = raw
            width = None
            records = 0
            exported = (unwrap_json_export(raw.read(JSON_LINES_MAX_BYTES))
                        if not gzipped and size <= JSON_LINES_MAX_BYTES
                        and _JSON_ARRAY_HEAD.match(head) else None)
            raw.seek(0)
            if exported is not None:
                text, records = exported
                source = io.BytesIO(text)
            elif not gzipped and size <= JSON_LINES_MAX_BYTES and json_lines_field(head):
                text, records = unwrap_json_lines(raw.read(JSON_LINES_MAX_BYTES))
                raw.seek(0)
                source = io.BytesIO(text)
            elif not gzipped and size <= UNWRAP_MAX_BYTES:
                unwrapped, width = unwrap_terminal(raw.read(UNWRAP_MAX_BYTES))
                raw.seek(0)
                if width is not None:
                    source = io.BytesIO(unwrapped)
                scan.sections = paste_sections(unwrapped)
                scan.subjects = stated_subjects(unwrapped)
                scan.pod_nodes = pod_nodes(unwrapped)
            reader = _Reader(scan, source, on_bytes, gzipped=gzipped)
            reader.rewritten = width is not None or records > 0
            problem = reader.run()
            if records:
                scan.notes.append(f"a JSON log (lines or an array): the text of its {records} "
                                  "records was read; line numbers count the text's lines")
            if width is not None:
                scan.notes.append(f"lines cut at {width} columns (a terminal's copy) were "
                                  "joined; line numbers count the joined lines")
            if problem is not None:
                return InputProblem(path, problem, True)
    except OSError as exc:
        if scan.lines == 0:
            return InputProblem(path, f"cannot read: {_reason(exc)}", True)
        scan.notes.append(f"read error after line {scan.lines}: {_reason(exc)}")
    return scan


UNWRAP_MAX_BYTES = 1 << 20  # a terminal copy is a paste: small
_UNWRAP_MIN_WIDTH = 80
JSON_LINES_MAX_BYTES = 32 << 20  # a collected log is read whole to unwrap it

# The command that printed one process's output into a paste: `$ kubectl logs
# bert-ft-worker-2`, `kubectl logs -f pod/w-1 -c trainer`, `docker logs trainer-3`, and tail's
# header of each file it prints (`==> logs/rank3.log <==`)
_SECTION = re.compile(
    rb"^(?:[^\s$#]*[$#] +)?(?P<tool>kubectl|docker) +logs\b(?: +-{1,2}[\w-]+(?:[ =](?!pod/)"
    rb"[^\s-]\S*)?)* +(?:pod/)?(?P<name>[A-Za-z0-9][\w.-]*)|^==> (?P<file>[^\n]+?) <==$",
    re.MULTILINE)


def _numbered(pattern: re.Pattern[bytes], data: bytes) -> Iterator[tuple[int, re.Match[bytes]]]:
    """Each match of `pattern` in `data` with the number of the line it starts on (each byte
    counted once: the file is read once)."""
    line, counted = 1, 0
    for m in pattern.finditer(data):
        line += data.count(b"\n", counted, m.start())
        counted = m.start()
        yield line, m


def paste_sections(data: bytes) -> list[tuple[int, str]]:
    """(line, whose output) of each section of a paste of several processes' outputs; empty
    when the paste shows fewer than two different ones (one process's output is no section)."""
    out: list[tuple[int, str]] = []
    for line, m in _numbered(_SECTION, data):
        if m["file"]:
            out.append((line, "file " + m["file"].decode("utf-8", "replace").strip()))
        else:
            kind = "pod" if m["tool"] == b"kubectl" else "container"
            out.append((line, f"{kind} {m['name'].decode('utf-8', 'replace')}"))
    if len({name for _, name in out}) < 2:
        # (one command's output, `kubectl logs -l … --prefix`: each line names its writer)
        out = _prefixed_writers(data) or out
    return out if len({name for _, name in out}) >= 2 else []


# The writer a collector names in front of each line of several containers' interleaved
# output: `docker compose`'s service (`trainer-1  | `), `kubectl logs --prefix`'s pod
# (`[pod/job-worker-1/pytorch] `)
_WRITER_PREFIX = re.compile(rb"^(?:(?P<service>[\w.\-]{1,60}) +\| |\[pod/(?P<pod>[^/\]\s]+)/[^\]\s]*\] )",
                            re.MULTILINE)


def _prefixed_writers(data: bytes) -> list[tuple[int, str]]:
    """(line, whose output) wherever the writer named in front of the lines changes, where
    nearly every line names one: each line is then its own writer's, not the file's."""
    head = data[:8192].split(b"\n")[:-1] or data[:8192].split(b"\n")
    if sum(1 for h in head if _WRITER_PREFIX.match(h)) < 0.9 * len(head):
        return []  # (most files: decided on their head, not scanned whole)
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    out: list[tuple[int, str]] = []
    found = 0
    for line, m in _numbered(_WRITER_PREFIX, data):
        found += 1
        name = ("container " + m["service"].decode("utf-8", "replace") if m["service"]
                else "pod " + m["pod"].decode("utf-8", "replace"))
        if not out or out[-1][1] != name:
            out.append((line, name))
    return out if found >= 3 and found >= 0.9 * lines else []


# Where a log shipper or a runner puts a line's text in its JSON record: Docker's json-file
# (`log`), most shippers and journald's JSON (`message`, `msg`, `MESSAGE`), GCP's
# `textPayload`, a runner's own (`data`, `line`).
_JSON_TEXT_FIELDS = ("log", "message", "msg", "MESSAGE", "textPayload", "data", "line")


def _record_text(record: object) -> str | None:
    """The program's line a JSON record carries, if it is such a record."""
    if not isinstance(record, dict):
        return None
    return next((v for k in _JSON_TEXT_FIELDS if isinstance(v := record.get(k), str)), None)


def json_lines_field(head: bytes) -> bool:
    """Nearly every line of the file's head is a JSON object, most of them with a text field:
    a collected log, each record one line of the program's output (rankwatch's own alert
    log is JSON lines too, and is read as alerts)."""
    lines = _pasted_lines(head)[:-1] or _pasted_lines(head)  # the last may be cut
    if len(lines) < 3 or _looks_like_alert_log(head):
        return False
    with_text = 0
    for line in lines:
        if not line.lstrip().startswith(b"{"):
            return False
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if _record_text(record) is not None:
            with_text += 1
    return with_text >= 0.6 * len(lines)


# A log viewer's download: one JSON array of records (Cloud Logging's, a Loki or Grafana
# export), pretty-printed or not
_JSON_ARRAY_HEAD = re.compile(rb"\s*\[\s*\{")


def unwrap_json_export(data: bytes) -> tuple[bytes, int] | None:
    """The program's text out of a JSON array of log records, oldest first where every record
    carries its time (viewers download the newest first); None when the data is not such an
    array (most of its records with a text field)."""
    try:
        records = json.loads(data)
    except ValueError:
        return None
    if not isinstance(records, list) or not records:
        return None
    texts = [(r.get("timestamp"), text) for r in records
             if (text := _record_text(r)) is not None and isinstance(r, dict)]
    if len(texts) < 0.6 * len(records):
        return None
    if all(isinstance(stamp, str) for stamp, _ in texts):
        texts.sort(key=lambda st: str(st[0]))  # (ISO stamps of one zone sort as times)
    out = [text[:-1] if text.endswith("\n") else text for _, text in texts]
    return "\n".join(out).encode("utf-8") + b"\n", len(texts)


def unwrap_json_lines(data: bytes) -> tuple[bytes, int]:
    """The program's text out of a JSON-lines log: each record's text field, its newlines
    kept; a line that is not such a record stays as it is. Returns the text and how many
    records gave text."""
    out: list[str] = []
    records = 0
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except ValueError:
            out.append(raw.decode("utf-8", "replace"))
            continue
        text = _record_text(record)
        if text is None:
            continue  # a record with no text (a runner's start or end event)
        records += 1
        text = text[:-1] if text.endswith("\n") else text
        assert isinstance(record, dict)  # (_record_text found its text field)
        # a structured logger's traceback, in a field beside the message (`exc_info`)
        trace = next((v for k in _JSON_TRACE_FIELDS if isinstance(v := record.get(k), str)
                      and v.strip()), None)
        if trace is not None:
            text = f"{text}\n{trace.rstrip()}"
        # each line said by its writer's rank and at its time, where the record says them
        rank = next((v for k in ("rank", "global_rank") if isinstance(v := record.get(k), int)
                     and not isinstance(v, bool)), None)
        stamp = next((v for k in _JSON_TIME_FIELDS if isinstance(v := record.get(k), str)
                      and _JSON_ISO.match(v)), None)
        lead = (f"{stamp} " if stamp else "") + (f"[rank{rank}]: " if rank is not None else "")
        out.append("\n".join(lead + line for line in text.split("\n")) if lead else text)
    return "\n".join(out).encode("utf-8") + b"\n", records


_JSON_TRACE_FIELDS = ("exc_info", "exception", "stack_trace", "traceback", "stack")
_JSON_TIME_FIELDS = ("ts", "timestamp", "time", "@timestamp", "asctime")
_JSON_ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?$")


_FIRST_WORD = re.compile(rb"[^\s:\[\]|,]*")
_DIGIT = re.compile(rb"\d")


def _may_continue(line: bytes, after: bytes) -> bool:
    """Whether `after` may continue `line` cut at a width: it does not start as `line` did,
    not in its first 8 bytes, nor its first word (a host, a timestamp's date, a prefix tag),
    nor in the shape of its first 12 (two hosts' or two srun tasks' records, `gpu1:1334:…` and
    `gpu2:1329:…`, `10: gpu1:…` and `11: gpu1:…`)."""
    lead = _FIRST_WORD.match(line)
    return after[:8] != line[:8] and not (
        lead is not None and len(lead.group()) >= 3 and after.startswith(lead.group())) and (
        _DIGIT.sub(b"9", after[:12]) != _DIGIT.sub(b"9", line[:12]))


def failed_alike(fields: Mapping[str, FieldValue], key: str = "signal") -> list[int]:
    """The other ranks of torchrun's failure table (its event's fields) that ended as its root
    cause did: by the same signal (or with the same exit code), in the same second. Where any
    did, "root cause" is only the first the launcher noticed."""
    others = fields.get("other_failures")
    if (not isinstance(others, tuple) or not fields.get("root_time")
            or fields.get("root_" + key) is None):
        return []
    return [int(o["rank"]) for other in others if (o := dict(other)).get(key) == fields.get(
        "root_" + key) and o.get("time") == fields.get("root_time")
            and isinstance(o.get("rank"), int)]


# A process's own statement of its global rank, as launchers and jobs print it once at the
# start: Lightning's `Initializing distributed: GLOBAL_RANK: 6, MEMBER: 7/8`, submitit's
# `JobEnvironment(… global_rank=3(16))`, Accelerate's state (`Process index: 11`), and a line
# that gives the rank with the world's size (`RANK=9 LOCAL_RANK=1 WORLD_SIZE=16`, `init:
# world_size=8 rank=5`); never a local, node or group rank (`local_rank=`, `node_rank=`)
_DECLARED_RANK = re.compile(
    rb"\bGLOBAL_RANK: (\d+), MEMBER: \d+/\d+|\bglobal_rank[=:] ?(\d+)\b|"
    rb"^\W*Process index: (\d+)\s*$|"
    rb"^(?=.*\b(?:world_size|WORLD_SIZE)\b).*?(?<![\w.])(?:RANK|rank)[=:] ?(\d+)\b", re.M)
DECLARED_RANK_LINES = 40  # the start of a file, where a process states who it is


def file_start(head: bytes) -> bytes:
    """The first lines of a file, where a process states who it is and in what world."""
    return b"\n".join(head.split(b"\n")[:DECLARED_RANK_LINES])


# SkyPilot's tag on each line of a multi-node task (`(worker1, rank=1, pid=4888, ip=…) `): its
# `rank` is the node's, never a process's
_NODE_RANK_TAG = re.compile(SKYPILOT_TAG.encode())


_HEAD_COMMAND = re.compile(rb"^(?:\S{0,60}[$#] |\+{1,3} )\S[^\n]{0,400}", re.MULTILINE)
_HEAD_COMMANDS = 20  # of a file's head, its first shell commands kept


def declared_ranks(start: bytes) -> set[int]:
    """The global ranks a file's first lines (`file_start`) declare (see _DECLARED_RANK)."""
    start = _NODE_RANK_TAG.sub(b"", start) if b", rank=" in start else start
    return {int(next(g for g in m.groups() if g)) for m in _DECLARED_RANK.finditer(start)}


# A statement of the world's size: a job's or launcher's own (`world_size=8`, `WORLD_SIZE=1`,
# TensorRT-LLM's `MPI size: 1, rank: 0`, Accelerate's `Num processes: 1`), NCCL's
# communicator (`nranks 1`, `nRanks 1`)
_DECLARED_WORLD = re.compile(rb"\b(?:world_size|WORLD_SIZE|[Ww]orld size|MPI size|nranks|nRanks|"
                             rb"[Nn]um processes)\s*[=:]?\s*(\d+)\b")


def declared_worlds(start: bytes) -> set[int]:
    """The world sizes a file's first lines (`file_start`) state (see _DECLARED_WORLD)."""
    return {int(m[1]) for m in _DECLARED_WORLD.finditer(start)}


def unwrap_terminal(data: bytes) -> tuple[bytes, int | None]:
    """Join lines a terminal cut at its width when the text was copied from it.

    The signature: the longest lines all have one length W >= 80 (no line is longer), there
    are at least three of them, and at least two are cut inside a word (a letter or digit on
    both sides of the cut, the next line not starting as the cut one does). A line one byte
    short was cut at a space that the paste stripped as trailing blank; it is joined with that
    space. Returns the joined text and W, or the text unchanged and None."""
    lines = data.split(b"\n")
    # bytes, not characters: a cut line is ASCII nearly always, and decoding costs more
    lengths = [len(line) - line.endswith(b"\r") for line in lines]
    width = max(lengths, default=0)
    if width < _UNWRAP_MIN_WIDTH:
        return data, None
    full = [i for i, n in enumerate(lengths[:-1]) if n == width]
    # A continuation rarely starts as its own line did (a log's lines share their prefix, and
    # identical records from two pids of one host are as long as each other: `gpu1:1334:…`)
    inside_word = sum(1 for i in full
                      if lines[i].rstrip(b"\r")[-1:].isalnum() and lines[i + 1][:1].isalnum()
                      and _may_continue(lines[i], lines[i + 1]))
    at_space = {i for i, n in enumerate(lengths[:-1])
                if n == width - 1 and lines[i + 1][:1].strip()
                and _may_continue(lines[i], lines[i + 1])}
    if len(full) + len(at_space) < 3 or inside_word < 2:
        return data, None
    out: list[bytes] = []
    current = b""
    for i, line in enumerate(lines):
        if lengths[i] == width and i < len(lines) - 1:
            current += line.rstrip(b"\r")
        elif i in at_space:
            current += line.rstrip(b"\r") + b" "
        else:
            out.append(current + line)
            current = b""
    return b"\n".join(out), width


def _read_dump(path: str, raw: BinaryIO, size: int,
               on_bytes: ProgressCallback | None) -> FileScan | InputProblem:
    """A flight-recorder dump (pickle or JSON), read with the restricted loader."""
    if size > MAX_DUMP_BYTES:
        return InputProblem(path, f"flight-recorder dump refused: {size} bytes is over the "
                            f"{MAX_DUMP_BYTES >> 20} MiB limit", True)
    data = raw.read(MAX_DUMP_BYTES + 1)
    if on_bytes is not None:
        on_bytes(len(data))
    try:
        dump = load_dump(data, source=path)
    except DumpError as exc:
        return InputProblem(path, f"flight-recorder dump not used: {exc}", True)
    return FileScan(path=path, size_bytes=size, fr_dump=dump)


POOL_MIN_BYTES = 8 << 20  # less than this is read in one process before workers would start
GREP_MIN_BYTES = 256 << 10  # smaller files: starting grep costs more than it saves
GREP_MAX_OUTPUT = 64 << 20  # a file full of hits: stop grep and search in-process


def grep_hits(path: str, size: int) -> list[int] | None:
    """Byte offsets of every pre-filter literal in the file, found by one `grep -F` pass (a
    multi-literal search, much faster than one `bytes.find` pass per literal); None when
    grep is absent, fails, or finds too much."""
    if size < GREP_MIN_BYTES or _GREP is None:
        return None
    args = [_GREP, "-a", "-b", "-o", "-F"]
    for literal in PREFILTER_LITERALS:
        args += ["-e", literal]
    args += ["--", path]
    try:
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                env={**os.environ, "LC_ALL": "C"})
    except OSError:
        return None
    assert proc.stdout is not None
    out: list[int] = []
    taken = 0
    try:
        for line in proc.stdout:
            taken += len(line)
            if taken > GREP_MAX_OUTPUT:
                proc.kill()
                return None
            colon = line.find(b":")
            if colon > 0:
                out.append(int(line[:colon]))
    finally:
        proc.stdout.close()
        code = proc.wait()
    if code not in (0, 1):  # 1: no line matched
        return None
    return out  # grep reports in file order: already sorted


_GREP = shutil.which("grep")


def _is_gzip(raw: BinaryIO) -> bool:
    head = raw.read(2)
    raw.seek(0)
    return head == b"\x1f\x8b"


_WORD_PREFIX = re.compile(rb"([\w.\-]{1,40}): ")
# What may stand before such a tag: colour codes, a shipper's date-time stamp.
_LEAD = re.compile(rb"^(?:\x1b\[[0-9;?]*[A-Za-z])*\[?(?:\d{4}-\d\d-\d\d[ T][\d:.,]+"
                   rb"(?:Z|[+-]\d\d:?\d\d)?\]? )?")
# Words that open a payload, not a tag: exception lines, log levels, the kernel's own prefix.
_NOT_A_TAG = (b"Error", b"Exception", b"Warning", b"NCCL", b"INFO", b"WARNING", b"ERROR",
              b"kernel",
              # the scheduler's own programs open their lines with their names
              b"srun", b"slurmstepd", b"sbatch", b"salloc", b"mpirun")
# `srun --label`: the task id in front of each line of its output
_TASK_LABEL = re.compile(rb"\s{0,4}(\d{1,6}): ")


# A markdown code fence a reporter pasted with the log (```, ```text, ~~~): no part of it.
_FENCE = re.compile(rb"\s*(?:```|~~~)[\w+\-]*\s*$")


def _pasted_lines(head: bytes) -> list[bytes]:
    """The head's lines that hold text, without markdown fences."""
    return [line.rstrip(b"\r") for line in head.split(b"\n")[:200]
            if line.strip() and not _FENCE.match(line)]


def has_task_labels(head: bytes) -> bool:
    """Most lines of the file's head start with a number and a colon (`0: `, `12: `): srun
    --label's task ids, not host names."""
    # (srun's and slurmstepd's own lines carry no task label)
    lines = [line for line in _pasted_lines(head)
             if not line.lstrip().startswith((b"srun: ", b"slurmstepd: ", b"slurmstepd-"))]
    if len(lines) < 3:
        return False
    return sum(1 for line in lines if _TASK_LABEL.match(line)) >= 0.8 * len(lines)


# A date a shipper or a logger put in front of a line (bracketed or not), or pdsh's host
_STAMP_LEAD = re.compile(rb"^(?:\[?\d{4}-\d\d-\d\d[ T][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?\]? |"
                         rb"[A-Za-z][\w.\-]{0,60}: (?=\[\d))")  # (or a runner's host tag)
# MPICH's `mpiexec -l` label of each line's rank (`[3] Traceback …`), or a viewer's numbers
_RANK_LABEL = re.compile(rb"\[(\d{1,6})\] ")


def has_rank_labels(head: bytes) -> bool:
    """Most lines of the file's head start with a bracketed number that is no line's number
    (it repeats, or goes back): MPICH's `mpiexec -l` ranks, not a viewer's numbering."""
    lines = [_STAMP_LEAD.sub(b"", line) for line in _pasted_lines(head)]  # (a shipper's stamp)
    # (not NCCL's own device tag of old, `[10] NCCL INFO …`, a GPU's index)
    labels = [int(m[1]) for line in lines if (m := _RANK_LABEL.match(line))
              and not line[m.end():].startswith(b"NCCL ") and b" NCCL " not in line[:60]]
    # (mpiexec's own report under them, `BAD TERMINATION OF ONE OF YOUR APPLICATION
    # PROCESSES`, carries no label)
    if (len(labels) < 4 or len(labels) < 0.5 * len(lines) or len(set(labels)) == len(labels)
            or len(set(labels)) < 2
            # (ranks are small and dense; a logger's `[4514] ` is its process's pid)
            or max(labels) >= max(64, 16 * len(set(labels)))):
        return False
    onward = sum(1 for a, b in pairwise(labels) if b == a + 1)
    return onward < 0.5 * (len(labels) - 1)


def has_line_tag(head: bytes) -> bool:
    """Nearly every line of the file's head starts with one and the same `word: ` (a pdsh or
    DeepSpeed host, a test runner's `stderr: `, a container's name), or most lines start with
    one of a few host names: a tag to strip, as the host prefix of a multi-node runner is."""
    lines = [_LEAD.sub(b"", line) for line in _pasted_lines(head)]
    if len(lines) < 3:
        return False
    tags = Counter(m.group(1) for line in lines if (m := _WORD_PREFIX.match(line)))
    if not tags:
        return False
    tag, count = tags.most_common(1)[0]
    if count >= 0.9 * len(lines) and not tag.endswith(_NOT_A_TAG):
        return True
    # pdsh/DeepSpeed over several nodes: a few host names (each with a digit: node1, gpu-03)
    hosts = [t for t in tags if any(c in b"0123456789" for c in t) and not t.endswith(_NOT_A_TAG)]
    return 2 <= len(hosts) <= 64 and sum(tags[t] for t in hosts) >= 0.8 * len(lines)


# Envelopes a collector puts on every line of a container's output: the CRI log format
# (`<time> stderr F `), `docker compose` (`trainer-1  | `), `kubectl logs --prefix`
# (`[pod/name/container] `), and glog-style stamps (`I0501 12:00:00.123456 12345 f.py:42] `).
_LINE_ENVELOPES = (
    re.compile(rb"\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:?\d\d) (?:stdout|stderr) [FP] "),
    re.compile(rb"[\w.\-]{1,60} +\| "),
    re.compile(rb"\[pod/[^\]\s]{1,200}\] "),
    re.compile(rb"[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [\w.\-]+:\d+\] "),
)


def file_margin(head: bytes) -> re.Pattern[bytes] | None:
    """What stands in front of every line of a paste or a collected log: a markdown quote
    (`> `), an indentation all lines share (a code block indented in a mail or a comment), or
    a container log's envelope. Stripped from each line, so patterns anchored at the line's
    start still match; None when there is none."""
    lines = _pasted_lines(head)
    if len(lines) < 3:
        return None
    outer = _one_margin(lines)
    if outer is None:
        return None
    # A quote inside an indentation, or a quoted container log: one more margin, once.
    rest = []
    for line in lines:
        m = outer.match(line)
        rest.append(line[m.end():] if m else line)
    inner = _one_margin([line for line in rest if line.strip()])
    return re.compile(outer.pattern + inner.pattern) if inner is not None else outer


def _one_margin(lines: list[bytes]) -> re.Pattern[bytes] | None:
    if len(lines) < 3:
        return None
    for envelope in _LINE_ENVELOPES:
        if sum(1 for line in lines if envelope.match(line)) >= 0.9 * len(lines):
            return envelope
    quoted = sum(1 for line in lines if line.startswith(b">"))
    if quoted >= 0.9 * len(lines):
        with_text = [line for line in lines if line.startswith(b">") and line[1:].strip()]
        spaced = sum(1 for line in with_text if line.startswith(b"> "))
        return re.compile(b"> ?" if spaced >= 0.9 * len(with_text) else b">")
    margin = re.match(rb"[ \t]*", lines[0])
    common = margin.group(0) if margin else b""
    for line in lines[1:]:
        if not common:
            break
        while not line.startswith(common):
            common = common[:-1]
    return re.compile(re.escape(common)) if common else None


class _Reader:
    """Chunked scan of one stream into a FileScan."""

    def __init__(
        self, scan: FileScan, raw: BinaryIO, on_bytes: ProgressCallback | None, *, gzipped: bool
    ) -> None:
        self.scan = scan
        self.raw = raw
        self.gzipped = gzipped
        self.on_bytes = on_bytes
        self.extractor = EventExtractor(bare_exceptions=True)
        self.line_no = 1  # number of the line that starts at the current region's offset 0
        self.tail = b""
        self.reported_raw = 0
        self.decode_fallbacks = 0
        self.overlong = 0
        self.kept: dict[EventKind, int] = {}
        self.hits: list[int] | None = None  # absolute offsets of pre-filter hits (grep)
        self.base = 0  # absolute offset of the current region's first byte
        self.consumed = 0  # bytes of the (decoded) stream handed to the regions so far
        self.rewritten = False  # the stream is not the file's bytes (unwrap_terminal)
        self.margin: re.Pattern[bytes] | None = None  # in front of every line (file_margin)

    def run(self) -> str | None:
        chunks = self._chunks()
        try:
            first = next(chunks)
        except StopIteration:
            return None  # an empty file: read, nothing in it
        except (EOFError, zlib.error) as exc:
            return f"unreadable gzip: {exc}"
        if _looks_binary(first[:BINARY_SNIFF_BYTES]):
            return "binary file (skipped)"
        recoded = first.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
        if recoded:
            chunks = _utf16_chunks(first, chunks)
            first = next(chunks, b"")
        if _looks_like_alert_log(first):
            self._alert_log(_chain_first(first, chunks))
            return None
        self.read_head(first[:BINARY_SNIFF_BYTES])
        if not self.gzipped and not recoded and not self.rewritten and type(self) is _Reader:
            # offsets in the file are offsets in the stream: one grep pass finds the hits
            self.hits = grep_hits(self.scan.path, self.scan.size_bytes)
        carry = b""
        pending: Iterator[bytes] = _chain_first(first, chunks)
        while True:
            try:
                chunk = next(pending)
            except StopIteration:
                break
            except (EOFError, zlib.error) as exc:
                self.scan.notes.append(
                    f"truncated or corrupt gzip after line {self.line_no - 1}: {exc}"
                )
                break
            buf = carry + chunk if carry else chunk
            self.consumed += len(chunk)
            self.base = self.consumed - len(buf)
            end = buf.rfind(b"\n") + 1
            if end == 0:
                carry = self._overlong(buf) if len(buf) >= MAX_LINE_BYTES else buf
                continue
            self._region(buf, end)
            carry = buf[end:]
            if len(carry) >= MAX_LINE_BYTES:
                carry = self._overlong(carry)
        if carry:
            self.base = self.consumed - len(carry)
            self._region(carry + b"\n", len(carry) + 1)
        self._finish()
        return None

    def _alert_log(self, chunks: Iterator[bytes]) -> None:
        """Keep the clock records of a rankwatch alert log; count its lines."""
        scan = self.scan
        scan.alert_log = True
        carry = b""
        line_no = 0
        try:
            for chunk in chunks:
                lines = (carry + chunk).split(b"\n")
                carry = lines.pop()
                for raw in lines:
                    line_no += 1
                    self._alert_record(raw, line_no)
        except (EOFError, zlib.error) as exc:
            scan.notes.append(f"truncated or corrupt gzip after line {line_no}: {exc}")
        if carry.strip():
            line_no += 1
            self._alert_record(carry, line_no)
        scan.lines = line_no

    def _alert_record(self, raw: bytes, line_no: int) -> None:
        if b'"Clock' not in raw:
            return
        try:
            record = json.loads(raw)
        except ValueError:
            return
        if isinstance(record, dict) and str(record.get("alertname", "")).startswith("Clock") \
                and len(self.scan.clock_records) < MAX_EVENTS_PER_KIND:
            self.scan.clock_records.append((line_no, record))

    def _chunks(self) -> Iterator[bytes]:
        if self.gzipped:
            yield from self._gunzip()
            return
        while True:
            chunk = self.raw.read(CHUNK_BYTES)
            if not chunk:
                return
            self._progress()
            yield chunk

    def _gunzip(self) -> Iterator[bytes]:
        """Decompress incrementally so a truncated or damaged stream still yields what came
        before the damage (gzip.GzipFile discards a whole read on error). Concatenated gzip
        members are read one after the other; zero padding after the last is ignored."""
        inflate = zlib.decompressobj(wbits=31)
        member_open = False
        produced = False
        while True:
            data = self.raw.read(CHUNK_BYTES // 4)
            if not data:
                break
            self._progress()
            while data:
                if not member_open and not data.strip(b"\0"):
                    data = b""
                    break
                member_open = True
                try:
                    out = inflate.decompress(data, CHUNK_BYTES)
                except zlib.error as exc:
                    what = "corrupt data" if produced else "not a valid gzip stream"
                    raise EOFError(f"{what} ({exc})") from exc
                if out:
                    produced = True
                    yield out
                data = inflate.unconsumed_tail
                if inflate.eof:
                    data = inflate.unused_data + data
                    inflate = zlib.decompressobj(wbits=31)
                    member_open = False
        if member_open:
            tail = inflate.flush()
            if tail:
                yield tail
            raise EOFError("the compressed stream ends before its end marker")

    def _progress(self) -> None:
        if self.on_bytes is None:
            return
        try:
            position = self.raw.tell()
        except (OSError, ValueError):
            return
        if position > self.reported_raw:
            self.on_bytes(position - self.reported_raw)
            self.reported_raw = position

    def _region(self, buf: bytes, end: int) -> None:
        """Scan buf[:end] (complete lines) for events; update line count and tail."""
        starts = self._candidate_starts(buf, end)
        pos = 0
        line_no = self.line_no
        ci = 0
        n = len(starts)
        extractor = self.extractor
        while pos < end:
            if extractor.open_blocks:
                start = pos
            else:
                while ci < n and starts[ci] < pos:
                    ci += 1
                if ci >= n:
                    break
                start = starts[ci]
            if start > pos:
                line_no += buf.count(b"\n", pos, start)
            stop = buf.find(b"\n", start, end)
            prev = _line_before(buf, start, self._unmargined)
            self._feed(buf[start:stop], line_no, prev)
            pos = stop + 1
            line_no += 1
        # line_no is the number of the line at pos: count only what is left
        self.line_no = line_no + (buf.count(b"\n", pos, end) if pos < end else 0)
        self.scan.lines = self.line_no - 1
        self.tail = (self.tail + buf[max(0, end - TAIL_BYTES):end])[-TAIL_BYTES:]

    def _candidate_starts(self, buf: bytes, end: int) -> list[int]:
        if self.hits is not None:
            return self._grep_starts(buf, end)
        starts: set[int] = set()
        find = buf.find
        rfind = buf.rfind
        for literal in _LITERALS:
            pos = find(literal, 0, end)
            while pos >= 0:
                line_start = rfind(b"\n", 0, pos) + 1
                starts.add(line_start)
                line_end = find(b"\n", pos, end)
                pos = find(literal, line_end, end)
        return sorted(starts)

    def _grep_starts(self, buf: bytes, end: int) -> list[int]:
        """Line starts of the hits grep found in buf[:end] (the same lines the literal
        search would find)."""
        hits = self.hits or []
        lo = bisect.bisect_left(hits, self.base)
        hi = bisect.bisect_left(hits, self.base + end)
        starts: list[int] = []
        rfind = buf.rfind
        last = -1
        for absolute in hits[lo:hi]:
            start = rfind(b"\n", 0, absolute - self.base) + 1
            if start != last:
                starts.append(start)
                last = start
        return starts

    def _overlong(self, buf: bytes) -> bytes:
        """A line longer than MAX_LINE_BYTES: read the events in it, keep a short carry."""
        self.overlong += 1
        cut = buf.rfind(b"\r")
        if cut < len(buf) - SEGMENT_BYTES:
            cut = len(buf) - SEGMENT_BYTES
        for piece in _hit_segments(buf[:cut]):
            self._feed_text(piece, self.line_no, None)
        return buf[cut:]

    def _decode(self, data: bytes) -> str:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            self.decode_fallbacks += 1
            return data.decode("latin-1")

    def _unmargined(self, line: bytes) -> bytes:
        if self.margin is None:
            return line
        m = self.margin.match(line)
        if m is not None:
            return line[m.end():]
        if not line.strip(b"> \t\r"):
            return b""  # a quoted or indented empty line
        return line

    def read_head(self, head: bytes) -> None:
        """What the file's head says about every line: a margin to strip, a tag to strip, the
        rank its writer declares."""
        start = file_start(head)
        self.scan.head_commands = [
            (head.count(b"\n", 0, m.start()) + 1, m[0].decode("utf-8", "replace"))
            for m in _HEAD_COMMAND.finditer(head)][:_HEAD_COMMANDS]
        self.scan.declared_ranks = declared_ranks(start)
        self.scan.declared_worlds = declared_worlds(start)
        self.margin = file_margin(head)
        if self.margin is not None:
            head = b"\n".join(self._unmargined(line) for line in head.split(b"\n"))
        if has_task_labels(head):
            self.extractor = EventExtractor(bare_exceptions=True, srun_label=True)
        elif has_rank_labels(head):
            self.extractor = EventExtractor(bare_exceptions=True, rank_label=True)
        elif has_line_tag(head):
            self.extractor = EventExtractor(bare_exceptions=True, host_prefix=True)

    def _feed(self, data: bytes, line_no: int, prev: str | None) -> None:
        data = self._unmargined(data)
        if data.endswith(b"\r"):
            data = data[:-1]  # CRLF: the line ends here, it is not a redraw
        if len(data) > SEGMENT_BYTES:
            self.overlong += 1
            for piece in _hit_segments(data):
                self._feed_text(piece, line_no, None)
            return
        self._feed_text(data, line_no, prev)

    def _feed_text(self, data: bytes, line_no: int, prev: str | None) -> None:
        """One line (or a segment of an overlong one), its margin already stripped."""
        text = self._decode(data)
        segments = text.split("\r") if "\r" in text else (text,)
        for segment in segments:
            if segment.strip() or self.extractor.open_blocks:
                for event in self.extractor.feed(segment, line_no, prev=prev):
                    self._keep(event)

    def _keep(self, event: LogEvent) -> None:
        scan = self.scan
        kind = event.kind
        scan.counts[kind.value] = scan.counts.get(kind.value, 0) + 1
        if event.rank is not None and event.rank_origin == "global":
            if kind is EventKind.CHILD_FAILED_SUMMARY:
                if not failed_alike(event.fields, "exitcode"):
                    scan.table_ranks.add(event.rank)
            elif not (kind is EventKind.SIGNAL_KILL and "received by PID" in event.text):
                # (a failure table's entry for another worker, `Signal 15 (SIGTERM) received
                # by PID 18258`, is no line of that worker's)
                scan.ranks.add(event.rank)
        if kind is EventKind.RETRY:
            context = str(event.fields.get("context", "unknown"))
            attempt = event.int_field("attempt")
            if event.fields.get("exhausted"):
                scan.retry_exhausted[context] = scan.retry_exhausted.get(context, 0) + 1
            elif attempt is not None:
                attempts = scan.retry_attempts.setdefault(context, [])
                if len(attempts) < MAX_EVENTS_PER_KIND:
                    attempts.append(attempt)
        kept = self.kept.get(kind, 0)
        if kept < MAX_EVENTS_PER_KIND or event.level >= Level.FATAL:
            self.kept[kind] = kept + 1
            scan.events.append(event)

    def _finish(self) -> None:
        for event in self.extractor.flush():
            self._keep(event)
        scan = self.scan
        scan.prefixes |= self.extractor.prefixes_seen
        scan.pid_ranks = dict(self.extractor.pid_ranks)
        scan.events.sort(key=lambda e: (e.line, e.kind.value))
        self._parse_tail()
        self._notes()

    def _notes(self) -> None:
        scan = self.scan
        if self.decode_fallbacks:
            scan.notes.append(
                f"mixed encoding: {self.decode_fallbacks} line(s) were not UTF-8 (read as Latin-1)"
            )
        if self.overlong:
            scan.notes.append(
                f"{self.overlong} overlong line(s) (over {MAX_LINE_BYTES >> 20} MiB or "
                f"{SEGMENT_BYTES >> 10} KiB around an event): only the parts around events "
                "were read"
            )

    def _parse_tail(self) -> None:
        """The file's last lines: who wrote them and the last progress line (read backwards,
        so a large tail costs only the lines up to the last progress line)."""
        tail = self.tail
        if len(tail) >= TAIL_BYTES:
            tail = tail[tail.find(b"\n") + 1 :]
        lines = tail.split(b"\n")
        if lines and not lines[-1]:
            lines.pop()
        first_no = self.scan.lines - len(lines) + 1
        out: list[TailLine] = []
        loose: list[TailLine] = []
        found_progress = False
        progress_lines = 0
        segments: list[str] = [""] * len(lines)
        for offset in range(len(lines) - 1, -1, -1):
            text = _quiet_decode(self._unmargined(lines[offset])[:SEGMENT_BYTES])
            segment = without_colour(next((s for s in reversed(text.split("\r")) if s.strip()),
                                          ""))
            if not segment:
                continue
            segment = without_relay(segment)  # (Airflow's INFO on every relayed line)
            segments[offset] = segment
            rank = line_rank(segment)
            if rank is not None:
                self.scan.ranks.add(rank)
            failing = len(loose) < LOOSE_LINES and looks_failed(segment)
            done = len(out) >= TAIL_LINES and found_progress
            if done and not failing:
                continue
            # (its host tag too; srun's label stays in the text: the rules read whose line it
            # is from it)
            env = self.extractor.envelope(segment, task_label=False)
            if failing:
                loose.append(TailLine(first_no + offset, env.rank, segment[:LOOSE_CHARS], None))
            if done:
                continue
            self.scan.prefixes.update(env.prefixes)
            if env.host is not None and "journald" in env.prefixes:
                self.scan.syslog_hosts.add(env.host)
            progress = progress_fields(env.glued or env.payload) if not found_progress else None
            if progress is not None:
                found_progress = True
                if env.glued is None:
                    progress_lines += 1  # glued bars were counted with their event line
            if len(out) < TAIL_LINES or progress is not None:
                shown = env.glued if progress is not None and env.glued else env.payload
                out.append(TailLine(first_no + offset, env.rank, shown[:TAIL_CHARS], progress))
        if progress_lines:
            self.scan.counts["progress"] = self.scan.counts.get("progress", 0) + progress_lines
        out.reverse()
        self.scan.tail = out
        loose.reverse()
        self.scan.loose = loose
        heads = {t.line - first_no for t in loose}
        heads.update(e.line - first_no for e in self.scan.events if e.line >= first_no)
        evented = {e.line - first_no for e in self.scan.events}
        self.scan.continued = _continued(segments, sorted(heads), evented, first_no)


def _line_before(buf: bytes, start: int, unmargined: Callable[[bytes], bytes]) -> str | None:
    """The line before the one at `start`; in a double-spaced paste (the lines above alternate
    with blank ones) the one before the blank line. A single blank line in a single-spaced log
    is a paragraph break: what is above it is another record."""
    lines: list[str] = []
    end = start - 1
    while end >= 0 and len(lines) < 4:
        begin = buf.rfind(b"\n", 0, end) + 1
        lines.append(_quiet_decode(unmargined(buf[begin:end])))
        end = begin - 1
    if not lines:
        return None
    blanks = [not line.strip() for line in lines]
    if blanks[:4] == [True, False, True, False]:
        return lines[1]
    return lines[0]


def _continued(segments: list[str], heads: list[int], evented: set[int],
               first_no: int) -> dict[int, str]:
    """For each head line (an offset into segments), the text of the lines that continue it:
    the next few, up to one that is a record of its own (a failure, an event, a warning or an
    INFO line: torchrun's `Sending process 3129 closing signal` is not the rest of an OOM).
    Blank lines are passed over: a paste may double every line break."""
    out: dict[int, str] = {}
    for head in heads:
        kept: list[str] = []
        writer = split_envelope(segments[head]).rank
        following = (offset for offset in range(head + 1, min(len(segments),
                                                                head + 1 + 2 * CONTINUATION_LINES))
                     if segments[offset].strip())
        for offset in following:
            text = segments[offset]
            env = split_envelope(text)
            if writer is not None and env.rank is not None and env.rank != writer:
                continue  # another rank's line, interleaved: not this message's rest
            if offset in evented or looks_failed(text) or logged_below_error(text):
                break
            kept.append(env.payload[:CONTINUATION_CHARS])  # its words only
            if len(kept) == CONTINUATION_LINES:
                break
        if kept:
            out[first_no + head] = "\n".join(kept)
    return out


def _hit_segments(data: bytes) -> list[bytes]:
    """From an overlong line, the carriage-return segments around literal hits (bounded)."""
    hits: set[int] = set()
    for literal in _LITERALS:
        pos = data.find(literal)
        while pos >= 0 and len(hits) < 10_000:
            hits.add(pos)
            pos = data.find(literal, pos + len(literal))
    pieces: list[bytes] = []
    covered = -1
    for pos in sorted(hits):
        if pos < covered:
            continue
        start = data.rfind(b"\r", 0, pos) + 1
        end = data.find(b"\r", pos)
        end = len(data) if end < 0 else end
        if end - start > SEGMENT_BYTES:
            start = max(start, pos - 4096)
            end = min(end, start + SEGMENT_BYTES)
        pieces.append(data[start:end])
        covered = end
    return pieces


def _quiet_decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _looks_like_alert_log(head: bytes) -> bool:
    """The first line is a rankwatch alert record (JSON with alertname and fingerprint)."""
    first = head.lstrip()[:65536].split(b"\n", 1)[0]
    if not first.startswith(b"{") or b'"alertname"' not in first:
        return False
    try:
        record = json.loads(first)
    except ValueError:
        return False
    return isinstance(record, dict) and "alertname" in record and "fingerprint" in record


def _looks_binary(head: bytes) -> bool:
    """More than 5 % control bytes (NUL included) in the first 8 KiB. Leading NULs are
    skipped: `copytruncate` log rotation leaves a hole of zeros at the start of a text log."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    sample = head.lstrip(b"\0")
    if not sample:
        return False
    controls = sum(1 for b in sample if b < 32 and b not in _TEXT_CONTROLS) + sample.count(0)
    return controls > len(sample) // 20


def _chain_first(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    if first:
        yield first
    yield from rest


def _utf16_chunks(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    """Re-encode a UTF-16 stream (it has a BOM) as UTF-8 chunks."""
    decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")
    for chunk in _chain_first(first, rest):
        text = decoder.decode(chunk)
        if text:
            yield text.encode("utf-8")
    tail = decoder.decode(b"", final=True)
    if tail:
        yield tail.encode("utf-8")


def read_inputs(
    paths: Sequence[str],
    *,
    jobs: int = 1,
    on_bytes: ProgressCallback | None = None,
) -> tuple[list[FileScan], list[InputProblem], int]:
    """Read every input; returns the scans, the problems and the total input size in bytes."""
    files, problems = expand_inputs(paths)
    sizes: dict[str, int] = {}
    for path in files:
        with contextlib.suppress(OSError):
            sizes[path] = os.path.getsize(path)
    total = sum(sizes.values())
    found: dict[str, FileScan | InputProblem] = {}
    if jobs > 1 and len(files) < jobs:
        # Fewer files than workers: a large file is cut into pieces, one per worker.
        from monitor.triage.split_read import SPLIT_MIN_BYTES, read_split

        for path in files:
            with contextlib.suppress(OSError):
                if os.path.getsize(path) >= SPLIT_MIN_BYTES:
                    split = read_split(path, jobs)
                    if split is not None:
                        found[path] = split
                        if on_bytes is not None:
                            on_bytes(split.size_bytes)
    rest = [path for path in files if path not in found]
    if jobs > 1 and len(rest) > 1 and sum(sizes.get(p, 0) for p in rest) >= POOL_MIN_BYTES:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=jobs) as pool:
            pending = _submit(pool, rest)  # starts the workers, before the pause they'd inherit
            # The results are unpickled in this process: a dump's typed entries are many small
            # objects that the collector would rescan as each result arrives.
            with gc_paused():
                found.update(_collect(pending, on_bytes))
    else:
        found.update((path, scan_file(path, on_bytes)) for path in rest)
    scans: list[FileScan] = []
    for path in files:
        result = found[path]
        if isinstance(result, InputProblem):
            problems.append(result)
        else:
            scans.append(result)
            problems.extend(InputProblem(result.path, note, False) for note in result.notes)
    return scans, problems, total


def _submit(pool: Any, files: list[str]) -> list[tuple[str, Any]]:
    return [(path, pool.submit(scan_file, path)) for path in files]


def _collect(pending: list[tuple[str, Any]],
             on_bytes: ProgressCallback | None) -> Iterator[tuple[str, FileScan | InputProblem]]:
    for path, future in pending:
        try:
            result = future.result()
        except Exception as exc:  # noqa: BLE001 - a worker crash must not lose the report
            result = InputProblem(path, f"cannot read: {type(exc).__name__}: {exc}", True)
        if on_bytes is not None:
            with contextlib.suppress(OSError):
                on_bytes(os.path.getsize(path))
        yield path, result


__all__ = ["FileScan", "InputProblem", "TailLine", "expand_inputs", "read_inputs", "scan_file"]
