"""Clock skew between nodes in a triage: inferred, measured or given, applied and said out loud.

The jobs here are two nodes of eight ranks (node0: ranks 0-7, node1: ranks 8-15) written with
real line formats; NCCL init lines name each file's host. `skew` puts node1's clock that many
seconds behind true time (its stamps are early by as much).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import gzip
import json
import math
from pathlib import Path

import pytest

from exporters.jsonlog import JsonLogSink
from monitor.alerts import AlertPolicy
from monitor.detectors.time_sync import OFFSET_HIGH, ClockDetector
from monitor.model import Category, Transition
from monitor.parse.time_sync_model import ClockMeasurement, ClockReading
from monitor.settings import ClockSettings
from monitor.triage.analysis import Diagnosis, diagnose
from monitor.triage.clocks import (
    INFERRED,
    MEASURED,
    REFERENCE,
    DomainClock,
    SkewOptions,
    order_uncertain,
    seconds_text,
)
from monitor.triage.reader import read_inputs
from monitor.triage.report import render_markdown, render_text, to_json_dict
from tests.logformats import (
    BASE,
    dump_signal_observed,
    failure_detected,
    first_to_signal,
    megatron_iteration,
    nccl_init,
    teardown,
    watchdog_timeout,
    write_lines,
)

SEQ = 1000
AT = BASE + dt.timedelta(minutes=10)
RANKS = 16
STRAGGLER = 11  # on node1


def _host(rank: int) -> str:
    return f"node{rank // 8}"


def _job(root: Path, *, skew: float, straggler: int | None = STRAGGLER, hosts: bool = True,
         entry_lag: dict[int, float] | None = None) -> list[Path]:
    """Rank 0 times out first and signals the flight-recorder dump; the other ranks time out
    a few ms apart; the straggler never entered the collective and observes the signal 0.3 s
    later. `entry_lag` delays a rank's entry into the collective (its timeout follows)."""
    root.mkdir(exist_ok=True)
    paths = []
    for rank in range(RANKS):
        behind = dt.timedelta(seconds=skew if rank >= 8 else 0.0)
        lag = dt.timedelta(seconds=(entry_lag or {}).get(rank, 0.0))
        at = AT + dt.timedelta(milliseconds=rank * 3) + lag - behind
        lines = [nccl_init(_host(rank), 4000 + rank, rank, RANKS)] if hosts else []
        lines += [megatron_iteration(i) for i in range(1, 3)]
        if rank == straggler:
            lines += dump_signal_observed(rank, 0, SEQ - 1, SEQ - 1,
                                          AT - behind + dt.timedelta(milliseconds=300))
        else:
            lines.append(watchdog_timeout(rank, SEQ, at))
            lines.append(failure_detected(rank, SEQ, SEQ + 2, SEQ - 1,
                                          at + dt.timedelta(microseconds=90)))
            if rank == 0:
                lines.append(first_to_signal(rank, at + dt.timedelta(microseconds=120)))
            lines += teardown(rank, at + dt.timedelta(milliseconds=400))
        paths.append(write_lines(root / f"rank{rank:02d}.log", lines))
    return paths


def _triage(*paths: Path, offsets: dict[str, float] | None = None,
            options: SkewOptions | None = None) -> Diagnosis:
    scans, problems, _ = read_inputs([str(p) for p in paths])
    return diagnose(scans, problems, clock_offsets=offsets, skew=options)


def _clock(d: Diagnosis, domain: str) -> DomainClock:
    assert d.clock is not None
    return next(c for c in d.clock.domains if c.domain == domain)


def _line_of(path: Path, needle: str) -> int:
    lines = path.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


# --- inferred skew ---------------------------------------------------------------------------


def test_node_45_s_behind_is_flagged_with_the_inferred_offset_and_its_evidence(
        tmp_path: Path) -> None:
    """node1's clock is 45 s behind: its straggler reads rank 0's dump signal 44.7 s "before"
    rank 0 sent it. The report flags the skew, states node1's correction (a range that holds
    45 s) with the two lines as evidence, and the culprit stays rank 11."""
    _job(tmp_path, skew=45.0)
    d = _triage(tmp_path)
    assert (d.category, d.culprit_ranks) == (Category.COLLECTIVE_DESYNC, (STRAGGLER,))
    assert d.clock is not None and d.clock.flagged
    node1, node0 = _clock(d, "node1"), _clock(d, "node0")
    assert (node0.basis, node0.correction_seconds) == (REFERENCE, 0.0)
    assert node1.basis == INFERRED and node1.proven
    assert node1.low_seconds is not None and node1.high_seconds is not None
    assert node1.low_seconds <= 45.0 <= node1.high_seconds
    assert node1.high_seconds - node1.low_seconds < 2.5  # no more precision than the evidence
    assert 44.0 < node1.correction_seconds < 46.5
    signal = f"{tmp_path / 'rank00.log'}:{_line_of(tmp_path / 'rank00.log', 'signal dumping')}"
    observed = f"{tmp_path / 'rank11.log'}:{_line_of(tmp_path / 'rank11.log', 'from  rank 0')}"
    order = next(e for e in node1.evidence if e.kind == "order")
    assert order.locations == (signal, observed)
    note = d.clock.notes[0]
    assert note.startswith("clock skew: the clock of node1 runs about") and "behind" in note
    assert signal in note and observed in note
    assert d.clock.headline in d.findings
    assert d.clock.headline.startswith("clock skew between nodes: node1 runs about 45")


def test_corrected_timeline_and_causal_chain_follow_true_time(tmp_path: Path) -> None:
    """Uncorrected, node1's lines (stamped 45 s early) would open the timeline and the stuck
    collective would seem to time out at 10:09:15. With the inferred correction the first
    timeout is rank 0's at 10:10:00, node1's entries carry their correction, and the chain puts
    rank 0's signal before the straggler's reading of it, marking the cross-node steps whose
    order the remaining uncertainty cannot settle."""
    _job(tmp_path, skew=45.0)
    d = _triage(tmp_path)
    assert d.stuck[0].timed_out_at == "03-04 10:10:00.000000"
    assert d.timeline[0].file.endswith("rank00.log")
    assert not any(t.time and t.time.startswith("03-04 10:09:1") for t in d.timeline)
    moved = [t for t in d.timeline if t.clock_domain == "node1" and t.time is not None]
    assert moved and all(t.clock_correction == _clock(d, "node1").correction_seconds
                         for t in moved)
    assert all(t.stamp is not None and t.stamp.startswith("03-04 10:09:1") for t in moved)
    chain = list(d.causal_chain)
    signal = next(i for i, s in enumerate(chain) if "signalled the flight-recorder" in s.what)
    straggler = next(i for i, s in enumerate(chain) if s.file.endswith("rank11.log"))
    assert signal < straggler
    assert chain[straggler].order_uncertain and chain[signal].order_uncertain
    assert d.clock is not None and d.clock.uncertain_entries > 0


def test_skew_seen_only_in_timeouts_that_fire_together_is_suspected_not_proven(
        tmp_path: Path) -> None:
    """No rank observed a signal, all sixteen timed out: node1's timeouts are stamped 45 s
    before node0's. The report flags a suspected skew (clock off, or ranks that entered
    45 s apart), corrects by the middle of the range, and keeps "no skew" inside the
    uncertainty, so every cross-node entry in that stretch is marked."""
    _job(tmp_path, skew=45.0, straggler=None)
    d = _triage(tmp_path)
    assert d.category is Category.COLLECTIVE_HANG
    node1 = _clock(d, "node1")
    assert node1.basis == INFERRED and not node1.proven
    assert node1.low_seconds is not None and node1.high_seconds is not None
    assert node1.low_seconds < 45.0 < node1.high_seconds
    assert abs(node1.correction_seconds - 45.0) < 0.1
    assert node1.window[0] <= -node1.correction_seconds  # zero correction still possible
    assert d.clock is not None and d.clock.flagged
    assert d.clock.notes[0].startswith("clock skew suspected")
    assert "entered the collective" in d.clock.notes[0]
    assert all(t.order_uncertain for t in d.timeline if t.clock_domain == "node1"
               and t.kind == "watchdog_timeout")


def test_the_together_window_is_a_setting(tmp_path: Path) -> None:
    """Ranks of node1 that entered the collective 3 s late are no skew with the default 5 s
    window; a 1 s window makes it a suspected skew."""
    _job(tmp_path, skew=0.0, straggler=None, entry_lag={r: 3.0 for r in range(8, 16)})
    plain = _triage(tmp_path)
    assert plain.clock is not None and not plain.clock.flagged and not plain.clock.applied
    strict = _triage(tmp_path, options=SkewOptions(together_seconds=1.0))
    assert strict.clock is not None and strict.clock.flagged
    assert _clock(strict, "node1").correction_seconds < 0  # node1 looks ahead


def test_files_without_a_host_are_their_own_clocks(tmp_path: Path) -> None:
    """Without NCCL lines naming hosts each file is a clock: the straggler's file is corrected
    from the order evidence; timeouts of other files are not assumed simultaneous."""
    _job(tmp_path, skew=45.0, hosts=False)
    d = _triage(tmp_path)
    rank11 = _clock(d, str(tmp_path / "rank11.log"))
    assert (rank11.kind, rank11.basis) == ("file", INFERRED)
    assert 44.0 < rank11.correction_seconds < 46.5
    assert all(c.correction_seconds == 0.0 for c in d.clock.domains  # type: ignore[union-attr]
               if c.domain != rank11.domain)
    assert d.culprit_ranks == (STRAGGLER,)


def test_threshold_decides_the_flag_not_the_correction(tmp_path: Path) -> None:
    """With a 60 s threshold the 45 s skew is still corrected and noted, but not flagged."""
    _job(tmp_path, skew=45.0)
    d = _triage(tmp_path, options=SkewOptions(threshold_seconds=60.0))
    assert d.clock is not None and not d.clock.flagged and d.clock.applied
    assert "below the 60 s threshold" in d.clock.notes[0]
    assert not any("clock" in f for f in d.findings)


def test_a_restarted_job_that_failed_twice_is_read_safely(tmp_path: Path) -> None:
    """Each log holds two failures two hours apart (the job restarted and hung at the same
    collective again). Which signal an observer read is then ambiguous: only the safe bound
    (after the first signal) is used, no mixed-up latency bound; synchronised clocks raise no
    flag, and a 45 s skew is still found within an honest range."""
    for skew, flagged in ((0.0, False), (45.0, True)):
        first, second = tmp_path / f"first{skew:g}", tmp_path / f"second{skew:g}"
        _job(first, skew=skew)
        _job(second, skew=skew)
        both = tmp_path / f"both{skew:g}"
        both.mkdir()
        for path in sorted(first.iterdir()):
            later = [_later(line, hours=2) for line in (second / path.name).read_text().splitlines()]
            write_lines(both / path.name, [*path.read_text().splitlines(), *later])
        d = _triage(both)
        assert d.clock is not None and d.clock.flagged is flagged
        assert d.culprit_ranks == (STRAGGLER,)
        if flagged:
            node1 = _clock(d, "node1")
            assert node1.low_seconds is not None and node1.low_seconds <= 45.0
            assert node1.high_seconds is None or node1.high_seconds >= 45.0


def _later(line: str, hours: int) -> str:
    """The same glog line stamped `hours` later (same day)."""
    return line.replace("[E304 10:", f"[E304 {10 + hours}:").replace("[E304 09:",
                                                                    f"[E304 {9 + hours:02d}:")


# --- no false flags --------------------------------------------------------------------------


def test_synchronised_nodes_raise_no_flag_and_move_nothing(tmp_path: Path) -> None:
    """The same job with synchronised clocks: no correction, no note, no uncertain entry."""
    _job(tmp_path, skew=0.0)
    d = _triage(tmp_path)
    assert d.clock is not None
    assert (d.clock.flagged, d.clock.applied, d.clock.notes, d.clock.uncertain_entries) == (
        False, False, (), 0)
    assert not any(t.order_uncertain or t.clock_correction for t in d.timeline)
    assert "CLOCK" not in render_text(d)


DATA = Path(__file__).resolve().parent.parent / "data" / "logs"


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.log")))
def test_corpus_logs_raise_no_clock_flag(name: str) -> None:
    """Every real excerpt: nothing flagged, corrected or marked."""
    d = _triage(DATA / name)
    assert d.clock is not None
    assert (d.clock.flagged, d.clock.applied, d.clock.uncertain_entries) == (False, False, 0)
    assert d.clock.notes == ()


def test_whole_corpus_at_once_raises_no_clock_flag() -> None:
    """Twenty-four unrelated logs read together find no cross-node evidence to misuse."""
    d = _triage(DATA)
    assert d.clock is not None and not d.clock.flagged and not d.clock.applied


# --- measured and given offsets --------------------------------------------------------------


def _alert_log(path: Path, node: str, offset: float) -> Path:
    """A rankwatch alert log as the daemon writes it: the clock detector measures `offset`,
    the alert policy makes the record, the JSON-lines sink writes it."""
    detector = ClockDetector(ClockSettings(), node)
    wall = 1_795_000_000.0
    detector.observe(ClockReading(at=10.0, wall_seconds=wall, wall_delta_seconds=0.0,
                                  monotonic_delta_seconds=0.0, adjusted_delta_seconds=0.0,
                                  raw_delta_seconds=0.0, uncertainty_seconds=1e-6, first=True),
                     10.0)
    outputs = detector.observe(ClockMeasurement(
        at=20.0, reference="ntp1:123", method="sntp", offset_seconds=offset,
        uncertainty_seconds=0.002, synchronised=True, leap_pending=False, stratum=2,
        delay_seconds=0.0005, wall_seconds=wall + 10.0), 20.0)
    (transition,) = [o for o in outputs if isinstance(o, Transition)
                     and o.alertname == OFFSET_HIGH]
    record = AlertPolicy("job7", node, "https://runbooks.example/").apply(transition, wall)
    assert record is not None
    sink = JsonLogSink(str(path))
    sink.submit(record)
    asyncio.run(sink.aclose(1.0))
    return path


def test_offset_measured_by_rankwatch_is_applied_and_suppresses_the_flag(tmp_path: Path) -> None:
    """The alert log given as an input holds node1's measured offset (-45 s, ±2 ms): it is
    applied as measured, the logs agree with it, nothing is flagged, and the alert log is not
    mistaken for a training log."""
    jobs = tmp_path / "job"
    _job(jobs, skew=45.0)
    alerts = _alert_log(tmp_path / "alerts.jsonl", "node1", -45.0)
    d = _triage(jobs, alerts)
    node1 = _clock(d, "node1")
    assert (node1.basis, node1.correction_seconds) == (MEASURED, 45.0)
    assert node1.source is not None and node1.source.startswith(f"{alerts}:1 ")
    assert d.clock is not None and not d.clock.flagged and d.clock.violations == ()
    assert "agree with it" in d.clock.notes[0]
    assert d.culprit_ranks == (STRAGGLER,)
    assert d.stuck[0].timed_out_at == "03-04 10:10:00.000000"
    scans, _, _ = read_inputs([str(alerts)])
    assert scans[0].alert_log and scans[0].events == [] and len(scans[0].clock_records) == 1


def test_gzipped_alert_log_is_read_too(tmp_path: Path) -> None:
    """A rotated, gzipped alert log gives the same measurement."""
    jobs = tmp_path / "job"
    _job(jobs, skew=45.0)
    plain = _alert_log(tmp_path / "alerts.jsonl", "node1", -45.0)
    packed = tmp_path / "alerts.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    plain.unlink()
    node1 = _clock(_triage(jobs, packed), "node1")
    assert (node1.basis, node1.correction_seconds) == (MEASURED, 45.0)


def test_json_lines_that_are_not_alerts_stay_a_training_log(tmp_path: Path) -> None:
    """Structured JSON logs are still searched for training events."""
    line = json.dumps({"event": "x", "msg": watchdog_timeout(0, 5, AT)})
    scans, _, _ = read_inputs([str(write_lines(tmp_path / "app.jsonl", [line]))])
    assert not scans[0].alert_log and scans[0].counts.get("watchdog_timeout") == 1


def test_given_offset_suppresses_the_flag(tmp_path: Path) -> None:
    """--clock-offset node1=45 says what the logs show: it is applied as given, nothing is
    flagged, and the timeline equals that of synchronised clocks."""
    _job(tmp_path / "skewed", skew=45.0)
    _job(tmp_path / "fine", skew=0.0)
    given = _triage(tmp_path / "skewed", offsets={"node1": 45.0})
    fine = _triage(tmp_path / "fine")
    assert given.clock is not None and not given.clock.flagged
    assert (_clock(given, "node1").basis, _clock(given, "node1").correction_seconds) == (
        "given", 45.0)
    assert [(t.file.rsplit("/", 1)[-1], t.line, t.time) for t in given.timeline] == [
        (t.file.rsplit("/", 1)[-1], t.line, t.time) for t in fine.timeline]
    assert not any(t.order_uncertain for t in given.timeline)


def test_given_offset_the_logs_contradict_leaves_a_violation(tmp_path: Path) -> None:
    """--clock-offset node0=0 node1=10 where the order of events needs 44.7 s or more: the
    order violation that remains is reported with both lines, flagged, and the affected entries
    are marked instead of being shown in a confident order."""
    _job(tmp_path, skew=45.0)
    d = _triage(tmp_path, offsets={"node0": 0.0, "node1": 10.0})
    assert d.clock is not None and d.clock.flagged
    (violation,) = d.clock.violations
    assert (violation.cause_domain, violation.effect_domain) == ("node0", "node1")
    assert violation.effect.startswith(str(tmp_path / "rank11.log"))
    assert 34.0 < violation.seconds < 35.0
    assert violation.text in d.clock.notes
    assert d.clock.headline.startswith("clock disagreement beyond the known skew")
    assert d.clock.headline in d.findings
    assert any(t.order_uncertain for t in d.timeline if t.clock_domain == "node1")
    straggler = next(s for s in d.causal_chain if s.file.endswith("rank11.log"))
    assert straggler.order_uncertain


def test_unknown_clock_offset_name_is_noted(tmp_path: Path) -> None:
    """A --clock-offset for a host that is not in the logs is reported, not silently lost."""
    _job(tmp_path, skew=0.0)
    d = _triage(tmp_path, offsets={"gpu999": 3.0})
    assert d.clock is not None
    assert any("gpu999" in n and "not applied" in n for n in d.clock.notes)


def test_file_offset_by_base_name_still_works(tmp_path: Path) -> None:
    """--clock-offset rank11.log=45 corrects that file alone: it becomes its own clock; a base
    name shared by files in two directories applies to both."""
    _job(tmp_path, skew=45.0)
    d = _triage(tmp_path, offsets={"rank11.log": 45.0})
    own = _clock(d, str(tmp_path / "rank11.log"))
    assert (own.basis, own.correction_seconds, own.kind) == ("given", 45.0, "file")
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    write_lines(a / "out.log", [watchdog_timeout(0, 9, AT)])
    write_lines(b / "out.log", [watchdog_timeout(1, 9, AT + dt.timedelta(seconds=30))])
    both = _triage(a, b, offsets={"out.log": -5.0})
    assert {(c.domain, c.correction_seconds) for c in both.clock.domains  # type: ignore[union-attr]
            } == {(str(a / "out.log"), -5.0), (str(b / "out.log"), -5.0)}


# --- reports ---------------------------------------------------------------------------------


def test_text_markdown_and_json_say_so(tmp_path: Path) -> None:
    """Every format carries the clock verdict: text and Markdown a clock-skew section and ~
    marks; JSON a `clock` object with each domain's correction, range, basis and evidence
    file:line, and the per-entry correction and uncertainty."""
    _job(tmp_path, skew=45.0)
    d = _triage(tmp_path)
    text = render_text(d)
    assert "CLOCK SKEW: node timestamps disagree" in text
    assert "node1: +45" in text and "timeline entries marked ~" in text
    assert any(line.startswith(" ~") for line in text.splitlines())
    markdown = render_markdown(d)
    assert "## Clock skew: node timestamps disagree" in markdown
    report = json.loads(json.dumps(to_json_dict(d)))
    clock = report["clock"]
    assert clock["flagged"] and clock["corrected"]
    node1 = next(c for c in clock["domains"] if c["domain"] == "node1")
    assert node1["basis"] == "inferred" and node1["proven"]
    assert node1["clock_offset_seconds"] == -node1["correction_seconds"]
    low, high = node1["range_seconds"]
    assert low <= 45.0 <= high
    assert any(loc.startswith(str(tmp_path / "rank11.log") + ":")
               for e in node1["evidence"] for loc in e["locations"])
    entry = next(t for t in report["timeline"] if t["clock_domain"] == "node1")
    assert entry["clock_correction_seconds"] == node1["correction_seconds"]
    assert entry["stamp"] is not None and isinstance(entry["order_uncertain"], bool)
    assert any(step["order_uncertain"] for step in report["causal_chain"])


# --- pieces ----------------------------------------------------------------------------------


def test_order_uncertain_counts_windows_across_domains_only() -> None:
    """An entry is uncertain when another domain's entry falls inside its window (or it inside
    another's); one domain's entries share a clock; two exact stamps are no ambiguity."""
    items = [
        (10.0, "a", 0.0, 0.0),  # inside b's window
        (10.5, "b", -1.0, 1.0),
        (11.0, "b", -1.0, 1.0),
        (20.0, "a", 0.0, 0.0),  # 9 s after b's window ends
        (20.0, "c", 0.0, 0.0),  # an exact stamp beside an exact stamp
        (None, "a", 0.0, 0.0),  # no time at all
    ]
    assert order_uncertain(items) == [True, True, True, False, False, False]
    assert order_uncertain([(1.0, "a", -5.0, 5.0), (2.0, "a", 0.0, 0.0)]) == [False, False]
    open_past = [(5.0, "a", 0.0, 0.0), (30.0, "b", -math.inf, 0.0), (40.0, "a", 0.0, 0.0)]
    assert order_uncertain(open_past) == [True, True, False]


def test_seconds_are_printed_with_the_precision_the_range_allows() -> None:
    """45.7 ± 1 s prints one decimal; a 10 s range prints none; an exact value three."""
    assert seconds_text(45.7, 2.0) == "45.7 s"
    assert seconds_text(45.7, 10.0) == "46 s"
    assert seconds_text(45.7, 0.0) == "45.700 s"
