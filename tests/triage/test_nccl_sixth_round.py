"""`rankwatch triage` on the sixth round of real NCCL runs (tests/data/nccl_gpu, README: "Sixth
round"): DataLoader workers that fail or are killed, a checkpoint write that fails or stalls, and
a send no rank receives. As in the fifth round, each expected answer follows from the injected
fault and what the files show, never from triage's output.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.triage.test_nccl_dumps import DATA, _triage
from tests.triage.test_nccl_fifth_round import _logs
from tests.triage.test_nccl_torchrun_faults import _marked_rank, _table


@pytest.mark.parametrize("folder", ["dl_error", "mn_dl_error"])
def test_a_corrupt_sample_in_a_dataloader_worker_is_the_data(folder: str) -> None:
    """The worker's original traceback ends in `OSError: image file is truncated`, far above
    the file's last lines (the peers' NCCL errors and torchrun's tables follow it): the input is
    corrupt, on the rank whose worker read it."""
    rank = _marked_rank(folder)
    text = "".join(p.read_text() for p in _logs(folder))
    assert f"[rank{rank}]: OSError: image file is truncated" in text
    for paths in (_logs(folder), (DATA / folder,)):
        report = _triage(*paths)
        assert (report["category"], report["culprit_ranks"]) == ("data", [rank]), paths


def test_a_killed_dataloader_worker_without_an_oom_line_is_undetermined() -> None:
    rank = _marked_rank("dl_kill")
    text = (DATA / "dl_kill" / "job.out").read_text()
    assert "is killed by signal: Killed" in text and "Out of memory" not in text
    report = _triage(DATA / "dl_kill")
    assert (report["category"], report["culprit_ranks"]) == ("undetermined", [rank])


def test_a_checkpoint_write_that_fails_names_the_writing_rank() -> None:
    """torch.save into a full device: torch's own words are an iostream error and its writer's
    `unexpected pos`, with no errno; the others then time out waiting for the writer."""
    rank = _marked_rank("ckpt_full")
    assert _table("ckpt_full")[rank] == 1
    for paths in (_logs("ckpt_full"), (DATA / "ckpt_full",)):
        report = _triage(*paths)
        assert (report["category"], report["culprit_ranks"]) == ("storage_io", [rank]), paths


def test_a_stalled_checkpoint_leaves_its_rank_behind() -> None:
    """Rank 0 prints that it saves a checkpoint, then stalls: the others time out one
    collective ahead of it. The save's line carries no rank, so the rank is named from the
    counts, the category from them too."""
    rank = _marked_rank("slow_ckpt")
    assert re.search(r"^Saving checkpoint to ", (DATA / "slow_ckpt" / "job.out").read_text(), re.M)
    for paths in (_logs("slow_ckpt"), (DATA / "slow_ckpt",)):
        report = _triage(*paths)
        assert (report["category"], report["culprit_ranks"]) == ("collective_desync", [rank]), paths


def test_a_send_no_rank_receives_names_the_two_ranks_that_left_the_collectives() -> None:
    """Rank 0 sends to rank 1, which receives from rank 2 (which sends nothing): both are held
    in their point-to-point calls while ranks 2 and 3 time out in the next AllReduce."""
    text = (DATA / "p2p_mismatch" / "job.out").read_text()
    p2p = {int(r) for r in re.findall(r"^\[rank(\d+)\]:.*An unbatched P2P op", text, re.M)}
    assert p2p == {0, 1}
    for paths in (_logs("p2p_mismatch"), (DATA / "p2p_mismatch",)):
        report = _triage(*paths)
        assert (report["category"], report["culprit_ranks"]) == ("collective_desync", [0, 1]), paths


# The seventh round (README: "Seventh round"): a rank that aborts, one that exits with a code of
# its own, a loss that turns NaN, and a whole "node" killed with its launcher.


def test_a_rank_that_aborts_is_named_ahead_of_its_peers_remote_errors() -> None:
    """Rank 1 aborts (SIGABRT) without a word; its peers' NCCL says a remote process exited
    a second before torchrun notices: the abort is the first failure, its cause not shown."""
    rank = _marked_rank("abort")
    assert _table("abort")[rank] == -6
    text = (DATA / "abort" / "job.out").read_text()
    assert f"[rank{rank}]:[E" not in text  # no error line of its own
    for paths in (_logs("abort"), (DATA / "abort",)):
        report = _triage(*paths)
        assert (report["category"], report["culprit_ranks"]) == ("undetermined", [rank]), paths


@pytest.mark.parametrize("folder,category", [("exit_code", "undetermined"), ("nan_loss", "software")])
def test_a_ranks_own_exit_names_it(folder: str, category: str) -> None:
    """An exit with a code and no traceback says nothing of why; a NaN loss the job stops on is
    the job's own check."""
    rank = _marked_rank(folder)
    assert _table(folder)[rank] > 0
    for paths in (_logs(folder), (DATA / folder,)):
        report = _triage(*paths)
        assert (report["category"], report["culprit_ranks"]) == (category, [rank]), paths


def test_a_node_that_went_silent_with_its_launcher_names_its_ranks() -> None:
    """Node1's agent and both its ranks are SIGKILLed: its log ends after its ranks' start-up
    warnings, with no error and no table; node0's ranks lose their peers in one collective.
    From the logs, node1's ranks are the suspects; the dumps (none from them) agree."""
    node1 = (DATA / "mn_node_kill" / "node1.out").read_text()
    ranks = sorted({int(r) for r in re.findall(r"^\[rank(\d+)\]", node1, re.M)})
    assert _marked_rank("mn_node_kill") in ranks and "Error" not in node1
    report = _triage(*_logs("mn_node_kill"))
    assert (report["category"], report["culprit_ranks"]) == ("undetermined", ranks)


# The eighth round (README: "Eighth round"): start-up settings, on one rank or on all.


def test_a_setting_nccl_cannot_read_on_every_rank_is_the_jobs_not_a_ranks() -> None:
    """NCCL_PROTO=bogus: each rank's NCCL warns that it cannot parse it and refuses the first
    collective (`invalid usage`); the job's setting, no rank more than another."""
    text = (DATA / "nccl_proto" / "job.out").read_text()
    assert text.count('Unrecognized element token "bogus"') >= 4
    report = _triage(DATA / "nccl_proto")
    assert (report["category"], report["culprit_ranks"]) == ("software", [])
    assert "NCCL_" in " ".join(report["recommendations"])


@pytest.mark.parametrize("folder", ["rank_ifname", "mn_rank_ifname"])
def test_one_rank_set_up_with_an_interface_it_lacks_names_its_host(folder: str) -> None:
    """One rank's NCCL_SOCKET_IFNAME names an interface its host lacks: its bootstrap finds no
    socket interface; the host's network setup is named, with that rank's process."""
    rank = _marked_rank(folder)
    pid = json.loads((DATA / folder / "mark.jsonl").read_text().splitlines()[0])["pid"]
    report = _triage(*_logs(folder))
    assert report["category"] == "network"
    assert any("network setup" in c and f":{pid}" in c for c in report["culprits"]), rank


def test_a_rank_started_without_its_gpu_is_named() -> None:
    """Its error comes before init_process_group, so torch prefixes no rank to it; torchrun's
    table names the rank."""
    rank = _marked_rank("rank_no_gpu")
    assert "\nRuntimeError: No CUDA GPUs are available" in (
        DATA / "rank_no_gpu" / "job.out").read_text()
    assert _table("rank_no_gpu")[rank] == 1
    report = _triage(DATA / "rank_no_gpu")
    assert report["culprit_ranks"] == [rank]
