"""Reading the stack dumps people paste as text beside a hung job's logs: `py-spy dump` (its
text form, not --json) and CPython's faulthandler.

Pure: lines in, `parse.stacks.Dump` values out, so the frame tables of `parse.stacks` classify
them as they classify the live monitor's dumps.

py-spy (src/dump.rs): `Process 40103: python train.py`, `Python v3.10.12 (/usr/bin/python3)`,
with --subprocesses `Parent Process 40100: …` under a child's header, then per thread
`Thread 40103 (idle): "MainThread"` and its frames `    all_reduce (torch/distributed/
distributed_c10d.py:2501)`, innermost first (a frame without a line: `    write (<frozen _io>)`).

faulthandler (Python/traceback.c): `Thread 0x00007f3d91a6b740 (most recent call first):` or
`Current thread 0x… (most recent call first):`, then `  File "/x/train.py", line 12 in main`,
innermost first; `dump_traceback_later` heads its dump with `Timeout (0:30:00)!`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from monitor.parse.stacks import Dump, Frame, ThreadStack

_PROCESS = re.compile(r"^Process (?P<pid>\d+): (?P<cmd>.*)$")
_PARENT = re.compile(r"^Parent Process (?P<pid>\d+): ")
_SPY_THREAD = re.compile(
    r'^Thread (?P<tid>0x[0-9A-Fa-f]+|\d+) \((?P<status>idle|active|active\+gil|gil)\)'
    r'(?:: "(?P<name>[^"]*)")?\s*$')
_SPY_FRAME = re.compile(r"^\s{2,}(?P<func>\S.*?) \((?P<file>[^():]+?|<[^>]+>)(?::(?P<line>\d+))?\)\s*$")
_FH_THREAD = re.compile(r"^(?P<current>Current thread|Thread) (?P<tid>0x[0-9a-fA-F]+) "
                        r"\(most recent call first\):\s*$")
_FH_FRAME = re.compile(r'^\s+File "(?P<file>[^"]*)", line (?P<line>\d+) in (?P<func>\S+)\s*$')
_FH_TIMEOUT = re.compile(r"^Timeout \(\d+:\d\d:\d\d\)!\s*$")


@dataclass(frozen=True, slots=True)
class TextDump:
    kind: str  # "py-spy" or "faulthandler"
    dump: Dump
    line: int  # the dump's first line (1-based, as the caller numbers them)
    parent: int | None = None  # py-spy --subprocesses: the pid whose child this is
    timed_out: bool = False  # faulthandler's dump_traceback_later fired (`Timeout (H:MM:SS)!`)


def _frame(func: str, file: str, line: int) -> Frame:
    short = file
    for marker in ("site-packages/", "dist-packages/"):
        if marker in file:
            short = file.split(marker, 1)[1]
    return Frame(func, file, short, line)


def read_text_dumps(lines: Sequence[tuple[int, str]]) -> list[TextDump]:
    """Every py-spy or faulthandler dump in `lines` (line number, text), in file order."""
    out: list[TextDump] = []
    i = 0
    n = len(lines)
    while i < n:
        no, text = lines[i]
        m = _PROCESS.match(text)
        if m is not None:
            pid = int(m["pid"])
            parent = None
            threads: list[ThreadStack] = []
            j = i + 1
            while j < n and not _PROCESS.match(lines[j][1]):
                t = lines[j][1]
                pm = _PARENT.match(t)
                if pm is not None:
                    parent = int(pm["pid"])
                tm = _SPY_THREAD.match(t)
                if tm is not None:
                    frames: list[Frame] = []
                    k = j + 1
                    while k < n and (fm := _SPY_FRAME.match(lines[k][1])) is not None:
                        frames.append(_frame(fm["func"], fm["file"], int(fm["line"] or 0)))
                        k += 1
                    tid = tm["tid"]
                    threads.append(ThreadStack(int(tid, 16) if tid.startswith("0x") else int(tid),
                                               tm["name"] or "", tm["status"] != "idle",
                                               "gil" in tm["status"], tuple(frames)))
                    j = k
                    continue
                if t.strip() and not t.startswith(("---", "Python v", "Parent Process ")):
                    break  # neither a thread, a frame nor the dump's own header: its end
                j += 1
            if threads:
                out.append(TextDump("py-spy", Dump(pid, tuple(threads)), no, parent))
            i = max(j, i + 1)
            continue
        fm0 = _FH_THREAD.match(text)
        if fm0 is not None:
            timed_out = i > 0 and _FH_TIMEOUT.match(lines[i - 1][1]) is not None
            threads = []
            j = i
            while j < n and (hm := _FH_THREAD.match(lines[j][1])) is not None:
                frames = []
                k = j + 1
                while k < n and (ff := _FH_FRAME.match(lines[k][1])) is not None:
                    frames.append(_frame(ff["func"], ff["file"], int(ff["line"])))
                    k += 1
                threads.append(ThreadStack(int(hm["tid"], 16), "", True, False, tuple(frames)))
                while k < n and not lines[k][1].strip():
                    k += 1
                j = k
            # faulthandler names no thread: the main thread is the one whose outermost frame is
            # the script's `<module>` (else the last listed, the oldest thread)
            main = next((t for t in threads if t.frames and t.frames[-1].function == "<module>"),
                        threads[-1] if threads else None)
            if main is not None:
                ordered = [ThreadStack(main.os_thread_id, "MainThread", main.active, main.owns_gil,
                                       main.frames)] + [t for t in threads if t is not main]
                out.append(TextDump("faulthandler", Dump(0, tuple(ordered)), no,
                                    timed_out=timed_out))
            i = max(j, i + 1)
            continue
        i += 1
    return out


__all__ = ["TextDump", "read_text_dumps"]
