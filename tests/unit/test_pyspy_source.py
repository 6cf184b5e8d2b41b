"""The py-spy sampler against real Python processes, with the real py-spy.

The rounds are scheduled on a fake clock (no sleeps between passes); the dumps, the /proc
reads and the processes are real.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import psutil
import pytest
import structlog

from monitor.clock import FakeClock
from monitor.errors import SourceError
from monitor.model import ProcessInfo, ProcessSnapshot, ProcRole, ProcState, Suspicion
from monitor.parse.stacks import DumpResult, MainClass, MainState, StackPass, StackSample
from monitor.settings import PyspySettings
from monitor.sources.pyspy import (
    PassPlan,
    PyspySampler,
    idle_between,
    is_python_process,
    read_proc,
    select_targets,
)

PY_SPY = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")

# A "rank" that forks one child (standing in for a DataLoader worker) and both wait in named
# functions, so their stacks are recognisable.
RANK_SCRIPT = textwrap.dedent(
    """
    import os, sys, time

    def worker_waits_in_getitem():
        while True:
            time.sleep(1)

    def rank_waits_for_batch():
        while True:
            time.sleep(1)

    child = os.fork()
    if child == 0:
        worker_waits_in_getitem()
    print(child, flush=True)
    rank_waits_for_batch()
    """
)


class Job:
    """A real rank process with one forked worker process."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", RANK_SCRIPT], stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None
        self.rank_pid = self.proc.pid
        self.worker_pid = int(self.proc.stdout.readline())
        wait_for_function(self.rank_pid, "rank_waits_for_batch")

    def snapshot(self, at: float = 0.0) -> ProcessSnapshot:
        return ProcessSnapshot(
            at,
            (
                info(self.rank_pid, ProcRole.RANK, rank=0),
                info(self.worker_pid, ProcRole.WORKER, rank=0, rank_pid=self.rank_pid),
            ),
            mem_total_bytes=1,
            mem_available_bytes=1,
        )

    def stop(self) -> None:
        for pid in (self.worker_pid, self.rank_pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.proc.wait()


def info(
    pid: int, role: ProcRole, rank: int | None = None, rank_pid: int | None = None
) -> ProcessInfo:
    return ProcessInfo(
        pid=pid,
        ppid=os.getpid(),
        role=role,
        rank=rank,
        local_rank=rank,
        rank_pid=rank_pid,
        name="python",
        state=ProcState.SLEEPING,
        cpu_seconds=0.0,
        rss_bytes=0,
        threads=1,
        is_python=True,
        env_readable=True,
    )


def wait_for_function(pid: int, function: str, timeout: float = 20.0) -> None:
    """Until py-spy shows `function` in the process (the interpreter has started it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = subprocess.run(
            [PY_SPY, "dump", "--nonblocking", "--pid", str(pid)],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if function in done.stdout:
            return
        time.sleep(0.1)
    raise TimeoutError(f"{function} never showed in {pid}")


@pytest.fixture
def job() -> Iterator[Job]:
    running = Job()
    yield running
    running.stop()


def settings(**overrides: object) -> PyspySettings:
    base: dict[str, object] = {
        "executable": PY_SPY,
        "repeats": 3,
        "repeat_gap_seconds": 3.0,
        "min_round_gap_seconds": 15.0,
        "background_interval_seconds": 300.0,
    }
    base.update(overrides)
    return PyspySettings(**base)  # type: ignore[arg-type]


def make_sampler(
    tmp_path: Path, job: Job | None, clock: FakeClock, **overrides: object
) -> PyspySampler:
    return PyspySampler(
        settings(**overrides),
        state_dir=tmp_path,
        process_table=lambda: job.snapshot() if job is not None else None,
        monotonic=clock.monotonic,
        wall=clock.wall,
    )


def samples_of(observations: object) -> list[StackSample]:
    return [o for o in observations if isinstance(o, StackSample)]  # type: ignore[attr-defined]


def test_background_round_dumps_the_main_processes(tmp_path: Path, job: Job) -> None:
    """The first poll runs a one-pass background round over the ranks' main processes only
    (the rank computes: its workers are not asked for), closed by a StackPass."""
    clock = FakeClock()
    sampler = make_sampler(tmp_path, job, clock)
    try:
        out = sampler.poll(clock.monotonic())
    finally:
        sampler.close()
    samples = samples_of(out)
    assert [(s.pid, s.role, s.result) for s in samples] == [
        (job.rank_pid, ProcRole.RANK, DumpResult.OK),
    ]
    assert samples[0].main is not None and samples[0].main.state is MainState.COMPUTE
    assert Path(samples[0].dump_path).read_text().startswith("[")
    assert isinstance(out[-1], StackPass)
    assert (out[-1].trigger, out[-1].passes, out[-1].pids) == ("background", 1, (job.rank_pid,))


def test_suspicion_round_dumps_the_rank_and_its_workers(tmp_path: Path, job: Job) -> None:
    """A suspicion naming rank 0 dumps its main process and its worker, both classified, full
    dumps written to the state directory, and a StackPass closing the pass."""
    clock = FakeClock()
    sampler = make_sampler(tmp_path, job, clock, background_interval_seconds=0.0)
    try:
        sampler.on_observation(Suspicion(clock.monotonic(), (0,), "progress stalled", "progress"))
        out = sampler.poll(clock.monotonic())
    finally:
        sampler.close()
    samples = samples_of(out)
    assert [(s.pid, s.role, s.result) for s in samples] == [
        (job.rank_pid, ProcRole.RANK, DumpResult.OK),
        (job.worker_pid, ProcRole.WORKER, DumpResult.OK),
    ]
    rank, worker = samples
    assert rank.main is not None and rank.main.state is MainState.COMPUTE
    assert rank.main.user_frame is not None
    assert rank.main.user_frame.function == "rank_waits_for_batch"
    assert worker.worker is not None and worker.worker.frame is not None
    assert worker.worker.frame.function == "worker_waits_in_getitem"
    assert worker.rank == 0 and worker.rank_pid == job.rank_pid
    for sample in samples:
        assert Path(sample.dump_path).parent == tmp_path / "pyspy"
        assert Path(sample.dump_path).read_text().startswith("[")
        assert sample.proc is not None and sample.proc.state is ProcState.SLEEPING
    assert isinstance(out[-1], StackPass)
    assert out[-1].trigger.startswith("suspicion: progress: progress stalled")
    assert (out[-1].passes, out[-1].pids) == (3, (job.rank_pid, job.worker_pid))


def test_suspicion_round_repeats_with_gaps_then_rate_limits(tmp_path: Path, job: Job) -> None:
    """A Suspicion starts a round of `repeats` passes `repeat_gap_seconds` apart; a second
    Suspicion inside `min_round_gap_seconds` waits for the gap to pass."""
    clock = FakeClock()
    sampler = make_sampler(tmp_path, job, clock, background_interval_seconds=0.0)
    passes: list[tuple[float, int, int]] = []

    def poll() -> None:
        for obs in sampler.poll(clock.monotonic()):
            if isinstance(obs, StackPass):
                passes.append((clock.monotonic(), obs.round_id, obs.pass_index))

    try:
        poll()
        assert passes == []  # no background rounds, no suspicion: nothing to do
        start = clock.monotonic()
        sampler.on_observation(Suspicion(start, (0,), "progress stalled", "progress"))
        for _ in range(8):  # 8 polls, 1 s apart
            poll()
            clock.advance(1.0)
        sampler.on_observation(Suspicion(clock.monotonic(), (0,), "again", "progress"))
        for _ in range(16):
            poll()
            clock.advance(1.0)
    finally:
        sampler.close()
    first_round = [(t - start, p) for t, r, p in passes if r == 1]
    assert first_round == [(0.0, 0), (3.0, 1), (6.0, 2)]
    second_round = [(t - start, p) for t, r, p in passes if r == 2]
    assert [p for _t, p in second_round] == [0, 1, 2]
    assert second_round[0][0] == 15.0  # not at 8 s: the rate limit held it back


def test_suspicion_from_other_observations_is_ignored(tmp_path: Path) -> None:
    """on_observation only reacts to Suspicion."""
    clock = FakeClock()
    sampler = make_sampler(tmp_path, None, clock, background_interval_seconds=0.0)
    try:
        sampler.on_observation(ProcessSnapshot(0.0, (), 1, 1))
        assert sampler.poll(clock.monotonic()) == []
    finally:
        sampler.close()


def test_no_targets_spends_no_round(tmp_path: Path, job: Job) -> None:
    """Before the process table has ranks, a due round waits instead of being used up."""
    clock = FakeClock()
    table: list[ProcessSnapshot | None] = [None]
    sampler = PyspySampler(
        settings(),
        state_dir=tmp_path,
        process_table=lambda: table[0],
        monotonic=clock.monotonic,
        wall=clock.wall,
    )
    try:
        assert sampler.poll(clock.monotonic()) == []
        table[0] = job.snapshot()
        clock.advance(1.0)
        out = sampler.poll(clock.monotonic())
    finally:
        sampler.close()
    assert [s.pid for s in samples_of(out)] == [job.rank_pid]


def test_non_python_and_gone_processes_are_not_dumped(tmp_path: Path) -> None:
    """A process whose /proc/PID/exe is not Python is never handed to py-spy; a vanished pid
    is reported gone."""
    sleeper = subprocess.Popen(["sleep", "60"])
    gone = subprocess.Popen(["true"])
    gone.wait()
    clock = FakeClock()
    snapshot = ProcessSnapshot(
        0.0,
        (info(sleeper.pid, ProcRole.RANK, rank=0), info(gone.pid, ProcRole.RANK, rank=1)),
        1,
        1,
    )
    sampler = PyspySampler(
        settings(), state_dir=tmp_path, process_table=lambda: snapshot, monotonic=clock.monotonic
    )
    try:
        out = sampler.poll(clock.monotonic())
    finally:
        sampler.close()
        sleeper.kill()
        sleeper.wait()
    assert [(s.rank, s.result) for s in samples_of(out)] == [
        (0, DumpResult.NOT_PYTHON),
        (1, DumpResult.GONE),
    ]
    assert not is_python_process(Path("/proc"), sleeper.pid)


def test_missing_pyspy_makes_the_source_blind_and_says_why(tmp_path: Path, job: Job) -> None:
    """Without py-spy the poll raises SourceError (source down), the log says so once with the
    remedy, and later polls keep the source down."""
    clock = FakeClock()
    sampler = make_sampler(tmp_path, job, clock, executable="/nonexistent/py-spy")
    try:
        with structlog.testing.capture_logs() as logs:
            with pytest.raises(SourceError) as first:
                sampler.poll(clock.monotonic())
            clock.advance(1.0)
            with pytest.raises(SourceError):
                sampler.poll(clock.monotonic())
    finally:
        sampler.close()
    assert first.value.error_type == "pyspy_missing"
    assert "pip install py-spy" in str(first.value)
    told = [entry for entry in logs if entry["event"] == "pyspy_cannot_attach"]
    assert len(told) == 1
    assert told[0]["reason"] == "pyspy_missing"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run py-spy as another user")
def test_ptrace_refusal_makes_the_source_blind(tmp_path: Path, job: Job) -> None:
    """py-spy running as an unprivileged user against root's processes is refused: the source
    goes blind with a diagnosis naming the uid mismatch, and no dump file is written."""
    wrapper = tmp_path / "py-spy-as-nobody"
    wrapper.write_text(
        f'#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups {PY_SPY} "$@"\n'
    )
    wrapper.chmod(0o755)
    clock = FakeClock()
    sampler = make_sampler(tmp_path, job, clock, executable=str(wrapper))
    try:
        with pytest.raises(SourceError) as raised:
            sampler.poll(clock.monotonic())
        first_round = {f.name: f for f in sampler.metric_families()}["pyspy_dumps"].samples
        sampler.on_observation(Suspicion(clock.monotonic(), (0,), "progress stalled", "progress"))
        clock.advance(20.0)
        with pytest.raises(SourceError):
            sampler.poll(clock.monotonic())
        second_round = {f.name: f for f in sampler.metric_families()}["pyspy_dumps"].samples
    finally:
        sampler.close()
    assert raised.value.error_type == "permission_denied"
    assert "Permission Denied" in str(raised.value)
    assert "Letting rankwatch read stacks" in str(raised.value)
    assert not (tmp_path / "pyspy").exists()
    assert first_round == ((("permission_denied",), 1.0),)
    # Once blind, a pass (here rank 0 and its worker) probes with one dump instead of failing
    # once per process.
    assert second_round == ((("permission_denied",), 2.0),)


def test_a_hanging_dump_is_killed_at_the_timeout(tmp_path: Path, job: Job) -> None:
    """A dump exceeding dump_timeout_seconds is killed (no process left) and counted."""
    marker = f"{6000 + os.getpid() % 1000}.{time.monotonic_ns() % 1000 + 1}"
    slow = tmp_path / "slow-py-spy"
    slow.write_text(f"#!/bin/sh\nexec sleep {marker}\n")
    slow.chmod(0o755)
    clock = FakeClock()
    sampler = make_sampler(tmp_path, job, clock, executable=str(slow), dump_timeout_seconds=1.0)
    try:
        started = time.monotonic()
        out = sampler.poll(clock.monotonic())
        elapsed = time.monotonic() - started
        families = {f.name: f for f in sampler.metric_families()}
    finally:
        sampler.close()
    assert [s.result for s in samples_of(out)] == [DumpResult.TIMEOUT]
    assert elapsed < 30
    leftovers = [
        p for p in psutil.process_iter(["cmdline"]) if marker in " ".join(p.info["cmdline"] or [])
    ]
    assert leftovers == []
    assert families["pyspy_dumps"].samples == ((("timeout",), 1.0),)


def test_old_dumps_are_pruned(tmp_path: Path, job: Job) -> None:
    """Only the newest max_dump_files dumps stay in the state directory, dumps left there by
    an earlier run included (oldest first)."""
    earlier = tmp_path / "pyspy"
    earlier.mkdir()
    for age, name in ((300, "old.json"), (200, "older-name-newer.json"), (100, "recent.json")):
        path = earlier / name
        path.write_text("[]")
        stamp = time.time() - age
        os.utime(path, (stamp, stamp))
    clock = FakeClock()
    sampler = make_sampler(tmp_path, job, clock, max_dump_files=3, background_interval_seconds=20.0)
    written: list[str] = []
    try:
        for _ in range(4):
            written += [s.dump_path for s in samples_of(sampler.poll(clock.monotonic()))]
            clock.advance(30.0)
    finally:
        sampler.close()
    assert len(written) == 4
    kept = sorted(p.name for p in earlier.glob("*.json"))
    assert kept == sorted(Path(p).name for p in written[1:])
    sampler = make_sampler(tmp_path, job, clock, max_dump_files=4, background_interval_seconds=20.0)
    try:
        sampler.poll(clock.monotonic())
    finally:
        sampler.close()
    assert len(list(earlier.glob("*.json"))) == 4


def test_argv_is_nonblocking_by_default_and_native_pauses() -> None:
    """Default argv never pauses the rank; --native (which py-spy only allows blocking) drops
    --nonblocking."""
    clock = FakeClock()
    plain = PyspySampler(
        settings(), state_dir="x", process_table=lambda: None, monotonic=clock.monotonic
    )
    native = PyspySampler(
        settings(native=True), state_dir="x", process_table=lambda: None, monotonic=clock.monotonic
    )
    try:
        assert plain.argv_for(42)[1:] == ["dump", "--json", "--nonblocking", "--pid", "42"]
        assert native.argv_for(42)[1:] == ["dump", "--json", "--native", "--pid", "42"]
    finally:
        plain.close()
        native.close()


def test_read_proc_sees_a_stopped_process() -> None:
    """The /proc reading reports a SIGSTOPped process as stopped, with its CPU time."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        os.kill(child.pid, signal.SIGSTOP)
        deadline = time.monotonic() + 10
        reading = read_proc(Path("/proc"), child.pid)
        while reading is not None and reading.state is not ProcState.STOPPED:
            assert time.monotonic() < deadline
            time.sleep(0.05)
            reading = read_proc(Path("/proc"), child.pid)
        assert reading is not None
        assert reading.state is ProcState.STOPPED
        assert reading.cpu_seconds >= 0.0
        assert reading.written_bytes is not None
    finally:
        child.kill()
        child.wait()
    assert read_proc(Path("/proc"), child.pid) is None


def test_targets_are_ranks_each_followed_by_its_workers() -> None:
    """Targets: ranks in rank order, each followed by its own workers; launchers skipped."""
    processes = [
        info(30, ProcRole.WORKER, rank=1, rank_pid=20),
        info(20, ProcRole.RANK, rank=1),
        info(10, ProcRole.RANK, rank=0),
        info(11, ProcRole.WORKER, rank=0, rank_pid=10),
        info(5, ProcRole.LAUNCHER),
    ]
    assert [(t.pid, t.role) for t in select_targets(processes)] == [
        (10, ProcRole.RANK),
        (11, ProcRole.WORKER),
        (20, ProcRole.RANK),
        (30, ProcRole.WORKER),
    ]


def test_metrics_count_dumps_rounds_and_durations(tmp_path: Path, job: Job) -> None:
    """pyspy_dumps by result, pyspy_rounds by trigger, and the last dump's duration."""
    clock = FakeClock()
    sampler = make_sampler(tmp_path, job, clock)
    try:
        sampler.poll(clock.monotonic())
        families = {f.name: f for f in sampler.metric_families()}
    finally:
        sampler.close()
    assert families["pyspy_dumps"].samples == ((("ok",), 1.0),)
    assert families["pyspy_rounds"].samples == ((("background",), 1.0),)
    ((labels, cpu_seconds),) = families["pyspy_cpu_seconds"].samples
    assert labels == ("background",) and cpu_seconds > 0.0
    assert families["pyspy_dump_duration_seconds"].samples[0][1] >= 0.0


# -- which processes a pass dumps (PassPlan: pure, on classified samples) -----------------


def main_sample(pid: int, rank: int, state: MainState) -> StackSample:
    main = MainClass(state, state, None, "", None, None, ())
    return StackSample(
        0.0, pid, ProcRole.RANK, rank, None, 1, 0, DumpResult.OK, "", main, None, None, "", 0.0
    )


EIGHT_BY_TWO = select_targets(
    [info(100 + r, ProcRole.RANK, rank=r) for r in range(8)]
    + [
        info(200 + 10 * r + w, ProcRole.WORKER, rank=r, rank_pid=100 + r)
        for r in range(8)
        for w in range(2)
    ]
)


def run_plan(
    focus: frozenset[int] | None,
    states: dict[int, MainState],
    busy: frozenset[int] = frozenset(),
    first_pass: bool = True,
) -> list[list[int]]:
    """The batches a pass dumps when rank r's main process is in states[r] (else compute),
    idle since its previous dump unless r is in `busy`."""
    plan = PassPlan(EIGHT_BY_TWO, focus, first_pass)
    batches = []
    batch = plan.first()
    while batch:
        batches.append([t.pid for t in batch])
        for target in batch:
            rank = target.rank or 0
            if target.role is ProcRole.RANK:
                state = states.get(rank, MainState.COMPUTE)
                plan.dumped(main_sample(target.pid, rank, state), idle=rank not in busy)
            else:
                worker = replace(main_sample(target.pid, rank, MainState.UNKNOWN), main=None)
                plan.dumped(replace(worker, role=ProcRole.WORKER), idle=True)
        batch = plan.next()
    return batches


def test_a_pass_dumps_the_suspected_rank_and_its_workers_only() -> None:
    """A suspected rank that computes: its main process and its workers, nothing else."""
    assert run_plan(frozenset({3}), {}) == [[103, 230, 231]]


def test_a_rank_waiting_in_a_collective_asks_for_every_main_process() -> None:
    """The suspected rank waits in a collective: the other ranks' main processes follow (the
    one holding it up is elsewhere), their workers only where a rank waits for its data."""
    batches = run_plan(frozenset({3}), {3: MainState.IN_COLLECTIVE, 5: MainState.DATALOADER_WAIT})
    assert batches == [[103, 230, 231], [100, 101, 102, 104, 105, 106, 107], [250, 251]]


def test_background_and_rankless_passes_start_with_every_main_process() -> None:
    """No rank in particular (background, or a suspicion naming no local rank): every main
    process, then the workers of those waiting for their DataLoader."""
    assert run_plan(None, {}) == [[100 + r for r in range(8)]]
    assert run_plan(frozenset({42}), {2: MainState.DATALOADER_WAIT}) == [
        [100 + r for r in range(8)],
        [220, 221],
    ]


def test_waits_of_busy_processes_ask_for_nothing_more() -> None:
    """A healthy step passes through collectives and DataLoader waits: a main process that
    used CPU since its previous dump is no evidence, whatever its stack shows."""
    states = {3: MainState.IN_COLLECTIVE, 5: MainState.DATALOADER_WAIT}
    assert run_plan(frozenset({3}), states, busy=frozenset({3})) == [[103, 230, 231]]
    assert run_plan(None, states, busy=frozenset({5})) == [[100 + r for r in range(8)]]


def test_idle_between_two_readings() -> None:
    """Idle: at most 2% of a core (plus 20 ms) between two readings; never without one."""
    assert not idle_between(None, 10.0, 5.0)
    assert idle_between((10.0, 5.0), 13.0, 5.07)
    assert not idle_between((10.0, 5.0), 13.0, 5.09)
    assert not idle_between((10.0, 5.0), 10.0, 5.0)


def test_later_passes_dump_a_suspected_ranks_workers_only_while_it_stays_idle() -> None:
    """After the first pass, a suspected rank that used CPU since is dumped alone; one that
    stayed idle gets its workers dumped after it."""
    assert run_plan(frozenset({3}), {}, busy=frozenset({3}), first_pass=False) == [[103]]
    assert run_plan(frozenset({3}), {}, first_pass=False) == [[103], [230, 231]]
