"""The incident layer: the job lifecycle, one incident per failure, and the severity contract."""

from __future__ import annotations

from collections.abc import Mapping

from monitor.incidents import IncidentLayer, Lifecycle, PaceUpdate
from monitor.model import (
    Category,
    EvidenceValue,
    JobEnded,
    PhaseHint,
    ProcessInfo,
    ProcessSnapshot,
    ProcRole,
    ProcState,
    Severity,
    StopRequested,
    Transition,
)
from monitor.settings import IncidentSettings

SETTLE = 1.0


def layer() -> IncidentLayer:
    return IncidentLayer(IncidentSettings(settle_seconds=SETTLE, stop_grace_seconds=60), "n-")


def death(rank: int, signal: str | None, code: int | None = None) -> Transition:
    how = f"killed by {signal}" if signal else f"exited with code {code}"
    return Transition(
        detector="process",
        alertname="RankDead",
        firing=True,
        severity=Severity.CRITICAL,
        category=Category.RANK_DEAD,
        identity={"rank": str(rank)},
        summary=f"rank {rank} {how}",
        evidence={"signal": signal, "exit_code": code},
        culprit_ranks=(rank,),
    )


def finding(
    name: str,
    severity: Severity,
    category: Category,
    culprits: tuple[int, ...] = (),
    *,
    firing: bool = True,
    detector: str = "test",
    identity: Mapping[str, str] | None = None,
    evidence: Mapping[str, EvidenceValue] | None = None,
    no_culprit_reason: str = "",
) -> Transition:
    return Transition(
        detector=detector,
        alertname=name,
        firing=firing,
        severity=severity,
        category=category,
        identity=dict(identity or {}),
        summary=f"{name} summary",
        evidence=dict(evidence or {}),
        culprit_ranks=culprits,
        no_culprit_reason=no_culprit_reason,
    )


def judge_all(incidents: IncidentLayer, findings: list[Transition], at: float) -> list[Transition]:
    out: list[Transition] = []
    for t in findings:
        out.extend(incidents.judge(t, at))
    out.extend(incidents.tick(at + SETTLE))
    return out


def paged(out: list[Transition]) -> list[Transition]:
    return [t for t in out if t.firing and t.severity is not Severity.INFO]


def test_a_killed_rank_leads_and_its_peers_teardown_is_info_in_the_same_incident() -> None:
    """The launcher's SIGTERM to rank 0 arrives before rank 1's SIGKILL in the same settle
    window: rank 1 still leads, rank 0's death is info evidence of the same incident."""
    incidents = layer()
    out = judge_all(incidents, [death(0, "SIGTERM"), death(1, "SIGKILL")], at=10.0)
    pages = paged(out)
    assert [(t.alertname, t.culprit_ranks, t.severity) for t in pages] == [
        ("RankDead", (1,), Severity.CRITICAL)
    ]
    teardown = [t for t in out if t.culprit_ranks == (0,)]
    assert [t.severity for t in teardown] == [Severity.INFO]
    assert teardown[0].incident_id == pages[0].incident_id != ""
    assert incidents.view.lifecycle is Lifecycle.STARTING  # a failure is not a stop


def test_later_deaths_and_symptoms_join_the_open_incident() -> None:
    """After the first failure, a peer exiting 1 and a progress stall are consequences."""
    incidents = layer()
    first = judge_all(incidents, [death(2, "SIGSEGV")], at=1.0)
    later = judge_all(
        incidents,
        [death(0, None, code=1), finding("ProgressStalled", Severity.WARNING, Category.UNDETERMINED)],
        at=5.0,
    )
    assert [t.culprit_ranks for t in paged(first)] == [(2,)]
    assert paged(later) == []
    assert {t.incident_id for t in later} == {paged(first)[0].incident_id}


def test_ranks_dying_of_sigterm_with_no_failure_before_is_a_stop() -> None:
    """SIGTERM to the job's process group (a terminal, kill -- -PGID, a workflow engine) ends
    every rank: the job is stopping, nothing pages, and what follows is info too."""
    incidents = layer()
    out = judge_all(incidents, [death(0, "SIGTERM"), death(1, "SIGTERM")], at=3.0)
    assert paged(out) == [] and len(out) == 2
    assert incidents.view.lifecycle is Lifecycle.STOPPING
    assert "SIGTERM" in incidents.view.stop_reason
    after = judge_all(incidents, [death(2, "SIGKILL")], at=8.0)  # the launcher's SIGKILL
    assert paged(after) == [] and after[0].severity is Severity.INFO


def test_a_stop_request_makes_everything_after_it_info() -> None:
    """A signal forwarded by `rankwatch run` (or the epilog) is a stop: even an exit 1 after
    it is recorded, not paged."""
    incidents = layer()
    incidents.observe(StopRequested(1.0, "SIGINT sent to rankwatch run", "signal"), 1.0)
    out = judge_all(incidents, [death(0, None, code=1)], at=2.0)
    assert [t.severity for t in out] == [Severity.INFO]
    assert "SIGINT" in str(out[0].evidence["recorded_as_info"])


def test_a_stop_that_does_not_end_the_job_expires() -> None:
    """A stop asked but not obeyed within the grace: the job is watched as running again."""
    incidents = layer()
    incidents.observe(PaceUpdate(0.5, 10, 20.0), 0.5)
    incidents.observe(StopRequested(1.0, "SIGTERM sent to rankwatch run", "signal"), 1.0)
    incidents.tick(62.0)
    assert incidents.view.lifecycle is Lifecycle.RUNNING
    out = judge_all(incidents, [death(1, "SIGKILL")], at=70.0)
    assert [t.severity for t in paged(out)] == [Severity.CRITICAL]


def test_critical_without_a_culprit_or_a_reason_is_a_warning() -> None:
    """The severity contract: critical names the culprit or says why it cannot."""
    incidents = layer()
    vague = judge_all(
        incidents, [finding("Vague", Severity.CRITICAL, Category.UNDETERMINED)], at=1.0
    )
    assert [t.severity for t in vague] == [Severity.WARNING]
    assert "no culprit" in str(vague[0].evidence["severity_note"])
    other = layer()
    hang = judge_all(
        other,
        [
            finding(
                "CollectiveHang",
                Severity.CRITICAL,
                Category.COLLECTIVE_HANG,
                no_culprit_reason="every rank launched the operation; all counts frozen",
            )
        ],
        at=1.0,
    )
    assert [t.severity for t in hang] == [Severity.CRITICAL]


def test_a_culprit_found_later_leads_the_incident_that_a_vague_stall_opened() -> None:
    """A warning without culprit opens the incident; the finding that names the rank takes the
    lead (upgrade), and the first is resolved as superseded, under the same incident id."""
    incidents = layer()
    stall = finding("ProgressStalled", Severity.WARNING, Category.UNDETERMINED, detector="progress")
    first = judge_all(incidents, [stall], at=1.0)
    named = finding(
        "DataloaderStalled",
        Severity.CRITICAL,
        Category.DATALOADER_STALL,
        (3,),
        identity={"rank": "3"},
    )
    second = judge_all(incidents, [named], at=10.0)
    assert [(t.alertname, t.firing, t.severity) for t in second] == [
        ("ProgressStalled", False, Severity.WARNING),
        ("DataloaderStalled", True, Severity.CRITICAL),
    ]
    assert {t.incident_id for t in [*first, *second]} == {first[0].incident_id}
    assert "superseded" in second[0].summary


def test_a_whole_job_verdict_found_later_leads_the_incident_a_vague_stall_opened() -> None:
    """A critical that says why no rank can be named (every rank launched the collective, none
    completed) says more than a stall warning naming nobody: it takes the lead and pages, whichever
    detector spoke first. A vague critical (no culprit, no reason) is only a warning: it does not."""
    incidents = layer()
    stall = finding("ProgressStalled", Severity.WARNING, Category.UNDETERMINED, detector="progress")
    first = judge_all(incidents, [stall], at=1.0)
    vague = judge_all(incidents, [finding("Vague", Severity.CRITICAL, Category.UNDETERMINED)], 5.0)
    assert [t.severity for t in vague] == [Severity.INFO]
    hang = finding(
        "CollectiveHang",
        Severity.CRITICAL,
        Category.COLLECTIVE_HANG,
        detector="nccl",
        no_culprit_reason="every rank launched the collective and none completed",
    )
    second = judge_all(incidents, [hang], at=10.0)
    assert [(t.alertname, t.firing, t.severity) for t in second] == [
        ("ProgressStalled", False, Severity.WARNING),
        ("CollectiveHang", True, Severity.CRITICAL),
    ]
    assert {t.incident_id for t in [*first, *second]} == {first[0].incident_id}
    # An info lead (a finding recorded only) is not outranked by a warning naming nobody.
    quiet = layer()
    judge_all(quiet, [finding("Noted", Severity.INFO, Category.UNDETERMINED)], at=1.0)
    later = judge_all(quiet, [finding("Vague", Severity.WARNING, Category.UNDETERMINED)], 5.0)
    assert [t.severity for t in later] == [Severity.INFO]


def test_when_the_lead_resolves_a_member_still_firing_leads() -> None:
    incidents = layer()
    named = finding("RankStopped", Severity.CRITICAL, Category.RANK_STOPPED, (1,), identity={"rank": "1"})
    stall = finding("ProgressStalled", Severity.WARNING, Category.UNDETERMINED, detector="progress")
    judge_all(incidents, [named, stall], at=1.0)
    out = incidents.judge(replace_firing(named, False), 20.0)
    assert [(t.alertname, t.firing) for t in out] == [
        ("RankStopped", False),
        ("ProgressStalled", True),
    ]
    assert out[1].severity is Severity.WARNING
    done = incidents.judge(replace_firing(stall, False), 30.0)
    assert [(t.alertname, t.firing) for t in done] == [("ProgressStalled", False)]
    assert incidents.metric_families()[1].samples == (((), 0.0),)  # no incident open


def replace_firing(t: Transition, firing: bool) -> Transition:
    from dataclasses import replace

    return replace(t, firing=firing)


def test_a_clean_exit_makes_what_follows_info() -> None:
    incidents = layer()
    incidents.observe(JobEnded(5.0, 0), 5.0)
    out = incidents.judge(death(0, None, code=None), 5.1)
    assert [t.severity for t in out] == [Severity.INFO]


def test_a_failed_job_end_still_judges_its_findings_at_once() -> None:
    """A rank whose exit nobody could read, reported at the end of a failed job, pages."""
    incidents = layer()
    incidents.observe(JobEnded(5.0, 1), 5.0)
    out = incidents.judge(death(1, "SIGKILL"), 5.1)
    assert [(t.severity, t.culprit_ranks) for t in out] == [(Severity.CRITICAL, (1,))]


def test_pending_findings_are_released_when_the_job_ends() -> None:
    incidents = layer()
    assert incidents.judge(death(1, "SIGSEGV"), 1.0) == []
    out = incidents.observe(JobEnded(1.2, 139), 1.2)
    assert [(t.severity, t.culprit_ranks) for t in out] == [(Severity.CRITICAL, (1,))]


def test_a_scheduler_time_limit_is_a_stop_and_a_node_failure_is_not() -> None:
    incidents = layer()
    limit = finding(
        "JobTerminatedByScheduler",
        Severity.CRITICAL,
        Category.INFRASTRUCTURE,
        evidence={"reason": "DUE TO TIME LIMIT"},
    )
    assert [t.severity for t in incidents.judge(limit, 1.0)] == [Severity.INFO]
    assert incidents.view.lifecycle is Lifecycle.STOPPING
    other = layer()
    node = finding(
        "JobTerminatedByScheduler",
        Severity.CRITICAL,
        Category.INFRASTRUCTURE,
        evidence={"reason": "DUE TO NODE FAILURE"},
        no_culprit_reason="node failure",
    )
    out = judge_all(other, [node], at=1.0)
    assert [t.severity for t in out] == [Severity.CRITICAL]
    assert other.view.lifecycle is Lifecycle.STARTING


def test_a_launcher_line_naming_a_pid_names_that_rank() -> None:
    """torchrun's summary names the failed worker by pid: the rank that pid had is the culprit."""
    incidents = layer()
    info = ProcessInfo(
        4242, 1, ProcRole.RANK, 3, 3, None, "python", ProcState.RUNNING, 1.0, 1, 1, True, True
    )
    incidents.observe(ProcessSnapshot(0.5, (info,), 1, 1), 0.5)
    crashed = finding(
        "RankCrashed", Severity.CRITICAL, Category.RANK_DEAD, evidence={"pid": 4242}
    )
    out = judge_all(incidents, [crashed], at=1.0)
    assert [(t.culprit_ranks, t.severity) for t in out] == [((3,), Severity.CRITICAL)]
    assert out[0].summary.startswith("rank 3")


def test_pace_and_phase_reach_the_view() -> None:
    incidents = layer()
    incidents.observe(PaceUpdate(1.0, 4, 30.0), 1.0)
    incidents.observe(PhaseHint(2.0, 0, "evaluation", 45.0, "stacks"), 2.0)
    view = incidents.view
    assert view.lifecycle is Lifecycle.RUNNING and view.stall_window_seconds == 30.0
    assert view.in_phase(40.0) == "evaluation" and view.in_phase(48.0) is None


def test_a_phase_ends_when_the_job_steps_again() -> None:
    """A stack seen in init_process_group at start-up must not hold an init phase (and with it
    every freeze) for the whole first-step grace once the job trains."""
    incidents = layer()
    incidents.observe(PhaseHint(1.0, 1, "init", 1800.0, "stacks"), 1.0)
    incidents.observe(PaceUpdate(1.5, 1, None), 1.5)  # printed before the phase: too soon
    assert incidents.view.in_phase(2.0) == "init"
    incidents.observe(PaceUpdate(5.0, 2, None), 5.0)
    assert incidents.view.in_phase(5.1) is None
    incidents.observe(PaceUpdate(9.0, 3, None), 9.0)
    assert incidents.view.in_phase(9.1) is None
    # An evaluation keeps its hold: its own progress bar reads like steps.
    incidents.observe(PhaseHint(10.0, 0, "evaluation", 600.0, "stacks"), 10.0)
    incidents.observe(PaceUpdate(15.0, 4, None), 15.0)
    assert incidents.view.in_phase(15.1) == "evaluation"
    # A checkpoint ends with the first step after it, not after the whole save grace.
    incidents.observe(PhaseHint(700.0, 0, "checkpoint", 1800.0, "progress"), 700.0)
    assert incidents.view.in_phase(710.0) == "checkpoint"
    incidents.observe(PaceUpdate(715.0, 5, None), 715.0)
    assert incidents.view.in_phase(715.1) is None


def test_a_source_that_blames_another_rank_is_stated_on_the_lead() -> None:
    """Two sources disagree about the culprit: the page says so instead of hiding it."""
    incidents = layer()
    lead = finding("RankStopped", Severity.CRITICAL, Category.RANK_STOPPED, (1,),
                   identity={"rank": "1"}, detector="process")
    other = finding("CollectiveDesync", Severity.WARNING, Category.COLLECTIVE_DESYNC, (3,),
                    detector="nccl")
    judge_all(incidents, [lead, other], at=1.0)
    again = incidents.judge(replace_firing(lead, True), 5.0)
    assert again[0].evidence["disagreeing"] == ["CollectiveDesync (nccl) names rank 3"]


def test_the_page_carries_the_jobs_last_output_lines() -> None:
    """The last lines the job printed before the incident opened travel with its page."""
    from monitor.model import OutputChunk, OutputLine

    incidents = layer()
    lines = tuple(OutputLine(r, f"step {i}") for i, r in enumerate([0, 1] * 8))
    incidents.observe(OutputChunk(0.5, "stderr", lines), 0.5)
    (page,) = judge_all(incidents, [death(1, "SIGSEGV")], at=1.0)
    tail = page.evidence["last_output_lines"]
    assert isinstance(tail, list) and len(tail) == 10 and tail[-1] == "[rank1] step 15"
