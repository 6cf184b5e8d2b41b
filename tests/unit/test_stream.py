"""The output stream: line splitting, attribution, and real followed files on disk."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from monitor.model import Observation, OutputChunk
from monitor.sources.stream import Attribution, FollowedFile, LineSplitter, attribute


def test_partial_lines_and_carriage_returns() -> None:
    """A line split across reads is joined; `\\r` ends tqdm bars like `\\n` does."""
    s = LineSplitter(1000)
    assert s.feed(b"step 1\nstep ") == ["step 1"]
    assert s.feed(b"2\r 50%|#| 5/10 [\r") == ["step 2", " 50%|#| 5/10 ["]
    assert s.flush() == []


def test_invalid_utf8_is_replaced_and_counted() -> None:
    """Invalid bytes never stop the stream; they are replaced and counted."""
    s = LineSplitter(1000)
    assert s.feed(b"ok \xff\xfe tail\n") == ["ok \ufffd\ufffd tail"]
    assert s.stats.invalid_utf8 == 2


def test_fifty_megabyte_line_without_newline_is_capped() -> None:
    """A 50 MB line with no newline keeps memory bounded: its head is emitted, the rest dropped."""
    s = LineSplitter(1_048_576)
    chunk = b"x" * 65536
    out: list[str] = []
    for _ in range(50 * 16):
        out += s.feed(chunk)
        assert len(s._pending) <= 1_048_576
    out += s.feed(b"yyy\nnext line\n")
    assert len(out) == 2
    assert len(out[0]) == 1_048_576 and out[1] == "next line"
    assert s.stats.truncated == 1


def test_launcher_prefixes_attribute_ranks() -> None:
    """torchrun, c10, mpirun and srun --label prefixes name the rank; plain lines do not."""
    plain = Attribution()
    assert attribute("[rank3]:[E1016 03:31:38 x.cpp:1] boom", plain).rank == 3
    assert attribute("[default2]:[rank5]:hello", plain).rank == 5
    assert attribute("[default2]:hello", plain).rank == 2
    assert attribute("[1,7]<stderr>:hello", plain).rank == 7
    assert attribute("[gpu12:4]:hello", plain).rank == 4
    assert attribute("12: hello", plain).rank is None
    assert attribute("12: hello", Attribution(srun_label=True)).rank == 12
    assert attribute("10.0.0.1: [rank1]:x", Attribution(host_prefix=True)).rank == 1
    assert attribute("no prefix", Attribution(default_rank=0)).rank == 0


def _follow(path: Path, actions: list, poll: float = 0.02) -> list[str]:  # type: ignore[type-arg]
    """Run a FollowedFile in a real thread while `actions` modify the file; return lines."""
    got: list[str] = []
    follower = FollowedFile(str(path), 4096, Attribution(), poll, time.monotonic)

    def emit(obs: Observation) -> None:
        assert isinstance(obs, OutputChunk)
        got.extend(line.text for line in obs.lines)

    async def main() -> None:
        task = asyncio.create_task(follower.run(emit))
        for action in actions:
            await asyncio.sleep(0.15)
            action()
        await asyncio.sleep(0.3)
        follower.stop()
        await task

    asyncio.run(main())
    return got


def test_followed_file_waits_for_creation_and_survives_rotation(tmp_path: Path) -> None:
    """tail -F semantics: the file appears later, then is renamed away and recreated."""
    path = tmp_path / "job.err"

    def create() -> None:
        path.write_text("one\ntwo\n")

    def rotate() -> None:
        with path.open("a") as fh:
            fh.write("three\n")
        os.rename(path, tmp_path / "job.err.1")
        path.write_text("four\n")

    assert _follow(path, [create, rotate]) == ["one", "two", "three", "four"]


def test_followed_file_survives_truncation(tmp_path: Path) -> None:
    """copytruncate: the file shrinks to zero and is written again from the start."""
    path = tmp_path / "job.err"
    path.write_text("old line 1\nold line 2\n")

    def truncate_and_write() -> None:
        with path.open("w") as fh:
            fh.write("new\n")

    assert _follow(path, [truncate_and_write]) == ["old line 1", "old line 2", "new"]


def test_followed_binary_file_does_not_stop_the_reader(tmp_path: Path) -> None:
    """A binary file yields replaced text and the reader keeps going."""
    path = tmp_path / "job.err"
    path.write_bytes(bytes(range(256)) * 4 + b"\nafter\n")
    got = _follow(path, [])
    assert got[-1] == "after"
