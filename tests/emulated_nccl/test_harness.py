"""The emulated NCCL job itself: its RAS endpoint, its counts, its stacks, its faults.

These tests check the harness, not rankwatch's verdicts: what a real NCCL 2.28 job shows from
the outside (RAS replies the project's parsers read, counts that advance or freeze the way the
fault dictates, a host blocked in `synchronize`) must hold before detection is tested on it.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
from pathlib import Path

import pytest

from monitor.parse.progress import Phase, match_phase, match_progress
from monitor.parse.ras_json import parse_json
from monitor.parse.ras_model import CommProblem, CommStatus, RasReport
from monitor.parse.ras_text import parse_text
from tests.emulated_nccl.config import JobConfig
from tests.emulated_nccl.harness import (
    EmulatedJob,
    Scenario,
    main_thread_functions,
    ras_reports_served,
    run_scenario,
    scenario,
    stack_dump,
)

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "ras" / "samples"
QUICK = {"step_seconds": 0.05, "fault_step": 12, "rankwatch": False}


def allreduce_counts(report: RasReport) -> dict[int, int]:
    (comm,) = report.communicators
    return {r.rank: r.counts[4] for r in comm.ranks}


def mismatch_groups(report: RasReport) -> dict[int, int]:
    """rank -> launched count, from the ranks a text MISMATCH block lists."""
    out: dict[int, int] = {}
    for comm in report.communicators:
        for group in comm.count_groups:
            out.update({ref.rank: group.value for ref in group.ranks})
    return out


def shape(report: RasReport) -> tuple[int, int, bool, list[tuple[list[str], int]]]:
    """What a client learns from a report, without the job's size: missing and dead processes,
    whether a collection timed out, and each listed communicator's problems and missing ranks."""
    return (
        report.unresponsive_count,
        report.dead_count,
        report.timeouts > 0,
        [(sorted(p.value for p in c.problems), c.missing_count) for c in report.communicators],
    )


def sample(name: str) -> RasReport:
    return parse_text((SAMPLES / name).read_text())


def started(tmp_path: Path, spec: Scenario) -> EmulatedJob:
    return EmulatedJob(spec, tmp_path).start()


# ------------------------------------------------------------------------------------------
# Configuration (no processes)


def test_scenario_knobs_are_checked() -> None:
    with pytest.raises(TypeError, match="unknown knobs"):
        scenario("none", no_such_knob=1)
    with pytest.raises(ValueError, match="kernel_hang needs mode nccl"):
        scenario("kernel_hang", mode="gloo")
    with pytest.raises(ValueError, match="RW_EMU_FAULT"):
        scenario("meteor_strike")
    spec = scenario("dead_unreaped", step_seconds=0.2)
    assert spec.launcher == "noteardown" and spec.reap is False
    assert JobConfig.from_env(spec.job.to_env()) == spec.job


# ------------------------------------------------------------------------------------------
# A healthy job: the endpoint, the formats, the counts


@pytest.mark.e2e
def test_healthy_job_serves_text_and_json_that_parse_and_counts_advance(tmp_path: Path) -> None:
    with started(tmp_path, scenario("none", **QUICK)) as job:
        job.wait_for_ops(5)
        text = job.ras_query("text")
        first = parse_json(job.ras_query("json"))
        time.sleep(1.5)
        second = parse_json(job.ras_query("json"))
        counts = job.counts()
        pids = job.rank_pids()

    report = parse_text(text)
    assert report.complete and report.unknown_lines == 0, report.unknown_samples
    assert report.nccl_version == "2.28.9" and report.job is not None
    assert (report.job.nodes, report.job.processes, report.job.gpus) == (1, 2, 2)
    (row,) = report.groups
    assert row.size == 2 and row.status is CommStatus.RUNNING
    assert text.startswith("NCCL version 2.28.9 compiled with CUDA")
    assert re.search(r"\nCommunicators\.\.\. \(\d+\.\d{3}s\)\n", text)  # 2.28.7+: %.3f

    for parsed in (first, second):
        assert parsed.complete and parsed.faults == ()
        (comm,) = parsed.communicators
        assert comm.size == 2 and comm.missing == ()
        assert {r.rank: r.pid for r in comm.ranks} == pids
        assert all(r.host == "127.0.0.1" for r in comm.ranks)
    before, after = allreduce_counts(first), allreduce_counts(second)
    assert all(after[r] > before[r] for r in before), (before, after)
    # The counts are the ranks' own: never ahead of what each rank has launched since.
    assert all(after[r] <= counts[r].allreduce for r in after)


def test_replies_have_the_structure_of_the_reference_samples(tmp_path: Path) -> None:
    """Same JSON keys, in the same order, as sample 14; text parsed into the same shape as
    sample 01 (layout A summary, one table row, nothing unrecognised)."""
    from tests.emulated_nccl.ras_server import JobView
    from tests.emulated_nccl.shared import CountsSlot, RankInfo, write_rank_info
    from tests.fake_ras import render_json, render_text_chunks

    # Two "ranks" published by live processes (this one and its parent): the model and the
    # renderer are checked here, not the job.
    for rank, pid in enumerate((os.getpid(), os.getppid())):
        slot = CountsSlot(tmp_path, rank)
        slot.set_state(2)
        slot.bump(broadcast=4, allreduce=10 + rank, issued=14, completed=14)
        write_rank_info(tmp_path, RankInfo(rank, pid, "127.0.0.1", rank, 2, rank))
    state = JobView(tmp_path, version="2.29.7").state()
    assert [p.state for p in state.peers] == ["alive", "alive"] and state.timeouts == 0

    ours = json.loads(render_json(state, elapsed=0.004))
    theirs = json.loads((SAMPLES / "14-json-status-v229plus-1x4.json.txt").read_text())
    assert list(ours) == list(theirs)
    ours_comm, theirs_comm = ours["communicators"][0], theirs["communicators"][0]
    assert list(ours_comm) == list(theirs_comm)
    assert list(ours_comm["ranks"][0]) == list(theirs_comm["ranks"][0])
    assert list(ours_comm["ranks"][0]["status"]) == list(theirs_comm["ranks"][0]["status"])
    assert list(ours_comm["ranks"][0]["collective_counts"]) == list(
        theirs_comm["ranks"][0]["collective_counts"]
    )

    head, tail = render_text_chunks(state, verbose=False, elapsed=0.004)
    ours_text = parse_text(head + tail)
    sample = parse_text((SAMPLES / "01-healthy-2x8.txt").read_text())
    for report in (ours_text, sample):
        assert report.complete and report.unknown_lines == 0
        assert report.job is not None and None not in (report.job.nodes, report.job.gpus)
        assert len(report.groups) == 1 and report.collection_seconds is not None
    (comm,) = ours_text.communicators  # the 10-vs-11 skew is a MISMATCH, listed by rank
    assert CommProblem.MISMATCH in comm.problems
    assert mismatch_groups(ours_text) == {0: 10, 1: 11}


@pytest.mark.e2e
def test_one_report_per_connection_then_the_port_closes_with_the_job(tmp_path: Path) -> None:
    with started(tmp_path, scenario("none", step_seconds=0.05, steps=40, rankwatch=False)) as job:
        job.wait_for_ops(3)
        host, port = "127.0.0.1", job.ras_port
        with socket.create_connection((host, port), timeout=10) as sock:
            sock.sendall(b"STATUS\n")  # no handshake: NCCL does not require one
            data = b""
            while chunk := sock.recv(65536):
                data += chunk  # ends: the server closed after one report
        assert data.startswith(b"NCCL version 2.28.9")
        assert job.proc is not None and job.proc.wait(timeout=60) == 0
        job.wait_until(
            lambda: job.ras_proc is not None and job.ras_proc.poll() is not None,
            15,
            "the RAS endpoint closing",
        )
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection((host, port), timeout=5).close()


# ------------------------------------------------------------------------------------------
# Faults


def frozen_text(job: EmulatedJob, gap: float = 1.5) -> tuple[RasReport, RasReport]:
    a = parse_text(job.ras_query("text"))
    time.sleep(gap)
    return a, parse_text(job.ras_query("text"))


@pytest.mark.e2e
def test_user_deadlock_freezes_a_mismatch_with_the_stuck_rank_behind(tmp_path: Path) -> None:
    """Rank 1 blocks in user code before launching; rank 0 launched and waits on the "GPU"."""
    with started(tmp_path, scenario("user_deadlock", **QUICK)) as job:
        fault = job.wait_for_fault()
        time.sleep(1.0)
        a, b = frozen_text(job)
        stacks = {rank: main_thread_functions(pid) for rank, pid in job.rank_pids().items()}
    assert fault.rank == 1 and fault.step == 12
    assert mismatch_groups(a) == mismatch_groups(b)  # frozen
    launched = mismatch_groups(a)
    assert launched[1] == launched[0] - 1, launched
    assert stacks[1][0] == "user_code_deadlock"
    assert stacks[0][0] == "synchronize" and "all_reduce" not in " ".join(stacks[0])


@pytest.mark.e2e
def test_item_style_wait_blocks_in_the_training_code(tmp_path: Path) -> None:
    """host_wait="item": the host waits in a C call straight from train_step, as `.item()`."""
    with started(tmp_path, scenario("kernel_hang", host_wait="item", **QUICK)) as job:
        job.wait_for_fault()
        time.sleep(1.0)
        stacks = [main_thread_functions(pid) for pid in job.rank_pids().values()]
    for functions in stacks:
        assert functions[0] == "train_step", functions


@pytest.mark.e2e
def test_kernel_hang_leaves_the_hung_rank_one_behind_with_its_host_in_synchronize(
    tmp_path: Path,
) -> None:
    with started(tmp_path, scenario("kernel_hang", fault_rank=1, **QUICK)) as job:
        job.wait_for_fault()
        time.sleep(1.0)
        a, b = frozen_text(job)
        counts = job.counts()
        pids = job.rank_pids()
        dumps = {rank: stack_dump(pid) for rank, pid in pids.items()}
    launched = mismatch_groups(a)
    assert launched == mismatch_groups(b) and launched[1] == launched[0] - 1, launched
    # The hung rank's host issued the next all-reduce; it never reached the stream.
    assert counts[1].issued == counts[1].launched + 1
    assert counts[1].completed == counts[0].completed
    for rank, dump in dumps.items():
        (main,) = [t for t in dump if t["thread_name"] == "MainThread"]
        top = main["frames"][0]
        assert top["name"] == "synchronize", (rank, main["frames"])
        assert top["filename"].endswith("torch/cuda/__init__.py")


@pytest.mark.e2e
@pytest.mark.parametrize("mode", ["nccl", "gloo"])
def test_network_hang_freezes_every_count_equal(tmp_path: Path, mode: str) -> None:
    with started(tmp_path, scenario("network_hang", mode=mode, **QUICK)) as job:
        job.wait_for_fault()
        time.sleep(1.0)
        first = parse_json(job.ras_query("json"))
        text = parse_text(job.ras_query("text"))
        time.sleep(1.5)
        second = parse_json(job.ras_query("json"))
        stacks = [main_thread_functions(pid) for pid in job.rank_pids().values()]
    counts = allreduce_counts(first)
    assert counts == allreduce_counts(second) and len(set(counts.values())) == 1, counts
    assert text.communicators == () and text.groups[0].problems == frozenset()  # RUNNING OK
    for functions in stacks:
        assert functions[0] == ("synchronize" if mode == "nccl" else "all_reduce"), functions


@pytest.mark.e2e
def test_dead_rank_without_reaping_is_a_zombie_missing_then_dead(tmp_path: Path) -> None:
    spec = scenario("dead_unreaped", ras_dead_after_seconds=4.0, **QUICK)
    with started(tmp_path, spec) as job:
        fault = job.wait_for_fault()
        assert job.wait_for_state(1, "Z") == "Z"
        missing = parse_text(job.ras_query("text"))
        job.wait_until(lambda: time.monotonic() > fault.monotonic + 5.0, 10, "the dead window")
        dead_text = parse_text(job.ras_query("text"))
        raw_json = job.ras_query("json")
        assert job.running()  # the survivors and the launcher stay up
    assert missing.unresponsive_count == 1 and missing.dead_count == 0
    assert [p.pid for p in missing.unresponsive_processes] == [fault.pid]
    assert dead_text.dead_count == 1 and [p.pid for p in dead_text.dead_processes] == [fault.pid]
    # As sample 05, plus the survivor's remote-process error (a real job's peers report one).
    (_, dead, timed_out, [(problems, missing_ranks)]) = shape(dead_text)
    assert shape(sample("05-dead-process-2x8.txt")) == (
        0,
        dead,
        timed_out,
        [(["INCOMPLETE"], missing_ranks)],
    )
    assert problems == ["ERROR", "INCOMPLETE"]
    dead_json = parse_json(raw_json)
    assert "json_comma_repaired" in dead_json.faults  # 2.28.9's missing comma, as NCCL sends it
    (comm,) = dead_json.communicators
    (gone,) = comm.missing
    assert gone.ref.rank == 1 and gone.ref.pid == fault.pid and gone.dead is True
    (survivor,) = comm.ranks  # its transport to the dead peer broke: ncclRemoteError
    assert survivor.rank == 0 and survivor.async_error == 6


@pytest.mark.e2e
def test_dead_rank_under_torchrun_ends_the_job_and_closes_the_port(tmp_path: Path) -> None:
    with started(tmp_path, scenario("dead_reaped", **QUICK)) as job:
        job.wait_for_fault()
        assert job.proc is not None and job.proc.wait(timeout=60) != 0  # torchrun tore down
        job.wait_until(
            lambda: job.ras_proc is not None and job.ras_proc.poll() is not None,
            15,
            "the RAS endpoint closing",
        )
    assert "exitcode  : -9" in job.tail(20000) or "Signal 9" in job.tail(20000)


@pytest.mark.e2e
def test_stopped_rank_times_out_once_then_stays_missing(tmp_path: Path) -> None:
    spec = scenario("sigstop", ras_collection_timeout_seconds=2.0, **QUICK)
    with started(tmp_path, spec) as job:
        fault = job.wait_for_fault()
        assert job.wait_for_state(1, "Tt") in ("T", "t")
        first = parse_text(job.ras_query("text"))
        second = parse_text(job.ras_query("text"))
    assert first.timeouts == 1 and second.timeouts == 0
    assert shape(first) == shape(sample("04-incomplete-unresponsive-2x8.txt"))
    for report in (first, second):
        assert report.unresponsive_count == 1 and report.dead_count == 0
        assert [p.pid for p in report.unresponsive_processes] == [fault.pid]


@pytest.mark.e2e
def test_dataloader_worker_blocks_in_getitem(tmp_path: Path) -> None:
    with started(tmp_path, scenario("dl_stall", mode="gloo", **QUICK)) as job:
        fault = job.wait_for_fault()
        time.sleep(2.0)
        worker = main_thread_functions(fault.pid)
        rank1 = main_thread_functions(job.rank_pids()[1])
        launched = mismatch_groups(parse_text(job.ras_query("text")))
    assert fault.pid != job.rank_pids()[1]  # the worker, not the rank
    assert any(name.endswith("__getitem__") for name in worker), worker
    assert any("DataLoader" in name for name in rank1), rank1
    assert launched[1] == launched[0] - 1, launched


# ------------------------------------------------------------------------------------------
# Healthy lifecycle knobs


@pytest.mark.e2e
def test_lifecycle_phases_print_what_the_progress_parser_reads(tmp_path: Path) -> None:
    spec = scenario(
        "none", steps=24, step_seconds=0.02, log_every=2, checkpoint_every=10,
        checkpoint_seconds=1.0, eval_every=12, eval_seconds=1.0, eval_ranks="rank0",
        startup_delay_seconds=1.0, rankwatch=False,
    )  # fmt: skip
    with started(tmp_path, spec) as job:
        assert job.proc is not None and job.proc.wait(timeout=90) == 0, job.tail()
        counts = job.counts()
    lines = job.output.read_text().splitlines()
    # "saving checkpoint at iteration N" also reads as a plain step N (as live): count the
    # Megatron progress lines.
    steps = [m.step for m in map(match_progress, lines) if m and m.framework == "megatron"]
    assert steps == list(range(2, 25, 2)), steps
    phases = [p for p in map(match_phase, lines) if p is not None]
    assert phases.count(Phase.CHECKPOINT) == 2 and phases.count(Phase.EVALUATION) == 2
    # 24 steps + 2 checkpoint barriers + 2 evaluation barriers, equal on both ranks.
    assert {c.allreduce for c in counts.values()} == {28}
    assert {c.completed for c in counts.values()} == {c.issued for c in counts.values()}


@pytest.mark.e2e
def test_no_progress_output_prints_no_step(tmp_path: Path) -> None:
    spec = scenario("none", steps=10, step_seconds=0.02, progress="none", rankwatch=False)
    with started(tmp_path, spec) as job:
        assert job.proc is not None and job.proc.wait(timeout=60) == 0, job.tail()
    assert not [ln for ln in job.output.read_text().splitlines() if match_progress(ln)]


# ------------------------------------------------------------------------------------------
# Under the real `rankwatch run`


@pytest.mark.e2e
def test_run_scenario_under_rankwatch_returns_alerts_fault_and_output(tmp_path: Path) -> None:
    """Plumbing only (verdicts are tested elsewhere): rankwatch wraps the job, polls the RAS
    endpoint, writes its alert log, and stops on SIGTERM; the fault time comes back."""
    spec = scenario("kernel_hang", step_seconds=0.05, fault_step=40)
    outcome = run_scenario(spec, tmp_path, timeout=15)
    assert outcome.fault is not None and outcome.fault.fault == "kernel_hang"
    assert outcome.started_wall < outcome.fault.wall < outcome.stop_wall <= outcome.stopped_wall
    assert all(a in outcome.alerts for a in outcome.alerts_before_stop())
    output = outcome.output.read_text(errors="replace")
    assert "iteration       39/" in output  # the job's own lines pass through rankwatch
    assert ras_reports_served(tmp_path), "rankwatch never asked the RAS endpoint"
    assert outcome.exit_code is not None  # rankwatch ended on SIGTERM, not by our SIGKILL
    for alert in outcome.alerts:
        assert {"status", "alertname", "severity", "culprit_ranks", "starts_at"} <= set(alert)
