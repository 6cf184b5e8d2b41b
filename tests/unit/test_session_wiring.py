"""The session's wiring decisions: SLURM teardown deaths, followed files we may not read,
the job's output files under SLURM, node index, and the component table."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import sys
import time
from pathlib import Path

import pytest

from monitor.clock import SystemClock
from monitor.detectors.log_events import LogEventsDetector
from monitor.detectors.nccl import NcclRasDetector
from monitor.detectors.process import ProcessDetector
from monitor.detectors.time_sync import ClockDetector
from monitor.model import (
    JobEnded,
    Observation,
    ProcessExit,
    ProcRole,
    SourceState,
    Transition,
)
from monitor.runner import Bus
from monitor.session import (
    build_components,
    configured_node_index,
    summary_line,
    user_file_opener,
)
from monitor.settings import ProcessSettings, load_settings
from monitor.slurm.context import JobProcesses, Scontrol, SlurmContext
from monitor.slurm.job_source import SlurmJobSource
from monitor.sources.nccl_ras import NcclRasSource
from monitor.sources.stream import Attribution, FollowedFile
from monitor.sources.user_file import UserIdentity
from tests.unit.test_detectors import rank_info, snap

LISTPIDS = Path(__file__).resolve().parents[1] / "data" / "deploy" / "listpids_batch_extern_step.txt"


def death(at: float, rank: int, pid: int, sig: int | None, code: int | None = None) -> ProcessExit:
    return ProcessExit(at, pid, ProcRole.RANK, rank, code, sig, 0, 0, 0, "proc_connector")


def fired(outputs: object) -> list[Transition]:
    return [o for o in outputs if isinstance(o, Transition) and o.firing]  # type: ignore[attr-defined]


# -- deaths under SLURM ---------------------------------------------------------------------
def test_scheduler_kill_within_the_grace_is_not_a_dead_rank() -> None:
    """SIGTERM to a rank, then the epilog stops rankwatch (JobEnded) within the grace: no page,
    and the summary says the scheduler ended those ranks."""
    detector = ProcessDetector(ProcessSettings(), signal_death_hold_seconds=10.0)
    detector.observe(snap(0.0, rank_info(0, 100), rank_info(1, 101)), 0.0)
    assert detector.observe(death(1.0, 1, 101, signal.SIGTERM), 1.0) == []
    assert fired(detector.tick(5.0)) == []
    detector.observe(JobEnded(6.0, None), 6.0)
    assert fired(detector.tick(30.0)) == []
    assert [d.rank for d in detector.ended_by_scheduler] == [1] and detector.dead == []


def test_kill_without_an_epilog_pages_after_the_grace() -> None:
    """A SIGKILL with no epilog following (the OOM killer, a user's kill -9) pages once the
    grace has passed, naming the rank."""
    detector = ProcessDetector(ProcessSettings(), signal_death_hold_seconds=10.0)
    detector.observe(snap(0.0, rank_info(0, 100), rank_info(1, 101)), 0.0)
    detector.observe(death(1.0, 1, 101, signal.SIGKILL), 1.0)
    assert fired(detector.tick(10.5)) == []
    (dead,) = fired(detector.tick(11.0))
    assert dead.alertname == "RankDead" and dead.culprit_ranks == (1,)


def test_a_crash_is_never_held() -> None:
    """A non-zero exit or SIGSEGV is not a scheduler's signal: it pages at once."""
    detector = ProcessDetector(ProcessSettings(), signal_death_hold_seconds=10.0)
    detector.observe(snap(0.0, rank_info(0, 100), rank_info(1, 101)), 0.0)
    (dead,) = fired(detector.observe(death(1.0, 0, 100, signal.SIGSEGV), 1.0))
    assert dead.culprit_ranks == (0,)
    (dead,) = fired(detector.observe(death(1.0, 1, 101, None, code=1), 1.0))
    assert dead.culprit_ranks == (1,)


def test_summary_line_names_ranks_ended_by_the_scheduler() -> None:
    """The final summary tells scheduler-ended ranks apart from failed ones."""
    from monitor.session import SessionResult

    result = SessionResult(0, None, [], 0, 0, None,
                           ended_by_scheduler=[death(1.0, 3, 7, signal.SIGTERM)])
    assert "ended by the scheduler" in summary_line(result) and "3" in summary_line(result)


# -- files we may not read ------------------------------------------------------------------
def run_follower(follower: FollowedFile, seconds: float) -> list[Observation]:
    got: list[Observation] = []

    async def main() -> None:
        task = asyncio.create_task(follower.run(got.append))
        await asyncio.sleep(seconds)
        follower.stop()
        await task

    asyncio.run(main())
    return got


def test_symlink_planted_by_the_user_is_refused_and_reported(tmp_path: Path) -> None:
    """The job's output path is a symlink to a file only root may read: the opener refuses it,
    the follower reports its source DOWN with the reason, and not one line is read."""
    secret = tmp_path / "root-only"
    secret.write_text("root:secret-hash\n")
    os.chmod(secret, 0o600)
    planted = tmp_path / "train.err"
    planted.symlink_to(secret)
    nobody = UserIdentity(uid=65534, gid=65534, groups=(65534,), name="nobody")
    follower = FollowedFile(
        str(planted), 4096, Attribution(), 0.05, time.monotonic,
        opener=user_file_opener(nobody), name="stderr:train.err",
    )  # fmt: skip
    got = run_follower(follower, 0.5)
    states = [o for o in got if isinstance(o, SourceState)]
    assert states and not states[0].up and "train.err" in states[0].reason
    assert len(states) == 1, "reported once, not once per retry"
    assert not [o for o in got if not isinstance(o, SourceState)], "nothing may be read"


def test_user_file_opener_reads_what_the_user_may_read(tmp_path: Path) -> None:
    """A regular file readable by the job's user is opened (here the user is ourselves)."""
    path = tmp_path / "train.out"
    path.write_text("step 1\n")
    me = UserIdentity.lookup(os.geteuid())
    fd = user_file_opener(me)(str(path))
    try:
        assert os.read(fd, 100) == b"step 1\n"
    finally:
        os.close(fd)
    with pytest.raises(FileNotFoundError):
        user_file_opener(me)(str(tmp_path / "not-yet"))


def test_a_refused_file_makes_the_bus_report_the_source_down(tmp_path: Path) -> None:
    """source_up follows a streaming source's own SourceState (the metric says blind)."""
    bus = Bus(100)
    emit = bus.emitter("stderr:x")
    emit(SourceState(1.0, "stderr:x", False, "refused"))
    assert bus.stats["stderr:x"].up is False
    emit(SourceState(2.0, "stderr:x", True, ""))
    assert bus.stats["stderr:x"].up is True


# -- SLURM job source -----------------------------------------------------------------------
def fake_scontrol(tmp_path: Path) -> Path:
    """An executable answering `listpids` with a real capture (the SLURM e2e uses the real one)."""
    script = tmp_path / "scontrol"
    script.write_text(f"#!/bin/sh\ncat {LISTPIDS}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_slurm_job_source_finds_ranks_and_announces_each_file_once(tmp_path: Path) -> None:
    """Step 0's Python tasks are the ranks (not the batch script, not extern); each output
    file is announced once however often the source polls."""
    context = SlurmContext(
        job_id="7", user="alice", uid=None, gid=None, node_name="n1", nodes=("n1",),
        node_index=0, work_dir=str(tmp_path), stdout_pattern=None, stderr_pattern=None,
    )  # fmt: skip
    processes = JobProcesses(Scontrol(str(fake_scontrol(tmp_path))), "7", interval_seconds=1.0)
    announced: list[str] = []
    source = SlurmJobSource(
        context, None, processes, on_new_file=lambda f: announced.append(f.path),
        readlink=lambda path: sys.executable,
        task_files=lambda pid: {2: f"/scratch/task-{pid}.err"},
    )  # fmt: skip
    for now in (0.0, 5.0, 10.0):
        assert source.poll(now) == ()
    assert source.rank_pids == [8230, 8231]
    assert announced == ["/scratch/task-8230.err", "/scratch/task-8231.err"]
    assert source.stats.listpids_calls == 3


# -- node index and the component table -----------------------------------------------------
def test_node_index_from_setting_then_slurm_nodeid() -> None:
    """general.node_index wins; else SLURM_NODEID (started in a job step); else one node."""
    plain = load_settings(None, env={})
    assert configured_node_index(plain, env={}) is None
    assert configured_node_index(plain, env={"SLURM_NODEID": "3"}) == 3
    pinned = load_settings(None, env={}, overrides={"general.node_index": 1})
    assert configured_node_index(pinned, env={"SLURM_NODEID": "3"}) == 1


def test_every_capability_is_in_the_component_table(tmp_path: Path) -> None:
    """Defaults build the RAS source and detector, log events, stacks and clock watching;
    a node that is not 0 or 1 builds a RAS source that never queries."""
    settings = load_settings(
        None, env={}, overrides={"general.state_dir": str(tmp_path / "state")}
    )
    parts = build_components(settings, lambda: [], SystemClock(), node_index=5)
    kinds = {type(d) for d in parts.detectors}
    assert {LogEventsDetector, NcclRasDetector, ClockDetector} <= kinds
    ras = [s for s in parts.sources if isinstance(s, NcclRasSource)]
    assert len(ras) == 1 and not ras[0].plan.polls
    off = load_settings(
        None, env={}, overrides={"ras.enabled": False, "log_events.enabled": False,
                                 "clock.enabled": False, "pyspy.enabled": False},
    )  # fmt: skip
    names = {type(d).__name__ for d in build_components(off, lambda: [], SystemClock()).detectors}
    assert names == {"ProcessDetector", "ProgressDetector", "MemoryDetector"}


# -- exits nobody could read ----------------------------------------------------------------
def test_unknown_exit_then_launcher_exits_zero_is_a_clean_end() -> None:
    """Ranks of a finished job exit just before their launcher: with no way to read their
    status, JobEnded with code 0 inside the hold means they ended cleanly, no alert."""
    detector = ProcessDetector(ProcessSettings(unknown_exit_hold_seconds=5.0))
    detector.observe(snap(0.0, rank_info(0, 100), rank_info(1, 101)), 0.0)
    assert detector.observe(death(1.0, 0, 100, None), 1.0) == []
    assert detector.observe(death(1.0, 1, 101, None), 1.0) == []
    assert not detector.observe(JobEnded(1.5, 0), 1.5)
    assert fired(detector.tick(20.0)) == [] and detector.dead == []


def test_unknown_exit_while_the_job_runs_on_is_reported_after_the_hold() -> None:
    """The job keeps running: the unknown exit becomes a RankDead warning after the hold."""
    detector = ProcessDetector(ProcessSettings(unknown_exit_hold_seconds=5.0))
    detector.observe(snap(0.0, rank_info(0, 100), rank_info(1, 101)), 0.0)
    detector.observe(death(1.0, 1, 101, None), 1.0)
    assert fired(detector.tick(5.5)) == []
    (dead,) = fired(detector.tick(6.0))
    assert dead.culprit_ranks == (1,) and dead.severity.value == "warning"


def test_unknown_exit_then_the_job_fails_is_reported_at_once() -> None:
    """A non-zero job status inside the hold reports the unknown exit immediately."""
    detector = ProcessDetector(ProcessSettings(unknown_exit_hold_seconds=5.0))
    detector.observe(snap(0.0, rank_info(0, 100), rank_info(1, 101)), 0.0)
    detector.observe(death(1.0, 1, 101, None), 1.0)
    (dead,) = fired(detector.observe(JobEnded(1.2, 1), 1.2))
    assert dead.culprit_ranks == (1,)
