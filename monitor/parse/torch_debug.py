"""What torch's per-rank debug worker server answers, parsed.

torch 2.13's `torch.distributed.debug.start_debug_server()` starts, on every rank, a small HTTP
worker server (`_WorkerServer`) whose handlers answer `POST /handler/<name>`:

* `ping` → `pong`;
* `dump_traceback` → every Python thread's stack, in faulthandler's format
  (`Thread 0x… (most recent call first):` then `  File "f.py", line 9 in fn`);
* `fr_trace_json` → the rank's flight-recorder buffer, the JSON form of a dump
  (read with `monitor.parse.flight_recorder`); on an NCCL job this is the CPU recorder's
  buffer, empty (torch 2.11, seen on a real run): NCCL's own buffer answers to
  `dump_nccl_trace_json`, a handler only CUDA builds have (404 elsewhere);
* `pyspy_dump`, `wait_counter_values`, `torch_profile` (not used here).

Pure: bytes in, typed values out. `live_picture` joins every rank's answers into the same
verdict triage draws from dumps: which collective each rank is in, and who never entered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from monitor.parse.flight_recorder import (
    DumpError,
    FrAnalysis,
    RankDump,
    analyse,
    load_dump,
    merge_dumps,
)

MAX_FRAMES = 64
MAX_THREADS = 256

_THREAD = re.compile(r"^(Current thread|Thread) (0x[0-9a-fA-F]+)(?: \[([^\]]*)\])? "
                     r"\(most recent call first\):\s*$")
_FRAME = re.compile(r'^\s+File "(?P<file>[^"]*)", line (?P<line>\d+) in (?P<func>.*?)\s*$')


@dataclass(frozen=True)
class Frame:
    file: str
    line: int
    function: str

    def text(self) -> str:
        return f"{self.file}:{self.line} {self.function}"


@dataclass(frozen=True)
class ThreadStack:
    thread: str  # `0x7ff6399feb80`
    name: str | None
    current: bool  # the thread that answered the request (the server's), not the job's
    frames: tuple[Frame, ...]  # innermost first


def parse_traceback_dump(text: str) -> tuple[ThreadStack, ...]:
    """faulthandler's `dump_traceback(all_threads=True)` text → stacks (bounded)."""
    stacks: list[ThreadStack] = []
    head: tuple[str, str | None, bool] | None = None
    frames: list[Frame] = []

    def close() -> None:
        if head is not None and len(stacks) < MAX_THREADS:
            stacks.append(ThreadStack(head[0], head[1], head[2], tuple(frames[:MAX_FRAMES])))

    for line in text.splitlines():
        m = _THREAD.match(line)
        if m is not None:
            close()
            head = (m.group(2), m.group(3), m.group(1) == "Current thread")
            frames = []
            continue
        f = _FRAME.match(line)
        if f is not None and head is not None and len(frames) < MAX_FRAMES:
            frames.append(Frame(f["file"], int(f["line"]), f["func"]))
    close()
    return tuple(stacks)


_STDLIB = re.compile(r"(?:^|/)python3\.\d+/(?!site-packages/|dist-packages/)")


def main_stack(stacks: tuple[ThreadStack, ...]) -> ThreadStack | None:
    """The job's main thread: the one whose outermost frame is a script's top level
    (`<module>`), else the last one listed (faulthandler lists the newest thread first).
    A DataLoader's feeder threads, the server's own thread and other helpers are not it."""
    candidates = [s for s in stacks if not s.current and s.frames]
    for stack in candidates:
        if stack.frames[-1].function == "<module>":
            return stack
    return candidates[-1] if candidates else None


def _library(file: str) -> bool:
    return "/torch/" in file or file.startswith("<frozen") or _STDLIB.search(file) is not None


def job_frame(stacks: tuple[ThreadStack, ...]) -> Frame | None:
    """Where the job's main work is: the main thread's innermost frame outside torch and the
    standard library (its innermost frame when all of it is theirs)."""
    stack = main_stack(stacks)
    if stack is None:
        return None
    for frame in stack.frames:
        if not _library(frame.file):
            return frame
    # All library (a stack cut at faulthandler's depth while importing): the innermost frame
    # that names a file says more than the import machinery's frozen modules.
    return next((f for f in stack.frames if not f.file.startswith("<frozen")), stack.frames[0])


@dataclass(frozen=True)
class RankAnswer:
    """One rank's answers (or why there are none)."""

    rank: int
    error: str | None = None
    stacks: tuple[ThreadStack, ...] = ()
    fr: RankDump | None = None

    @property
    def where(self) -> Frame | None:
        return job_frame(self.stacks)


def rank_answer(rank: int, traceback_text: str | None, fr_json: bytes | Sequence[bytes] | None,
                error: str | None = None) -> RankAnswer:
    """One rank's replies → its answer. `fr_json` is one flight-recorder reply or several
    (the CPU recorder's and NCCL's): their entries are read as one buffer."""
    stacks = parse_traceback_dump(traceback_text) if traceback_text else ()
    replies = [fr_json] if isinstance(fr_json, bytes) else list(fr_json or ())
    parts: list[RankDump] = []
    problems = [error] if error else []
    for reply in replies:
        try:
            parts.append(load_dump(reply, source=f"rank {rank} debug server", rank=rank))
        except DumpError as exc:
            problems.append(f"flight recorder: {exc}")
    return RankAnswer(rank, "; ".join(problems) or None, stacks, merge_dumps(parts))


@dataclass(frozen=True)
class LivePicture:
    answers: tuple[RankAnswer, ...]
    fr: FrAnalysis | None
    silent: tuple[int, ...]  # ranks whose server did not answer
    sentences: tuple[str, ...]


def live_picture(answers: Mapping[int, RankAnswer]) -> LivePicture:
    """Every rank's answers → which collective each is in, who never entered, where each
    rank's code is."""
    ordered = tuple(answers[r] for r in sorted(answers))
    dumps = [a.fr for a in ordered if a.fr is not None]
    fr = analyse(dumps) if dumps else None
    silent = tuple(a.rank for a in ordered if a.error and a.fr is None and not a.stacks)
    sentences: list[str] = []
    if fr is not None and fr.primary is not None:
        sentences.extend(fr.primary.sentences)
    if fr is not None and fr.ranks:
        sentences.extend(fr.problems)  # some ranks' buffers were empty while others' were not
    for a in ordered:
        where = a.where
        if where is not None:
            sentences.append(f"rank {a.rank} is at {where.text()}")
    if silent:
        sentences.append(f"no answer from rank(s) {', '.join(map(str, silent))}")
    return LivePicture(ordered, fr, silent, tuple(sentences))


__all__ = [
    "Frame",
    "LivePicture",
    "RankAnswer",
    "ThreadStack",
    "job_frame",
    "live_picture",
    "main_stack",
    "parse_traceback_dump",
    "rank_answer",
]
