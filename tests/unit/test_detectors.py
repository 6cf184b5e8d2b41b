"""Pure detector state machines, driven with made-up time (no sleeps)."""

from __future__ import annotations

import signal
from dataclasses import replace

from monitor.detectors.memory import MemoryDetector
from monitor.detectors.process import ProcessDetector
from monitor.detectors.progress import ProgressDetector
from monitor.model import (
    Category,
    OutputChunk,
    OutputLine,
    PhaseHint,
    ProcessExit,
    ProcessInfo,
    ProcessSnapshot,
    ProcRole,
    ProcState,
    Severity,
    Suspicion,
    Transition,
)
from monitor.settings import MemorySettings, ProcessSettings, ProgressSettings

GIB = 1024**3


def rank_info(
    rank: int, pid: int, state: ProcState = ProcState.RUNNING, cpu: float = 0.0, rss: int = GIB
) -> ProcessInfo:
    return ProcessInfo(
        pid, 1, ProcRole.RANK, rank, rank, None, "python", state, cpu, rss, 4, True, True
    )


def snap(
    at: float, *infos: ProcessInfo, total: int = 64 * GIB, avail: int = 32 * GIB
) -> ProcessSnapshot:
    return ProcessSnapshot(at, infos, total, avail)


def transitions(outputs: object) -> list[Transition]:
    return [o for o in outputs if isinstance(o, Transition)]  # type: ignore[attr-defined]


def lines(at: float, *items: tuple[int | None, str]) -> OutputChunk:
    return OutputChunk(at, "stderr", tuple(OutputLine(r, t) for r, t in items))


# -- progress -------------------------------------------------------------------------------
def test_subsecond_job_flagged_within_30s_and_names_the_stopped_rank() -> None:
    """Ranks stepping every 0.3 s: when rank 1 stops, a stall fires within 30 s naming rank 1."""
    det = ProgressDetector(ProgressSettings())
    t = 0.0
    step = 0
    fired: list[Transition] = []
    while t < 80:
        t += 0.3
        step += 1
        items: list[tuple[int | None, str]] = [(0, f"[rank0]: step {step}")]
        if t < 30:
            items.append((1, f"[rank1]: step {step}"))
        det.observe(lines(t, *items), t)
        fired += transitions(det.tick(t))
        if fired:
            break
    assert fired, "no stall detected"
    alert = fired[0]
    assert alert.alertname == "ProgressStalled" and alert.firing
    assert t - 30 <= 30, f"took {t - 30:.1f} s"
    assert alert.culprit_ranks == (1,)
    assert alert.evidence["advancing_ranks"] == [0]


def test_stall_emits_suspicion_then_escalates_then_resolves() -> None:
    """A job of one rank: warning + suspicion at the window, critical (naming it) at twice the
    window, resolved on the next step."""
    s = ProgressSettings(stall_floor_seconds=10)
    det = ProgressDetector(s)
    det.observe(snap(0.5, replace(rank_info(0, 100), world_size=1)), 0.5)
    for i in range(1, 20):
        det.observe(lines(float(i), (0, f"step {i}")), float(i))
    out = det.tick(19 + 11)
    assert any(isinstance(o, Suspicion) for o in out)
    assert transitions(out)[0].severity is Severity.WARNING
    out = det.tick(19 + 21)
    assert transitions(out)[0].severity is Severity.CRITICAL
    assert transitions(out)[0].culprit_ranks == (0,)
    det.observe(lines(41.0, (0, "step 20")), 41.0)
    resolved = transitions(det.tick(41.0))
    assert resolved and not resolved[0].firing


def test_a_stalled_rank_that_may_wait_for_another_node_is_never_a_culprit() -> None:
    """The only local rank of a bigger job stops stepping: it may be waiting for a rank on
    another node, so the stall stays a warning that blames no one, however long it lasts."""
    det = ProgressDetector(ProgressSettings(stall_floor_seconds=10))
    det.observe(snap(0.5, replace(rank_info(0, 100), world_size=2)), 0.5)
    for i in range(1, 20):
        det.observe(lines(float(i), (0, f"step {i}")), float(i))
    for at in (30.0, 40.0, 120.0):
        for t in transitions(det.tick(at)):
            assert t.severity is Severity.WARNING and t.culprit_ranks == ()
            assert "still advancing" not in t.summary


def test_first_step_grace_and_long_intervals_do_not_false_alarm() -> None:
    """Slow jobs (a step per 60 s) learn a long window instead of paging at the floor."""
    det = ProgressDetector(ProgressSettings())
    for i in range(6):
        det.observe(lines(i * 60.0, (None, f"iteration {i}/100 |")), i * 60.0)
        assert not transitions(det.tick(i * 60.0 + 59))
    assert not transitions(det.tick(5 * 60.0 + 200))
    assert transitions(det.tick(5 * 60.0 + 400))


def test_checkpoint_phase_extends_the_window() -> None:
    """A checkpoint save announced in the output holds the clocks for its grace."""
    det = ProgressDetector(ProgressSettings(stall_floor_seconds=10, checkpoint_grace_seconds=120))
    for i in range(1, 10):
        det.observe(lines(float(i), (0, f"step {i}")), float(i))
    det.observe(lines(9.5, (0, "Saving checkpoint to ckpt/step_9")), 9.5)
    assert not transitions(det.tick(100.0))
    assert transitions(det.tick(140.0))


def test_phase_hint_from_another_detector_holds_clocks() -> None:
    """A PhaseHint (e.g. the stack sampler saw torch.save) suppresses a false stall."""
    det = ProgressDetector(ProgressSettings(stall_floor_seconds=10))
    for i in range(1, 10):
        det.observe(lines(float(i), (0, f"step {i}")), float(i))
    det.observe(PhaseHint(12.0, 0, "checkpoint", 60.0, "stacks"), 12.0)
    assert not transitions(det.tick(50.0))


def test_cpu_clock_without_progress_lines_only_asks_for_evidence() -> None:
    """Without progress lines a rank whose CPU goes flat asks for stacks (Suspicion naming it)
    but never pages by itself: a job that prints no progress is not paced by its CPU."""
    det = ProgressDetector(ProgressSettings(stall_floor_seconds=10))
    cpu0 = cpu1 = 0.0
    fired: list[Transition] = []
    suspected: list[Suspicion] = []
    for t in range(1, 60):
        cpu0 += 0.9
        if t < 20:
            cpu1 += 0.9
        det.observe(
            snap(float(t), rank_info(0, 100, cpu=cpu0), rank_info(1, 101, cpu=cpu1)), float(t)
        )
        out = det.tick(float(t))
        fired += transitions(out)
        suspected += [o for o in out if isinstance(o, Suspicion)]
    assert fired == []
    assert [s.ranks for s in suspected] == [(1,)]


def test_no_page_before_the_cadence_is_known() -> None:
    """Two progress lines and then silence: the job's pace is not known yet, so no page."""
    det = ProgressDetector(ProgressSettings(stall_floor_seconds=10))
    det.observe(lines(1.0, (0, "step 1")), 1.0)
    det.observe(lines(2.0, (0, "step 2")), 2.0)
    assert transitions(det.tick(500.0)) == []


def test_job_end_resolves_and_exited_rank_is_not_a_stall() -> None:
    """A rank that exited is the process detector's business, not a stall."""
    det = ProgressDetector(ProgressSettings(stall_floor_seconds=5))
    det.observe(snap(0.0, rank_info(0, 100)), 0.0)
    for i in range(1, 6):
        det.observe(lines(float(i), (0, f"step {i}")), float(i))
    det.observe(ProcessExit(6.0, 100, ProcRole.RANK, 0, 0, None, 0, 1, 1, "wait"), 6.0)
    assert not transitions(det.tick(60.0))


def test_an_announced_checkpoint_is_told_to_the_other_detectors_at_once() -> None:
    """`saving checkpoint at iteration 60` holds the progress clocks and is a PhaseHint on the
    bus: the RAS counts of the writing rank freeze before any stack shows why. Said once per
    phase, not once per line."""
    det = ProgressDetector(ProgressSettings(stall_floor_seconds=5))
    det.observe(snap(0.5, rank_info(0, 100)), 0.5)
    for i in range(1, 10):
        det.observe(lines(float(i), (0, f"step {i}")), float(i))
    out = det.observe(lines(10.0, (0, "saving checkpoint at iteration 9 to /ckpt")), 10.0)
    (hint,) = [o for o in out if isinstance(o, PhaseHint)]
    assert (hint.phase, hint.rank, hint.hold_seconds) == ("checkpoint", 0, 1800.0)
    again = det.observe(lines(11.0, (0, "saving checkpoint shard 2 of 8")), 11.0)
    assert not [o for o in again if isinstance(o, PhaseHint)]
    assert not transitions(det.tick(30.0))  # held, though silent for 20 s


def test_a_stall_ended_by_a_stop_or_by_exits_does_not_say_progress_resumed() -> None:
    """The person on call reads the resolution: a stall the job's stop or its ranks' exits
    ended did not resume (seen on a real NCCL run stopped during a hang)."""
    from monitor.incidents import JobView, Lifecycle

    def stalled(view: JobView | None = None) -> ProgressDetector:
        det = ProgressDetector(ProgressSettings(stall_floor_seconds=10), view=view)
        det.observe(snap(0.5, replace(rank_info(0, 100), world_size=1)), 0.5)
        for i in range(1, 20):
            det.observe(lines(float(i), (0, f"step {i}")), float(i))
        assert transitions(det.tick(30.0))[0].firing
        return det

    view = JobView()
    det = stalled(view)
    view.lifecycle = Lifecycle.STOPPING
    (over,) = transitions(det.tick(31.0))
    assert not over.firing and over.summary == "job stopping: a stop was asked"

    det = stalled()
    det.observe(ProcessExit(31.0, 100, ProcRole.RANK, 0, None, signal.SIGKILL, 0, 1, 1, "wait"),
                31.0)
    (over,) = transitions(det.tick(31.0))
    assert not over.firing and over.summary == "the stalled ranks exited"

    det = stalled()
    det.observe(lines(31.0, (0, "step 20")), 31.0)
    (over,) = transitions(det.tick(31.0))
    assert not over.firing and over.summary == "training progress resumed"


# -- process ------------------------------------------------------------------------------
def test_sigkill_is_rank_dead_and_high_memory_says_possible_oom() -> None:
    """SIGKILL → RankDead naming the rank; with node memory nearly full it says possible OOM."""
    det = ProcessDetector(ProcessSettings())
    det.observe(snap(0.0, rank_info(0, 100), rank_info(1, 101)), 0.0)
    out = transitions(
        det.observe(
            ProcessExit(
                1.0,
                101,
                ProcRole.RANK,
                1,
                None,
                signal.SIGKILL,
                GIB,
                64 * GIB,
                30 * GIB,
                "proc_connector",
            ),
            1.0,
        )
    )
    assert out[0].alertname == "RankDead" and out[0].culprit_ranks == (1,)
    assert out[0].category is Category.RANK_DEAD and "SIGKILL" in out[0].summary
    det.observe(snap(2.0, rank_info(0, 100)), 2.0)
    out = transitions(
        det.observe(
            ProcessExit(
                3.0,
                100,
                ProcRole.RANK,
                0,
                None,
                signal.SIGKILL,
                50 * GIB,
                64 * GIB,
                2 * GIB,
                "proc_connector",
            ),
            3.0,
        )
    )
    assert out[0].category is Category.OOM and "possible OOM kill" in out[0].summary


def test_clean_exit_is_quiet_and_nonzero_exit_fires() -> None:
    """Exit 0 raises nothing; exit 3 raises RankDead with the code."""
    det = ProcessDetector(ProcessSettings())
    det.observe(snap(0.0, rank_info(0, 100), rank_info(1, 101)), 0.0)
    assert not transitions(
        det.observe(ProcessExit(1.0, 100, ProcRole.RANK, 0, 0, None, 0, 1, 1, "wait"), 1.0)
    )
    out = transitions(
        det.observe(ProcessExit(1.0, 101, ProcRole.RANK, 1, 3, None, 0, 1, 1, "wait"), 1.0)
    )
    assert "exited with code 3" in out[0].summary


def test_stopped_rank_fires_after_hold_and_resolves() -> None:
    """A rank stopped for 10 s → RankStopped; running again → resolved."""
    det = ProcessDetector(ProcessSettings(stopped_alert_seconds=10))
    det.observe(snap(0.0, rank_info(0, 100, ProcState.STOPPED)), 0.0)
    assert not transitions(det.tick(9.0))
    out = transitions(det.tick(10.5))
    assert out[0].alertname == "RankStopped" and out[0].culprit_ranks == (0,)
    out = transitions(det.observe(snap(11.0, rank_info(0, 100)), 11.0))
    assert out and not out[0].firing


# -- memory -------------------------------------------------------------------------------
def test_memory_racing_to_exhaustion_warns_before_oom() -> None:
    """Eight ranks loading a cache at 2 GiB/s each: warn while memory is still available."""
    det = MemoryDetector(MemorySettings())
    fired: list[Transition] = []
    avail = 200 * GIB
    for t in range(10):
        infos = [rank_info(r, 100 + r, rss=(t * 2 + 1) * GIB) for r in range(8)]
        fired += transitions(
            det.observe(snap(float(t), *infos, total=256 * GIB, avail=avail), float(t))
        )
        avail -= 16 * GIB
    assert fired and fired[0].alertname == "MemoryPressure"
    assert fired[0].evidence["available_bytes"] > 0  # type: ignore[operator]


def test_memory_steady_is_quiet() -> None:
    """Plenty of stable memory raises nothing."""
    det = MemoryDetector(MemorySettings())
    for t in range(20):
        assert not transitions(det.observe(snap(float(t), rank_info(0, 1)), float(t)))
