"""The stack detector as a table of situations: real captured dumps, synthetic time and CPU.

Each test feeds process snapshots, stack samples (classified from the dumps in
tests/data/pyspy/) and pass markers at chosen times, and checks what the detector concludes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from monitor.detectors.stacks import StackDetector
from monitor.model import (
    Category,
    DetectorOutput,
    Health,
    PhaseHint,
    ProcessExit,
    ProcessInfo,
    ProcessSnapshot,
    ProcRole,
    ProcState,
    Severity,
    SourceState,
    Suspicion,
    Transition,
)
from monitor.parse.stacks import (
    DumpResult,
    ProcReading,
    StackPass,
    StackSample,
    classify_main,
    classify_worker,
    parse_dump,
)
from monitor.settings import ProgressSettings, PyspySettings

DATA = Path(__file__).resolve().parent.parent / "data" / "pyspy"

RANK0, RANK1, WORKER10, WORKER11 = 100, 101, 200, 201


@dataclass
class Proc:
    role: ProcRole
    rank: int
    rank_pid: int | None = None
    cpu: float = 0.0
    written: int = 0
    state: ProcState = ProcState.SLEEPING
    dump: str = ""


@dataclass
class Job:
    """A 2-rank job on one node; rank 1 has two DataLoader workers."""

    detector: StackDetector = field(
        default_factory=lambda: StackDetector(PyspySettings(), ProgressSettings())
    )
    now: float = 1000.0
    round_id: int = 0
    procs: dict[int, Proc] = field(
        default_factory=lambda: {
            RANK0: Proc(ProcRole.RANK, 0),
            RANK1: Proc(ProcRole.RANK, 1),
            WORKER10: Proc(ProcRole.WORKER, 1, RANK1),
            WORKER11: Proc(ProcRole.WORKER, 1, RANK1),
        }
    )
    out: list[DetectorOutput] = field(default_factory=list)

    def at(self, now: float) -> Job:
        self.now = now
        return self

    def snapshot(self) -> list[DetectorOutput]:
        infos = tuple(
            ProcessInfo(
                pid,
                1,
                p.role,
                p.rank,
                p.rank,
                p.rank_pid,
                "python",
                p.state,
                p.cpu,
                0,
                1,
                True,
                True,
            )
            for pid, p in self.procs.items()
        )
        return self._feed(ProcessSnapshot(self.now, infos, 1, 1))

    def dump_pass(self) -> list[DetectorOutput]:
        """One sampler pass over every process: samples then the pass marker."""
        self.round_id += 1
        got: list[DetectorOutput] = []
        for pid, p in self.procs.items():
            got += self._feed(self._sample(pid, p))
        got += self._feed(StackPass(self.now, self.round_id, 0, 1, "test", tuple(self.procs)))
        return got

    def tick(self) -> list[DetectorOutput]:
        outputs = list(self.detector.tick(self.now))
        self.out += outputs
        return outputs

    def _sample(self, pid: int, p: Proc) -> StackSample:
        main = worker = None
        if p.dump:
            text = (DATA / p.dump).read_text()
            dump = parse_dump(text, int(json.loads(text)[0]["pid"]))
            if p.role is ProcRole.WORKER:
                worker = classify_worker(dump)
            else:
                main = classify_main(dump)
        return StackSample(
            at=self.now,
            pid=pid,
            role=p.role,
            rank=p.rank,
            rank_pid=p.rank_pid,
            round_id=self.round_id,
            pass_index=0,
            result=DumpResult.OK,
            message="",
            main=main,
            worker=worker,
            proc=ProcReading(p.state, "futex_wait_queue", p.cpu, p.written),
            dump_path=f"/state/pyspy/{pid}-{self.round_id}.json",
            duration_seconds=0.02,
        )

    def _feed(self, obs: object) -> list[DetectorOutput]:
        outputs = list(self.detector.observe(obs, self.now))  # type: ignore[arg-type]
        self.out += outputs
        return outputs


def transitions(outputs: Sequence[DetectorOutput]) -> list[Transition]:
    return [o for o in outputs if isinstance(o, Transition)]


def stall_job() -> Job:
    """Rank 1's worker 0 blocked in __getitem__; rank 1 waits for data; rank 0 in backward."""
    job = Job()
    job.procs[RANK0].dump = "stall-rank0-main.json"
    job.procs[RANK1].dump = "stall-rank1-main.json"
    job.procs[WORKER10].dump = "stall-rank1-worker0-busy.json"
    job.procs[WORKER11].dump = "stall-rank1-worker1-idle.json"
    return job


def run_stall(job: Job, cpu_moves: bool = False) -> list[DetectorOutput]:
    """Snapshots every second from t=1000 (the stall starts at 1002) and two dumps 3 s apart."""
    for second in range(0, 15):
        job.at(1000.0 + second)
        if second <= 2 or cpu_moves:
            for p in job.procs.values():
                p.cpu += 0.5
        job.snapshot()
    job.at(1012.0).dump_pass()
    for p in job.procs.values():
        if cpu_moves:
            p.cpu += 0.5
    return job.at(1015.0).dump_pass()


def test_stalled_worker_fires_dataloader_stalled_naming_worker_frame_and_victims() -> None:
    """Main waits for data in two dumps, its worker sits in the same __getitem__ frame using
    no CPU: DataloaderStalled names rank 1, the worker pid, the frame, how long, and rank 0
    waiting in a collective."""
    job = stall_job()
    fired = transitions(run_stall(job))
    assert [(t.alertname, t.firing, t.culprit_ranks) for t in fired] == [
        ("DataloaderStalled", True, (1,))
    ]
    alert = fired[0]
    assert (alert.category, alert.severity, dict(alert.identity)) == (
        Category.DATALOADER_STALL,
        Severity.CRITICAL,
        {"rank": "1"},
    )
    assert alert.evidence["worker_pid"] == WORKER10
    assert alert.evidence["frame"] == "tests/e2e/torch_job.py:96 SyntheticDataset.__getitem__"
    assert alert.evidence["stuck_seconds"] == 13.0  # CPU flat since 1002, now 1015
    assert alert.evidence["waiting_ranks"] == [0]
    assert alert.evidence["dump_path"] == f"/state/pyspy/{WORKER10}-2.json"
    assert alert.evidence["stack_evidence"] == "py-spy"
    assert alert.summary == (
        f"rank 1: DataLoader worker {WORKER10} stuck 13 s in "
        "tests/e2e/torch_job.py:96 SyntheticDataset.__getitem__; rank 0 waits in a collective"
    )


def test_worker_still_using_cpu_is_not_stalled() -> None:
    """Same frame, but the worker's CPU time grows between the dumps: no alert (slow, not stuck)."""
    job = stall_job()
    assert transitions(run_stall(job, cpu_moves=True)) == []


def test_one_dump_is_not_enough() -> None:
    """A single pass never fires: a stall needs the same frame across dumps."""
    job = stall_job()
    for second in range(15):
        job.at(1000.0 + second).snapshot()
    assert transitions(job.at(1015.0).dump_pass()) == []


def test_worker_in_different_frames_is_not_stalled() -> None:
    """If the worker moved to another frame between dumps, it is not stuck."""
    job = stall_job()
    job.at(1010.0).snapshot()
    job.dump_pass()
    job.procs[WORKER10].dump = "stall-rank1-worker1-idle.json"
    job.procs[WORKER11].dump = "stall-rank1-worker0-busy.json"
    assert transitions(job.at(1013.0).dump_pass()) == []


def test_dataloader_stall_resolves_when_batches_flow_again() -> None:
    """A later dump with rank 1 back in compute resolves the alert."""
    job = stall_job()
    run_stall(job)
    job.procs[RANK1].dump = "healthy-rank0-b.json"
    resolved = transitions(job.at(1030.0).dump_pass())
    assert [(t.alertname, t.firing) for t in resolved] == [("DataloaderStalled", False)]


def test_dataloader_stall_resolves_when_worker_and_rank_run_again() -> None:
    """Without new dumps, CPU use by both the stuck worker and its rank resolves the alert."""
    job = stall_job()
    run_stall(job)
    job.procs[WORKER10].cpu += 2.0
    job.procs[RANK1].cpu += 2.0
    job.at(1020.0).snapshot()
    assert [(t.alertname, t.firing) for t in transitions(job.tick())] == [
        ("DataloaderStalled", False)
    ]


def test_dataloader_stall_resolves_when_the_worker_exits() -> None:
    """The stuck worker exiting (killed, or the loader restarted) resolves the alert."""
    job = stall_job()
    run_stall(job)
    exit_ = ProcessExit(1020.0, WORKER10, ProcRole.WORKER, 1, None, 9, 0, 1, 1, "wait")
    got = transitions(job.detector.observe(exit_, 1020.0))
    assert [(t.alertname, t.firing) for t in got] == [("DataloaderStalled", False)]


def _rank1_spins_while_rank0_waits(job: Job) -> Job:
    """Rank 1 spins in user code (CPU busy) from t=1000 while rank 0 waits in backward with no
    CPU; two dump passes at 1020 and 1023 (rank 0 has waited < 30 s: nothing fires yet)."""
    del job.procs[WORKER10], job.procs[WORKER11]
    job.procs[RANK0].dump = "busy-rank0-backward.json"
    job.procs[RANK1].dump = "busy-rank1-user-loop.json"
    for second in range(0, 41):
        job.at(1000.0 + second)
        job.procs[RANK1].cpu += 1.0
        if second < 2:
            job.procs[RANK0].cpu += 1.0
        job.snapshot()
        if second in (20, 23):
            assert transitions(job.dump_pass()) == []
    return job


def test_rank_in_user_code_while_peer_waits_is_named_culprit() -> None:
    """Rank 1 spins in user code (CPU busy) while rank 0 waits in backward with no CPU for
    over 30 s: RankNotInCollective names rank 1 (collective_desync) and lists rank 0."""
    job = _rank1_spins_while_rank0_waits(Job())
    fired = transitions(job.at(1040.0).dump_pass())
    assert [(t.alertname, t.culprit_ranks, t.category) for t in fired] == [
        ("RankNotInCollective", (1,), Category.COLLECTIVE_DESYNC)
    ]
    evidence = fired[0].evidence
    assert evidence["frame"] == "tests/e2e/torch_job.py:159 spin_in_user_code"
    assert evidence["waiting_ranks"] == [0]
    assert fired[0].summary.startswith(
        "rank 1 is not in the collective that rank 0 has waited in for 39 s: it is in user code"
    )


def test_a_wait_sampled_before_the_jobs_last_step_blames_no_one() -> None:
    """Rank 0 waited in two samples, then the job stepped (the collective completed); a later
    look at rank 1 alone finds it in user code. Rank 0's wait is over: no RankNotInCollective
    (seen live after a checkpoint, when only the suspect was sampled again)."""
    from monitor.incidents import JobView

    view = JobView()
    job = _rank1_spins_while_rank0_waits(
        Job(detector=StackDetector(PyspySettings(), ProgressSettings(), view=view)))
    view.last_progress_at = 1030.0  # the job stepped after rank 0's last sample (1023)
    job.at(1040.0)
    job.round_id += 1
    only_rank1 = job._feed(job._sample(RANK1, job.procs[RANK1]))
    only_rank1 += job._feed(StackPass(1040.0, job.round_id, 0, 1, "test", (RANK1,)))
    assert transitions(only_rank1) == []


def test_healthy_checkpoint_gives_phase_hints_and_no_alert() -> None:
    """Rank 0 saves a checkpoint (still writing) while rank 1 waits in a barrier for 40 s:
    no alert; PhaseHints for rank 0 and for rank 1 waiting on it."""
    job = Job()
    del job.procs[WORKER10], job.procs[WORKER11]
    job.procs[RANK0].dump = "checkpoint-rank0-save.json"
    job.procs[RANK1].dump = "checkpoint-rank1-barrier.json"
    hints: list[PhaseHint] = []
    for second in range(0, 45):
        job.at(1000.0 + second)
        job.procs[RANK0].written += 400_000
        job.snapshot()
        if second % 3 == 0 and second >= 10:
            hints += [o for o in job.dump_pass() if isinstance(o, PhaseHint)]
        job.tick()
    assert transitions(job.out) == []
    assert [(h.rank, h.phase, h.hold_seconds) for h in hints] == [
        (0, "checkpoint", 1800.0),
        (1, "checkpoint", 1800.0),
    ]
    assert hints[1].origin == "stacks: waiting for rank 0 (checkpoint)"


@pytest.mark.parametrize(("writes", "paged"), [(True, False), (False, True)])
def test_a_save_in_disk_sleep_is_held_up_only_while_it_writes_nothing(
        writes: bool, paged: bool) -> None:
    """Rank 0 saves a checkpoint on a busy disk, sampled in uninterruptible disk sleep, while
    rank 1 waits in a barrier: a save whose bytes still grow works at its phase; one that wrote
    nothing holds the barrier up."""
    job = Job()
    del job.procs[WORKER10], job.procs[WORKER11]
    job.procs[RANK0].dump = "checkpoint-rank0-save.json"
    job.procs[RANK1].dump = "checkpoint-rank1-barrier.json"
    job.procs[RANK0].state = ProcState.DISK_SLEEP
    for second in range(0, 45):
        job.at(1000.0 + second)
        if writes:
            job.procs[RANK0].written += 400_000
        job.snapshot()
        if second % 3 == 0 and second >= 10:
            job.dump_pass()
        job.tick()
    fired = [(t.alertname, t.culprit_ranks) for t in transitions(job.out)]
    assert (("RankNotInCollective", (0,)) in fired) is paged, fired


def test_checkpoint_writing_nothing_for_long_is_storage_io() -> None:
    """A save writing nothing, using no CPU for checkpoint_stall_seconds: CheckpointStalled."""
    job = Job(
        detector=StackDetector(PyspySettings(checkpoint_stall_seconds=60.0), ProgressSettings())
    )
    del job.procs[WORKER10], job.procs[WORKER11], job.procs[RANK1]
    job.procs[RANK0].dump = "checkpoint-rank0-save.json"
    job.procs[RANK0].state = ProcState.DISK_SLEEP
    job.at(1000.0).snapshot()
    job.procs[RANK0].state = ProcState.SLEEPING
    for second in range(1, 80):
        job.at(1000.0 + second).snapshot()
        if second in (20, 50):
            assert transitions(job.dump_pass()) == []
    fired = transitions(job.at(1080.0).dump_pass())
    assert [(t.alertname, t.category, t.culprit_ranks) for t in fired] == [
        ("CheckpointStalled", Category.STORAGE_IO, (0,))
    ]
    assert fired[0].evidence["frame"] == "torch/serialization.py:1312 _save"


def test_stopped_rank_is_the_culprit_of_a_stall() -> None:
    """Rank 1 SIGSTOPped while rank 0 waits in backward: RankNotInCollective, rank_stopped."""
    job = Job()
    del job.procs[WORKER10], job.procs[WORKER11]
    job.procs[RANK0].dump = "stall-rank0-main.json"
    job.procs[RANK1].dump = "healthy-rank1-b.json"
    job.procs[RANK1].state = ProcState.STOPPED
    for second in range(0, 41):
        job.at(1000.0 + second).snapshot()
    job.at(1037.0).dump_pass()
    fired = transitions(job.at(1040.0).dump_pass())
    assert [(t.alertname, t.category, t.culprit_ranks) for t in fired] == [
        ("RankNotInCollective", Category.RANK_STOPPED, (1,))
    ]
    assert "its process is stopped" in fired[0].summary


def test_idle_rank_raises_suspicion_once_then_every_recheck() -> None:
    """A rank using no CPU for suspect_idle_seconds asks for stacks, again every
    recheck_seconds while idle, and afresh after it ran again."""
    job = Job(
        detector=StackDetector(
            PyspySettings(suspect_idle_seconds=10.0, recheck_seconds=30.0), ProgressSettings()
        )
    )
    del job.procs[WORKER10], job.procs[WORKER11]
    suspicions: list[tuple[float, tuple[int, ...]]] = []
    for second in range(0, 80):
        job.at(1000.0 + second)
        job.procs[RANK1].cpu += 1.0  # rank 1 always busy
        if second == 50:
            job.procs[RANK0].cpu += 1.0  # rank 0 runs once at 1050
        job.snapshot()
        suspicions += [(s.at, s.ranks) for s in job.tick() if isinstance(s, Suspicion)]
    assert suspicions == [(1010.0, (0,)), (1040.0, (0,)), (1060.0, (0,))]


def test_init_phase_hint_uses_the_first_step_grace() -> None:
    """A rank inside init_process_group is in the init phase: a PhaseHint with the first-step
    grace as its hold."""
    job = Job()
    del job.procs[WORKER10], job.procs[WORKER11], job.procs[RANK1]
    job.procs[RANK0].dump = "init-rank0-rendezvous.json"
    job.at(1000.0).snapshot()
    hints = [o for o in job.dump_pass() if isinstance(o, PhaseHint)]
    assert [(h.rank, h.phase, h.hold_seconds) for h in hints] == [(0, "init", 1800.0)]


def test_health_blind_then_ok_then_critical() -> None:
    """UNKNOWN before any dump and while py-spy cannot attach (the reason goes into the
    evidence); OK after a pass; CRITICAL while an alert fires."""
    job = stall_job()
    assert job.detector.health(job.now).health is Health.UNKNOWN
    down = SourceState(1000.0, "pyspy", False, "py-spy cannot read the ranks' stacks: ptrace")
    job.detector.observe(down, 1000.0)
    assert job.detector.health(1000.0) == type(job.detector.health(1000.0))(
        "stacks", Health.UNKNOWN, "py-spy cannot read the ranks' stacks: ptrace"
    )
    job.detector.observe(SourceState(1001.0, "pyspy", True, ""), 1001.0)
    assert job.detector.health(1001.0).health is Health.OK
    run_stall(job)
    assert job.detector.health(1015.0).health is Health.CRITICAL


def test_blind_reason_goes_into_alert_evidence() -> None:
    """While the pyspy source is down, alerts say their stack evidence is unavailable and why."""
    job = stall_job()
    run_stall(job)
    job.detector.observe(SourceState(1016.0, "pyspy", False, "ptrace refused"), 1016.0)
    assert job.detector._stack_evidence() == {"stack_evidence": "unavailable: ptrace refused"}


def test_metrics_show_states_collective_and_stall() -> None:
    """rank_in_collective, rank_stack_state and dataloader_stalled per rank."""
    job = stall_job()
    run_stall(job)
    families = {f.name: f for f in job.detector.metric_families(job.now)}
    assert families["rank_in_collective"].samples == ((("0",), 1.0), (("1",), 0.0))
    states = {labels: value for labels, value in families["rank_stack_state"].samples}
    assert states[("0", "in_collective")] == 1.0
    assert states[("1", "dataloader_wait")] == 1.0
    assert sum(states.values()) == 2.0
    assert families["dataloader_stalled"].samples == ((("0",), 0.0), (("1",), 1.0))


def test_spinning_victims_are_confirmed_by_a_later_look() -> None:
    """Victims that burn CPU while they wait (as NCCL ranks do) never look idle: after one round
    the detector asks for another look once straggler_alert_seconds have passed, and that look
    names the culprit."""
    job = Job()
    del job.procs[WORKER10], job.procs[WORKER11]
    job.procs[RANK0].dump = "checkpoint-rank1-barrier.json"  # in a barrier, by its stack
    job.procs[RANK1].dump = "busy-rank1-user-loop.json"
    suspicions: list[tuple[float, str]] = []
    for second in range(0, 42):
        job.at(1000.0 + second)
        job.procs[RANK0].cpu += 1.0
        job.procs[RANK1].cpu += 1.0
        job.snapshot()
        if second in (10, 13):
            assert transitions(job.dump_pass()) == []
        suspicions += [(s.at, s.reason) for s in job.tick() if isinstance(s, Suspicion)]
    assert suspicions == [(1040.0, "confirm: rank 1 not in the collective")]
    fired = transitions(job.at(1041.0).dump_pass())
    assert [(t.alertname, t.culprit_ranks, t.evidence["waiting_seconds"]) for t in fired] == [
        ("RankNotInCollective", (1,), 31.0)
    ]


def test_straggler_alert_resolves_when_idle_victims_run_again_not_before() -> None:
    """RankNotInCollective stays while the culprit spins; it resolves once the ranks that were
    waiting (idle) use CPU again."""
    job = Job()
    del job.procs[WORKER10], job.procs[WORKER11]
    job.procs[RANK0].dump = "busy-rank0-backward.json"
    job.procs[RANK1].dump = "busy-rank1-user-loop.json"
    for second in range(0, 41):
        job.at(1000.0 + second)
        job.procs[RANK1].cpu += 1.0
        job.snapshot()
        if second in (37, 40):
            job.dump_pass()
    assert [t.alertname for t in transitions(job.out)] == ["RankNotInCollective"]
    job.procs[RANK1].cpu += 1.0
    job.at(1042.0).snapshot()
    assert transitions(job.tick()) == []
    job.procs[RANK0].cpu += 1.0
    job.at(1043.0).snapshot()
    assert [(t.alertname, t.firing) for t in transitions(job.tick())] == [
        ("RankNotInCollective", False)
    ]
