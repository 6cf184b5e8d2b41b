"""Parsing what torch's debug worker server answers: faulthandler stacks (made by a real
interpreter here) and flight-recorder JSON (the committed real dumps)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from monitor.parse.torch_debug import (
    job_frame,
    live_picture,
    parse_traceback_dump,
    rank_answer,
)

FR = Path(__file__).resolve().parent.parent / "data" / "flight_recorder" / "gloo-skip-allreduce"

_PROGRAM = """
import faulthandler, sys, threading, time
def wait_here():
    time.sleep(5)
def main():
    t = threading.Thread(target=wait_here, name="worker", daemon=True)
    t.start()
    time.sleep(0.3)
    faulthandler.dump_traceback(file=sys.stdout, all_threads=True)
main()
"""


def _real_dump() -> str:
    done = subprocess.run([sys.executable, "-c", _PROGRAM], capture_output=True, text=True,
                          timeout=30, check=True)
    return done.stdout


def test_faulthandler_stacks_of_every_thread_are_read() -> None:
    stacks = parse_traceback_dump(_real_dump())
    assert len(stacks) == 2
    current = [s for s in stacks if s.current]
    assert len(current) == 1 and current[0].frames[0].function == "main"
    other = next(s for s in stacks if not s.current)
    assert other.frames[0].function == "wait_here" and other.frames[0].file == "<string>"
    frame = job_frame(stacks)
    assert frame is not None and frame.function == "wait_here"


def test_garbage_is_no_stacks() -> None:
    assert parse_traceback_dump("pong") == ()
    assert parse_traceback_dump("") == ()


def test_answers_join_into_the_dump_verdict() -> None:
    answers = {r: rank_answer(r, None, (FR / f"fr_rank_{r}.json").read_bytes()) for r in range(3)}
    picture = live_picture(answers)
    assert picture.fr is not None and picture.fr.primary is not None
    assert picture.fr.primary.never_entered == (1,)
    assert picture.silent == ()


def test_a_bad_buffer_or_no_answer_is_reported_per_rank() -> None:
    bad = rank_answer(2, None, b'{"pg_config": {}}')
    assert bad.fr is None and bad.error is not None and "flight recorder" in bad.error
    gone = rank_answer(5, None, None, error="ConnectionRefusedError")
    picture = live_picture({2: bad, 5: gone})
    assert picture.silent == (2, 5) and picture.fr is None
