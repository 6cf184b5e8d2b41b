"""A stack taken before the job's last step says where a rank was then, not where it is now.

Seen on a loaded machine: the start-up dump caught rank 0 inside init_process_group; the job
then trained, and after a kernel on rank 1 hung, the suspicion's rounds dumped rank 1 alone
(waiting on its GPU). Rank 0's latest stack was still the start-up one, so rank 1 was taken to
wait for rank 0's initialisation: a PhaseHint "init" with the first-step grace (30 min) held
every freeze back, and the hang was never paged. Start-up and a save are over once the job
steps after them (the job view ends those phases the same way); an evaluation keeps its hold.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from monitor.detectors.nccl import NcclRasDetector
from monitor.detectors.stacks import StackDetector
from monitor.incidents import IncidentLayer, PaceUpdate
from monitor.model import (
    Category,
    DetectorOutput,
    Observation,
    PhaseHint,
    ProcessInfo,
    ProcessSnapshot,
    ProcRole,
    ProcState,
    Transition,
)
from monitor.parse.ras_model import RasSnapshot
from monitor.parse.stacks import (
    DumpResult,
    ProcReading,
    StackPass,
    StackSample,
    classify_main,
    parse_dump,
)
from monitor.settings import IncidentSettings, ProgressSettings, PyspySettings, RasSettings
from tests.fake_ras import Event
from tests.test_ras_detector import job, report_of

PYSPY = Path(__file__).resolve().parents[2] / "data" / "pyspy"
PIDS = {0: 100, 1: 101}
RAS_INTERVAL = 10.0
FIRST_POLL = 1000.0
FAULT = 1029.5  # rank 1's kernel hangs: no step after this, RAS counts frozen from 1030
STALL_WINDOW = 20.0  # the progress detector's window for this job


def frames(*names: tuple[str, str]) -> str:
    """A py-spy JSON dump of a main thread with these (file, function) frames, innermost first."""
    return json.dumps([{
        "pid": 0, "thread_name": "MainThread", "os_thread_id": 0, "active": False,
        "owns_gil": False,
        "frames": [
            {"name": name, "filename": f"/venv/site-packages/{path}", "short_filename": path,
             "line": 10 + i}
            for i, (path, name) in enumerate(names)
        ],
    }])  # fmt: skip


INIT = (PYSPY / "init-rank0-rendezvous.json").read_text()
SYNCHRONIZE = frames(("torch/cuda/__init__.py", "synchronize"), ("train.py", "train_step"),
                     ("train.py", "main"), ("train.py", "<module>"))  # fmt: skip
IMPORTING = frames(
    ("<frozen importlib._bootstrap_external>", "ExtensionFileLoader.create_module"),
    ("<frozen importlib._bootstrap>", "_find_and_load"),
    ("train.py", "<module>"),
)
SAVE = (PYSPY / "checkpoint-rank0-save.json").read_text()
EVALUATE = frames(("torch/nn/modules/module.py", "_call_impl"), ("train.py", "evaluate"),
                  ("train.py", "main"), ("train.py", "<module>"))  # fmt: skip


class Node:
    """The daemon's loop in miniature: the incident layer sees each observation first (the
    job's lifecycle and phase), then the detectors; what a detector derives goes round again."""

    def __init__(self) -> None:
        self.incidents = IncidentLayer(IncidentSettings())
        view = self.incidents.view
        self.stacks = StackDetector(PyspySettings(), ProgressSettings(), view=view)
        ras = replace(RasSettings(), interval_seconds=RAS_INTERVAL)
        self.nccl = NcclRasDetector(ras, local_hosts={"10.0.0.11"}, view=view)
        self.transitions: list[tuple[float, Transition]] = []  # (when, what)
        self.hints: list[PhaseHint] = []
        self.cpu = {0: 0.0, 1: 0.0}
        self.round = 0
        self.script = job(Event.DESYNC, after=3, ranks=(1,))  # counts frozen from poll 3 (1030)

    def feed(self, obs: Observation, now: float) -> None:
        queue: list[DetectorOutput] = [obs]
        while queue:
            item = queue.pop(0)
            if isinstance(item, Transition):
                self.transitions.append((now, item))
                continue
            self.incidents.observe(item, now)
            if isinstance(item, PhaseHint):
                self.hints.append(item)
            for detector in (self.stacks, self.nccl):
                queue += detector.observe(item, now)

    def processes(self, now: float, busy: bool) -> None:
        if busy:
            self.cpu = {rank: cpu + 0.9 for rank, cpu in self.cpu.items()}
        infos = tuple(
            ProcessInfo(pid, 1, ProcRole.RANK, rank, rank, None, "python", ProcState.SLEEPING,
                        self.cpu[rank], 0, 1, True, True, world_size=2)
            for rank, pid in PIDS.items()
        )  # fmt: skip
        self.feed(ProcessSnapshot(now, infos, 1, 1), now)

    def dump(self, now: float, stacks: dict[int, str]) -> None:
        """One sampler pass over the given ranks only (a round focused on a suspect)."""
        self.round += 1
        for rank, text in stacks.items():
            pid = PIDS[rank]
            sample = StackSample(
                at=now, pid=pid, role=ProcRole.RANK, rank=rank, rank_pid=None,
                round_id=self.round, pass_index=0, result=DumpResult.OK, message="",
                main=classify_main(parse_dump(text, pid)), worker=None,
                proc=ProcReading(ProcState.SLEEPING, "futex_wait_queue", self.cpu[rank], 0),
                dump_path="", duration_seconds=0.02,
            )  # fmt: skip
            self.feed(sample, now)
        self.feed(StackPass(now, self.round, 0, 1, "test", tuple(PIDS[r] for r in stacks)), now)

    def ras(self, poll: int, now: float) -> None:
        report = report_of(self.script(poll, poll * RAS_INTERVAL), "json")
        self.feed(RasSnapshot(at=now, report=report, poll_interval_seconds=RAS_INTERVAL), now)


def kernel_hang(startup: dict[int, str], *, until: float = 1075.0) -> Node:
    """Start-up dump at 990 (`startup`: what each rank's stack showed), steps every second from
    995 to the fault, RAS every 10 s from 1000; after the fault only rank 1 is dumped, twice,
    in `synchronize` (the suspicion names it: its count is behind)."""
    node = Node()
    events: list[tuple[float, int, str, Any]] = [(990.0, 0, "dump", startup)]
    steps, at = 0, 995.0
    while at < FAULT:
        steps += 1
        events.append((at, 1, "step", steps))
        at += 1.0
    polls = int((until - FIRST_POLL) // RAS_INTERVAL) + 1
    events += [(FIRST_POLL + i * RAS_INTERVAL, 2, "ras", i) for i in range(polls)]
    events += [(1038.0, 3, "dump", {1: SYNCHRONIZE}), (1041.0, 3, "dump", {1: SYNCHRONIZE})]
    events += [(float(t), 0, "processes", t < FAULT) for t in range(989, int(until) + 1)]
    for now, _order, kind, arg in sorted(events, key=lambda e: (e[0], e[1])):
        if kind == "dump":
            node.dump(now, arg)
        elif kind == "step":
            node.feed(PaceUpdate(now, arg, STALL_WINDOW if arg > 3 else None), now)
        elif kind == "ras":
            node.ras(arg, now)
        else:
            node.processes(now, busy=arg)
    return node


def desyncs(node: Node) -> list[tuple[float, Transition]]:
    return [(at, t) for at, t in node.transitions
            if t.alertname == "CollectiveDesync" and t.firing]  # fmt: skip


def test_a_rank_dumped_in_init_at_start_up_does_not_hold_back_a_later_hang() -> None:
    """Rank 0 was last dumped inside init_process_group before the job trained; the hang after
    it is named (rank 1, its host waiting on its GPU: gpu_cuda), and no start-up phase is
    hinted after the job stepped."""
    node = kernel_hang({0: INIT, 1: IMPORTING})
    fired = desyncs(node)
    assert fired, [(h.rank, h.phase, h.at, h.origin) for h in node.hints]
    at, first = fired[0]
    assert first.culprit_ranks == (1,) and first.category is Category.GPU_CUDA, first.summary
    assert at <= FAULT + 2 * STALL_WINDOW
    assert [(h.rank, h.phase) for h in node.hints if h.at >= 995.0] == []


def test_start_up_itself_is_still_a_phase() -> None:
    """The start-up dump before any step still says init: its hint holds until the job steps."""
    node = kernel_hang({0: INIT, 1: IMPORTING})
    assert [(h.rank, h.phase, h.at) for h in node.hints] == [(0, "init", 990.0)]
    assert node.incidents.view.phase_until == 995.0  # ended by the first step


def test_a_save_sampled_before_the_last_step_is_over_but_an_evaluation_is_not() -> None:
    """A save a step came after is over (as the job view has it); an evaluation keeps its hold
    (its own progress bar reads like steps), so a rank waiting for it is still hinted."""
    saved = kernel_hang({0: SAVE, 1: SYNCHRONIZE})
    assert [h for h in saved.hints if h.at > 990.0] == []
    evaluated = kernel_hang({0: EVALUATE, 1: INIT}, until=1045.0)
    assert [(h.rank, h.phase, h.origin) for h in evaluated.hints if h.at > 990.0] == [
        (1, "evaluation", "stacks: waiting for rank 0 (evaluation)")
    ]


def test_a_phase_sampled_after_the_last_step_is_hinted() -> None:
    """A rank dumped in init or in a save once the job has stopped stepping (a communicator
    created mid-run, a save that holds the others) is in that phase now: hinted as before."""
    for stack, phase in ((INIT, "init"), (SAVE, "checkpoint")):
        node = kernel_hang({0: INIT, 1: INIT}, until=1040.0)
        node.dump(1040.0, {0: stack, 1: SYNCHRONIZE})
        hinted = [(h.rank, h.phase) for h in node.hints if h.at == 1040.0]
        assert hinted == [(0, phase), (1, phase)]
