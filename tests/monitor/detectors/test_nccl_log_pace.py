"""Operation counts in the job's log lines pace the NCCL detector before RAS gives a rate.

Text RAS replies show counts only inside a MISMATCH, so a communicator frozen in its first
MISMATCH has no RAS rate: without log lines it waits the 30 s floor; with NCCL COLL lines
showing the job at 40 operations per second it is judged at the paced floor (15 s)."""

from __future__ import annotations

from dataclasses import replace

from monitor.detectors.nccl import NcclRasDetector
from monitor.detectors.op_pace import MAX_COMMS, OpPace
from monitor.model import OutputChunk, OutputLine, Severity, Transition
from monitor.parse.op_counts import OpCount
from monitor.parse.ras_model import RasSnapshot
from monitor.settings import RasSettings
from tests.fake_ras import Event
from tests.test_ras_detector import job, report_of

INTERVAL = 5.0
START = 1000.0
SETTINGS = replace(RasSettings(), interval_seconds=INTERVAL)
FREEZE = 3  # the desync script's counts stop at this poll


def coll_line(count: int, nranks: int = 16, comm: str = "0x55e290bd32d0") -> str:
    return (
        f"node3:4101:4160 [1] NCCL INFO AllReduce: opCount {count:x} sendbuff 0x7fdf541ff800 "
        f"recvbuff 0x7fdf541ff800 count 1048576 datatype 7 op 0 root 0 comm {comm} "
        f"[nranks={nranks}] stream 0x55e29067e430"
    )


def chunk(at: float, lines: list[str]) -> OutputChunk:
    return OutputChunk(at, "stdout", tuple(OutputLine(None, text) for text in lines))


def run(
    lines_until: float | None, nranks: int = 16, polls: int = 14
) -> list[tuple[float, Transition]]:
    """The desync job polled every 5 s in text; with `lines_until`, the job prints one COLL line
    per all-reduce at 40 ops/s (chunks every 0.5 s) from 30 s before the first poll until then."""
    detector = NcclRasDetector(SETTINGS, local_hosts={"10.0.0.11"})
    script = job(Event.DESYNC)
    fired: list[tuple[float, Transition]] = []
    at, count = START - 30.0, 0x1000
    for poll in range(polls):
        poll_at = START + poll * INTERVAL
        while lines_until is not None and at < min(poll_at, lines_until):
            lines = [coll_line(count + i, nranks) for i in range(20)]
            detector.observe(chunk(at, lines), at)
            at, count = at + 0.5, count + 20
        snap = RasSnapshot(
            at=poll_at,
            report=report_of(script(poll, poll * INTERVAL), "text"),
            partial=False,
            poll_interval_seconds=INTERVAL,
        )
        fired += [
            (poll_at - START, o)
            for o in detector.observe(snap, poll_at)
            if isinstance(o, Transition) and o.alertname == "CollectiveDesync"
        ]
    return fired


def test_without_log_lines_a_first_mismatch_waits_the_floor() -> None:
    fired = run(lines_until=None)
    assert fired[0][0] - FREEZE * INTERVAL == 30.0
    assert fired[0][1].evidence["pace_source"] is None


def test_log_lines_shrink_the_window_to_the_paced_floor() -> None:
    """COLL lines at 40 ops/s before any RAS rate: the frozen MISMATCH is judged at 15 s, names
    rank 5, and says how many operations are missing at the job's pace."""
    fired = run(lines_until=START + FREEZE * INTERVAL)
    seconds, alert = fired[0]
    assert seconds - FREEZE * INTERVAL == 15.0
    assert alert.severity is Severity.WARNING and alert.culprit_ranks == (5,)
    assert alert.evidence["window_seconds"] == 15.0
    assert alert.evidence["pace_source"] == "log_lines"  # nranks=16 matches the RAS comm size
    assert alert.evidence["ops_per_second"] == 40.0
    assert "600 operations missing at 40.0/s" in alert.summary


def test_log_communicators_of_another_size_pace_the_job() -> None:
    fired = run(lines_until=START + FREEZE * INTERVAL, nranks=8)
    assert fired[0][0] - FREEZE * INTERVAL == 15.0
    assert fired[0][1].evidence["pace_source"] == "log_lines_job_wide"


def op(count: int, comm: str = "h:1/0x1", op_name: str = "AllReduce") -> OpCount:
    return OpCount("nccl", comm, op_name, count, 16, None, op_name != "Send")


def test_the_longest_gap_between_advances_lengthens_the_window() -> None:
    """A job that pauses 20 s (a checkpoint) between bursts is judged at 3 x 20 s, not 15 s."""
    pace = OpPace()
    at, count = 0.0, 0
    for burst in range(4):
        for _ in range(10):
            pace.observe(op(count), at)
            at, count = at + 0.1, count + 4
        at += 20.0 if burst < 3 else 0.0
    learned = pace.pace(16, at)
    assert learned is not None and 19.9 < learned.longest_gap_seconds < 20.2
    detector = NcclRasDetector(RasSettings())
    assert detector._window([learned.longest_gap_seconds], 10.0, paced=True) > 59.0


def test_initialisation_is_not_pace() -> None:
    """A gap that spans a communicator's initialisation (an Init line, or RAS showing INIT)
    teaches nothing; what was learned before stays."""
    pace = OpPace()
    for i in range(20):
        pace.observe(op(i), i * 0.2)
    before = pace.pace(16, 4.0)
    assert before is not None and before.longest_gap_seconds < 0.3
    pace.reset()
    pace.observe(op(20), 100.0)  # 96 s later, after an init: a new baseline, not a gap
    pace.observe(op(21), 100.2)
    after = pace.pace(16, 100.2)
    assert after is not None and after.longest_gap_seconds < 0.3
    assert after.ops_per_second == before.ops_per_second


def test_init_lines_reset_the_baseline_in_the_detector() -> None:
    detector = NcclRasDetector(SETTINGS)
    for i in range(10):
        detector.observe(chunk(float(i), [coll_line(i)]), float(i))
    init = (
        "node3:4101:4160 [1] NCCL INFO ncclCommSplit comm 0x55e2 rank 1 nranks 8 cudaDev 1 "
        "nvmlDev 1 busId 1b000 parent 0x55e290bd32d0 color 1 key 1 commId 0x3a - Init START"
    )
    detector.observe(chunk(10.0, [init]), 10.0)
    detector.observe(chunk(90.0, [coll_line(10)]), 90.0)
    learned = detector._op_pace.pace(16, 90.0)
    assert learned is not None and learned.longest_gap_seconds == 1.0


def test_point_to_point_lines_and_memory_are_bounded() -> None:
    pace = OpPace()
    for i in range(5):
        pace.observe(op(i, op_name="Send"), float(i))
    assert pace.pace(16, 5.0) is None  # RAS counts collectives only
    for n in range(MAX_COMMS * 4):
        pace.observe(op(n % 7, comm=f"h:{n}/0x1"), float(n))
    assert len(pace._comms) == MAX_COMMS
