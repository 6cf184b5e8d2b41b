"""What torch's per-rank debug worker server answers, parsed.

torch 2.13's `torch.distributed.debug.start_debug_server()` starts, on every rank, a small HTTP
worker server (`_WorkerServer`) whose handlers answer `POST /handler/<name>`:

* `ping` → `pong`;
* `dump_traceback` → every Python thread's stack, in faulthandler's format
  (`Thread 0x… (most recent call first):` then `  File "f.py", line 9 in fn`);
* `fr_trace_json` → the rank's flight-recorder buffer, the JSON form of a dump
  (read with `monitor.parse.flight_recorder`);
* `pyspy_dump`, `wait_counter_values`, `torch_profile` (not used here).

Pure: bytes in, typed values out. `live_picture` joins every rank's answers into the same
verdict triage draws from dumps: which collective each rank is in, and who never entered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from monitor.parse.flight_recorder import DumpError, FrAnalysis, RankDump, analyse, load_dump

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


def job_frame(stacks: tuple[ThreadStack, ...]) -> Frame | None:
    """Where the job's main work is: the innermost frame outside torch of the first thread
    that is not the answering one and has Python frames."""
    for stack in stacks:
        if stack.current or not stack.frames:
            continue
        for frame in stack.frames:
            if "/torch/" not in frame.file:
                return frame
        return stack.frames[0]
    return None


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


def rank_answer(rank: int, traceback_text: str | None, fr_json: bytes | None,
                error: str | None = None) -> RankAnswer:
    stacks = parse_traceback_dump(traceback_text) if traceback_text else ()
    fr: RankDump | None = None
    problems = [error] if error else []
    if fr_json:
        try:
            fr = load_dump(fr_json, source=f"rank {rank} debug server", rank=rank)
        except DumpError as exc:
            problems.append(f"flight recorder: {exc}")
    return RankAnswer(rank, "; ".join(problems) or None, stacks, fr)


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
    "parse_traceback_dump",
    "rank_answer",
]
