"""Log events: typed, frozen findings extracted from a training job's output lines.

`EventExtractor` is fed lines in order (with the index the caller wants reported back, e.g.
a file's line number) and returns `LogEvent`s. It is stateful only to group multi-line blocks
into one event each — Python tracebacks (with their chains and multi-line messages),
faulthandler dumps, C++ `terminate`/`Exception raised from` blocks, the torchrun failure
summary, NCCL return-code chains — and to map NCCL process ids to ranks. It does no I/O and
reads no clock; a live caller closes idle blocks with `flush()`.

Cost: a line that is not a candidate (`is_candidate`, plain substring checks) and arrives while
no block is open costs the pre-filter and nothing else. Readers that pre-filter many lines at
once (a regex-free scan of a whole chunk) only feed candidate lines, plus every line while
`open_blocks` is non-zero.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from monitor.parse.envelope import Envelope, split_envelope
from monitor.parse.log_patterns import (
    CHECKPOINT_FRAME_MARKS,
    DATA_FRAME_MARKS,
    NCCL_LINE,
    PATTERNS,
    PREFILTER_LITERALS,
    EventKind,
    Fields,
    FieldValue,
    Level,
    classify_payload,
    fields_from,
    first_match,
    is_candidate,
    net_details,
    pg_fields,
    progress_fields,
    signal_name,
)

__all__ = [
    "PREFILTER_LITERALS",
    "EventExtractor",
    "EventKind",
    "Level",
    "LogEvent",
    "Stamp",
    "is_candidate",
    "parse_stamp",
    "progress_fields",
]

_MAX_TEXT = 500  # characters of a line kept on an event
_MAX_BLOCK_LINES = 400  # a block longer than this is closed (a runaway or hostile input)
_MAX_FRAMES = 12


class Stamp(NamedTuple):
    """A wall-clock time read from a log line. `year` is None for year-less glog stamps."""

    year: int | None
    month: int
    day: int
    seconds: float  # seconds since midnight

    def sort_key(self, default_year: int) -> float:
        """Seconds on a common scale (days are approximated as 31 per month; only ordering and
        differences within a few days matter)."""
        year = self.year if self.year is not None else default_year
        return ((year * 12 + self.month) * 31 + self.day) * 86400.0 + self.seconds

    def text(self) -> str:
        hours, rest = divmod(self.seconds, 3600)
        minutes, seconds = divmod(rest, 60)
        clock = f"{int(hours):02d}:{int(minutes):02d}:{seconds:09.6f}"
        if self.year is None:
            return f"{self.month:02d}-{self.day:02d} {clock}"
        return f"{self.year:04d}-{self.month:02d}-{self.day:02d} {clock}"


_ISO = re.compile(
    r"(?P<y>\d{4})-(?P<mo>\d\d)-(?P<d>\d\d)[ T_](?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d(?:[.,]\d+)?)"
)
# `[E1016 03:31:38.928019586 ProcessGroupNCCL.cpp:607] ` (c10, 2.4+) and
# `E0325 20:57:27.620000 2606 site-packages/torch/....py:869] ` (torch Python logging 2.3+).
_GLOG = re.compile(
    r"\[?(?P<sev>[IWEFVC])(?P<mo>\d{1,2})(?P<d>\d\d) (?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d\.\d+)[ \]]"
)
_GLOG_NO_TIME = re.compile(r"\[(?P<sev>[IWEF]) [\w.]+:\d+\] ")


def parse_stamp(text: str) -> Stamp | None:
    """Parse `2026-09-18 19:29:24`, ISO 8601, `2025-05-21_15:43:03` or a glog `MMDD hh:mm:ss`."""
    m = _ISO.search(text)
    if m is not None:
        return Stamp(int(m["y"]), int(m["mo"]), int(m["d"]), _seconds(m))
    m = _GLOG.match(text)
    if m is not None:
        return Stamp(None, int(m["mo"]), int(m["d"]), _seconds(m))
    return None


def _seconds(m: re.Match[str]) -> float:
    return int(m["h"]) * 3600 + int(m["mi"]) * 60 + float(m["s"].replace(",", "."))


@dataclass(frozen=True, slots=True)
class LogEvent:
    """One finding in the output.

    `rank` is the global rank the event is attributed to and `rank_origin` how it was known:
    `global` (`[rankN]:`, mpirun tag), `stream` (the caller knew the writer), `local`
    (torchrun/accelerate local rank), `task` (srun label), `pg` (the `[Rank N]` inside a
    ProcessGroupNCCL message: the rank within that process group), `nccl` (an NCCL pid whose
    init line named its rank). `line`/`end_line` are the caller's indexes of the block.
    """

    kind: EventKind
    level: Level
    rank: int | None
    rank_origin: str | None
    fields: Mapping[str, FieldValue]
    text: str
    line: int
    end_line: int
    host: str | None = None
    stamp: Stamp | None = None

    def int_field(self, name: str) -> int | None:
        value = self.fields.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def str_field(self, name: str) -> str | None:
        value = self.fields.get(name)
        return None if value is None else str(value)


# --- line shapes used by the block grouper ---------------------------------------------

_TRACEBACK = "Traceback (most recent call last):"
# A logger's record header that it repeats on every line of a multi-line message (vLLM's
# `ERROR 07-24 08:12:31 multiproc_worker_utils.py:226] `, newer `[multiproc_executor.py:226] `)
_RECORD_HEAD = re.compile(r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? "
                          r"\[?(?P<at>[\w.]+\.py:\d+)\] ")
_EXC_STRICT = re.compile(
    r"^(?P<exc>(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit|Timeout|Failure|"
    r"Fault|Warning)|KeyboardInterrupt|StopIteration|SystemExit|Exception)(?::\s?(?P<msg>.*)|\s*)$"
)
_EXC_LENIENT = re.compile(r"^(?P<exc>[A-Za-z_][\w.]*)(?::\s(?P<msg>.*)|:?\s*$)")
_NOT_EXCEPTIONS = frozenset({"srun", "slurmstepd", "kernel", "NVRM", "INFO", "WARNING", "ERROR",
                             "DEBUG", "CRITICAL", "Note", "Warning", "Epoch", "Train", "Step"})
# A shell's report of a process it lost (`Killed`, `Terminated`), written where a traceback cut
# short would have ended: the signal, not an exception the process raised
_SHELL_REPORTS = frozenset({"Killed", "Terminated", "Aborted", "Hangup"})
# ... and its report of how a C++ program ended, printed under the message of its `what():`
_SHELL_REPORT_LINE = re.compile(r"(?:Aborted|Segmentation fault|Killed|Bus error)\b")
_STILL_TRYING = re.compile(r"(?i:\bretrying\b|\bwill retry\b)")
# tqdm's bar (` 86%|█████▋    | 56/65 [00:04<00:00, 12.03ba/s]`)
# and its bar for an unknown total (`Validation: 0it [00:00, ?it/s]`)
_PROGRESS_BAR = re.compile(r"\d{1,3}%\|.{0,120}\| *\d+/\d+ \[|\b\d+it \[[\d?]")
# an `assert` statement as a frame's code line, and the carets Python 3.11 marks code with
_ASSERT_CODE = re.compile(r"assert\b(?P<statement>.+)$")
_CARETS = re.compile(r"^\s*[~^]+\s*$")
_FRAME = re.compile(r'^\s+File "(?P<file>[^"]*)", line (?P<line>\d+),? in (?P<func>.+?)\s*$')
_CHAIN = ("The above exception was the direct cause", "During handling of the above exception")
_MSG_CONT = re.compile(
    r"^(?:ncc[lL]\w*:|Last error:|CUDA kernel errors might|For debugging consider|Compile with|"
    r"Search for|Device-side assertion|=+\s*$|-+\s*$|\S.* FAILED\s*$|Failures:|Root Cause|"
    r"\[\d+\]:|\s+<NO_OTHER_FAILURES>|Original Traceback|Exception raised from|frame #\d+|"
    r"This may indicate|If reserved but unallocated|See documentation|To enable traceback|"
    r"Please |HINT|Hint|\s+what\(\):|"
    # Ray's ActorDiedError: the dead actor's identity on indented lines, then the cause
    r"\s+(?:class_name|actor_id|pid|name|namespace|ip): |The actor is dead because)"
)
_RAY_FIELD = re.compile(r"^(pid|ip|name): (\S+)")
# Continuations that still belong to the message after a blank line (a double-spaced paste).
_MSG_AFTER_BLANK = re.compile(
    r"^(?:\s+(?:class_name|actor_id|pid|name|namespace|ip): |The actor is dead because|"
    r"Last error:|ncc[lL]\w*:)"
)
_FAULT_LINE = re.compile(
    r"^(?:(?:Current thread|Thread) 0x[0-9a-fA-F]+ \(most recent call first\):|"
    r"Stack \(most recent call first\):|\s+File \"[^\"]*\", line \d+ in \S+|\s+<no Python frame>|"
    r"Python runtime state:|Garbage-collecting|\s+\.\.\.|\s*$)"
)
_FAULT_FRAME = re.compile(r'^\s+File "(?P<file>[^"]*)", line (?P<line>\d+) in (?P<func>\S+)')
_CPP_START = re.compile(
    r"terminate called after throwing an instance of '(?P<exc>[^']+)'|"
    # libc++ (macOS, clang builds): the type and its message on one line
    r"libc\+\+abi(?:\.dylib)?: terminating (?:with|due to) uncaught exception of type "
    r"(?P<libcxx_exc>[\w:<>, ]+?)(?:: (?P<libcxx_what>.*))?$|"
    r"^Exception raised from (?P<func>\S+) at (?P<where>\S+) \(most recent call first\)"
)
# A traceback's code line that opens a file for writing (`open(path, "w")`, a mode on its own
# continuation line `"wb")`, pyarrow's `OSFile(path, "wb")`, PIL's `open(filename, "w+b")`): a
# missing directory then fails the write, not a read
_WRITE_OPEN = re.compile(r"""(?:^\s*|[(,]\s*)(?:mode\s*=\s*)?["'](?:w|a|x)[bt+]{0,2}["']\s*[),]""")
_OPEN_CALL = re.compile(r"\bopen\(")
# ... and one that opens a file to read it: one argument, or a literal read mode (a mode passed
# on in a variable, `io.open(self, mode, …)` under pathlib, says nothing)
_READ_OPEN = re.compile(r"""\bopen\((?:[^(),]|\([^()]*\))*(?:\)|,\s*["']r[bt+]?["']\s*[),])""")
_WRITE_DEPTH = 5


def _opens_for_write(code: str) -> bool:
    """Whether a traceback's code line opens a file for writing, and only that: a line that
    also opens another file (`open(src, "r") as fin, open(dst, "w")`) does not say which failed."""
    return _WRITE_OPEN.search(code) is not None and len(_OPEN_CALL.findall(code)) <= 1

_C10_WARNING = re.compile(r"^\W*\[W(?:\d{3,4} [\d:.]+)? [\w.]+:\d+\] ")
_RAISED_FROM = re.compile(r"^Exception raised from (?P<func>\S+) at (?P<where>\S+)")
_CPP_FRAME = re.compile(r"^(?:frame #\d+: |#\d+ |C\+\+ CapturedTraceback:)")
_RETCODE = re.compile(r" NCCL INFO (?P<file>[\w/.\-]+):(?P<line>\d+) -> (?P<retcode>\d+)")
_ANCHOR = re.compile(r"^\[[IWEF]\d{0,4}[ \]]|^[IWEFV]\d{4} \d\d:|^[\w.\-]+:\d+:\d+ \[\d+\] ")


class _Verdict:
    TAKE = 1  # the line belongs to the block
    TAKE_END = 2  # the line belongs to the block and closes it
    REJECT = 3  # the block is over; the line is something else


@dataclass
class _Block:
    kind: str  # traceback | exception | faulthandler | cpp | chain
    key: tuple[object, ...]
    line: int
    end_line: int
    rank: int | None
    rank_origin: str | None
    host: str | None
    stamp: Stamp | None
    text: str
    fed_at: int  # extractor line counter when the block last took a line
    actor_pid: int | None = None  # a Ray actor's pid from its prefix
    engine_process: str | None = None  # an inference engine's process tag from its prefix
    record_head: str | None = None  # the logger record's `file.py:226` each line repeats
    state: str = "frames"
    exc_type: str | None = None
    exc_message: str | None = None
    chain: list[str] = field(default_factory=list)
    frames: list[str] = field(default_factory=list)
    frame_files: list[str] = field(default_factory=list)
    message: list[str] = field(default_factory=list)
    events: list[LogEvent] = field(default_factory=list)
    headless: bool = False
    lines: int = 1
    after_last_error: bool = False
    after_bar: bool = False  # a progress bar was passed over inside the frames
    frames_seen: int = 0  # frames read, before any were dropped for the cap
    open_mode: str = ""  # "w"/"r": the innermost code line shown that opens a file, its mode
    wrote_at: int = -1  # frames_seen at that write
    last_code: str = ""  # the innermost frame's code line shown, once its frame is the last
    summary: dict[str, object] = field(default_factory=dict)
    section: str = ""
    entry: dict[str, object] | None = None
    retcodes: list[int] = field(default_factory=list)


# NCCL <= 2.3: `host:pid:tid [dev] include/socket.h:194 WARN Call to recv failed : …`
_OLD_NCCL_WARN = re.compile(r"[\w.\-]+:\d+:\d+ \[\d+\] (?:[\w./\-]+:\d+ )?(?=WARN )")

# What may stand before NCCL's own `host:pid:tid [dev] ` where the envelope did not know the
# prefix: a tag that ends in a blank, a bracket (also `]:`) or a quote's `>` (a task label
# without srun's flag, pdsh's host, a stream's name, a Ray Train worker's tag, a line number);
# never a letter, digit or lone colon (a stamp glued to a host is no prefix of it)
_BEFORE_NCCL = frozenset(" >]|)")


def _nccl_prefix(payload: str) -> re.Match[str] | None:
    """NCCL's own prefix at the start of the payload, or after a prefix of up to 120
    characters that the envelope did not strip."""
    m = NCCL_LINE.match(payload)
    if m is None:
        m = NCCL_LINE.search(payload, 0, 160)
        if m is None or m.start() > 120 or not (payload[m.start() - 1] in _BEFORE_NCCL
                                                  or payload[m.start() - 2:m.start()] == "]:"):
            return None
    return m


# The record a program logged an exception under, caught (`logger.warning("…", exc_info=True)`,
# `logger.exception` under a message that says it went around it): a line that says it skipped,
# ignored, went on, fell back or will retry, logged as a warning or ending in a colon
_LOGGED_LEVEL = re.compile(r"(?:^|[\s\[|])WARNING(?:[\s\]|:]|$)")
_HANDLED_WORDS = re.compile(r"(?i)\b(?:skipp(?:ed|ing)|ignor(?:ed|ing)|continu(?:ed|ing)|"
                            r"reporting \w+ instead|reporting nan|fall(?:ing)? back|"
                            r"will retry|retrying)\b")


_ERROR_RECORD = re.compile(r"(?:^|[\s\[|])(?:ERROR|CRITICAL|FATAL)(?:[\s\]|:]|$)")


def _handled_record(above: Envelope, env: Envelope) -> str:
    """The line right above a traceback (`above`), where it is the same writer's record of
    handling it (its text, at most 200 characters), or ""."""
    if above.rank is not None and env.rank is not None and above.rank != env.rank:
        return ""
    text = above.payload.rstrip()
    if " NCCL " in text or _HANDLED_WORDS.search(text) is None or not (
            text.endswith(":") or _LOGGED_LEVEL.search(text) is not None):
        return ""
    return text[:200]


class EventExtractor:
    """Turns lines into `LogEvent`s, grouping multi-line blocks. Feed lines in order.

    `srun_label`/`host_prefix`/`rank_label` enable the ambiguous envelope prefixes (see
    `split_envelope`).
    `stale_lines`: a block that took no line for this many fed lines is closed (so a crashed
    writer cannot hold a block open forever).
    """

    def __init__(
        self,
        *,
        srun_label: bool = False,
        host_prefix: bool = False,
        rank_label: bool = False,
        stale_lines: int = 200,
        bare_exceptions: bool = False,
    ) -> None:
        self._srun_label = srun_label
        self._rank_label = rank_label
        # Triage: an exception line with no traceback and nothing else recognised in it is
        # still the rank's error (pasted logs often keep only that line). Live output keeps
        # them out: a healthy job may log caught exceptions that way.
        self._bare_exceptions = bare_exceptions
        self._host_prefix = host_prefix
        self._stale_lines = stale_lines
        self._blocks: dict[tuple[object, ...], _Block] = {}
        self._fed = 0
        # the line of each writer's last `Exception in thread NAME:` (a thread's traceback
        # follows it; the process goes on)
        self._thread_headers: dict[tuple[object, ...], int] = {}
        self.pid_ranks: dict[tuple[str, int], tuple[int, int]] = {}  # (host,pid) → (nranks, rank)
        self.prefixes_seen: set[str] = set()
        self.progress_lines = 0

    @property
    def open_blocks(self) -> int:
        return len(self._blocks)

    def envelope(self, text: str, *, task_label: bool = True) -> Envelope:
        """A line's envelope as this extractor strips it: its host tag, and its srun label
        unless `task_label` is False (a reader that tells tasks apart by the label's text)."""
        return split_envelope(text, srun_label=self._srun_label and task_label,
                              host_prefix=self._host_prefix, rank_label=self._rank_label)

    def feed(
        self, text: str, index: int, *, rank: int | None = None, prev: str | None = None
    ) -> list[LogEvent]:
        """Process one line. `rank`: the writer's rank when the caller knows it; `prev`: the
        preceding line, which lets an exception line close a traceback whose head was cut."""
        self._fed += 1
        env = self.envelope(text)
        if env.prefixes:
            self.prefixes_seen.update(env.prefixes)
        payload = env.payload
        if " WARN " in payload and " NCCL " not in payload:
            old = _OLD_NCCL_WARN.match(payload)
            if old is not None:  # NCCL <= 2.3 wrote no "NCCL" before its level
                payload = f"{payload[:old.end()]}NCCL {payload[old.end():]}"
        out: list[LogEvent] = []
        nccl = _nccl_prefix(payload) if " NCCL " in payload else None
        key = self._key(env, rank)
        if self._blocks:
            block_key = ("nccl", nccl["host"], nccl["pid"], nccl["tid"]) if nccl else key
            block = self._blocks.get(block_key)
            if block is not None:
                verdict = self._accept(block, payload, env, index, rank)
                if verdict != _Verdict.REJECT:
                    block.fed_at = self._fed
                    if verdict == _Verdict.TAKE_END:
                        out.extend(self._close(block))
                    return out
                out.extend(self._close(block))
            if len(self._blocks) and self._fed % 16 == 0:
                out.extend(self._close_stale())
        if not payload or not is_candidate(payload):
            return out
        if payload.startswith("Exception in thread ") and "MainThread" not in payload:
            self._thread_headers[key] = index
        events = self._line_events(env, payload, index, rank, nccl)
        start = self._start_block(env, payload, index, rank, key, nccl, prev)
        if start is not None:
            start.events.extend(e for e in events if e.kind is not EventKind.NCCL_WARN_NET)
            out.extend(e for e in events if e.kind is EventKind.NCCL_WARN_NET)
            self._blocks[start.key] = start
            if start.kind == "chain":
                out.extend(start.events)
                start.events.clear()
        else:
            out.extend(events)
        return out

    def flush(self) -> list[LogEvent]:
        """Close every open block (end of input, or the writer went quiet)."""
        out: list[LogEvent] = []
        for block in list(self._blocks.values()):
            out.extend(self._close(block))
        return out

    # -- single lines ----------------------------------------------------------------------
    def _key(self, env: Envelope, rank: int | None) -> tuple[object, ...]:
        if env.rank is not None:
            return ("g", env.rank)
        if rank is not None:
            return ("g", rank)
        if env.local_rank is not None:
            return ("l", env.host, env.local_rank)
        if env.task is not None:
            return ("t", env.task)
        return ("u", env.host)

    def _attribute(
        self, env: Envelope, rank: int | None, fields: Mapping[str, FieldValue],
        nccl: re.Match[str] | None,
    ) -> tuple[int | None, str | None]:
        if env.rank is not None:
            return env.rank, "global"
        if rank is not None:
            return rank, "stream"
        if env.local_rank is not None:
            return env.local_rank, "local"
        if env.task is not None:
            return env.task, "task"
        pg_rank = fields.get("pg_rank")
        if isinstance(pg_rank, int) and _default_group(fields):
            return pg_rank, "pg"
        if nccl is not None:
            known = self.pid_ranks.get((nccl["host"], int(nccl["pid"])))
            if known is not None:
                return known[1], "nccl"
        return None, None

    def _line_events(
        self, env: Envelope, payload: str, index: int, rank: int | None,
        nccl: re.Match[str] | None,
    ) -> list[LogEvent]:
        found = classify_payload(payload)
        if env.glued is not None:
            bar = progress_fields(env.glued)
            if bar is not None:
                found.append((EventKind.PROGRESS, Level.INFO, bar))
        if not found:
            return []
        stamp = _line_stamp(env, payload)
        host = env.host
        events = []
        line_pg = pg_fields(payload) if "Rank " in payload else {}
        for kind, level, fields in found:
            if nccl is not None:
                fields = {**fields, "host": nccl["host"], "pid": int(nccl["pid"]),
                          "cuda_dev": int(nccl["cuda_dev"])}
                host = host or nccl["host"]
                if kind is EventKind.NCCL_INIT:
                    self._learn_pid(nccl, fields)
            if env.repeat > 1:
                fields = {**fields, "repeat": env.repeat}
            if env.actor_pid is not None:
                fields = {**fields, "actor_pid": env.actor_pid}
            if env.engine_process is not None:
                fields = {**fields, "engine_process": env.engine_process}
            who, origin = self._attribute(env, rank, {**line_pg, **fields}, nccl)
            events.append(
                LogEvent(kind, level, who, origin, fields, payload[:_MAX_TEXT], index, index,
                         host, stamp)
            )
        return events

    def _learn_pid(self, nccl: re.Match[str], fields: Fields) -> None:
        nranks, nccl_rank = fields.get("nranks"), fields.get("nccl_rank")
        if isinstance(nranks, int) and isinstance(nccl_rank, int):
            pid_key = (nccl["host"], int(nccl["pid"]))
            known = self.pid_ranks.get(pid_key)
            if known is None or nranks > known[0]:
                self.pid_ranks[pid_key] = (nranks, nccl_rank)

    # -- blocks ----------------------------------------------------------------------------
    def _start_block(
        self, env: Envelope, payload: str, index: int, rank: int | None,
        key: tuple[object, ...], nccl: re.Match[str] | None, prev: str | None,
    ) -> _Block | None:
        if nccl is not None:
            if " NCCL WARN " in payload:
                chain_key = ("nccl", nccl["host"], nccl["pid"], nccl["tid"])
                return self._new_block("chain", chain_key, env, payload, index, rank)
            return None
        at = payload.find(_TRACEBACK)
        if at >= 0 and not payload.startswith("Original"):
            block = self._new_block("traceback", key, env, payload[at:], index, rank)
            head = _RECORD_HEAD.match(payload)
            if head is not None:
                # a logger's record that holds the traceback, its header on every line
                # (vLLM's `ERROR 07-24 08:12:31 multiproc_worker_utils.py:226] `)
                block.record_head = head["at"]
            if 0 < index - self._thread_headers.get(key, -9) <= 2:
                block.summary["in_thread"] = True
            if prev is not None:
                above = split_envelope(prev)
                self._read_line_above(block, above, env)
                snippet = _RAY_TRAIN_SNIPPET.match(above.payload)
                if snippet is not None and block.rank is None:
                    # Ray Train's controller quoting a worker's error under its world rank
                    # (`[Rank 2 Error Snippet]:`, WorkerGroupError): that rank's traceback
                    # (the pid in front of its lines is the controller's, not the worker's)
                    block.rank, block.rank_origin = int(snippet[1]), "global"
                    block.actor_pid = None
                    block.summary["quoted_rank"] = True
            return block
        if payload.startswith("Fatal Python error:"):
            block = self._new_block("faulthandler", key, env, payload, index, rank)
            block.exc_type = payload.partition(":")[2].strip()
            return block
        m = _CPP_START.search(payload)
        if m is not None:
            block = self._new_block("cpp", key, env, payload, index, rank)
            block.exc_type = m["exc"] or m["libcxx_exc"]
            if m["libcxx_what"]:
                block.summary["what"] = m["libcxx_what"].strip()[:_MAX_TEXT]
            if m["func"]:
                block.summary["raised_from"] = m["func"]
                block.summary["raised_at"] = m["where"]
                block.state = "frames"
                if prev is not None and _C10_WARNING.match(split_envelope(prev).payload):
                    # the backtrace of an exception a c10 warning printed (`[W… TCPStore.cpp:358]
                    # [c10d] TCP client failed to connect/validate … - retrying …: Connection
                    # reset by peer`, then `Exception raised from recvBytes …`): the warning's
                    block.summary["under_warning"] = True
            else:
                block.state = "what"
            return block
        if self._bare_exceptions and _SUMMARY_LINE.match(payload):
            # torchrun's failure table pasted without its ChildFailedError header
            block = self._new_block("exception", key, env, payload, index, rank)
            block.exc_type = "ChildFailedError"
            block.chain.append(block.exc_type)
            block.state = "child_failed"
            block.headless = True
            if _SUMMARY_FIELD.match(payload):
                block.entry = {}
                block.summary["failures"] = [block.entry]
            self._accept_child_failed(block, payload)
            return block
        m = _EXC_STRICT.match(payload)
        # (the kernel's ring buffer holds no Python exception: `[ 1843.3] LustreError: 11-0: …`)
        if (m is not None and m["exc"].split(".")[-1] not in _NOT_EXCEPTIONS
                and "dmesg" not in env.prefixes):
            block = self._new_block("exception", key, env, payload, index, rank)
            self._set_exception(block, m)
            if prev is not None and _STILL_TRYING.search(payload) is None:
                # (a line that says it will try again is a record of its own, never the end
                # of a traceback whose head was cut)
                before = split_envelope(prev).payload
                if before[:1] in (" ", "\t") and before.strip():
                    block.headless = True
            return block
        return None

    def _read_line_above(self, block: _Block, above: Envelope, env: Envelope) -> None:
        """What the line right above a traceback says of it."""
        if (block.engine_process is None and above.engine_process is not None
                and env.engine_process is None and above.payload.rstrip().endswith(":")):
            # an engine process's record that heads the traceback under it (SGLang <= 0.3's
            # `[… TP5] Exception in ModelTpServer:`, the traceback on the bare lines below)
            block.engine_process = above.engine_process
        if record := _handled_record(above, env):
            block.summary["logged_under"] = record
        if block.stamp is None and _ERROR_RECORD.search(above.payload[:80]) and (
                above.rank is None or above.rank == env.rank):
            # a traceback a logger printed under its own stamped ERROR record (Python's
            # `logger.exception`: `2024-10-02 13:56:20,004 ERROR train unhandled exception`,
            # then the traceback): that record's time is the traceback's
            block.stamp = _line_stamp(above, above.payload)
        if above.payload.strip() == "--- Logging error ---":
            # Python's logging module reporting a handler's own failure (a log file that
            # could not be written): it prints this and the program goes on
            block.summary["logging_error"] = True

    def _new_block(
        self, kind: str, key: tuple[object, ...], env: Envelope, payload: str, index: int,
        rank: int | None,
    ) -> _Block:
        who, origin = self._attribute(env, rank, {}, None)
        return _Block(
            kind=kind, key=key, line=index, end_line=index, rank=who, rank_origin=origin,
            host=env.host, stamp=_line_stamp(env, payload), text=payload[:_MAX_TEXT],
            fed_at=self._fed, actor_pid=env.actor_pid, engine_process=env.engine_process,
        )

    def _set_exception(self, block: _Block, m: re.Match[str]) -> None:
        exc = m["exc"]
        block.exc_type = exc
        block.exc_message = (m["msg"] or "").strip()
        # whether this exception's innermost code line that opens a file opened it to write, a
        # few frames from the failure (a missing program under subprocess is no write); a
        # chained traceback after it starts afresh
        block.summary["opened_for_write"] = (
            block.open_mode == "w" and block.frames_seen - block.wrote_at < _WRITE_DEPTH
            and not _frames_match(block.frames, ("_execute_child",)))
        block.open_mode, block.wrote_at = "", -1
        block.chain.append(exc)
        block.state = "message"
        if exc.endswith("ChildFailedError"):
            block.state = "child_failed"

    def _accept(
        self, block: _Block, payload: str, env: Envelope, index: int, rank: int | None
    ) -> int:
        if block.lines >= _MAX_BLOCK_LINES:
            return _Verdict.REJECT
        if block.record_head is not None:
            head = _RECORD_HEAD.match(payload)
            if head is None or head["at"] != block.record_head:
                return _Verdict.REJECT  # the record ended: another record, another writer
            payload = payload[head.end():]
        handler = _ACCEPTORS[block.kind]
        verdict = handler(self, block, payload)
        if verdict != _Verdict.REJECT:
            block.lines += 1
            block.end_line = index
            if block.kind != "chain" and is_candidate(payload):
                block.events.extend(self._line_events(env, payload, index, rank, None))
        return verdict

    def _accept_traceback(self, block: _Block, payload: str) -> int:
        state = block.state
        stripped = payload.strip()
        if state == "frames":
            if payload[:1] in (" ", "\t"):
                m = _FRAME.match(payload)
                if m is not None:
                    block.frames.append(f"{m['file']}:{m['line']} {m['func']}")
                    block.frame_files.append(m["file"])
                    block.frames_seen += 1
                    block.last_code = ""
                    del block.frames[:-_MAX_FRAMES]
                    del block.frame_files[:-_MAX_FRAMES]
                    return _Verdict.TAKE
                if not _CARETS.match(payload):  # (3.11's `^^^~~~` marks under the code)
                    block.last_code = stripped[:_MAX_TEXT]
                if _opens_for_write(payload):  # a frame's code line
                    block.open_mode, block.wrote_at = "w", block.frames_seen
                elif _READ_OPEN.search(payload):
                    block.open_mode = "r"
                return _Verdict.TAKE
            if not stripped:
                return _Verdict.TAKE
            if _PROGRESS_BAR.search(payload):
                # another process's progress bar written into the traceback (tqdm's `\r`
                # lines): the traceback goes on after it, but only a strict exception line
                # ends it now (a bar's own `Validation: 0it …` is none)
                block.after_bar = True
                return _Verdict.TAKE
            if _ANCHOR.match(payload):
                return _Verdict.REJECT
            m = _EXC_STRICT.match(payload) or (
                None if block.after_bar else _EXC_LENIENT.match(payload))
            if m is None or m["exc"] in _SHELL_REPORTS:
                return _Verdict.REJECT
            self._set_exception(block, m)
            return _Verdict.TAKE
        return self._accept_message(block, payload)

    def _accept_message(self, block: _Block, payload: str) -> int:
        stripped = payload.strip()
        if block.state == "child_failed":
            return self._accept_child_failed(block, payload)
        if block.state == "after_blank":
            if any(payload.startswith(c) for c in _CHAIN):
                block.state = "chain"
                return _Verdict.TAKE
            if payload.startswith(_TRACEBACK):
                block.state = "frames"
                return _Verdict.TAKE
            if _MSG_AFTER_BLANK.match(payload) or block.after_last_error:
                block.state = "message"
                return self._accept_message(block, payload)
            return _Verdict.REJECT
        if block.state == "chain":
            if not stripped:
                return _Verdict.TAKE
            if payload.startswith(_TRACEBACK):
                block.state = "frames"
                return _Verdict.TAKE
            return _Verdict.REJECT
        # state "message": the exception line's message may continue on known lines
        if not stripped:
            block.state = "after_blank"
            return _Verdict.TAKE
        if any(payload.startswith(c) for c in _CHAIN):
            block.state = "chain"
            return _Verdict.TAKE
        if payload.startswith(_TRACEBACK) and block.kind == "traceback":
            if payload.strip() == _TRACEBACK:
                # right under the exception line with no chain's words between: another
                # traceback (another process's, or this one's next), an event of its own
                return _Verdict.REJECT
            # a traceback the exception carries in its message (torch.distributed.checkpoint's
            # `CheckpointException ranks:…`, then `Traceback (most recent call last): (RANK 0)`)
            block.state = "frames"
            return _Verdict.TAKE
        if block.after_last_error:
            block.after_last_error = False
            block.summary["last_error"] = stripped
            return _Verdict.TAKE
        if _MSG_CONT.match(payload):
            if payload.startswith("Last error:"):
                tail = payload[len("Last error:"):].strip()
                if tail:
                    block.summary["last_error"] = tail
                else:
                    block.after_last_error = True
            elif payload.startswith("Original Traceback"):
                block.state = "nested"
            block.message.append(stripped)
            del block.message[40:]
            return _Verdict.TAKE
        if block.state == "nested":
            if not payload[:1].isspace():
                block.state = "message"  # the worker's own exception line ends its traceback
                block.summary["worker_exception"] = payload.strip()[:_MAX_TEXT]
            return _Verdict.TAKE
        return _Verdict.REJECT

    def _accept_child_failed(self, block: _Block, payload: str) -> int:
        stripped = payload.strip()
        if stripped.startswith("Root Cause"):
            block.section = "root"
            return _Verdict.TAKE
        if stripped.startswith("Failures:"):
            block.section = "failures"
            return _Verdict.TAKE
        m = re.match(r"\[(\d+)\]:$", stripped)
        if m is not None:
            block.entry = {}
            failures = block.summary.setdefault("failures", [])
            if block.section == "root":
                block.summary["root"] = block.entry
            elif isinstance(failures, list):
                failures.append(block.entry)
            return _Verdict.TAKE
        m = re.match(r"(\w+)\s*: ?(.*)$", stripped)
        if m is not None and block.entry is not None and m[1] in _SUMMARY_KEYS:
            block.entry[m[1]] = m[2].strip()
            return _Verdict.TAKE
        if stripped.startswith("=") and block.section == "root" and "root" in block.summary:
            return _Verdict.TAKE_END
        failures = block.summary.get("failures")
        if stripped.startswith("=") and block.headless and not block.section \
                and isinstance(failures, list) and failures and failures[-1] is block.entry:
            # a table cut above its headers: torchrun closes only the root cause's section
            # with `=` (the other failures' with `-`), so the entry above is the root cause
            block.summary["root"] = failures.pop()
            return _Verdict.TAKE_END
        if stripped.endswith("FAILED") and "entrypoint" not in block.summary:
            block.summary["entrypoint"] = stripped[: -len("FAILED")].strip()
        if _ANCHOR.match(payload):
            return _Verdict.REJECT
        return _Verdict.TAKE

    def _accept_faulthandler(self, block: _Block, payload: str) -> int:
        if payload.startswith("Extension modules:"):
            return _Verdict.TAKE_END
        if not _FAULT_LINE.match(payload):
            return _Verdict.REJECT
        if payload.startswith("Current thread"):
            block.state = "current"
        elif payload.startswith("Thread "):
            block.state = "other"
            block.summary["threads"] = int(str(block.summary.get("threads", 0))) + 1
        m = _FAULT_FRAME.match(payload)
        if m is not None and block.state == "current":
            block.frames.append(f"{m['file']}:{m['line']} {m['func']}")
            block.frame_files.append(m["file"])
        return _Verdict.TAKE

    def _accept_cpp(self, block: _Block, payload: str) -> int:
        stripped = payload.strip()
        if stripped.startswith("what():"):
            what = stripped[len("what():"):].strip()
            while what.startswith("what():"):
                what = what[len("what():"):].strip()
            block.summary.setdefault("what", what[:_MAX_TEXT])
            block.state = "what"
            return _Verdict.TAKE
        m = _RAISED_FROM.match(payload)
        if m is not None:
            block.summary.setdefault("raised_from", m["func"])
            block.summary.setdefault("raised_at", m["where"])
            block.state = "frames"
            return _Verdict.TAKE
        if _CPP_FRAME.match(payload):
            block.state = "frames"
            if len(block.frames) < _MAX_FRAMES:
                block.frames.append(stripped[:200])
            return _Verdict.TAKE
        if payload.startswith("terminate called"):
            return _Verdict.TAKE
        if not stripped:
            block.summary["what_ended"] = True  # a blank line ends the message's own lines
            return _Verdict.TAKE_END if block.state == "frames" else _Verdict.TAKE
        if block.state == "what" and not _ANCHOR.match(payload) and _TRACEBACK not in payload:
            # the message's further lines, up to a Python traceback (the launcher's, say): kept
            # with it, as they may name the cause (Marian's `GPUassert: an illegal memory
            # access was encountered` under its `what():  … gpuAssert … threw`)
            if ("what" in block.summary and not block.summary.get("what_ended")
                  and _SHELL_REPORT_LINE.match(stripped) is None):
                joined = f"{block.summary['what']} {stripped}"
                block.summary["what"] = joined[:_MAX_TEXT]
            return _Verdict.TAKE
        return _Verdict.REJECT

    def _accept_chain(self, block: _Block, payload: str) -> int:
        m = _RETCODE.search(payload)
        if m is None:
            return _Verdict.REJECT
        block.retcodes.append(int(m["retcode"]))
        return _Verdict.TAKE

    def _close_stale(self) -> list[LogEvent]:
        limit = self._fed - self._stale_lines
        out: list[LogEvent] = []
        for block in [b for b in self._blocks.values() if b.fed_at < limit]:
            out.extend(self._close(block))
        return out

    def _close(self, block: _Block) -> list[LogEvent]:
        self._blocks.pop(block.key, None)
        _annotate_last_error(block)
        _annotate_actor(block)
        summary_block = block.state == "child_failed"
        events = list(block.events) if summary_block else _merge_by_kind(block.events)
        rank, origin = block.rank, block.rank_origin
        if rank is None:
            for event in events:
                if event.rank is not None:
                    rank, origin = event.rank, event.rank_origin
                    break
        out: list[LogEvent] = []
        head = self._block_event(block, rank, origin, events)
        if head is not None:
            out.append(head)
        for event in events:
            if (block.engine_process is not None and "engine_process" not in event.fields
                    and block.kind in ("traceback", "exception")):
                # a line of the traceback an engine's process logged under its tag (SGLang's
                # `[… DP1 TP3] Scheduler hit an exception: Traceback …`, the lines under it
                # bare): that process's line
                event = replace(
                    event, fields={**event.fields, "engine_process": block.engine_process})
            if event.rank is None and rank is not None:
                fields = event.fields
                if block.summary.get("quoted_rank") and "actor_pid" in fields:
                    # (a rank's error another process quoted: the pid on its lines is the
                    # quoting process's)
                    fields = {k: v for k, v in fields.items() if k != "actor_pid"}
                event = LogEvent(event.kind, event.level, rank, origin, fields, event.text,
                                 event.line, event.end_line, event.host, event.stamp)
            out.append(event)
        if block.kind in ("exception", "traceback") and block.state == "child_failed":
            summary = self._child_failed_event(block)
            if summary is not None:
                out = [_adopt_failure_rank(e, summary) for e in out]
                out.append(summary)
        return out

    def _block_event(
        self, block: _Block, rank: int | None, origin: str | None, events: list[LogEvent]
    ) -> LogEvent | None:
        fields: Fields = {}
        if block.kind == "chain":
            if not block.retcodes:
                return None
            fields = {"retcode": block.retcodes[-1], "chain_length": len(block.retcodes),
                      "host": str(block.key[1]), "pid": int(str(block.key[2]))}
            return LogEvent(EventKind.NCCL_ERROR, Level.ERROR, rank, origin, fields,
                            block.text, block.line, block.end_line, block.host, block.stamp)
        if block.kind in ("traceback", "exception"):
            _assertion_shown(block)
            if block.kind == "exception" and not block.headless and (
                events or not self._bare_exceptions
            ):
                return None  # a bare exception line: its own events say what it was
            fields = {
                "exc_type": block.exc_type,
                "exc_message": (block.exc_message or "")[:_MAX_TEXT],
                "chain": tuple(block.chain),
                "frames": tuple(block.frames),
                "headless": block.headless or block.kind == "exception",
                "in_data_code": _frames_match(block.frame_files + block.frames,
                                              DATA_FRAME_MARKS),
                "in_checkpoint_code": _frames_match(block.frames, CHECKPOINT_FRAME_MARKS),
                "in_collective": _frames_match(block.frames, ("distributed_c10d",)),
                "opened_for_write": bool(block.summary.get("opened_for_write")),
                # raised in a thread other than the main one (`Exception in thread NAME:`)
                "in_thread": bool(block.summary.get("in_thread")),
            }
            if "last_error" in block.summary:
                fields["last_error"] = str(block.summary["last_error"])
            if "logged_under" in block.summary:
                # the writer's own record of handling it, on the line above (`WARNING …
                # skipped`): a caught exception it logged
                fields["logged_under"] = str(block.summary["logged_under"])
            if block.summary.get("logging_error"):
                fields["logging_error"] = True
            if "worker_exception" in block.summary:
                # the exception a DataLoader worker raised, under `Original Traceback`
                fields["worker_exception"] = str(block.summary["worker_exception"])
            if block.actor_pid is not None:
                fields["actor_pid"] = block.actor_pid
            if block.engine_process is not None:
                fields["engine_process"] = block.engine_process
            level = Level.ERROR if block.exc_type else Level.WARNING
            return LogEvent(EventKind.PYTHON_TRACEBACK, level, rank, origin, fields,
                            block.text, block.line, block.end_line, block.host, block.stamp)
        if block.kind == "faulthandler":
            fields = {
                "signal": signal_name(block.exc_type) or block.exc_type,
                "fatal_error": block.exc_type,
                "frames": tuple(block.frames[:_MAX_FRAMES]),
                "threads": int(str(block.summary.get("threads", 0))) + (
                    1 if block.frames else 0
                ),
                "in_collective": _frames_match(block.frames, ("distributed_c10d", "all_reduce")),
                "in_data_code": _frames_match(block.frame_files, DATA_FRAME_MARKS),
            }
            return LogEvent(EventKind.FAULTHANDLER, Level.FATAL, rank, origin, fields,
                            block.text, block.line, block.end_line, block.host, block.stamp)
        # cpp
        fields = {
            "exc_type": block.exc_type,
            "what": str(block.summary.get("what", "")),
            "raised_from": str(block.summary.get("raised_from", "")),
            "raised_at": str(block.summary.get("raised_at", "")),
            "frames": tuple(block.frames),
        }
        if rank is None:
            pg = pg_fields(str(block.summary.get("what", "")))
            if isinstance(pg.get("pg_rank"), int):
                rank, origin = int(str(pg["pg_rank"])), "pg"
        level = Level.FATAL if block.exc_type else Level.ERROR
        if block.summary.get("under_warning") and not block.exc_type:
            level = Level.WARNING
        return LogEvent(EventKind.CPP_EXCEPTION, level, rank, origin, fields,
                        block.text, block.line, block.end_line, block.host, block.stamp)

    def _child_failed_event(self, block: _Block) -> LogEvent | None:
        root = block.summary.get("root")
        failures = block.summary.get("failures")
        if not isinstance(root, dict):
            if not (block.headless and isinstance(failures, list) and failures):
                return None
            root = {}  # a pasted table cut before its root cause: the failures still count
        fields: Fields = {"entrypoint": str(block.summary.get("entrypoint", ""))}
        fields.update(_failure_entry(root, "root_"))
        if isinstance(failures, list):
            fields["other_failures"] = tuple(
                tuple(sorted(_failure_entry(f, "").items())) for f in failures
                if isinstance(f, dict)
            )
        rank = fields.get("root_rank")
        return LogEvent(
            EventKind.CHILD_FAILED_SUMMARY, Level.FATAL,
            rank if isinstance(rank, int) else None,
            "global" if isinstance(rank, int) else None,
            fields, block.text, block.line, block.end_line, block.host,
            parse_stamp(str(root.get("time", ""))),
        )


def _default_group(fields: Mapping[str, FieldValue]) -> bool:
    """A `[PG … Rank N]` rank is the global rank only in the default group: in a sub-group
    (tensor or pipeline parallel, `[PG ID 2 PG GUID 5(tp) Rank 1]`) it is the rank inside it."""
    pg_id, guid, name = fields.get("pg_id"), fields.get("pg_guid"), fields.get("pg_name")
    if pg_id is None and guid is None and name is None:
        return True  # `[Rank N]` of the eras before process-group ids: the default group
    if "default_pg" in str(fields.get("pg_desc", "")):
        return True
    return str(pg_id) == "0" or str(guid) == "0" or str(name) == "0"


# Ray Train (2.44+) heads each worker's error it quotes with the worker's world rank
_RAY_TRAIN_SNIPPET = re.compile(r"^\[Rank (\d+) Error Snippet\]:\s*$")


def _adopt_failure_rank(event: LogEvent, summary: LogEvent) -> LogEvent:
    """The `Signal N (SIG…) received by PID p` lines of a failure summary belong to the rank
    the summary lists with that pid."""
    if event.kind is not EventKind.SIGNAL_KILL or event.rank is not None:
        return event
    pid = event.fields.get("pid")
    rank: FieldValue = None
    if pid is not None and pid == summary.fields.get("root_pid"):
        rank = summary.fields.get("root_rank")
    others = summary.fields.get("other_failures")
    for entry in others if isinstance(others, tuple) else ():
        values = dict(entry)
        if pid is not None and values.get("pid") == pid:
            rank = values.get("rank")
    if not isinstance(rank, int):
        return event
    return LogEvent(event.kind, event.level, rank, "global", event.fields, event.text,
                    event.line, event.end_line, event.host, event.stamp)


_SUMMARY_KEYS = frozenset({"time", "host", "rank", "exitcode", "error_file", "traceback"})
# A line of torchrun's failure table (keys padded to ten columns), for a table pasted alone.
_SUMMARY_FIELD = re.compile(r"^\s*(?:time {6}|host {6}|rank {6}|exitcode {2}|error_file|"
                            r"traceback ): ")
_SUMMARY_LINE = re.compile(_SUMMARY_FIELD.pattern + r"|^Root Cause \(first observed failure\):")


def failure_table_line(text: str) -> bool:
    """Whether a line is a field of torchrun's failure table: the launcher's words of a rank,
    not the rank's own."""
    return _SUMMARY_FIELD.match(text) is not None


def _failure_entry(entry: Mapping[str, object], prefix: str) -> Fields:
    out: Fields = {}
    rank = re.match(r"(-?\d+)(?: \(local_rank: (\d+)\))?", str(entry.get("rank", "")))
    if rank:
        out[prefix + "rank"] = int(rank[1])
        if rank[2] is not None:
            out[prefix + "local_rank"] = int(rank[2])
    code = re.match(r"(-?\d+)(?: \(pid: (\d+)\))?", str(entry.get("exitcode", "")))
    if code:
        out[prefix + "exitcode"] = int(code[1])
        if code[2] is not None:
            out[prefix + "pid"] = int(code[2])
        if int(code[1]) < 0:
            out[prefix + "signal"] = signal_name(int(code[1]))
    for key in ("time", "host"):
        if entry.get(key):
            out[prefix + key] = str(entry[key])
    trace = str(entry.get("traceback", ""))
    sig = re.search(r"Signal \d+ \((SIG\w+)\)", trace)
    if sig:
        out[prefix + "signal"] = sig[1]
    return out


def _assertion_shown(block: _Block) -> None:
    """A traceback cut before its exception line whose innermost frame's code is an `assert`
    statement: that statement raised (any call it made would have a frame below it), so the
    exception is its AssertionError; its message is not shown, the statement is."""
    if block.kind != "traceback" or block.exc_type or block.state != "frames":
        return
    m = _ASSERT_CODE.match(block.last_code)
    if m is not None:
        block.exc_type = "AssertionError"
        block.exc_message = (f"assert {m['statement'].strip()} (the traceback is cut above its "
                             "exception line: its last frame's assert statement raised it)")
        block.chain.append(block.exc_type)
        block.summary["inferred"] = True


def _frames_match(frames: Iterable[str], marks: tuple[str, ...]) -> bool:
    return any(mark in frame for frame in frames for mark in marks)


def _merge_by_kind(events: list[LogEvent]) -> list[LogEvent]:
    """Events of one block describe one failure: keep one per kind, fields merged."""
    merged: dict[EventKind, LogEvent] = {}
    for event in events:
        kept = merged.get(event.kind)
        if kept is None:
            merged[event.kind] = event
            continue
        fields = {**event.fields, **kept.fields}
        merged[event.kind] = LogEvent(kept.kind, max(kept.level, event.level), kept.rank,
                                      kept.rank_origin, fields, kept.text, kept.line,
                                      event.end_line, kept.host, kept.stamp)
    out = list(merged.values())
    nccl_error = merged.get(EventKind.NCCL_ERROR)
    connection = merged.get(EventKind.CONNECTION_ERROR)
    if nccl_error is not None and connection is not None:
        out.remove(connection)  # a socket error quoted in an NCCL error is that error's detail
    return out


def _line_stamp(env: Envelope, payload: str) -> Stamp | None:
    """The writer's own stamp (glog header, microseconds) wins over a shipper's (seconds);
    the shipper's gives the year the glog header lacks."""
    shipper = parse_stamp(env.timestamp) if env.timestamp is not None else None
    first = payload[:1]
    if first == "[" or first in "IWEFVC":
        m = _GLOG.match(payload)
        if m is not None:
            month, day = int(m["mo"]), int(m["d"])
            year = shipper.year if shipper is not None and shipper.month == month else None
            return Stamp(year, month, day, _seconds(m))
    return shipper


def _annotate_actor(block: _Block) -> None:
    """Fold the dead Ray actor's pid, ip and name (indented lines under the exception) into
    its event."""
    if not any(e.kind is EventKind.ACTOR_DIED for e in block.events):
        return
    found: dict[str, FieldValue] = {}
    for line in block.message:
        m = _RAY_FIELD.match(line)
        if m is not None:
            key = "actor_name" if m.group(1) == "name" else m.group(1)
            found[key] = int(m.group(2)) if key == "pid" and m.group(2).isdigit() else m.group(2)
    if not found:
        return
    for i, event in enumerate(block.events):
        if event.kind is EventKind.ACTOR_DIED and "pid" not in event.fields:
            block.events[i] = LogEvent(event.kind, event.level, event.rank, event.rank_origin,
                                       {**event.fields, **found}, event.text, event.line,
                                       event.end_line, event.host, event.stamp)


def _annotate_last_error(block: _Block) -> None:
    """Fold the `Last error:` text of an NCCL error into its event's fields: a network
    failure gives the peer too; any other (a CUDA call that failed) is kept as it reads."""
    last = block.summary.get("last_error")
    if not isinstance(last, str):
        return
    net = next(p for p in PATTERNS if p.kind is EventKind.NCCL_WARN_NET)
    m = first_match(net, last)
    detail = net_details(fields_from(m), last) if m is not None else {}
    for i, event in enumerate(block.events):
        if event.kind is EventKind.NCCL_ERROR:
            block.events[i] = LogEvent(
                event.kind, event.level, event.rank, event.rank_origin,
                {**detail, **event.fields, "last_error": last}, event.text,
                event.line, event.end_line, event.host, event.stamp,
            )


_ACCEPTORS = {
    "traceback": EventExtractor._accept_traceback,
    "exception": EventExtractor._accept_message,
    "faulthandler": EventExtractor._accept_faulthandler,
    "cpp": EventExtractor._accept_cpp,
    "chain": EventExtractor._accept_chain,
}
