"""`rankwatch triage` on the ninth to thirteenth rounds of real NCCL runs (tests/data/nccl_gpu,
README: "Ninth round" to "Thirteenth round"): a dtype one rank differs in, a broadcast from another
root, a parameter one rank leaves unused (on one node and on two), a SIGTERM to one rank, a batch
one rank leaves on the host; a rank that tears its process group down, a rank told another
world size, a DataLoader that times out; an object one rank cannot pickle, two groups one rank
creates in the other order, the torn-down group and the dtype on two nodes; a model one rank
builds another width (on one node and on two), a store port one rank gets wrong, a checkpoint
folder never made; a reduce-scatter output of another size (on one node and on two), a helper
thread that fails while training goes on, Ctrl-C at the launcher.
Each expected answer follows from the injected fault, the project's labelling policy and what
the files show, never from triage's output; they were written down before triage read the runs.
"""

from __future__ import annotations

import re

import pytest

from monitor.parse.flight_recorder import analyse, load_dump
from tests.triage.test_nccl_dumps import DATA, _dumps, _triage
from tests.triage.test_nccl_fifth_round import _logs
from tests.triage.test_nccl_torchrun_faults import _marked_rank, _table


def _read_alike(folder: str, category: str, ranks: list[int]) -> None:
    """The run's logs alone, and its logs with its dumps, both read as `category` naming
    `ranks`."""
    for paths in (_logs(folder), (DATA / folder,)):
        report = _triage(*paths)
        assert (report["category"], report["culprit_ranks"]) == (category, ranks), paths


def test_a_dtype_one_rank_differs_in_is_named_from_the_dumps_alone() -> None:
    """Rank 2 reduces half precision where the others reduce float, the same count of elements:
    the watchdog's lines are alike on every rank (same SeqNum, op and NumelIn), so the logs
    cannot say who; the dumps record each rank's dtype."""
    rank = _marked_rank("dtype_desync")
    text = (DATA / "dtype_desync" / "job.out").read_text()
    timed_out = set(re.findall(r"\[Rank (\d)\] Watchdog caught collective operation timeout: "
                               r"WorkNCCL\(SeqNum=45, OpType=ALLREDUCE, NumelIn=4096,", text))
    assert timed_out == {"0", "1", "2", "3"}
    logs_only = _triage(*_logs("dtype_desync"))
    assert logs_only["culprit_ranks"] == []
    assert logs_only["category"] in ("undetermined", "collective_hang")
    fr = analyse([load_dump(p.read_bytes(), source=p.name) for p in _dumps("dtype_desync")])
    assert fr.primary is not None
    assert (fr.primary.verdict, fr.primary.seq, fr.primary.blamed) == ("dtype_mismatch", 45, (rank,))
    with_dumps = _triage(DATA / "dtype_desync")
    assert (with_dumps["category"], with_dumps["culprit_ranks"]) == ("collective_desync", [rank])


@pytest.mark.parametrize("folder,rank", [("dtype_desync", 2), ("mn_dtype_desync", 1)])
def test_the_dtype_rank_is_named_on_one_node_and_on_two(folder: str, rank: int) -> None:
    assert _marked_rank(folder) == rank
    assert _triage(*_logs(folder))["culprit_ranks"] == []
    with_dumps = _triage(DATA / folder)
    assert (with_dumps["category"], with_dumps["culprit_ranks"]) == ("collective_desync", [rank])


@pytest.mark.parametrize("folder", ["unused_param", "mn_unused_param"])
def test_a_parameter_one_rank_left_unused_is_that_ranks_bug(folder: str) -> None:
    """DDP's reducer on the faulty rank says which parameters got no gradient; its peers' NCCL
    errors (and, on two nodes, the other node's abort that torchrun puts first) follow."""
    rank = _marked_rank(folder)
    text = "".join(p.read_text() for p in _logs(folder))
    assert f"Parameter indices which did not receive grad for rank {rank}:" in text
    _read_alike(folder, "software", [rank])


def test_one_rank_stopped_by_sigterm_is_named_its_cause_not_shown() -> None:
    rank = _marked_rank("sigterm")
    assert _table("sigterm")[rank] == -15
    report = _triage(DATA / "sigterm")
    assert (report["category"], report["culprit_ranks"]) == ("undetermined", [rank])


@pytest.mark.parametrize("folder", ["bcast_src", "wrong_device"])
def test_a_fault_nothing_in_the_job_noticed_is_only_the_stop_from_outside(folder: str) -> None:
    """A broadcast from another root completed on NCCL (wrong data, no error), and DDP moved the
    batch left on the host to the GPU itself: the job trained on until the run's time limit
    sent SIGTERM. The policy's reading of such a stop: the platform's, no rank's."""
    text = (DATA / folder / "job.out").read_text()
    assert "Received 15 death signal, shutting down workers" in text
    assert "Watchdog caught" not in text and "Traceback (most recent call last)" in text
    report = _triage(DATA / folder)
    assert (report["category"], report["culprit_ranks"]) == ("infrastructure", [])


@pytest.mark.parametrize("folder", ["destroy_pg", "mn_destroy_pg"])
def test_a_rank_that_tore_its_process_group_down_is_the_one_that_went_away(folder: str) -> None:
    """Rank 1 destroys its process group mid-run: its next collective raises `NCCL communicator
    was aborted on rank 1`, its peers' NCCL says a remote process exited, and torchrun's table
    puts rank 1 first (exit 1), the others stopped by its SIGTERM. What made rank 1 abort is
    not in the logs."""
    rank = _marked_rank(folder)
    text = "".join(p.read_text() for p in _logs(folder))
    assert f"NCCL communicator was aborted on rank {rank}." in text
    if folder == "destroy_pg":
        assert _table(folder)[rank] == 1
        assert all(code == -15 for r, code in _table(folder).items() if r != rank)
    _read_alike(folder, "undetermined", [rank])


def test_a_rank_told_another_world_size_is_refused_by_nccl() -> None:
    rank = _marked_rank("world_mismatch")
    assert "NCCL WARN Invalid rank requested : 3/3" in (DATA / "world_mismatch" / "job.out").read_text()
    report = _triage(DATA / "world_mismatch")
    assert (report["category"], report["culprit_ranks"]) == ("software", [rank])


def test_a_dataloader_timeout_given_in_seconds_with_a_fraction_is_a_stall() -> None:
    """torch prints the timeout as the job gave it (`DataLoader timed out after 5.0 seconds`)."""
    rank = _marked_rank("dl_timeout")
    text = (DATA / "dl_timeout" / "job.out").read_text()
    assert f"[rank{rank}]: RuntimeError: DataLoader timed out after 5.0 seconds" in text
    report = _triage(DATA / "dl_timeout")
    assert (report["category"], report["culprit_ranks"]) == ("dataloader_stall", [rank])


def test_an_object_one_rank_cannot_pickle_is_that_ranks_bug() -> None:
    rank = _marked_rank("gather_object")
    assert f"[rank{rank}]: AttributeError: Can't pickle local object" in (
        DATA / "gather_object" / "job.out").read_text()
    report = _triage(DATA / "gather_object")
    assert (report["category"], report["culprit_ranks"]) == ("software", [rank])


def test_ranks_held_in_a_groups_set_up_are_not_blamed() -> None:
    """Rank 2 creates the groups [2, 3] and [0, 1] in the other order: its group `1` is [2, 3]
    where rank 1's is [0, 1], so rank 1 and rank 2 meet in a communicator of their own, rank 3
    times out fetching its group's NCCL id, rank 0 is held in its group's set-up, and ranks 1
    and 2 time out in #45 of the default group. Ranks 0 and 3 never entered #45, but rank 3's
    own error is a wait for another communicator's NCCL id: the ranks behind are held in a
    group's set-up, and no rank is named. The dumps alone, which record collectives and not
    set-ups, would name rank 0 (it never entered group `1`'s first all-reduce); they do not
    overrule the logs. (The expectation written before triage read the run said `undetermined`
    for the logs alone; rankwatch says `collective_desync`, no rank: README, "Eleventh
    round".)"""
    fr = analyse([load_dump(p.read_bytes(), source=p.name) for p in _dumps("group_order")])
    assert fr.primary is not None
    assert (fr.primary.verdict, fr.primary.blamed) == ("never_entered", (0,))
    with_dumps = _triage(DATA / "group_order")
    assert (with_dumps["category"], with_dumps["culprit_ranks"]) == ("collective_desync", [])
    logs_only = _triage(*_logs("group_order"))
    assert (logs_only["category"], logs_only["culprit_ranks"]) == ("collective_desync", [])


@pytest.mark.parametrize("folder", ["model_mismatch", "mn_model_mismatch"])
def test_a_model_one_rank_builds_another_width_is_that_ranks(folder: str) -> None:
    """DDP's check of the parameters' shapes across ranks: the inconsistent rank says its own
    sizes do not match process 0's; the others see a remote process exit in the broadcast."""
    rank = _marked_rank(folder)
    text = "".join(p.read_text() for p in _logs(folder))
    assert f"[rank{rank}]: RuntimeError: [{rank}]: params[0] in this process with sizes" in text
    _read_alike(folder, "software", [rank])


def test_a_store_port_one_rank_gets_wrong_is_an_endpoint_it_could_not_reach() -> None:
    text = (DATA / "master_port" / "job.out").read_text()
    assert "timed out after 40000ms while trying to connect to (127.0.0.1, 29639)" in text
    report = _triage(DATA / "master_port")
    assert (report["category"], report["culprit_ranks"]) == ("network", [])
    assert any("127.0.0.1:29639" in c for c in report["culprits"])


def test_a_checkpoint_folder_never_made_names_the_saving_rank() -> None:
    """torch.save's `Parent directory checkpoints-run7 does not exist.` on rank 0. The answer
    written down before triage read the run was `software` (a path the job got wrong); rankwatch
    says `storage_io`, as the public corpus's two labels of this wording do (README, "Twelfth
    round"). The rank is the saving one either way."""
    rank = _marked_rank("ckpt_dir")
    assert f"[rank{rank}]: RuntimeError: Parent directory checkpoints-run7 does not exist." in (
        DATA / "ckpt_dir" / "job.out").read_text()
    report = _triage(DATA / "ckpt_dir")
    assert (report["category"], report["culprit_ranks"]) == ("storage_io", [rank])


@pytest.mark.parametrize("folder", ["scatter_size", "mn_scatter_size"])
def test_a_reduce_scatter_output_of_another_size_is_that_ranks_call(folder: str) -> None:
    rank = _marked_rank(folder)
    text = "".join(p.read_text() for p in _logs(folder))
    assert (f"[rank{rank}]: ValueError: input tensor must be the same size as output size "
            "times world size") in text
    _read_alike(folder, "software", [rank])


def test_a_helper_threads_error_the_job_trained_past_is_not_the_failure() -> None:
    """Rank 2's `metrics-uploader` thread raised; the job trained on until the run's time
    limit sent SIGTERM: that stop, no rank's, is all there is."""
    text = (DATA / "thread_exc" / "job.out").read_text()
    assert "Exception in thread metrics-uploader:" in text
    assert "Received 15 death signal, shutting down workers" in text
    report = _triage(DATA / "thread_exc")
    assert (report["category"], report["culprit_ranks"]) == ("infrastructure", [])


def test_ctrl_c_at_the_launcher_blames_no_rank() -> None:
    """Every rank's KeyboardInterrupt and a peer's NCCL error follow the launcher's own
    `Received 2 death signal`: a stop someone asked for."""
    text = (DATA / "ctrl_c" / "job.out").read_text()
    assert "Received 2 death signal, shutting down workers" in text
    assert text.count("]: KeyboardInterrupt") == 4
    report = _triage(DATA / "ctrl_c")
    assert (report["category"], report["culprit_ranks"]) == ("infrastructure", [])
