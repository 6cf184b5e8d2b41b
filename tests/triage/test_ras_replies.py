"""`rankwatch triage` on saved NCCL RAS replies: the replies a real NCCL 2.28.9 job's RAS port
gave (tests/data/nccl_gpu, README), read alone, beside the job's output, and pasted with it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from monitor.parse.ras_saved import looks_like_reply
from tests.triage.test_nccl_dumps import DATA, _triage


@pytest.mark.parametrize(("run_name", "category", "ranks"), [
    # a rank away from the collective (user code, a kernel that never ends, a DataLoader
    # worker that never answers): the same count behind in reply after reply
    ("hang", "collective_desync", [2]),
    ("gpu_hang", "collective_desync", [2]),
    ("dl_stall", "collective_desync", [2]),
    # a rank killed, and one stopped (SIGSTOP): RAS calls its process dead
    ("kill_no_teardown", "undetermined", [2]),
    ("sigstop", "undetermined", [1]),
    # a healthy run: one reply of 26 caught a rank one AllReduce behind, and it moved on
    ("healthy", "none", []),
])
def test_the_replies_alone_name_the_rank(run_name: str, category: str, ranks: list[int]) -> None:
    report = _triage(DATA / run_name / "ras")
    assert (report["category"], report["culprit_ranks"]) == (category, ranks)
    assert any(f.startswith("NCCL RAS replies read: ") for f in report["findings"])


def test_a_dead_rank_is_named_with_its_process_and_node() -> None:
    report = _triage(DATA / "kill_no_teardown" / "ras")
    assert report["culprits"] == ["rank 2 (process 653 on node 127.0.0.1)"]
    findings = " | ".join(report["findings"])
    assert "rank(s) 3 did not answer in the last reply (not dead)" in findings
    assert "rank(s) 0 reported Remote process error" in findings


def test_the_json_replies_alone_agree_with_the_text_ones(tmp_path: Path) -> None:
    """JSON replies carry each rank's counts, not MISMATCH blocks: the same rank is behind."""
    for reply in (DATA / "hang" / "ras").glob("*-json.txt"):
        shutil.copy(reply, tmp_path)
    report = _triage(tmp_path)
    assert (report["category"], report["culprit_ranks"]) == ("collective_desync", [2])


def test_one_reply_behind_is_not_a_culprit_until_the_logs_show_a_wait(tmp_path: Path) -> None:
    """One reply is one moment: a rank one operation behind may be passing skew, as the healthy
    run shows. With the watchdog's timeout beside it, it is the rank the others wait for."""
    reply = tmp_path / "ras.txt"
    shutil.copy(DATA / "hang" / "ras" / "1795745518.7-text.txt", reply)
    alone = _triage(reply)
    assert (alone["category"], alone["culprit_ranks"]) == ("none", [])
    assert any("in one reply only" in f for f in alone["findings"])
    log = tmp_path / "job.out"
    log.write_text("".join(line for line in (DATA / "hang" / "job.out").read_text().splitlines(
        keepends=True) if "Watchdog caught collective operation timeout" in line))
    both = _triage(reply, log)
    assert (both["category"], both["culprit_ranks"]) == ("collective_desync", [2])


def test_beside_the_logs_the_replies_agree_and_change_nothing() -> None:
    """The job's output and its dumps already name rank 2: the replies say they agree."""
    with_replies = _triage(DATA / "hang")
    assert (with_replies["category"], with_replies["culprit_ranks"]) == ("collective_desync", [2])
    assert any(f.startswith("NCCL RAS agrees: it points at rank(s) 2")
               for f in with_replies["findings"])


def test_a_reply_pasted_with_the_log_after_it_is_read_both_ways(tmp_path: Path) -> None:
    reply = (DATA / "hang" / "ras" / "1795745523.7-text.txt").read_text()
    watchdog = next(line for line in (DATA / "hang" / "job.out").read_text().splitlines()
                    if "Watchdog caught collective operation timeout" in line)
    paste = tmp_path / "paste.txt"
    paste.write_text(reply.split("\n", 3)[3] + "\n" + watchdog + "\n")  # no capture lines
    report = _triage(paste)
    assert (report["category"], report["culprit_ranks"]) == ("collective_desync", [2])
    assert any("Watchdog caught" in f or "watchdog" in f for f in report["findings"])


def test_a_damaged_reply_loses_nothing(tmp_path: Path) -> None:
    good = (DATA / "kill_no_teardown" / "ras" / "1795745593.7-text.txt").read_bytes()
    cut = tmp_path / "cut.txt"
    cut.write_bytes(good[: good.index(b"Warnings")] + b"\x00\xff garbage \x00\n" * 3)
    report = _triage(cut)
    assert (report["category"], report["culprit_ranks"]) == ("undetermined", [2])


@pytest.mark.parametrize(("head", "reply"), [
    (b"NCCL version 2.28.9 compiled with CUDA 13.0\nCUDA runtime version 13000", True),
    (b"# captured 1 took 0s\nSERVER PROTOCOL 2\nOK\nNCCL version 2.26.2 compiled with CUDA "
     b"12.4\n", True),
    (b'SERVER PROTOCOL 2\nOK\nOK\n{\n  "nccl_version": "2.28.9",\n', True),
    # NCCL's own INFO banner in a job's log, and a JSON log line, are no replies
    (b"node1:1:1 [0] NCCL INFO NCCL version 2.18.5+cuda12.2\n", False),
    (b'{"level": "info", "msg": "NCCL version 2.18.5"}\n', False),
])
def test_what_a_reply_looks_like(head: bytes, reply: bool) -> None:
    assert looks_like_reply(head) is reply


def _bare(reply: Path) -> str:
    """A capture as the `ncclras` client prints it: no capture note, no socket exchange."""
    text = reply.read_text()
    return text[text.index("NCCL version "):]


def test_a_dead_process_beside_logs_that_show_no_failure_is_no_culprit(tmp_path: Path) -> None:
    """NCCL reports a process that exited normally while others ran on as dead too (a
    staggered teardown): beside a log that shows the job ending well it names nobody; with the
    replies alone it is a suspect, never a culprit."""
    reply = tmp_path / "ras.txt"
    reply.write_text(_bare(DATA / "kill_no_teardown" / "ras" / "1795745593.7-text.txt"))
    alone = _triage(reply)
    assert (alone["category"], alone["culprit_ranks"]) == ("undetermined", [])
    assert alone["culprits"] == ["rank 2 (suspect: considered dead by NCCL RAS)"]
    log = tmp_path / "train.log"
    log.write_text("step 1000/1000 loss 1.92\nTraining completed.\n")
    both = _triage(reply, log)
    assert (both["category"], both["culprit_ranks"]) == ("none", [])
    assert any("reported dead as well" in f for f in both["findings"])
