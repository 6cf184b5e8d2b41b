"""Synthetic multi-file post-mortems built from real message formats."""

from __future__ import annotations

import datetime as dt
import gzip
from pathlib import Path

from monitor.model import Category
from monitor.triage.analysis import Diagnosis, diagnose
from monitor.triage.reader import read_inputs
from tests.logformats import (
    BASE,
    cuda_oom,
    dump_signal_observed,
    failure_detected,
    first_to_signal,
    megatron_iteration,
    nccl_info,
    nccl_init,
    teardown,
    tqdm_bar,
    watchdog_timeout,
    write_lines,
)

SEQ = 1000
AT = BASE + dt.timedelta(minutes=10)


def _triage(*paths: Path, offsets: dict[str, float] | None = None) -> Diagnosis:
    scans, problems, _ = read_inputs([str(p) for p in paths])
    return diagnose(scans, problems, clock_offsets=offsets)


def _waiting_rank(rank: int, at: dt.datetime) -> list[str]:
    lines = [nccl_info(f"node{rank // 8}", 4000 + rank, rank % 8, "Channel 00/0 : ok")]
    lines += [megatron_iteration(i) for i in range(1, 4)]
    lines.append(watchdog_timeout(rank, SEQ, at))
    lines.append(failure_detected(rank, SEQ, SEQ + 2, SEQ - 1, at + dt.timedelta(microseconds=90)))
    if rank == 0:
        lines.append(first_to_signal(rank, at + dt.timedelta(microseconds=120)))
    lines += teardown(rank, at + dt.timedelta(milliseconds=400))
    return lines


def _straggler(rank: int, at: dt.datetime, last_output: list[str]) -> list[str]:
    lines = [megatron_iteration(i) for i in range(1, 3)]
    lines += last_output
    lines += dump_signal_observed(rank, 0, SEQ - 1, SEQ - 1, at + dt.timedelta(seconds=1))
    return lines


def _job(tmp_path: Path, straggler: int | None, last_output: list[str] | None = None,
         ranks: int = 64) -> list[Path]:
    files = []
    for rank in range(ranks):
        at = AT + dt.timedelta(milliseconds=rank * 3)
        if rank == straggler:
            lines = _straggler(rank, at, last_output or [])
        else:
            lines = _waiting_rank(rank, at)
        files.append(write_lines(tmp_path / f"rank{rank:02d}.log", lines))
    return files


def test_sixty_four_ranks_one_never_entered_the_collective(tmp_path: Path) -> None:
    """63 ranks time out inside collective #1000; rank 37 reports last enqueued == last
    completed == 999: it never entered it. Rank 37 is the culprit, the others are victims."""
    _job(tmp_path, straggler=37)
    d = _triage(tmp_path)
    assert (d.category, d.culprit_ranks) == (Category.COLLECTIVE_DESYNC, (37,))
    assert d.initiator_ranks == tuple(r for r in range(64) if r != 37)
    assert d.observer_ranks == (37,)
    stuck = d.stuck[0]
    assert (stuck.seq, stuck.pg, stuck.stragglers, len(stuck.waiting_ranks)) == (
        SEQ, "0", (37,), 63)
    # started = timeout time minus how long the watchdog says the work ran (600.071 s)
    assert (stuck.timed_out_at, stuck.started_at) == ("03-04 10:10:00.000000",
                                                     "03-04 09:59:59.929000")
    row = next(r for r in d.ranks if r.rank == 37)
    assert (row.state, row.last_enqueued, row.last_completed) == ("not_entered", SEQ - 1, SEQ - 1)
    assert d.key_files[0].endswith("rank37.log")
    assert "rank 37 never entered collective #1000" in d.summary


def test_straggler_seen_preparing_data_is_a_data_problem(tmp_path: Path) -> None:
    """The straggler's own last output is a dataset-building bar: the category says data."""
    _job(tmp_path, straggler=5, ranks=8,
         last_output=[tqdm_bar(500, 1000, "Tokenizing dataset")])
    d = _triage(tmp_path)
    assert (d.category, d.culprit_ranks) == (Category.DATA, (5,))
    assert any("data preparation" in f for f in d.findings)


def test_straggler_seen_saving_a_checkpoint_is_storage(tmp_path: Path) -> None:
    """A straggler whose last line is a checkpoint save points at storage."""
    _job(tmp_path, straggler=2, ranks=4,
         last_output=["[rank2]: Saving checkpoint to /ckpt/step_1000 ..."])
    d = _triage(tmp_path)
    assert (d.category, d.culprit_ranks) == (Category.STORAGE_IO, (2,))


def test_all_ranks_inside_with_known_world_size_is_a_collective_hang(tmp_path: Path) -> None:
    """NCCL init lines give the world size (8); all 8 ranks wait inside the collective: the
    GPU or network side is stuck, and no rank is blamed."""
    files = _job(tmp_path, straggler=None, ranks=8)
    init = [nccl_init("node0", 4000 + r, r, 8) for r in range(8)]
    write_lines(tmp_path / "nccl.log", init)
    d = _triage(*files, tmp_path / "nccl.log")
    assert (d.category, d.culprit_ranks, d.world_size) == (Category.COLLECTIVE_HANG, (), 8)


def test_silent_ranks_are_suspects_not_culprits(tmp_path: Path) -> None:
    """World size 8, only ranks 0-5 printed: 6 and 7 are named as suspects; category stays
    undetermined and no culprit is claimed."""
    files = _job(tmp_path, straggler=None, ranks=6)
    write_lines(tmp_path / "nccl.log", [nccl_init("node0", 4000 + r, r, 8) for r in range(8)])
    d = _triage(*files, tmp_path / "nccl.log")
    assert (d.category, d.culprit_ranks, d.silent_ranks) == (Category.UNDETERMINED, (), (6, 7))
    assert any("6-7 of 8 printed nothing" in f for f in d.findings)


def test_interleaving_the_last_line_is_not_the_first_cause(tmp_path: Path) -> None:
    """Four ranks write one file; rank 5's CUDA OOM (10:00:05) is printed in the middle, after
    lines stamped later, and the file ends with rank 2's watchdog timeout (10:10). The first
    cause is the OOM, found by time, not by position."""
    t = BASE
    lines = [
        "2025-03-04 10:00:01 [rank2]: step 10 loss 1.0",
        "2025-03-04 10:00:09 [rank3]: step 11 loss 1.0",
        f"2025-03-04 10:00:05 [rank5]: {cuda_oom(5)}",
        "2025-03-04 10:00:05 [rank5]: Traceback (most recent call last):",
        '2025-03-04 10:00:05 [rank5]:   File "/app/train.py", line 9, in <module>',
        "2025-03-04 10:00:05 [rank5]: torch.OutOfMemoryError: CUDA out of memory.",
        watchdog_timeout(3, 77, t + dt.timedelta(minutes=10, seconds=1)),
        watchdog_timeout(2, 77, t + dt.timedelta(minutes=10, seconds=2)),
    ]
    path = write_lines(tmp_path / "all.log", lines)
    d = _triage(path)
    assert (d.category, d.culprit_ranks) == (Category.OOM, (5,))
    assert d.first_error is not None and d.first_error.line == 3
    order = [e.line for e in d.timeline]
    assert order[0] == 3 and order[-2:] == [7, 8]
    chain = [step.what for step in d.causal_chain]
    oom = next(i for i, what in enumerate(chain) if "out of memory" in what)
    timeout = next(i for i, what in enumerate(chain) if "watchdog timed out" in what)
    assert oom < timeout


def test_timeline_is_ordered_across_files_by_time_not_by_file_order(tmp_path: Path) -> None:
    """File a.log holds the later events, b.log the earlier ones: the timeline follows time."""
    a = write_lines(tmp_path / "a.log", [watchdog_timeout(1, 9, BASE + dt.timedelta(minutes=5))])
    b = write_lines(tmp_path / "b.log", [watchdog_timeout(0, 9, BASE + dt.timedelta(minutes=1))])
    d = _triage(a, b)
    assert [e.file.rsplit("/", 1)[-1] for e in d.timeline[:2]] == ["b.log", "a.log"]


def test_clock_offsets_reorder_a_node_whose_clock_was_ahead(tmp_path: Path) -> None:
    """The clock-skew hook: a -300 s offset on node a moves its events before node b's."""
    a = write_lines(tmp_path / "a.log", [watchdog_timeout(1, 9, BASE + dt.timedelta(minutes=5))])
    b = write_lines(tmp_path / "b.log", [watchdog_timeout(0, 9, BASE + dt.timedelta(minutes=3))])
    plain = _triage(a, b)
    shifted = _triage(a, b, offsets={str(a): -300.0})
    assert [e.rank for e in plain.timeline[:2]] == [0, 1]
    assert [e.rank for e in shifted.timeline[:2]] == [1, 0]


def test_healthy_log_is_category_none(tmp_path: Path) -> None:
    """Progress, NCCL chatter, a benign warning and recovering retries: nothing failed."""
    lines = [nccl_init("node0", 4000, 0, 2)]
    lines += [megatron_iteration(i) for i in range(1, 50)]
    lines += ["UserWarning: TypedStorage is deprecated.",
              "thrown while requesting GET https://huggingface.co/x. Retrying in 1s [Retry 1/5].",
              "gpu017:4000:4017 [0] NCCL INFO comm 0x1 rank 0 nranks 2 - Init COMPLETE"]
    d = _triage(write_lines(tmp_path / "rank0.log", lines))
    assert (d.category, d.culprit_ranks, d.culprits) == (Category.NONE, (), ())
    assert d.retries == {"storage": {"recovering": 1, "escalating": 0, "exhausted": 0}}
    assert d.summary.startswith("No failure found")


def test_retry_exhaustion_is_a_storage_failure_noise_is_not(tmp_path: Path) -> None:
    """Four recovering 1/5 retries are noise; a 5/5 exhaustion on rank 3 is the cause."""
    noise = [f"[rank{r}]: requesting GET https://huggingface.co/x. Retrying in 1s [Retry 1/5]."
             for r in range(4)]
    out = [*noise, "[rank3]: requesting GET https://huggingface.co/x. Retrying in 16s "
                   "[Retry 5/5]."]
    d = _triage(write_lines(tmp_path / "job.log", out))
    assert (d.category, d.culprit_ranks) == (Category.STORAGE_IO, (3,))
    assert d.retries["storage"] == {"recovering": 4, "escalating": 0, "exhausted": 1}


def test_majority_decides_a_collective_mismatch(tmp_path: Path) -> None:
    """Same SeqNum, three ranks broadcast 64 elements, one broadcasts 128: that one is the
    odd one out (software)."""
    lines = [watchdog_timeout(r, 50, AT, op="BROADCAST", numel=128 if r == 2 else 64)
             for r in range(4)]
    d = _triage(write_lines(tmp_path / "job.log", lines))
    assert (d.category, d.culprit_ranks) == (Category.SOFTWARE, (2,))


def test_two_sizes_with_no_majority_are_a_desync_that_blames_nobody(tmp_path: Path) -> None:
    """Same SeqNum and op, one rank on each side of two sizes: nothing says which rank
    diverged; the two are not in the same collective."""
    lines = [watchdog_timeout(r, 50, AT, op="ALLREDUCE", numel=128 if r == 1 else 64)
             for r in range(2)]
    d = _triage(write_lines(tmp_path / "job.log", lines))
    assert (d.category, d.culprit_ranks) == (Category.COLLECTIVE_DESYNC, ())


def test_desync_report_names_the_lagging_ranks(tmp_path: Path) -> None:
    """TORCH_NCCL_DESYNC_DEBUG's report is the culprit list."""
    lines = [
        watchdog_timeout(0, 12, AT),
        "[rank0]:[E304 10:10:00.100000000 ProcessGroupNCCL.cpp:800] [PG 0 Rank 0] ",
        "\t - [0] Timeout at collective: ALLREDUCE, #12",
        "\t - To our best knowledge, ranks [3, 5] are the lagging ranks that caused this "
        "timeout. They never joined any collectives",
    ]
    d = _triage(write_lines(tmp_path / "job.log", lines))
    assert (d.category, d.culprit_ranks) == (Category.COLLECTIVE_DESYNC, (3, 5))


def test_time_limit_with_nothing_failing_before_is_infrastructure(tmp_path: Path) -> None:
    """The scheduler ended a healthy job at its time limit; the errors after are collateral."""
    lines = [f"2025-03-04 10:00:0{i} [rank0]: step {i}" for i in range(5)]
    lines += ["2025-03-04 10:00:09 slurmstepd: error: *** JOB 4242 ON gpu017 CANCELLED AT "
              "2025-03-04T10:00:09 DUE TO TIME LIMIT ***",
              "2025-03-04 10:00:10 [rank0]: torch.distributed.DistBackendError: NCCL error in: "
              "x.cpp:1, remote process exited or there was a network error, NCCL version 2.21.5"]
    d = _triage(write_lines(tmp_path / "job.log", lines))
    assert (d.category, d.culprit_ranks) == (Category.INFRASTRUCTURE, ())


def test_sigkill_with_a_kernel_oom_line_is_oom(tmp_path: Path) -> None:
    """torchrun saw SIGKILL; the node's kernel log (a second input) shows the OOM killer."""
    summary = [
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "train.py FAILED", "Root Cause (first observed failure):", "[0]:",
        "  time      : 2025-03-04_10:00:03", "  rank      : 4 (local_rank: 4)",
        "  exitcode  : -9 (pid: 5151)", "  traceback : Signal 9 (SIGKILL) received by PID 5151",
        "============================================================",
    ]
    kernel = ["[ 1843.308145] Out of memory: Killed process 5151 (python) total-vm:1kB, "
              "anon-rss:1kB"]
    d = _triage(write_lines(tmp_path / "job.log", summary),
                write_lines(tmp_path / "dmesg.log", kernel))
    assert d.category is Category.OOM


def test_gzip_and_plain_files_are_read_together(tmp_path: Path) -> None:
    """A directory mixing .log and .log.gz is read completely."""
    files = _job(tmp_path, straggler=3, ranks=4)
    with open(files[1], "rb") as plain, gzip.open(str(files[1]) + ".gz", "wb") as packed:
        packed.write(plain.read())
    files[1].unlink()
    d = _triage(tmp_path)
    assert d.culprit_ranks == (3,)
    assert d.inputs.files == 4


def test_one_absent_rank_of_a_known_world_is_named(tmp_path: Path) -> None:
    """World size 8 from NCCL's init lines; ranks 1-7 time out in the same collective and rank
    0 prints nothing: rank 0 is named (category undetermined: it may have died or wandered)."""
    files = [write_lines(tmp_path / f"rank{r:02d}.log",
                         _waiting_rank(r, AT + dt.timedelta(milliseconds=r)))
             for r in range(1, 8)]
    write_lines(tmp_path / "nccl.log", [nccl_init("node0", 4000 + r, r, 8) for r in range(8)])
    d = _triage(*files, tmp_path / "nccl.log")
    assert (d.category, d.culprit_ranks) == (Category.UNDETERMINED, (0,))
    assert any("reported nothing" in f for f in d.findings)


def test_an_empty_rank_file_makes_the_world_and_names_its_rank(tmp_path: Path) -> None:
    """Per-rank files rank00..rank03, rank02's is empty: the others wait in one collective."""
    files = [write_lines(tmp_path / f"rank{r:02d}.log",
                         _waiting_rank(r, AT + dt.timedelta(milliseconds=r)))
             for r in (0, 1, 3)]
    empty = tmp_path / "rank02.log"
    empty.write_text("")
    d = _triage(*files, empty)
    assert d.culprit_ranks == (2,)


def test_same_seqnum_different_op_types_is_a_desync_nobody_is_blamed(tmp_path: Path) -> None:
    """Rank 0 times out in ALLREDUCE #5, rank 1 in BROADCAST #5: the code paths diverged and
    a pair cannot say which side is wrong."""
    lines = [watchdog_timeout(0, 5, AT, op="ALLREDUCE"),
             watchdog_timeout(1, 5, AT + dt.timedelta(milliseconds=3), op="BROADCAST")]
    d = _triage(write_lines(tmp_path / "job.log", lines))
    assert (d.category, d.culprit_ranks) == (Category.COLLECTIVE_DESYNC, ())
    assert any("no single rank can be blamed" in f for f in d.findings)
