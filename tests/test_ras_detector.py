"""The NCCL RAS detector over sequences of reports.

Reports are rendered by the fake server's model and parsed by the real parsers, so each table
row reads: this job, polled every 10 s, gives these alerts."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from monitor.detectors.nccl import NcclRasDetector
from monitor.incidents import JobView
from monitor.model import (
    Category,
    DetectorOutput,
    Health,
    JobEnded,
    PhaseHint,
    Severity,
    SourceState,
    Suspicion,
    Transition,
)
from monitor.parse.ras_json import parse_json
from monitor.parse.ras_model import RasPollingOff, RasReport, RasSnapshot
from monitor.parse.ras_text import parse_text
from monitor.settings import RasSettings
from tests.fake_ras import (
    Event,
    JobShape,
    JobState,
    make_peers,
    render_json,
    render_text_chunks,
    scenario,
    world_comm,
)

SAMPLES = Path(__file__).parent / "data" / "ras" / "samples"
INTERVAL = 10.0
START = 1000.0
SETTINGS = RasSettings()  # floor 30 s, ceiling 600 s, multiplier 3, missing hold 60 s

Script = Callable[[int, float], JobState]


def report_of(state: JobState, fmt: str, verbose: bool = False) -> RasReport:
    if fmt == "json":
        return parse_json(render_json(state, elapsed=0.01))
    return parse_text("".join(render_text_chunks(state, verbose=verbose, elapsed=0.01)))


def snapshot(report: RasReport, at: float, partial: bool = False) -> RasSnapshot:
    return RasSnapshot(at=at, report=report, partial=partial, poll_interval_seconds=INTERVAL)


class Run:
    """Feeds a detector one report per poll and keeps what came out, by poll index."""

    def __init__(self, detector: NcclRasDetector | None = None) -> None:
        self.detector = detector or NcclRasDetector(SETTINGS, local_hosts={"10.0.0.11"})
        self.outputs: list[tuple[int, DetectorOutput]] = []
        self.polls = 0

    def feed(self, report: RasReport, *, partial: bool = False) -> list[DetectorOutput]:
        at = START + self.polls * INTERVAL
        out = list(self.detector.observe(snapshot(report, at, partial), at))
        self.outputs += [(self.polls, o) for o in out]
        self.polls += 1
        return out

    def script(self, script: Script, polls: int, fmt: str, verbose: bool = False) -> Run:
        for _ in range(polls):
            self.feed(report_of(script(self.polls, self.polls * INTERVAL), fmt, verbose))
        return self

    @property
    def now(self) -> float:
        return START + (self.polls - 1) * INTERVAL

    def transitions(self, name: str | None = None) -> list[tuple[int, Transition]]:
        return [(i, o) for i, o in self.outputs
                if isinstance(o, Transition) and (name is None or o.alertname == name)]

    def suspicions(self) -> list[tuple[int, Suspicion]]:
        return [(i, o) for i, o in self.outputs if isinstance(o, Suspicion)]


def job(event: Event | str = Event.NONE, *, after: int | None = 3, ranks: tuple[int, ...] = (5,),
        version: str = "2.29.7", extra: int = 1) -> Script:
    return scenario(event, shape=JobShape(version=version), after_queries=after,
                    culprit_ranks=ranks, dead_after_extra_queries=extra)


def skewed(advance_every: int = 1, lag: tuple[int, ...] = (2, 3), freeze_at: int | None = None
           ) -> Script:
    """Ranks `lag` are always one AllReduce behind; counts move every `advance_every` polls,
    until `freeze_at` (then nothing moves)."""

    def state(query: int, _elapsed: float) -> JobState:
        step = query if freeze_at is None else min(query, freeze_at)
        value = 5000 + (step // advance_every) * 7
        peers = make_peers(2, 8)
        world = world_comm(peers, 0x51, (0, 0, 0, 0, value))
        for m in world.members:
            if m.rank in lag:
                m.counts = (0, 0, 0, 0, value - 1)
        return JobState(peers=peers, comms=[world])

    return state


# ----------------------------------------------------------------------------------------------
# Collective stalls.


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_advancing_mismatch_stays_quiet(fmt: str) -> None:
    """Ranks one collective behind, but everyone keeps moving: normal skew, no alert."""
    run = Run().script(skewed(), 30, fmt)
    assert run.transitions() == [] and run.suspicions() == []


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_frozen_mismatch_names_the_lower_group(fmt: str) -> None:
    """Rank 5 never launches the next AllReduce (frozen from poll 3); the alert names it as the
    culprit (collective_desync), escalating to critical at two windows. JSON shows the counts
    moving before the freeze, so the pace is known and the window is the paced floor (15 s, no
    less than two 10 s polls: 20 s); text shows counts only once mismatched: the 30 s floor."""
    run = Run().script(job(Event.DESYNC), 12, fmt)
    fired = run.transitions("CollectiveDesync")
    expected = {"text": [(6, Severity.WARNING), (9, Severity.CRITICAL)],
                "json": [(5, Severity.WARNING), (7, Severity.CRITICAL)]}[fmt]
    assert [(i, t.severity) for i, t in fired] == expected
    first = fired[0][1]
    assert first.culprit_ranks == (5,) and first.category is Category.COLLECTIVE_DESYNC
    assert "rank 5 never launched" in first.summary
    assert first.evidence["lagging"][0]["processes"] == ["10.0.0.11:4105"]  # type: ignore[index]
    assert run.transitions("CollectiveHang") == []


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_desync_resolves_when_counts_move_again(fmt: str) -> None:
    """A frozen mismatch that starts moving again resolves its alert."""
    frozen = skewed(freeze_at=2)
    moving = skewed()
    run = Run().script(frozen, 8, fmt)
    assert run.transitions("CollectiveDesync")[-1][1].firing
    run.feed(report_of(moving(50, 0.0), fmt))
    last = run.transitions("CollectiveDesync")[-1][1]
    assert not last.firing and "advance again" in last.summary


def test_frozen_mismatch_with_unlisted_laggards() -> None:
    """Plain text does not list 20 laggards out of 128: the alert says so and names no rank."""
    def state(_query: int, _elapsed: float) -> JobState:
        peers = make_peers(16, 8)
        world = world_comm(peers, 0x77, (0, 0, 0, 0, 900))
        for m in world.members:
            if 16 <= m.rank < 36:
                m.counts = (0, 0, 0, 0, 899)
        return JobState(peers=peers, comms=[world])

    plain = Run().script(state, 5, "text")
    (_, alert), = plain.transitions("CollectiveDesync")
    assert alert.culprit_ranks == () and "not listed" in alert.summary
    verbose = Run().script(state, 5, "text", verbose=True)
    assert verbose.transitions("CollectiveDesync")[0][1].culprit_ranks == tuple(range(16, 36))


def test_frozen_equal_counts_are_a_collective_hang_in_json() -> None:
    """All ranks launched, none completed: counts frozen and equal (RAS says OK) -> hang, at the
    paced window (20 s at 10 s polls) and critical at two."""
    run = Run().script(job(Event.HANG), 12, "json")
    fired = run.transitions("CollectiveHang")
    assert [(i, t.severity) for i, t in fired] == [(5, Severity.WARNING), (7, Severity.CRITICAL)]
    assert fired[0][1].category is Category.COLLECTIVE_HANG and fired[0][1].culprit_ranks == ()
    assert run.transitions("CollectiveDesync") == []


def test_frozen_equal_counts_are_invisible_in_text() -> None:
    """Text reports show no counts for equal ranks, so no hang verdict comes from them."""
    assert Run().script(job(Event.HANG), 12, "text").transitions() == []


def test_hang_resolves_when_counts_move() -> None:
    """Counts moving again resolve CollectiveHang."""
    run = Run().script(job(Event.HANG), 8, "json")
    run.feed(report_of(job()(40, 0.0), "json"))
    assert not run.transitions("CollectiveHang")[-1][1].firing


def test_idle_communicator_is_not_a_hang() -> None:
    """A communicator never seen advancing (idle since creation) gives no hang verdict."""
    def idle(_query: int, _elapsed: float) -> JobState:
        peers = make_peers(1, 4)
        return JobState(peers=peers, comms=[world_comm(peers, 0x3, (0, 0, 5, 0, 0))])

    assert Run().script(idle, 20, "json").transitions() == []


def frozen_from_the_start(_query: int, _elapsed: float) -> JobState:
    """Counts already up (the job launched 5 collectives before our first look) and never moving."""
    peers = make_peers(1, 4)
    return JobState(peers=peers, comms=[world_comm(peers, 0x3, (0, 0, 0, 0, 5))])


WAITING = {0: ("gpu_wait", "synchronize"), 1: ("in_collective", "all_reduce")}


@pytest.mark.parametrize("stepped,stacks,fired", [
    (True, WAITING, [(3, Severity.CRITICAL)]),  # 25 s (the step window) after poll 0
    (True, {0: ("gpu_wait", "synchronize"), 1: ("compute", "forward")}, []),
    (False, WAITING, []),
])
def test_counts_up_at_the_first_look_hang_only_when_the_stacks_agree(
        stepped: bool, stacks: dict[int, tuple[str, str]], fired: list[tuple[int, Severity]]
) -> None:
    """A sidecar whose first look came after the last move: NCCL's counts start at zero, so counts
    already up in a job seen stepping have moved. A move not seen is confirmed by the local
    stacks (every rank waits for its peers) or gives no verdict; without steps seen, none."""
    view = JobView(last_progress_at=START - 1.0 if stepped else None,
                   stall_window_seconds=25.0 if stepped else None, host_states=stacks)  # fmt: skip
    run = Run(NcclRasDetector(SETTINGS, view=view)).script(frozen_from_the_start, 12, "json")
    assert [(i, t.severity) for i, t in run.transitions("CollectiveHang")] == fired


def test_an_inferred_hang_waits_at_most_the_ceiling() -> None:
    """The job's step window paces a move we did not see, never beyond ras.stall_ceiling_seconds."""
    view = JobView(last_progress_at=START - 1.0, stall_window_seconds=1500.0, host_states=WAITING)
    settings = replace(SETTINGS, stall_ceiling_seconds=60.0)
    run = Run(NcclRasDetector(settings, view=view)).script(frozen_from_the_start, 12, "json")
    assert [i for i, _t in run.transitions("CollectiveHang")] == [6]


def test_a_communicator_born_after_the_first_look_has_not_moved() -> None:
    """A job restarted in the same run builds new communicators whose counts are up from their
    own set-up, then loads its model: nothing about them says they were ever running."""
    view = JobView(last_progress_at=START - 1.0, stall_window_seconds=25.0, host_states=WAITING)
    run = Run(NcclRasDetector(SETTINGS, view=view))
    run.feed(report_of(JobState(peers=make_peers(1, 4)), "json"))  # the first look: no comm yet
    run.script(frozen_from_the_start, 12, "json")
    assert run.transitions("CollectiveHang") == []


def test_a_job_that_steps_while_its_counts_stay_frozen_is_not_hung() -> None:
    """Counts frozen equal on every rank while the job keeps stepping (a communicator used at
    start-up only, steps without collectives): the counts are not the job's pace, no verdict,
    whether their move was seen or inferred."""
    for script in (job(Event.HANG), frozen_from_the_start):
        view = JobView(last_progress_at=START - 1.0, stall_window_seconds=25.0,
                       host_states=WAITING)  # fmt: skip
        run = Run(NcclRasDetector(SETTINGS, view=view))
        for _ in range(15):
            view.last_progress_at = START + run.polls * INTERVAL  # a step at every poll
            run.feed(report_of(script(run.polls, run.polls * INTERVAL), "json"))
        assert run.transitions("CollectiveHang") == [], script


def test_window_adapts_to_a_slow_advance_rate() -> None:
    """Counts that move every 6 polls (60 s) learn a 180 s window: a 100 s freeze stays quiet,
    while a job moving every poll is flagged at its paced window (20 s: two 10 s polls)."""
    slow = Run().script(skewed(advance_every=6), 36, "json")
    assert slow.transitions() == []
    slow_then_frozen = Run().script(skewed(advance_every=6, freeze_at=36), 56, "json")
    fired = slow_then_frozen.transitions("CollectiveDesync")
    assert fired[0][0] == 36 + 18  # window 3 x 60 s after the last move (poll 36)
    fast = Run().script(skewed(freeze_at=10), 20, "json")
    assert fast.transitions("CollectiveDesync")[0][0] == 12  # 20 s after the last move


def test_window_never_exceeds_the_ceiling() -> None:
    """With a 40 s ceiling, a job that learned 60 s gaps is still flagged within 40 s."""
    settings = replace(SETTINGS, stall_ceiling_seconds=40.0)
    run = Run(NcclRasDetector(settings)).script(skewed(advance_every=6, freeze_at=36), 46, "json")
    fired = [i for i, t in run.transitions("CollectiveDesync") if t.firing and i > 36]
    assert fired[0] == 36 + 4


def test_cold_window_is_twice_the_floor() -> None:
    """Before any advance is seen in JSON, a frozen mismatch waits twice the floor (60 s)."""
    run = Run().script(skewed(freeze_at=0), 10, "json")
    assert run.transitions("CollectiveDesync")[0][0] == 6


def test_phase_hint_holds_stall_alerts() -> None:
    """During a checkpoint (PhaseHint), a frozen mismatch does not alert."""
    detector = NcclRasDetector(SETTINGS)
    detector.observe(PhaseHint(START, 0, "checkpoint", 600.0, "progress"), START)
    run = Run(detector).script(job(Event.DESYNC), 12, "json")
    assert run.transitions() == []


def test_stall_alerts_wait_while_a_rank_is_dead() -> None:
    """A dead rank freezes everything; RankDead names it and no stall alert piles on."""
    run = Run().script(job(Event.DEAD), 15, "json")
    names = {t.alertname for _i, t in run.transitions()}
    assert names == {"RasRanksMissing", "RankDead"}


# ----------------------------------------------------------------------------------------------
# Dead and missing processes.


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_dead_rank_fires_once_within_one_poll(fmt: str) -> None:
    """The first report with the process DEAD fires a critical RankDead naming node, pid, GPU
    and rank; later reports do not fire it again."""
    run = Run().script(job(Event.DEAD, extra=0), 10, fmt)
    fired = run.transitions("RankDead")
    assert len(fired) == 1
    index, alert = fired[0]
    assert index == 3 and alert.firing and alert.severity is Severity.CRITICAL
    assert alert.category is Category.RANK_DEAD and alert.culprit_ranks == (5,)
    assert alert.identity == {"ras_node": "10.0.0.11"}
    assert alert.summary == "NCCL RAS: process 4105 on node 10.0.0.11 (GPU 5, rank 5) is DEAD"
    assert alert.evidence["pids"] == [4105] and alert.evidence["gpus"] == [5]


def test_dead_rank_resolves_only_when_the_job_ends() -> None:
    """Dead is permanent: partial reports and time change nothing; JobEnded resolves."""
    run = Run().script(job(Event.DEAD, extra=0), 5, "text")
    healthy_partial = report_of(job(after=None)(0, 0.0), "text")
    run.feed(replace(healthy_partial, complete=False), partial=True)
    assert run.detector.tick(START + 10_000) == []
    assert [t.firing for _i, t in run.transitions("RankDead")] == [True]
    ended = run.detector.observe(JobEnded(START + 100, 0), START + 100)
    assert [(t.alertname, t.firing) for t in ended if isinstance(t, Transition)] == [
        ("RankDead", False)
    ]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_dead_rank_resolves_when_the_process_returns(fmt: str) -> None:
    """A complete report in which the process answers again (a restarted job) resolves."""
    run = Run().script(job(Event.DEAD, extra=0), 5, fmt)
    run.feed(report_of(job(after=None)(0, 0.0), fmt))
    assert [t.firing for _i, t in run.transitions("RankDead")] == [True, False]


def test_node_dead_at_scale_names_its_ranks() -> None:
    """Sample 13 (128 x 8, a whole node dead): one RankDead for the node, ranks 616-623."""
    report = parse_text((SAMPLES / "13-node-dead-128x8.txt").read_bytes())
    run = Run()
    run.feed(report)
    (_, alert), = run.transitions("RankDead")
    assert alert.culprit_ranks == tuple(range(616, 624))
    assert "8 processes on node 10.64.2.113 (GPUs 0,1,2,3,4,5,6,7, ranks 616-623)" in alert.summary


def test_v224_missing_rank_is_named_from_the_world_communicator() -> None:
    """2.24 lists missing ranks by number only: the world communicator's rank 21 is blamed."""
    run = Run()
    run.feed(parse_text((SAMPLES / "09-v224-incomplete-and-init-error-4x8.txt").read_bytes()))
    (_, missing), = run.transitions("RasRanksMissing")
    assert missing.culprit_ranks == (21,) and missing.severity is Severity.WARNING
    (_, error), = run.transitions("NcclCommError")
    assert error.evidence["init_error_ranks"] == 1


def test_more_dead_processes_than_plain_status_lists() -> None:
    """Eleven dead processes are counted but not listed: RankDead `unlisted` says so."""
    def state(_query: int, _elapsed: float) -> JobState:
        peers = make_peers(4, 4)
        for peer in peers[:11]:
            peer.state = "dead"
        return JobState(peers=peers, comms=[world_comm(peers, 0x9, (0, 0, 0, 0, 1))])

    run = Run().script(state, 2, "text")
    (_, alert), = run.transitions("RankDead")
    assert alert.identity == {"ras_node": "unlisted"} and "11 job processes" in alert.summary


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_missing_process_warns_then_escalates_after_the_hold(fmt: str) -> None:
    """An unresponsive process warns at once and turns critical after missing_hold_seconds."""
    run = Run().script(job(Event.MISSING), 12, fmt)
    fired = run.transitions("RasRanksMissing")
    assert [(i, t.severity) for i, t in fired] == [(3, Severity.WARNING), (9, Severity.CRITICAL)]
    assert fired[0][1].culprit_ranks == (5,) and fired[0][1].category is Category.RANK_STOPPED


def test_missing_process_resolves_when_it_answers_again() -> None:
    """The process answers again: RasRanksMissing resolves."""
    run = Run().script(job(Event.MISSING), 5, "json")
    run.feed(report_of(job(after=None)(9, 0.0), "json"))
    last = run.transitions("RasRanksMissing")[-1][1]
    assert not last.firing and "answers again" in last.summary


def test_missing_then_dead_hands_over_to_rank_dead() -> None:
    """Unresponsive, then DEAD: RankDead fires and RasRanksMissing resolves, naming why."""
    run = Run().script(job(Event.DEAD, extra=1), 6, "text")
    assert [(i, t.alertname, t.firing) for i, t in run.transitions()] == [
        (3, "RasRanksMissing", True), (4, "RankDead", True), (4, "RasRanksMissing", False)
    ]
    assert "now DEAD" in run.transitions("RasRanksMissing")[-1][1].summary


# ----------------------------------------------------------------------------------------------
# Errors.


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_async_error_and_abort_are_critical(fmt: str) -> None:
    """An async Remote process error with ABORT: critical NcclCommError naming the rank."""
    run = Run().script(job(Event.ABORT), 6, fmt)
    (index, alert), = run.transitions("NcclCommError")
    assert index == 3 and alert.severity is Severity.CRITICAL
    assert alert.category is Category.NETWORK and alert.culprit_ranks == (5,)
    assert "Remote process error" in alert.summary and "ABORT" in alert.summary


def test_abort_sample_and_its_resolution() -> None:
    """Sample 08 fires for ranks 9 and 10; a clean report of the same job resolves it."""
    run = Run()
    run.feed(parse_text((SAMPLES / "08-async-error-abort-2x8.txt").read_bytes()))
    run.feed(parse_text((SAMPLES / "01-healthy-2x8.txt").read_bytes()))
    assert [(t.firing, t.culprit_ranks) for _i, t in run.transitions("NcclCommError")] == [
        (True, (9, 10)), (False, ())
    ]


# ----------------------------------------------------------------------------------------------
# Suspicion, health, metrics.


def test_every_alert_raises_suspicion_for_its_ranks() -> None:
    """Each firing transition comes with a Suspicion for the same ranks (stack evidence)."""
    for event in (Event.DEAD, Event.MISSING, Event.DESYNC, Event.ABORT):
        run = Run().script(job(event), 12, "json")
        for index, alert in run.transitions():
            if alert.firing:
                assert any(i == index and s.ranks == alert.culprit_ranks
                           for i, s in run.suspicions()), (event, alert.alertname)


def test_early_suspicion_at_half_the_window() -> None:
    """A mismatch frozen for half the window already asks for stacks of the lagging ranks."""
    run = Run().script(job(Event.DESYNC), 6, "json")
    first = run.suspicions()[0]
    assert first[0] == 4 and first[1].ranks == (5,) and "frozen" in first[1].reason


def test_health_states() -> None:
    """UNKNOWN before any report, when polling is off, when blind or stale; then by alerts."""
    detector = NcclRasDetector(SETTINGS)
    assert detector.health(START).health is Health.UNKNOWN
    detector.observe(RasPollingOff(START, "node index 3 does not poll"), START)
    assert "not polling" in detector.health(START).reason
    detector.observe(snapshot(report_of(job()(0, 0.0), "json"), START), START)
    assert detector.health(START + 1).health is Health.OK
    assert detector.health(START + 31).health is Health.UNKNOWN  # three intervals: stale
    detector.observe(SourceState(START + 2, "nccl_ras", False, "refused"), START + 2)
    assert detector.health(START + 2).health is Health.UNKNOWN
    detector.observe(SourceState(START + 3, "nccl_ras", True, ""), START + 3)
    dead = report_of(job(Event.DEAD, after=0, extra=0)(0, 0.0), "json")
    detector.observe(snapshot(dead, START + 4), START + 4)
    assert detector.health(START + 5).health is Health.CRITICAL


Samples = list[tuple[tuple[str, ...], float]]


def families(detector: NcclRasDetector, now: float) -> dict[str, Samples]:
    return {f.name: list(f.samples) for f in detector.metric_families(now)}


def test_metrics_of_a_json_report() -> None:
    """Version info, communicators by status, dead and missing counts, report age, and op counts
    of this node's ranks only."""
    run = Run().script(job(Event.DEAD, after=0, extra=0), 1, "json")
    metrics = families(run.detector, START + 4)
    assert metrics["ras_nccl_info"] == [(("2.29.7",), 1.0)]
    assert (("RUNNING",), 1.0) in metrics["ras_communicators"]
    assert metrics["ras_dead_processes"] == [((), 1.0)]
    assert metrics["ras_missing_ranks"] == [((), 1.0)]
    assert metrics["ras_report_age_seconds"] == [((), 4.0)]
    ops = metrics["ras_collective_ops"]
    assert {labels[1] for labels, _v in ops} == {"0", "1", "2", "3", "4", "6", "7"}  # 5 is dead
    assert ((("7d03be61c5a2f98e", "0", "AllReduce"), 1000.0)) in ops
    assert len(ops) == 7 * 5


def test_op_count_series_are_bounded() -> None:
    """However many local ranks and communicators, ras_collective_ops stays bounded."""
    peers = make_peers(1, 8, subnet="10.0.0.", first_host=11)
    comms = [world_comm(peers, 0x1000 + i, (1, 2, 3, 4, 5)) for i in range(40)]
    report = report_of(JobState(peers=peers, comms=comms), "json")
    run = Run()
    run.feed(report)
    assert len(families(run.detector, START)["ras_collective_ops"]) == 512


def test_parse_faults_and_partial_reports_are_counted() -> None:
    """Unknown lines, faults and partial reports show in the detector's counters."""
    run = Run()
    text = (SAMPLES / "15-json-status-v2289-invalid-1x4.json.txt").read_text()
    run.feed(parse_json(text))
    run.feed(parse_text("NCCL version 2.29.7 compiled with CUDA 13.0\nodd line\n"), partial=True)
    metrics = families(run.detector, START + 20)
    assert (("json_comma_repaired",), 1.0) in metrics["ras_report_faults"]
    assert metrics["ras_report_unknown_lines"] == [((), 1.0)]
    assert metrics["ras_reports"] == [(("complete",), 1.0), (("partial",), 1.0)]


def _names(outputs: Iterable[DetectorOutput]) -> Sequence[str]:
    return [o.alertname for o in outputs if isinstance(o, Transition)]


def test_job_end_resolves_every_ras_alert() -> None:
    """JobEnded resolves whatever RAS alerts fire, and the detector starts afresh."""
    run = Run().script(job(Event.ABORT), 5, "json")
    ended = run.detector.observe(JobEnded(START + 500, 1), START + 500)
    assert _names(ended) == ["NcclCommError"]
    assert run.detector.observe(JobEnded(START + 501, 1), START + 501) == []
