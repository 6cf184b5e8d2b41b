"""The NCCL RAS parsers and detector on replies captured from a real NCCL 2.28.9 job (H100).

tests/data/nccl_gpu/README.md says how they were made. Each reply is replayed at the moment it
was captured; the job's pace (its last step, its learned stall window) is what rankwatch
measured in the same run (alerts.jsonl, metrics.txt), and the lagging rank's host state is
classified from the py-spy dumps rankwatch took there.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest

from monitor.detectors.nccl import NcclRasDetector
from monitor.incidents import JobView
from monitor.model import Severity, Transition
from monitor.parse.ras_json import parse_json
from monitor.parse.ras_model import RasReport, RasSnapshot
from monitor.parse.ras_text import parse_text
from monitor.parse.stacks import classify_main, parse_dump
from monitor.settings import RasSettings

DATA = Path(__file__).parent / "data" / "nccl_gpu"
CAPTURE_INTERVAL = 5.0
PAGE_WITHIN = 30.0  # seconds from the fault to a page naming the rank


def _replies(run: str, only: str = "") -> list[tuple[float, str, RasReport]]:
    """(capture time, kind, report) in capture order; `only` keeps one kind (rankwatch polls one
    format: a communicator's JSON key carries a secondary hash that text does not show)."""
    out = []
    for path in sorted((DATA / run / "ras").glob(f"*-{only}*.txt")):
        header, body = path.read_text().split("\n", 1)
        at = float(header.split()[2])  # "# captured <epoch> took <s>"
        kind = path.stem.split("-")[-1]
        out.append((at, kind, parse_json(body) if kind == "json" else parse_text(body)))
    return sorted(out, key=lambda r: r[0])


def _mismatched(report: RasReport) -> bool:
    """Some rank's collective counts differ from the others' (text shows only such counts)."""
    for comm in report.communicators:
        if comm.count_groups and len({g.value for g in comm.count_groups}) > 1:
            return True
        counts = {r.counts for r in comm.ranks}
        if len(counts) > 1:
            return True
    return False


def _fault_at(run: str) -> float:
    return float(json.loads((DATA / run / "mark.jsonl").read_text().splitlines()[0])["t"])


def _measured_pace(run: str) -> tuple[float, float]:
    """(last step, stall window) as rankwatch measured them in that run: its first stall page
    says how long the job had been quiet, and with what window."""
    for line in (DATA / run / "alerts.jsonl").read_text().splitlines():
        alert = json.loads(line)
        if alert["alertname"] == "ProgressStalled" and alert["status"] == "firing":
            start = dt.datetime.fromisoformat(alert["starts_at"].replace("Z", "+00:00"))
            evidence = alert["evidence"]
            return start.timestamp() - evidence["quiet_seconds"], evidence["window_seconds"]
    raise AssertionError(f"{run}: no stall page recorded")


def _host_states(run: str, pass_glob: str) -> tuple[dict[int, tuple[str, str]], float]:
    """Each rank's state from one real py-spy pass, and when that pass was taken."""
    states: dict[int, tuple[str, str]] = {}
    taken = 0.0
    for path in sorted((DATA / run / "pyspy").glob(pass_glob)):
        rank = int(re.search(r"-rank(\d+)-rank-", path.name).group(1))  # type: ignore[union-attr]
        pid = int(path.stem.rsplit("-", 1)[1])
        main = classify_main(parse_dump(path.read_text(), pid))
        states[rank] = (main.state.value, main.where)
        stamp = dt.datetime.strptime(path.name[:15], "%Y%m%dT%H%M%S").replace(tzinfo=dt.UTC)
        taken = stamp.timestamp()
    return states, taken


def test_every_captured_reply_is_read() -> None:
    """Text and JSON replies of four real runs parse as complete NCCL 2.28.9 reports, except one
    that NCCL reset mid-reply while the job died: that one is cut, and says so."""
    cut = []
    unanswered = []
    for run in ("healthy", "hang", "gpu_hang", "kill_no_teardown", "dl_stall", "sigstop",
                "debug_server"):
        for at, kind, report in _replies(run):
            if _unanswered(run, at, kind):
                unanswered.append(run)
                continue
            if not report.complete:
                assert "truncated" in report.faults, (run, at, kind)
                cut.append(run)
                continue
            assert report.recognised and report.version == (2, 28, 9), (run, at)
            assert report.unknown_lines <= 2, (run, at, report.unknown_samples)
    assert cut == ["kill_no_teardown"]
    # NCCL did not answer within the capture's 15 s only while a process was SIGSTOPped
    assert set(unanswered) == {"sigstop"}, unanswered


def _unanswered(run: str, at: float, kind: str) -> bool:
    """The capture wrote only its own note: NCCL sent nothing within its 15 s deadline."""
    for path in (DATA / run / "ras").glob(f"*-{kind}.txt"):
        header, body = path.read_text().split("\n", 1)
        if float(header.split()[2]) == at:
            return body.strip().startswith("<<capture: TimeoutError")
    raise AssertionError(f"{run}: no {kind} reply captured at {at}")


def test_a_stopped_process_is_reported_missing_then_dead_and_its_rank_named() -> None:
    """Rank 1 SIGSTOPped: RAS reports its process missing (INCOMPLETE, "Missing communicator
    data") at the first reply it answers after the stop, and DEAD about a minute later; some
    replies in between never came (RAS waited on the stopped process). Replayed, the detector
    names rank 1 as missing, then dead, and never another rank."""
    fault = _fault_at("sigstop")
    detector = NcclRasDetector(RasSettings(), view=JobView(stall_window_seconds=20.0,
                                                           steps_seen=10))
    fired: list[tuple[float, Transition]] = []
    for at, kind, report in _replies("sigstop", "text"):
        if _unanswered("sigstop", at, kind):
            continue
        snap = RasSnapshot(at=at, report=report, partial=False,
                           poll_interval_seconds=CAPTURE_INTERVAL)  # fmt: skip
        fired += [(at, o) for o in detector.observe(snap, at)
                  if isinstance(o, Transition) and o.firing]
    names = [(t.alertname, t.culprit_ranks) for _at, t in fired]
    assert names == [("RasRanksMissing", (1,)), ("RankDead", (1,))], names
    missing_at, dead_at = fired[0][0], fired[1][0]
    assert missing_at - fault <= 2 * CAPTURE_INTERVAL
    assert dead_at > missing_at + 30
    assert "641" in fired[1][1].summary  # rank 1's pid in that run


def test_a_real_mismatch_names_the_rank_that_never_launched() -> None:
    """RAS text shows counts only inside a MISMATCH: the stuck rank and its process."""
    fault = _fault_at("hang")
    after = [r for at, kind, r in _replies("hang") if at > fault + CAPTURE_INTERVAL and kind == "text"]
    comm = after[0].communicators[0]
    (lagging,) = [g for g in comm.count_groups if g.ranks]
    assert (lagging.op, lagging.size, [r.rank for r in lagging.ranks]) == ("AllReduce", 1, [2])
    assert max(g.value for g in comm.count_groups) == lagging.value + 1


def test_a_dead_process_is_reported_dead_and_its_rank_named() -> None:
    """Without a launcher that tears the job down, RAS reports the killed rank's process DEAD."""
    dead = [r for _at, _k, r in _replies("kill_no_teardown") if r.dead_count]
    assert dead, "no reply reports a dead process"
    assert {p.pid for p in dead[-1].dead_processes} == {653}  # rank 2's pid in that run


@pytest.mark.parametrize("run,stack_pass,host", [
    ("hang", "*round14.0-rank*-rank-*.json", "rank 2's host is in compute"),
    ("gpu_hang", "*round18.0-rank*-rank-*.json", "rank 2's host is in compute"),
    ("dl_stall", "*round14.0-rank*-rank-*.json", "rank 2 waits for a batch at torch/utils/data"),
])
@pytest.mark.parametrize("kind", ["text", "json"])
def test_the_stuck_rank_is_paged_within_30_s_of_the_fault(
    run: str, stack_pass: str, host: str, kind: str
) -> None:
    """The replies in their real timing, the job's measured pace and the real stacks: a
    critical CollectiveDesync names rank 2 within 30 s of the fault, long before the watchdog.
    Decided together: the job's steps stopped for its own stall window, two looks saw the same
    mismatch, and rank 2's own stack is outside any collective (in `dl_stall` its main thread
    waits for a batch from the DataLoader worker that blocked)."""
    fault = _fault_at(run)
    last_step, window = _measured_pace(run)
    states, sampled_at = _host_states(run, stack_pass)
    assert states[2][0] != "in_collective"
    view = JobView(last_progress_at=last_step, stall_window_seconds=window, steps_seen=10)
    detector = NcclRasDetector(RasSettings(), view=view)
    pages: list[tuple[float, Transition]] = []
    for at, _kind, report in _replies(run, kind):
        if at >= sampled_at:
            view.host_states = states
            view.host_sampled_at = dict.fromkeys(states, sampled_at)
        snap = RasSnapshot(at=at, report=report, partial=False,
                           poll_interval_seconds=CAPTURE_INTERVAL)  # fmt: skip
        for out in detector.observe(snap, at):
            if isinstance(out, Transition) and out.firing:
                pages.append((at, out))
    critical = [(at, t) for at, t in pages if t.severity is Severity.CRITICAL]
    assert critical, [t.summary for _at, t in pages]
    at, page = critical[0]
    assert page.alertname == "CollectiveDesync" and page.culprit_ranks == (2,)
    assert host in page.summary
    # No later than the job's pace allows: the first reply past its stall window that follows
    # a reply already showing the mismatch.
    replies = _replies(run, kind)
    seen = min(a for a, _k, r in replies if a > fault and _mismatched(r))
    due = min(a for a, _k, _r in replies if a > seen and a >= last_step + window)
    assert at <= due, (at - fault, due - fault)
    if kind == "text":  # one reply every 5 s, as with a short poll interval
        assert at - fault <= PAGE_WITHIN, at - fault


def test_stacks_taken_before_the_stall_do_not_decide_it() -> None:
    """The same replay with only start-up stacks (taken before the fault): the mismatch is still
    reported, but as a warning: a stack from before the stall says nothing about it."""
    last_step, window = _measured_pace("hang")
    states, sampled_at = _host_states("hang", "*round13.0-rank*-rank-*.json")
    assert sampled_at < last_step
    view = JobView(last_progress_at=last_step, stall_window_seconds=window, steps_seen=10,
                   host_states=states, host_sampled_at=dict.fromkeys(states, sampled_at))  # fmt: skip
    detector = NcclRasDetector(RasSettings(), view=view)
    fault = _fault_at("hang")
    first: list[Transition] = []
    for at, _kind, report in _replies("hang", "text"):
        if at > fault + PAGE_WITHIN:
            break
        snap = RasSnapshot(at=at, report=report, partial=False,
                           poll_interval_seconds=CAPTURE_INTERVAL)  # fmt: skip
        first += [o for o in detector.observe(snap, at) if isinstance(o, Transition) and o.firing]
    assert [(t.alertname, t.severity, t.culprit_ranks) for t in first] == [
        ("CollectiveDesync", Severity.WARNING, (2,))
    ]


def test_a_healthy_real_job_gets_no_alert_from_its_replies() -> None:
    """The healthy run stepped throughout; one reply caught a passing MISMATCH (a rank one
    operation behind): nothing fires."""
    view = JobView(stall_window_seconds=20.0, steps_seen=10)
    detector = NcclRasDetector(RasSettings(), view=view)
    fired = []
    for at, _kind, report in _replies("healthy", "text"):
        view.last_progress_at = at - 1.0  # it printed a step every ~1.2 s
        snap = RasSnapshot(at=at, report=report, partial=False,
                           poll_interval_seconds=CAPTURE_INTERVAL)  # fmt: skip
        fired += [o for o in detector.observe(snap, at) if isinstance(o, Transition)]
    assert fired == []
    assert any(_mismatched(r) for _a, _k, r in _replies("healthy"))
