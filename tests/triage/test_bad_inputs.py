"""Bad input: each problem is reported once and skipped, and the report still comes out."""

from __future__ import annotations

import gzip
import os
import socket
from pathlib import Path

import pytest

from monitor.model import Category
from monitor.triage import reader
from monitor.triage.analysis import diagnose
from monitor.triage.reader import MAX_LINE_BYTES, read_inputs
from tests.logformats import BASE, watchdog_timeout, write_lines

TIMEOUT = watchdog_timeout(1, 42, BASE)
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a " \
      "total capacity of 79.10 GiB of which 1.06 GiB is free."


def _problems(paths: list[str]) -> dict[str, str]:
    _scans, problems, _ = read_inputs(paths)
    return {Path(p.path).name: p.problem for p in problems}


def test_binary_file_is_skipped_and_the_rest_is_read(tmp_path: Path) -> None:
    """A core dump in the log directory is reported once and skipped."""
    (tmp_path / "core.1234").write_bytes(bytes(range(256)) * 64)
    write_lines(tmp_path / "rank1.log", [TIMEOUT])
    scans, problems, _ = read_inputs([str(tmp_path)])
    assert [Path(s.path).name for s in scans] == ["rank1.log"]
    assert [(Path(p.path).name, p.problem, p.skipped) for p in problems] == [
        ("core.1234", "binary file (skipped)", True)]
    assert diagnose(scans, problems).events["watchdog_timeout"] == 1


def test_truncated_gzip_is_read_up_to_the_cut(tmp_path: Path) -> None:
    """A .gz cut short (the job died while compressing) yields what was written, with a note."""
    body = ("\n".join([OOM] + [f"step {i}" for i in range(20000)] + [TIMEOUT]) + "\n").encode()
    packed = gzip.compress(body)
    (tmp_path / "rank0.log.gz").write_bytes(packed[: len(packed) * 2 // 3])
    scans, problems, _ = read_inputs([str(tmp_path / "rank0.log.gz")])
    assert scans[0].counts.get("cuda_oom") == 1
    assert "watchdog_timeout" not in scans[0].counts
    assert len(problems) == 1 and problems[0].problem.startswith("truncated or corrupt gzip")
    assert not problems[0].skipped


def test_file_named_gz_that_is_not_gzip_is_read_as_text(tmp_path: Path) -> None:
    """A misnamed `.gz` holding plain text is still read (the magic bytes decide)."""
    path = tmp_path / "rank1.log.gz"
    path.write_text(TIMEOUT + "\n")
    scans, problems, _ = read_inputs([str(path)])
    assert problems == [] and scans[0].counts == {"watchdog_timeout": 1}


def test_corrupt_gzip_is_reported_and_skipped(tmp_path: Path) -> None:
    """gzip magic followed by garbage: nothing readable, one problem."""
    (tmp_path / "bad.log.gz").write_bytes(b"\x1f\x8b" + bytes(range(200)))
    assert _problems([str(tmp_path / "bad.log.gz")])["bad.log.gz"].startswith("unreadable gzip")


def test_mixed_encodings_are_read_and_noted(tmp_path: Path) -> None:
    """A Latin-1 line among UTF-8 lines is read (its event found) and noted once."""
    path = tmp_path / "rank0.log"
    path.write_bytes(("tqdm ████ 1/2\n" + OOM + " caf\xe9 \n").encode("utf-8")
                     + ("Chemin d\xe9j\xe0 vu: " + TIMEOUT + "\n").encode("latin-1"))
    scans, problems, _ = read_inputs([str(path)])
    assert scans[0].counts == {"cuda_oom": 1, "watchdog_timeout": 1}
    assert [p.problem for p in problems] == [
        "mixed encoding: 1 line(s) were not UTF-8 (read as Latin-1)"]


def test_utf16_file_with_bom_is_read(tmp_path: Path) -> None:
    """Windows-side tools write UTF-16 with a BOM: decoded, not called binary."""
    path = tmp_path / "rank1.log"
    path.write_bytes((TIMEOUT + "\r\n").encode("utf-16"))
    scans, problems, _ = read_inputs([str(path)])
    assert problems == [] and scans[0].counts == {"watchdog_timeout": 1}


def test_crlf_line_endings_keep_line_numbers(tmp_path: Path) -> None:
    """CRLF files: events found, file:line right."""
    path = tmp_path / "rank1.log"
    path.write_bytes(("hello\r\nworld\r\n" + TIMEOUT + "\r\n").encode())
    scans, problems, _ = read_inputs([str(path)])
    assert problems == []
    assert [(e.kind.value, e.line) for e in scans[0].events] == [("watchdog_timeout", 3)]


@pytest.mark.timeout(600)
def test_a_100_mb_line_is_read_around_its_events(tmp_path: Path) -> None:
    """100 MB of progress redraws joined by carriage returns with no newline, a watchdog
    timeout glued at its end, then a normal line with an OOM: both events are found, line
    numbers stay right, memory stays bounded, and the overlong line is noted."""
    path = tmp_path / "rank1.log"
    bar = b" 45%|#####     | 450/1000 [01:23<01:40,  5.45it/s]\r"
    with open(path, "wb") as out:
        out.write(b"first line\n")
        block = bar * (1 << 14)
        for _ in range((100 << 20) // len(block) + 1):
            out.write(block)
        out.write(TIMEOUT.encode() + b"\n" + OOM.encode() + b"\n")
    assert path.stat().st_size > 100 << 20 > MAX_LINE_BYTES
    scans, problems, _ = read_inputs([str(path)])
    events = [(e.kind.value, e.line) for e in scans[0].events]
    assert events == [("watchdog_timeout", 2), ("cuda_oom", 3)]
    assert scans[0].lines == 3
    assert len(problems) == 1 and "overlong line" in problems[0].problem


def test_empty_directory_and_missing_paths_are_reported(tmp_path: Path) -> None:
    """An empty directory, a missing file and a glob that matches nothing: one line each."""
    (tmp_path / "empty").mkdir()
    write_lines(tmp_path / "rank0.log", [TIMEOUT])
    problems = _problems([str(tmp_path / "empty"), str(tmp_path / "missing.log"),
                          str(tmp_path / "*.err"), str(tmp_path / "rank0.log")])
    assert problems == {
        "empty": "empty directory: no files in it",
        "missing.log": "cannot read: no such file or directory",
        "*.err": "no file matches this pattern",
    }


def test_unreadable_entries_are_reported_once_each(tmp_path: Path) -> None:
    """A dangling symlink in a walked directory, a socket and (for non-root) a file without
    read permission are reported and skipped; readable files still make a report."""
    logs = tmp_path / "logs"
    logs.mkdir()
    write_lines(logs / "rank0.log", [TIMEOUT])
    os.symlink(logs / "gone.log", logs / "dangling.log")
    sock_path = tmp_path / "s"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock_path))
    expected = {"dangling.log": "cannot read: no such file or directory",
                "s": "not a regular file (skipped)"}
    locked = logs / "locked.log"
    write_lines(locked, [TIMEOUT])
    locked.chmod(0)
    try:
        if not _can_read(locked):
            expected["locked.log"] = "cannot read: permission denied"
        scans, problems, _ = read_inputs([str(logs), str(sock_path)])
    finally:
        server.close()
        locked.chmod(0o600)
    assert {Path(p.path).name: p.problem for p in problems} == expected
    assert len(problems) == len(expected)
    assert diagnose(scans, problems).events["watchdog_timeout"] >= 1


def _can_read(path: Path) -> bool:
    try:
        with open(path, "rb"):
            return True
    except OSError:
        return False


def test_empty_file_reads_as_healthy(tmp_path: Path) -> None:
    """An empty log is read (no problem) and says nothing failed."""
    (tmp_path / "rank0.log").write_bytes(b"")
    scans, problems, _ = read_inputs([str(tmp_path / "rank0.log")])
    assert problems == [] and scans[0].lines == 0
    assert diagnose(scans, problems).category is Category.NONE


def test_last_line_without_newline_is_read(tmp_path: Path) -> None:
    """A log cut mid-write (no final newline) still yields its last line's event."""
    (tmp_path / "rank1.log").write_text("a\n" + TIMEOUT)
    scans, _, _ = read_inputs([str(tmp_path / "rank1.log")])
    assert [(e.kind.value, e.line) for e in scans[0].events] == [("watchdog_timeout", 2)]


def test_files_are_read_in_parallel_with_the_same_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading with several worker processes gives the same events as reading in one."""
    monkeypatch.setattr(reader, "POOL_MIN_BYTES", 0)  # small files: workers only when asked
    for rank in range(6):
        write_lines(tmp_path / f"rank{rank}.log", [watchdog_timeout(rank, 9, BASE), OOM])
    serial, _, _ = read_inputs([str(tmp_path)], jobs=1)
    parallel, _, _ = read_inputs([str(tmp_path)], jobs=2)
    assert [(s.path, s.counts) for s in serial] == [(s.path, s.counts) for s in parallel]
