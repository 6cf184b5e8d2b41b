"""`rankwatch triage` on the fifth round of real NCCL runs (tests/data/nccl_gpu, README: "Fifth
round"): ten faults the rules had never been shown, triaged once before any rule changed (the
README keeps that first reading). Each expected answer follows from the fault the run injected
and from what its files show: the rank comes from the job's own mark, the counts from the
watchdog's lines and torchrun's table, never from triage's output. Where the logs cannot show the
culprit (every rank at the same count, nothing printed at all), the answer is no culprit.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.triage.test_nccl_dumps import DATA, _triage
from tests.triage.test_nccl_torchrun_faults import _marked_rank, _table


def _logs(folder: str) -> tuple[Path, ...]:
    return tuple(sorted((DATA / folder).glob("*.out")))


def _statuses(folder: str) -> dict[int, tuple[int, int]]:
    """Each rank's last enqueued and completed work, as its own watchdog or dump-signal line
    states it (the last such line of each rank)."""
    out: dict[int, tuple[int, int]] = {}
    for path in _logs(folder):
        text = path.read_text()
        for rank, enq, done in re.findall(
                r"Rank (\d+)\].*?[Ll]ast enqueued (?:NCCL )?work: (\d+), last completed "
                r"(?:NCCL )?work: (\d+)", text):
            out[int(rank)] = (int(enq), int(done))
    return out


@pytest.mark.parametrize("folder", ["desync_debug", "no_async"])
def test_a_rank_stuck_in_its_own_code_is_named_from_the_logs_and_the_dumps(folder: str) -> None:
    """Rank N loops outside any collective. With TORCH_NCCL_DESYNC_DEBUG the watchdog's own
    report names it; with async error handling off the job is never torn down and is stopped at
    its time limit, the others' counts one ahead of it."""
    rank = _marked_rank(folder)
    for paths in (_logs(folder), (DATA / folder,)):
        report = _triage(*paths)
        assert (report["category"], report["culprit_ranks"]) == ("collective_desync", [rank]), paths


def test_a_segfault_names_the_rank_and_no_cause() -> None:
    rank = _marked_rank("segv")
    assert _table("segv")[rank] == -11
    for paths in (_logs("segv"), (DATA / "segv",)):
        report = _triage(*paths)
        assert (report["category"], report["culprit_ranks"]) == ("undetermined", [rank]), paths


def test_a_rank_that_never_began_nccls_setup_is_the_one_the_others_waited_for() -> None:
    """Rank 3 sleeps before init_process_group. The others begin NCCL's set-up and wait in its
    bootstrap with no timeout of torch's until the run's time limit stops the job: the stop is
    the wait's consequence, and the rank that never began is named."""
    rank = _marked_rank("init_late")
    text = (DATA / "init_late" / "job.out").read_text()
    began = {int(r) for r in re.findall(r"rank (\d+) nranks 4 .*- Init START", text)}
    assert rank not in began and began == set(range(4)) - {rank}
    assert "Init COMPLETE" not in text and "Watchdog caught" not in text
    report = _triage(DATA / "init_late" / "job.out")
    assert (report["category"], report["culprit_ranks"]) == ("init_timeout", [rank])
    assert "waited" in " ".join(report["findings"])


def test_a_skipped_barrier_is_named_from_the_dumps_and_not_guessed_from_the_logs() -> None:
    """Rank 2 skips a barrier the others enter. torch counts the barrier in no one's status, so
    the logs show rank 2 alone inside #45 and the three others idle at 44: the three are not
    blamed (the few ran ahead as likely as the many are held). The dumps show the barrier
    against the AllReduce at one sequence number and name rank 2."""
    rank = _marked_rank("barrier_skip")
    statuses = _statuses("barrier_skip")
    ahead = {r for r, (enq, done) in statuses.items() if enq > done}
    assert ahead == {rank} and len(statuses) == 4
    logs = _triage(*_logs("barrier_skip"))
    assert (logs["category"], logs["culprit_ranks"], logs["culprits"]) == (
        "collective_desync", [], [])
    dumps = _triage(DATA / "barrier_skip")
    assert (dumps["category"], dumps["culprit_ranks"]) == ("collective_desync", [rank])


@pytest.mark.parametrize("folder", ["subgroup_skip", "mn_subgroup_skip"])
def test_a_skipped_subgroup_collective_shows_only_in_the_dumps(folder: str) -> None:
    """A rank skips its 2-rank group's AllReduce once: every rank then times out in the world's
    #N at the same count, so the logs name no one (and never the launcher, whose own pid is in
    its SignalException); the dumps show the group's count one short on that rank."""
    rank = _marked_rank(folder)
    statuses = _statuses(folder)
    assert len(statuses) == 4 and len(set(statuses.values())) == 1
    logs = _triage(*_logs(folder))
    assert (logs["category"], logs["culprit_ranks"], logs["culprits"]) == ("undetermined", [], [])
    dumps = _triage(DATA / folder)
    assert (dumps["category"], dumps["culprit_ranks"]) == ("collective_desync", [rank])


def test_a_cuda_failure_under_nccl_names_its_rank_ahead_of_the_peers_remote_error() -> None:
    """torch's NaN check (TORCH_NCCL_NAN_CHECK) traps the kernel of the rank that brought NaN:
    its traceback carries NCCL's `unhandled cuda error` with `Cuda failure 'unspecified launch
    failure'`, unstamped, above a peer's stamped remote error. The rank's own GPU failure came
    first in its file and is the cause."""
    rank = _marked_rank("nan_check")
    text = (DATA / "nan_check" / "job.out").read_text()
    assert f"[rank{rank}]: Cuda failure 'unspecified launch failure'" in text
    report = _triage(DATA / "nan_check" / "job.out")
    assert (report["category"], report["culprit_ranks"]) == ("gpu_cuda", [rank])
    assert "unspecified launch failure" in " ".join(report["findings"])


def test_a_hang_nothing_reported_is_a_stop_from_outside() -> None:
    """With TORCH_NCCL_BLOCKING_WAIT=1 the watchdog leaves timeouts to wait(), and the ranks
    wait on their GPU, not in wait(): nothing is printed until the time limit stops the job. The
    logs show only that stop, and triage says so rather than guess a rank."""
    text = (DATA / "blocking_wait" / "job.out").read_text()
    assert "Watchdog caught" not in text and "Received 15 death signal" in text
    report = _triage(DATA / "blocking_wait")
    assert (report["category"], report["culprit_ranks"]) == ("infrastructure", [])


def test_a_gpu_that_never_finishes_a_kernel_leaves_every_rank_alike() -> None:
    """Rank 2's kernel never ends, but its host goes on and enqueues the AllReduce as every
    other rank does: all four time out at the same count, and neither the logs nor the dumps
    single it out."""
    statuses = _statuses("gpu_hang_torchrun")
    assert len(statuses) == 4 and len(set(statuses.values())) == 1
    for paths in (_logs("gpu_hang_torchrun"), (DATA / "gpu_hang_torchrun",)):
        report = _triage(*paths)
        assert (report["category"], report["culprit_ranks"]) == ("undetermined", []), paths
    # (said so, rather than quoting the first failing line as unexplained)
    assert "none is behind" in " ".join(_triage(*_logs("gpu_hang_torchrun"))["findings"])
