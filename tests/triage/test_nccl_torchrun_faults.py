"""`rankwatch triage` on the third round of real NCCL runs (tests/data/nccl_gpu, README: "Third
round"): four ranks under torchrun, which tears the job down when one worker fails, each run
with one fault — a rank that raises, a CUDA OOM, a SIGKILL, a rank that leaves the loop early
and a collective of another size on one rank. What each folder holds is what torchrun printed
and the flight-recorder dumps torch wrote; the expected answers follow from the faults the runs
injected, and the tests read them from the files (ranks, pids, sequence numbers), never from
triage's own output.
"""

from __future__ import annotations

import json
import re

import pytest

from monitor.parse.flight_recorder import analyse, load_dump
from tests.triage.test_nccl_dumps import DATA, _triage


def _marked_rank(folder: str) -> int:
    """The rank whose fault began first, as the job itself wrote it."""
    first = json.loads((DATA / folder / "mark.jsonl").read_text().splitlines()[0])
    return int(first["rank"])


def _table(folder: str) -> dict[int, int]:
    """torchrun's failure table: rank → exit code, read from the job's output."""
    text = (DATA / folder / "job.out").read_text()
    pairs = re.findall(r"rank\s+: (\d+) \(local_rank: \d+\)\n\s+exitcode\s+: (-?\d+)", text)
    return {int(r): int(code) for r, code in pairs}


@pytest.mark.parametrize("folder,category", [
    ("raise", "software"),
    ("oom", "oom"),
])
def test_the_rank_that_failed_first_is_named_from_the_logs_and_with_the_dumps(
        folder: str, category: str) -> None:
    rank = _marked_rank(folder)
    assert _table(folder)[rank] == 1  # torchrun's root cause: the rank's own exception
    for paths in ((DATA / folder / "job.out",), (DATA / folder,)):
        report = _triage(*paths)
        assert (report["category"], report["culprit_ranks"]) == (category, [rank]), paths


@pytest.mark.parametrize("folder", ["raise", "oom", "kill_torchrun"])
def test_missing_dumps_are_explained_by_the_first_failure_and_the_teardown(folder: str) -> None:
    """Only the ranks that noticed the failure in time wrote a dump: the failed rank was gone
    and torchrun stopped the others with SIGTERM. Beside logs that name the first failure,
    those missing dumps are not more suspects."""
    failed = _marked_rank(folder)
    dumped = {load_dump(p.read_bytes(), source=p.name).rank
              for p in (DATA / folder).glob("fr_*")}
    table = _table(folder)
    stopped = {r for r, code in table.items() if code == -15} - dumped
    assert failed not in dumped and stopped, (dumped, table)
    report = _triage(DATA / folder)
    assert report["culprit_ranks"] == [failed]
    findings = " ".join(report["findings"])
    assert "are the suspects" not in findings
    said = next(f for f in report["findings"] if "the launcher stopped them (SIGTERM)" in f)
    assert f"no dump from rank(s) {failed}," in said
    assert "none from rank(s) " + ", ".join(map(str, sorted(stopped))) + ":" in said


def test_a_sigkill_with_no_word_of_who_sent_it_is_named_but_not_explained() -> None:
    """torchrun's table says rank 2 died of SIGKILL; nothing on the node says the OOM killer
    or anyone else sent it."""
    rank = _marked_rank("kill_torchrun")
    assert _table("kill_torchrun")[rank] == -9
    report = _triage(DATA / "kill_torchrun")
    assert (report["category"], report["culprit_ranks"]) == ("undetermined", [rank])
    assert "nothing in the logs says who sent it" in report["summary"]


def test_a_rank_that_left_early_is_the_suspect_of_the_dumps() -> None:
    """Rank 2 left the loop and exited 0 (absent from torchrun's table); the others wait in
    the next AllReduce, dump, and are aborted by their watchdog or stopped. The logs alone
    cannot say who (no NCCL INFO line gives the world size); the dumps name rank 2 as the one
    that wrote none, a suspect and not a proven culprit."""
    rank = _marked_rank("exit_early")
    assert rank not in _table("exit_early")
    assert _triage(DATA / "exit_early" / "job.out")["culprit_ranks"] == []
    report = _triage(DATA / "exit_early")
    assert report["category"] == "undetermined"
    assert report["culprits"] == [f"rank {rank} (suspect: no dump)"]


def test_a_collective_of_another_size_on_one_rank_is_named_by_the_dumps() -> None:
    """The job meant every rank to run one extra 4096-element AllReduce at about the same
    moment; rank 3 got there a step before the others, so at its sequence number it ran the
    small AllReduce while ranks 0-2 ran DDP's bucket. NCCL said only that a message was
    truncated (a size mismatch, no rank); the dumps show which rank ran the other size."""
    odd = _marked_rank("size_desync")
    dumps = [load_dump(p.read_bytes(), source=p.name)
             for p in sorted((DATA / "size_desync").glob("fr_*"))]
    verdict = analyse(dumps).primary
    assert verdict is not None and verdict.verdict == "size_mismatch"
    assert verdict.blamed == (odd,)
    alone = _triage(DATA / "size_desync" / "job.out")
    assert (alone["category"], alone["culprit_ranks"]) == ("collective_desync", [])
    report = _triage(DATA / "size_desync")
    assert (report["category"], report["culprit_ranks"]) == ("collective_desync", [odd])
    assert f"logs and dumps agree on the collective: #{verdict.seq}" in " ".join(
        report["findings"])


def _injected(folder: str) -> tuple[int, ...]:
    """The ranks the run's launch line in harness/fault_runs.sh sent down the other path."""
    script = (DATA / "harness" / "fault_runs.sh").read_text()
    m = re.search(rf"launch {folder} \d+ .*RW_FAULT_RANKS=([\d,]+)", script)
    assert m is not None, folder
    return tuple(int(r) for r in m[1].split(","))


def test_one_rank_in_another_operation_is_named_from_logs_and_dumps() -> None:
    """At one step (the same for every rank) rank 2 gathered where the others reduced. The
    watchdog lines give each rank's OpType at that sequence number, the dumps the same."""
    odd = _injected("op_desync")
    assert len(odd) == 1
    dumps = [load_dump(p.read_bytes(), source=p.name)
             for p in sorted((DATA / "op_desync").glob("fr_*"))]
    verdict = analyse(dumps).primary
    assert verdict is not None and (verdict.verdict, verdict.blamed) == ("op_mismatch", odd)
    for paths in ((DATA / "op_desync" / "job.out",), (DATA / "op_desync",)):
        report = _triage(*paths)
        assert (report["category"], report["culprit_ranks"]) == ("collective_desync",
                                                                 list(odd)), paths


def test_two_against_two_in_different_operations_blames_no_rank() -> None:
    split = _injected("op_split")
    assert len(split) == 2
    for paths in ((DATA / "op_split" / "job.out",), (DATA / "op_split",)):
        report = _triage(*paths)
        assert (report["category"], report["culprit_ranks"]) == ("collective_desync", []), paths
        assert any("no single rank can be blamed" in f for f in report["findings"]), paths


def test_torchs_own_mismatch_check_names_the_rank_with_the_other_call() -> None:
    """With TORCH_DISTRIBUTED_DEBUG=DETAIL torch compares every rank's call before running it
    and raises on all of them, each naming itself and the rank it differs from."""
    odd = _injected("op_detail")
    text = (DATA / "op_detail" / "job.out").read_text()
    assert text.count("Detected mismatch between collectives on ranks") >= 2
    report = _triage(DATA / "op_detail")
    assert (report["category"], report["culprit_ranks"]) == ("collective_desync", list(odd))


def test_with_nccl_info_lines_the_logs_alone_name_the_rank_that_left() -> None:
    """NCCL's INFO lines give the world (4 ranks); rank 2 left, and its own comm abort printed
    only NCCL's return-code traces, which are no report of a failure. The others' NCCL says a
    remote process exited, then they time out: the logs alone name rank 2 as the rank that did
    not report, and the dumps agree."""
    rank = _marked_rank("exit_early_info")
    assert rank not in _table("exit_early_info")
    for paths in ((DATA / "exit_early_info" / "job.out",), (DATA / "exit_early_info",)):
        report = _triage(*paths)
        assert (report["category"], report["culprit_ranks"]) == ("undetermined", [rank]), paths
    findings = " ".join(_triage(DATA / "exit_early_info" / "job.out")["findings"])
    assert "a peer process exited" in findings


@pytest.mark.parametrize("folder,category", [
    ("mn_raise", "software"),
    ("mn_kill", "undetermined"),
    ("mn_hang", "collective_desync"),
])
def test_two_nodes_logs_each_with_its_own_launchers_table(folder: str, category: str) -> None:
    """Two torchrun agents (host names node0 and node1, two ranks each): each prints the
    table of its own workers, and the other node's agent reports its own first failure (a
    watchdog's SIGABRT, a SIGTERM) as its root cause. Read together, the two nodes' output
    names the rank whose fault began first: an exception, a SIGKILL with nothing to say who
    sent it, or a rank stuck in its own code that never entered the collective the others wait
    in (named from the watchdog's sequence numbers, and from the dumps)."""
    rank = _marked_rank(folder)
    nodes = sorted((DATA / folder).glob("node*.out"))
    assert len(nodes) == 2
    roots = {int(m) for n in nodes for m in re.findall(
        r"Root Cause \(first observed failure\):\n\[0\]:\n.*\n.*\n\s+rank\s+: (\d+)",
        n.read_text())}
    assert len(roots) == 2  # each node's agent names a root cause of its own
    for paths in (tuple(nodes), (DATA / folder,)):
        report = _triage(*paths)
        assert (report["category"], report["culprit_ranks"]) == (category, [rank]), paths


@pytest.mark.parametrize("folder,category", [
    ("device_assert", "gpu_cuda"),  # an index past the end, asserted on the GPU
    ("cpu_tensor", "software"),  # a CPU tensor handed to NCCL's process group
])
def test_a_ranks_own_cuda_or_api_error_under_nccl_names_it(folder: str, category: str) -> None:
    rank = _marked_rank(folder)
    assert _table(folder)[rank] == 1
    report = _triage(DATA / folder)
    assert (report["category"], report["culprit_ranks"]) == (category, [rank])


def test_ranks_sharing_one_gpu_are_the_setup_not_one_rank() -> None:
    """Without a host id of its own each rank, NCCL refuses four ranks on one device at init:
    every rank says `Duplicate GPU detected`, then `invalid usage`. The job's set-up is wrong,
    no rank more than another."""
    text = (DATA / "dup_gpu" / "job.out").read_text()
    assert text.count("Duplicate GPU detected") >= 2
    report = _triage(DATA / "dup_gpu")
    assert (report["category"], report["culprit_ranks"]) == ("software", [])
    assert any("one GPU" in c for c in report["culprits"])


def test_a_socket_interface_that_does_not_exist_is_the_hosts_network_setup() -> None:
    """NCCL_SOCKET_IFNAME named an interface the host lacks: NCCL's bootstrap finds no socket
    interface and init fails with `invalid usage`."""
    assert "no socket interface found" in (DATA / "no_ifname" / "job.out").read_text()
    report = _triage(DATA / "no_ifname")
    assert (report["category"], report["culprit_ranks"]) == ("network", [])
    assert any("network setup" in c for c in report["culprits"])
