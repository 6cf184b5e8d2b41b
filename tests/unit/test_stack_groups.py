"""The odd one out: ranks grouped by stack signature, and the stack detector naming the rank
whose stack differs from a stuck majority when no frame is recognised as a wait."""

from __future__ import annotations

import json

from monitor.detectors.stacks import StackDetector
from monitor.incidents import JobView, Lifecycle
from monitor.model import (
    Category,
    DetectorOutput,
    ProcessInfo,
    ProcessSnapshot,
    ProcRole,
    ProcState,
    Severity,
    Transition,
)
from monitor.parse.stack_groups import group_stacks, odd_ones_out
from monitor.parse.stacks import (
    DumpResult,
    MainState,
    ProcReading,
    StackPass,
    StackSample,
    classify_main,
    parse_dump,
    stack_signature,
)
from monitor.settings import ProgressSettings, PyspySettings

# A vendor's communication library nobody's table knows: the waiting ranks sit in it.
VENDOR_WAIT = [("vendor_comm/engine.py", 88, "Engine.wait_for_peers"),
               ("train.py", 61, "train_step"), ("train.py", 90, "main")]  # fmt: skip
USER_DEADLOCK = [("train.py", 40, "gather_metrics"), ("train.py", 59, "train_step"),
                 ("train.py", 90, "main")]  # fmt: skip


def dump_text(pid: int, frames: list[tuple[str, int, str]]) -> str:
    return json.dumps([{
        "pid": pid, "thread_id": 1, "thread_name": "MainThread", "os_thread_id": pid,
        "active": False, "owns_gil": False,
        "frames": [{"name": fn, "filename": f"/job/{f}", "module": None, "short_filename": f,
                    "line": line, "locals": None, "is_entry": False, "is_shim_entry": False}
                   for f, line, fn in frames],
        "process_info": None,
    }])  # fmt: skip


# ------------------------------------------------------------------------------------------
# Pure grouping


def test_a_signature_names_the_place_not_the_process() -> None:
    a = classify_main(parse_dump(dump_text(11, VENDOR_WAIT), 11))
    b = classify_main(parse_dump(dump_text(12, VENDOR_WAIT), 12))
    c = classify_main(parse_dump(dump_text(13, USER_DEADLOCK), 13))
    moved = [(f, line + 1, fn) for f, line, fn in VENDOR_WAIT]
    d = classify_main(parse_dump(dump_text(14, moved), 14))
    assert a.signature == b.signature != c.signature
    assert d.signature != a.signature  # another line is another place
    assert a.state is MainState.COMPUTE  # nothing recognised the wait
    assert stack_signature(()) == stack_signature(())


def test_the_majority_is_more_than_half_and_the_rest_are_the_outliers() -> None:
    odd = odd_ones_out({0: "w", 1: "w", 2: "w", 3: "x", 4: "w", 5: "y"})
    assert odd is not None
    assert odd.majority.ranks == (0, 1, 2, 4) and odd.outliers == (3, 5)
    assert [g.ranks for g in odd.groups] == [(0, 1, 2, 4), (3,), (5,)]


def test_no_majority_no_outlier() -> None:
    assert odd_ones_out({0: "w", 1: "w", 2: "x", 3: "x"}) is None  # half is not a majority
    assert odd_ones_out({0: "w", 1: "x"}) is None  # two ranks: who is odd?
    assert odd_ones_out({0: "w", 1: "w", 2: "w"}) is None  # all alike: nobody is odd
    assert odd_ones_out({0: "a", 1: "b", 2: "c"}) is None
    assert group_stacks({}) == ()


# ------------------------------------------------------------------------------------------
# In the stack detector

PIDS = {0: 300, 1: 301, 2: 302, 3: 303}


class FourRanks:
    """Four local ranks; the job's pace is known (10 s window) and it last stepped at t=1000."""

    def __init__(self, stacks: dict[int, list[tuple[str, int, str]]]) -> None:
        self.view = JobView(lifecycle=Lifecycle.RUNNING, stall_window_seconds=10.0,
                            last_progress_at=1000.0)  # fmt: skip
        self.detector = StackDetector(PyspySettings(), ProgressSettings(), self.view)
        self.stacks = stacks
        self.cpu = dict.fromkeys(PIDS.values(), 1.0)
        self.round = 0
        self.out: list[DetectorOutput] = []

    def snapshot(self, now: float) -> None:
        infos = tuple(
            ProcessInfo(
                pid,
                1,
                ProcRole.RANK,
                rank,
                rank,
                None,
                "python",
                ProcState.SLEEPING,
                self.cpu[pid],
                0,
                1,
                True,
                True,
            )
            for rank, pid in PIDS.items()
        )
        self.out += self.detector.observe(ProcessSnapshot(now, infos, 1, 1), now)

    def dump_pass(self, now: float) -> list[Transition]:
        self.round += 1
        got: list[DetectorOutput] = []
        for rank, pid in PIDS.items():
            main = classify_main(parse_dump(dump_text(pid, self.stacks[rank]), pid))
            sample = StackSample(
                at=now, pid=pid, role=ProcRole.RANK, rank=rank, rank_pid=None,
                round_id=self.round, pass_index=0, result=DumpResult.OK, message="", main=main,
                worker=None, proc=ProcReading(ProcState.SLEEPING, "futex", self.cpu[pid], 0),
                dump_path=f"/state/pyspy/{pid}-{self.round}.json", duration_seconds=0.02,
            )  # fmt: skip
            got += self.detector.observe(sample, now)
        got += self.detector.observe(
            StackPass(now, self.round, 0, 1, "test", tuple(PIDS.values())), now
        )
        got += self.detector.tick(now)
        self.out += got
        return [o for o in got if isinstance(o, Transition)]


def stuck_job() -> FourRanks:
    return FourRanks({0: VENDOR_WAIT, 1: VENDOR_WAIT, 2: USER_DEADLOCK, 3: VENDOR_WAIT})


def test_the_rank_whose_stack_differs_from_a_stuck_majority_is_named_as_a_suspect() -> None:
    job = stuck_job()
    for t in range(1000, 1045, 5):
        job.snapshot(float(t))
    assert job.dump_pass(1040.0) == []  # one look is not a verdict
    fired = job.dump_pass(1043.0)
    assert [(t.alertname, t.culprit_ranks) for t in fired] == [("RankNotInCollective", (2,))]
    alert = fired[0]
    # Nothing recognised the others' wait: suspected, not a page on its own.
    assert (alert.severity, alert.category) == (Severity.WARNING, Category.COLLECTIVE_DESYNC)
    assert alert.summary.startswith("rank 2 is the odd one out while the job has made no step")
    assert "ranks 0,1,3 all show one stack (at vendor_comm/engine.py:88" in alert.summary
    assert "train.py:40 gather_metrics" in alert.summary
    groups = alert.evidence["stack_groups"]
    assert [g["ranks"] for g in groups] == [[0, 1, 3], [2]]  # type: ignore[index]
    assert alert.evidence["waiting_ranks"] == [0, 1, 3]


def test_a_job_that_still_steps_names_nobody_however_its_stacks_differ() -> None:
    job = stuck_job()
    job.view.last_progress_at = 1041.0
    for t in range(1000, 1045, 5):
        job.snapshot(float(t))
    job.dump_pass(1040.0)
    assert job.dump_pass(1043.0) == []


def test_a_majority_that_computes_is_not_waiting_for_anyone() -> None:
    job = stuck_job()
    for t in range(1000, 1045, 5):
        job.snapshot(float(t))
    job.dump_pass(1040.0)
    for pid in (300, 301, 303):
        job.cpu[pid] += 3.0  # ranks 0, 1, 3 used CPU between the two looks
    assert job.dump_pass(1043.0) == []


def test_a_majority_that_moves_between_looks_is_not_stuck() -> None:
    job = stuck_job()
    for t in range(1000, 1045, 5):
        job.snapshot(float(t))
    job.dump_pass(1040.0)
    job.stacks = {r: [(f, line + 3, fn) for f, line, fn in s] if r != 2 else s
                  for r, s in job.stacks.items()}  # fmt: skip
    assert job.dump_pass(1043.0) == []


def test_signatures_are_exported_only_while_the_job_is_overdue() -> None:
    job = stuck_job()
    for t in range(1000, 1045, 5):
        job.snapshot(float(t))
    job.dump_pass(1040.0)
    job.dump_pass(1041.0)  # a signature is exported once two looks agree

    def series(now: float) -> list[tuple[tuple[str, ...], float]]:
        (family,) = [f for f in job.detector.metric_families(now)
                     if f.name == "rank_stack_signature"]  # fmt: skip
        return list(family.samples)

    assert len(series(1042.0)) == 4
    assert len({labels[1] for labels, _ in series(1042.0)}) == 2
    job.view.last_progress_at = 1041.5
    assert series(1042.0) == []
