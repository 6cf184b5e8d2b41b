"""One large file read in pieces by several processes gives exactly what one reader gives:
every event (kind, rank, fields, line numbers), counts, ranks, tail and notes."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from monitor.triage import reader as rd
from monitor.triage.reader import read_inputs, scan_file
from monitor.triage.split_read import plan, read_split

DATA = Path(__file__).resolve().parent.parent / "data"
CHUNK = 64 << 10
# Each copy holds every corpus excerpt once (about 11 MB today) in an order of its own, with
# noise of random length between them, so excerpts fall across the 64 KiB cuts everywhere:
# one copy gives some 170 cuts, and the four seeds of the test below cut each excerpt at four
# other places, enough for every shape of cut while the time stays bounded as the corpus grows.
COPIES = 1


def _corpus_text() -> list[bytes]:
    files = sorted((DATA / "logs").glob("*.log")) + sorted((DATA / "corpus_public").rglob("*.log"))
    return [p.read_bytes() for p in files]


def _big_file(path: Path, seed: int, copies: int) -> None:
    rng = random.Random(seed)
    pieces = _corpus_text()
    with path.open("wb") as out:
        for _ in range(copies):
            for text in rng.sample(pieces, len(pieces)):
                # noise of random length moves every excerpt across the cuts
                out.write(b"".join(b"step %d loss 0.%d\n" % (i, rng.randrange(10**6))
                                   for i in range(rng.randrange(0, 300))))
                out.write(text if text.endswith(b"\n") else text + b"\n")
        out.write(b"".join(b"[rank3]: step %d tokens/s 4123\n" % i for i in range(5000)))


@pytest.mark.parametrize("seed,jobs,grep", [(1, 2, False), (2, 3, True), (3, 5, False),
                                            (4, 4, True)])
def test_pieces_join_to_the_single_reader_result(tmp_path: Path, seed: int, jobs: int,
                                                 grep: bool,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.log"
    _big_file(path, seed, copies=COPIES)
    monkeypatch.setattr(rd, "CHUNK_BYTES", CHUNK)
    monkeypatch.setattr(rd, "GREP_MIN_BYTES", 0 if grep else 1 << 62)
    serial = scan_file(str(path))
    assert isinstance(serial, rd.FileScan)
    cuts = plan(str(path), path.stat().st_size, jobs, CHUNK)
    assert cuts is not None and len(cuts) == jobs + 1
    split = read_split(str(path), jobs, chunk=CHUNK)
    assert split is not None
    assert split.lines == serial.lines
    assert split.counts == serial.counts
    assert split.events == serial.events
    assert split == serial


def test_a_traceback_across_a_cut_is_read_whole(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A traceback over a cut: the piece before it is read again with the next one."""
    monkeypatch.setattr(rd, "CHUNK_BYTES", CHUNK)
    filler = b"".join(b"step %06d loss 0.5\n" % i for i in range(40000))
    frames = b"".join(b'  File "/x/train.py", line %d, in f%d\n    y = f()\n' % (i, i)
                      for i in range(100))
    block = b"Traceback (most recent call last):\n" + frames + b"RuntimeError: boom at the cut\n"
    path = tmp_path / "cut.log"
    head_len = CHUNK * 5
    for _attempt in range(6):
        head = filler[:head_len]
        head = head[: head.rfind(b"\n") + 1]
        path.write_bytes(head + block + filler)
        cuts = plan(str(path), path.stat().st_size, 2, CHUNK)
        assert cuts is not None
        if len(head) < cuts[1] < len(head) + len(block):
            break
        head_len += cuts[1] - len(head) - len(block) // 2
    else:
        pytest.fail("could not place the traceback over the cut")
    serial = scan_file(str(path))
    split = read_split(str(path), 2, chunk=CHUNK)
    assert split is not None and split == serial
    tracebacks = [e for e in split.events if e.kind.value == "python_traceback"]
    assert [t.fields["exc_message"] for t in tracebacks] == ["boom at the cut"]


def test_small_or_special_files_are_not_split(tmp_path: Path) -> None:
    small = tmp_path / "small.log"
    small.write_bytes(b"x\n" * 1000)
    assert plan(str(small), small.stat().st_size, 4, CHUNK) is None
    gz = tmp_path / "big.gz"
    gz.write_bytes(b"\x1f\x8b" + b"\0" * (CHUNK * 8))
    assert plan(str(gz), gz.stat().st_size, 4, CHUNK) is None


def test_read_inputs_splits_one_large_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import monitor.triage.split_read as sr

    path = tmp_path / "big.log"
    _big_file(path, 9, copies=COPIES)
    monkeypatch.setattr(rd, "CHUNK_BYTES", CHUNK)
    monkeypatch.setattr(sr, "SPLIT_MIN_BYTES", CHUNK)
    one, _, _ = read_inputs([str(path)], jobs=1)
    several, _, _ = read_inputs([str(path)], jobs=3)
    assert several == one


def test_the_grep_pass_finds_the_lines_the_literal_search_finds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One `grep -F` pass over the file (large files) gives the same scan as one `bytes.find`
    pass per literal: corpora shuffled together, CRLF and Latin-1 lines, NUL bytes."""
    path = tmp_path / "big.log"
    _big_file(path, 5, copies=1)
    with path.open("ab") as out:
        out.write(b"x\x00y RuntimeError: with a NUL\r\n" + "caf\xe9 Timeout \n".encode("latin-1"))
        out.write(b"[rank1]: Traceback (most recent call last):\n  File \"a.py\", line 1, in f\n"
                  b"[rank1]: OSError: [Errno 28] No space left on device\n")
    monkeypatch.setattr(rd, "CHUNK_BYTES", CHUNK)
    monkeypatch.setattr(rd, "GREP_MIN_BYTES", 0)
    assert rd.grep_hits(str(path), path.stat().st_size)
    with_grep = scan_file(str(path))
    monkeypatch.setattr(rd, "grep_hits", lambda _path, _size: None)
    without = scan_file(str(path))
    assert with_grep == without
    assert isinstance(with_grep, rd.FileScan) and with_grep.counts.get("storage_write", 0) > 1
