"""The false-page matrix: healthy jobs, ended every usual way and going through every usual phase,
page no one (zero warning and zero critical records); real faults page exactly once, naming
the right rank.

Every case runs the real `rankwatch run` around a real torchrun job (tests/emulated_nccl/:
gloo ranks that look like an NCCL job from the outside, with a RAS endpoint of their real
counts). The detectors' windows are short (WATCHFUL) so that a false page, if there is one,
comes within the test; the phases are as long as the windows would make them look like
stalls. `RW_FALSE_PAGE_FULL=1` runs the issue's full lengths (2-minute start, 3-minute
checkpoint); the soak benchmark (tests/benchmarks/bench_false_page_soak.py) runs them all.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.emulated_nccl.harness import Alert, EmulatedJob, Outcome, scenario

pytestmark = pytest.mark.e2e

FULL = os.environ.get("RW_FALSE_PAGE_FULL") == "1"

# Windows short enough that a healthy phase of the lengths below would page if rankwatch took
# it for a stall: progress 5 s floor, stacks 10 s, RAS polled every 5 s.
WATCHFUL: dict[str, str] = {
    "RANKWATCH_PROGRESS_STALL_FLOOR_SECONDS": "5",
    "RANKWATCH_PYSPY_SUSPECT_IDLE_SECONDS": "5",
    "RANKWATCH_PYSPY_STRAGGLER_ALERT_SECONDS": "10",
    "RANKWATCH_PYSPY_MIN_ROUND_GAP_SECONDS": "5",
    "RANKWATCH_PYSPY_REPEAT_GAP_SECONDS": "1",
    "RANKWATCH_RAS_STALL_FLOOR_SECONDS": "10",
    "RANKWATCH_RAS_PACED_FLOOR_SECONDS": "5",
}


def pages(alerts: list[Alert]) -> list[str]:
    """Every record that would reach a person, as a readable line."""
    return [
        f"{a['severity']} {a['alertname']}: {a['summary']}"
        for a in alerts
        if a["status"] == "firing" and a["severity"] in ("warning", "critical")
    ]


def run_healthy(
    tmp_path: Path,
    seconds: float,
    end: Callable[[EmulatedJob], None] | None = None,
    **knobs: Any,
) -> Outcome:
    """Run a healthy job for `seconds` after its first collectives, then end it with `end`
    (None: the job ends by itself) and collect what rankwatch recorded."""
    settings = {**WATCHFUL, **knobs.pop("settings", {})}
    # No DataLoader workers here: the phases are the subject, and a worker forked after the
    # process group's threads exist can, rarely, hang at start (a real hang rankwatch pages).
    knobs.setdefault("workers", 0)
    job = EmulatedJob(scenario("none", settings=settings, **knobs), tmp_path).start()
    try:
        job.wait_for_ops(1, timeout=90 + knobs.get("startup_delay_seconds", 0))
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and job.running():
            time.sleep(0.5)
        if end is not None and job.running():
            end(job)
            assert job.proc is not None
            job.proc.wait(timeout=60)
    finally:
        outcome = job.stop()
    return outcome


def _launcher(job: EmulatedJob) -> psutil.Process:
    rank0 = psutil.Process(job.rank_pids()[0])
    return rank0.parent()


def _sigterm_process_group(job: EmulatedJob) -> None:
    os.killpg(os.getpgid(_launcher(job).pid), signal.SIGTERM)


def _sigterm_rankwatch(job: EmulatedJob) -> None:
    assert job.proc is not None
    job.proc.send_signal(signal.SIGTERM)


def _sigint_rankwatch(job: EmulatedJob) -> None:
    assert job.proc is not None
    job.proc.send_signal(signal.SIGINT)


def _sigterm_launcher(job: EmulatedJob) -> None:
    _launcher(job).send_signal(signal.SIGTERM)


@pytest.mark.parametrize(
    "end",
    [_sigterm_process_group, _sigterm_rankwatch, _sigint_rankwatch, _sigterm_launcher],
    ids=["sigterm-process-group", "sigterm-rankwatch", "sigint-rankwatch", "launcher-stops"],
)
def test_a_healthy_job_ended_from_outside_pages_no_one(
    tmp_path: Path, end: Callable[[EmulatedJob], None]
) -> None:
    """(2) SIGTERM to the job's process group, (3) SIGTERM to `rankwatch run` alone (it is
    forwarded), (4) SIGINT, (6) torchrun stopping its workers: a stop someone asked for."""
    outcome = run_healthy(tmp_path, 12, end)
    assert pages(outcome.alerts) == [], outcome.output.read_text()[-3000:]
    recorded = [a for a in outcome.alerts if a["status"] == "firing"]
    assert recorded, "the ranks' ends were not even recorded"
    assert all(a["severity"] == "info" for a in recorded)


def test_a_job_that_exits_0_pages_no_one(tmp_path: Path) -> None:
    """(1) A job that finishes its steps and exits 0."""
    outcome = run_healthy(tmp_path, 60, None, steps=80)
    assert outcome.exit_code == 0, outcome.output.read_text()[-3000:]
    assert pages(outcome.alerts) == []


@pytest.mark.parametrize("ranks", ["rank0", "all"])
def test_checkpoints_and_evaluations_page_no_one(tmp_path: Path, ranks: str) -> None:
    """(7) checkpoints of 40 s every 30 s on rank 0 (it prints "saving checkpoint at
    iteration N" and writes all the time, the others wait at a barrier), and (9) 45 s
    evaluations, on rank 0 alone (`if rank == 0: validate()`, the others at a barrier) or on
    every rank. Shorter in CI: 15 s and 20 s against windows of 5-10 s."""
    checkpoint, evaluation = (40.0, 45.0) if FULL else (15.0, 20.0)
    outcome = run_healthy(
        tmp_path,
        checkpoint + evaluation + 25,
        _sigterm_rankwatch,
        checkpoint_every=60,
        checkpoint_seconds=checkpoint,
        eval_every=100,
        eval_seconds=evaluation,
        eval_ranks=ranks,
    )
    text = outcome.output.read_text()
    assert "saving checkpoint at iteration" in text
    assert pages(outcome.alerts) == [], text[-3000:]


def test_a_long_checkpoint_that_keeps_writing_pages_no_one(tmp_path: Path) -> None:
    """(8) A 3-minute checkpoint save that keeps writing (40 s in CI: four times the windows)."""
    seconds = 180.0 if FULL else 40.0
    outcome = run_healthy(
        tmp_path,
        seconds + 15,
        _sigterm_rankwatch,
        checkpoint_every=40,
        checkpoint_seconds=seconds,
    )
    assert pages(outcome.alerts) == [], outcome.output.read_text()[-3000:]


def test_slow_steps_logged_every_ten_pages_no_one(tmp_path: Path) -> None:
    """(10) 6 s steps, one progress line every 10 steps (a line a minute)."""
    outcome = run_healthy(
        tmp_path, 75 if not FULL else 200, _sigterm_rankwatch, step_seconds=6.0, log_every=10
    )
    assert pages(outcome.alerts) == [], outcome.output.read_text()[-3000:]


def test_a_long_start_before_the_first_step_pages_no_one(tmp_path: Path) -> None:
    """(11) Two minutes between start and the first step (model load, compile); 45 s in CI."""
    delay = 120.0 if FULL else 45.0
    outcome = run_healthy(
        tmp_path, 15, _sigterm_rankwatch, startup_delay_seconds=delay
    )
    assert pages(outcome.alerts) == [], outcome.output.read_text()[-3000:]


def test_a_job_that_prints_no_progress_pages_no_one(tmp_path: Path) -> None:
    """(12) No progress output at all: the progress path never pages alone."""
    outcome = run_healthy(tmp_path, 30, _sigterm_rankwatch, progress="none")
    assert pages(outcome.alerts) == [], outcome.output.read_text()[-3000:]


# -- the faults still page, exactly once, naming the right rank -------------------------------


def critical_incidents(alerts: list[Alert]) -> dict[str, list[Alert]]:
    out: dict[str, list[Alert]] = {}
    for a in alerts:
        if a["status"] == "firing" and a["severity"] == "critical":
            out.setdefault(a["incident_id"], []).append(a)
    return out


def test_a_sigkilled_rank_under_torchrun_is_one_incident_naming_it(tmp_path: Path) -> None:
    """Rank 1 is SIGKILLed; torchrun tears rank 0 down: one critical incident naming rank 1,
    the teardown inside it as info, nothing else paged."""
    job = EmulatedJob(
        scenario("dead_reaped", fault_rank=1, fault_step=40, settings=WATCHFUL), tmp_path
    ).start()
    try:
        job.wait_for_fault(90)
        assert job.proc is not None
        job.proc.wait(timeout=60)
    finally:
        outcome = job.stop()
    incidents = critical_incidents(outcome.alerts)
    assert len(incidents) == 1, pages(outcome.alerts)
    (records,) = incidents.values()
    assert {tuple(r["culprit_ranks"]) for r in records} == {(1,)}
    assert any("SIGKILL" in r["summary"] for r in records)
    assert [p for p in pages(outcome.alerts) if not p.startswith("critical")] == []
    same = [a for a in outcome.alerts if a["incident_id"] == records[0]["incident_id"]]
    assert any(a["severity"] == "info" and a["culprit_ranks"] == [0] for a in same), (
        "rank 0's teardown is not recorded inside the incident"
    )
