"""Progress detector: a step clock per rank, and a stall when the steps stop coming.

Clocks:
- an *output* clock per rank whose progress lines can be attributed (`[rank3]:`, or a one-rank
  job), plus a `job` clock for unattributed progress lines (most frameworks print on rank 0
  without a prefix);
- a *cpu* clock per rank from the process probe: a sample where the rank used more than
  `cpu_active_fraction` of a core counts as activity. CPU clocks are the primary signal only
  when the job prints no progress at all; otherwise they only tell which ranks still work.

Each clock learns its step intervals. The stall window is
`clamp(max(stall_floor_seconds, k × p99 interval), ceiling)` with k = `stall_multiplier`.
The job is paced by its own output: no output clock is judged before `min_intervals` intervals
are known (a job that logs once a minute is paced by that; a start of any length before the
first steps is not a stall), and CPU clocks never page — they only ask for stack evidence
(Suspicion) — so a job that prints no progress never pages from this path alone. The learned
pace is published (PaceUpdate) for the other detectors and the lifecycle. A known long phase — a checkpoint save or
an evaluation announced in the output, or a PhaseHint from the stack detector — holds every
clock on the node for that phase's grace: the peers wait for it too.

States per clock and edges:
    LEARNING      --min_intervals known-->  ADVANCING
    ADVANCING     --no step for window-->   STALLED  (fires ProgressStalled warning + Suspicion)
    ADVANCING     --phase line / hint-->    IN_PHASE
    IN_PHASE      --step-->                 ADVANCING
    IN_PHASE      --hold exceeded-->        STALLED
    STALLED       --window × critical_after_multiplier--> STALLED (escalates to critical)
    STALLED       --step-->                 ADVANCING (resolves when no primary clock is stalled)
    any           --rank exited / job ended / stop asked--> DONE (the process detector owns deaths)
The alert (one per node) names the stalled ranks and those still advancing (never the same rank
in both); the stalled ranks are culprits only when others on the node still advance, or when
the node has one rank. Without a culprit it is a warning: the job is stalled, waiting for a rank
this node cannot name (often on another node).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from monitor.incidents import JobFacts, PaceUpdate
from monitor.model import (
    Category,
    ConcernHealth,
    DetectorOutput,
    EvidenceValue,
    Health,
    JobEnded,
    MetricFamilyData,
    Observation,
    OutputChunk,
    PhaseHint,
    ProcessExit,
    ProcessSnapshot,
    ProcRole,
    Severity,
    Suspicion,
    Transition,
    gauge,
)
from monitor.parse.progress import Phase, match_phase, match_progress
from monitor.settings import ProgressSettings

NAME = "progress"
JOB_CLOCK = "job"


@dataclass
class _Clock:
    key: str
    rank: int | None
    kind: str  # "output" or "cpu"
    created_at: float
    last_step_at: float | None = None
    step: int | None = None
    steps_seen: int = 0
    intervals: deque[float] = field(default_factory=lambda: deque(maxlen=256))
    window: float | None = None
    done: bool = False
    stalled: bool = False

    def advance(self, now: float, step: int | None) -> None:
        if self.last_step_at is not None:
            self.intervals.append(now - self.last_step_at)
            self.window = None  # recomputed lazily
        self.last_step_at = now
        self.step = step if step is not None else (self.step or 0) + 1
        self.steps_seen += 1


@dataclass
class _Cpu:
    cpu_seconds: float
    at: float


@dataclass
class ProgressDetector:
    settings: ProgressSettings
    view: JobFacts | None = None
    name: str = NAME
    clocks: dict[str, _Clock] = field(default_factory=dict)
    phase: str | None = None
    phase_until: float = 0.0
    phase_since: float = 0.0
    known_ranks: set[int] = field(default_factory=set)
    world_size: int | None = None
    rank_pids: dict[int, int] = field(default_factory=dict)
    _cpu: dict[int, _Cpu] = field(default_factory=dict)
    _firing: Severity | None = None
    _firing_stalled: tuple[str, ...] = ()
    _ended: bool = False
    _saw_processes: bool = False
    _pace: tuple[int, float | None] = (0, None)
    _cpu_suspected: bool = False

    def _current_pace(self) -> tuple[int, float | None]:
        """(steps seen, stall window) of the best-paced output clock."""
        output = [c for c in self.clocks.values() if c.kind == "output"]
        if not output:
            return (0, None)
        best = max(output, key=lambda c: (len(c.intervals), c.steps_seen))
        window = round(self.window_of(best), 1) if self.paced(best) else None
        return (best.steps_seen, window)

    # -- inputs --------------------------------------------------------------------------
    def observe(self, obs: Observation, now: float) -> Sequence[DetectorOutput]:
        if isinstance(obs, OutputChunk):
            return self._lines(obs, now)
        elif isinstance(obs, ProcessSnapshot):
            self._processes(obs, now)
        elif isinstance(obs, PhaseHint):
            self._enter_phase(obs.phase, obs.hold_seconds, now)
        elif (
            isinstance(obs, ProcessExit)
            and obs.role is ProcRole.RANK
            and obs.rank is not None
            and self.rank_pids.get(obs.rank) == obs.pid
        ):
            for clock in self.clocks.values():
                if clock.rank == obs.rank:
                    clock.done = True
        elif isinstance(obs, JobEnded):
            self._ended = True
            return self._evaluate(now)
        return ()

    def _lines(self, chunk: OutputChunk, now: float) -> list[DetectorOutput]:
        """Steps advance the clocks; a checkpoint or evaluation the job announces holds them,
        and is told to the other detectors at once (a PhaseHint): the RAS counts of a rank
        that writes a checkpoint while the others wait freeze before any stack shows why."""
        hints: list[DetectorOutput] = []
        single = next(iter(self.known_ranks)) if len(self.known_ranks) == 1 else None
        for line in chunk.lines:
            found = match_progress(line.text)
            phase = match_phase(line.text)
            if found is None or phase is Phase.CHECKPOINT:
                # (Megatron's `saving checkpoint at iteration 60 to …` names a step, but it
                # announces the save, not another step)
                if phase is not None:
                    hold = (
                        self.settings.checkpoint_grace_seconds
                        if phase is Phase.CHECKPOINT
                        else self.settings.evaluation_grace_seconds
                    )
                    if self.phase != phase.value:
                        hints.append(PhaseHint(now, line.rank, phase.value, hold, self.name))
                    self._enter_phase(phase.value, hold, now)
                continue
            rank = line.rank if line.rank is not None else single
            key = JOB_CLOCK if rank is None else str(rank)
            clock = self.clocks.get(key)
            if clock is None or clock.kind != "output":
                clock = _Clock(key, rank, "output", now)
                self.clocks[key] = clock
            if found.step is None or clock.step is None or found.step != clock.step:
                clock.advance(now, found.step)
                if self.phase is not None:
                    self.phase = None  # a step ends any long phase
        return hints

    def _processes(self, snap: ProcessSnapshot, now: float) -> None:
        self._saw_processes = True
        for info in snap.processes:
            if info.role is not ProcRole.RANK or info.rank is None:
                continue
            self.known_ranks.add(info.rank)
            self.rank_pids[info.rank] = info.pid
            self.world_size = info.world_size
            key = str(info.rank)
            clock = self.clocks.get(key)
            if clock is None:
                clock = _Clock(key, info.rank, "cpu", now)
                self.clocks[key] = clock
            previous = self._cpu.get(info.rank)
            self._cpu[info.rank] = _Cpu(info.cpu_seconds, now)
            if clock.kind != "cpu" or previous is None or now <= previous.at:
                continue
            rate = (info.cpu_seconds - previous.cpu_seconds) / (now - previous.at)
            if rate >= self.settings.cpu_active_fraction:
                clock.advance(now, None)
        # A one-rank job: its unattributed progress belongs to that rank.
        if len(self.known_ranks) == 1 and JOB_CLOCK in self.clocks:
            rank = next(iter(self.known_ranks))
            job = self.clocks.pop(JOB_CLOCK)
            job.key, job.rank = str(rank), rank
            self.clocks[job.key] = job

    def _enter_phase(self, phase: str, hold: float, now: float) -> None:
        if self.phase != phase:
            self.phase_since = now
        self.phase = phase
        self.phase_until = max(self.phase_until, now + hold)

    # -- evaluation ----------------------------------------------------------------------
    def tick(self, now: float) -> Sequence[DetectorOutput]:
        return self._evaluate(now)

    def window_of(self, clock: _Clock) -> float:
        s = self.settings
        if clock.last_step_at is None or not clock.intervals:
            return s.first_step_grace_seconds
        if clock.window is None:
            ordered = sorted(clock.intervals)
            p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
            k = s.stall_multiplier * (1 if len(ordered) >= s.min_intervals else 2)
            clock.window = min(max(s.stall_floor_seconds, k * p99), s.stall_ceiling_seconds)
        return clock.window

    def paced(self, clock: _Clock) -> bool:
        """Is the clock's cadence known well enough to call its silence a stall?"""
        return clock.kind == "output" and len(clock.intervals) >= self.settings.min_intervals

    def overdue(self, clock: _Clock, now: float) -> float:
        """Seconds past the stall deadline (negative: still within it)."""
        since = clock.last_step_at if clock.last_step_at is not None else clock.created_at
        deadline = since + self.window_of(clock)
        if self.phase is not None and self.phase_until > now:
            return -1.0
        if self.phase is not None:
            deadline = max(deadline, self.phase_until)
        return now - deadline

    def _primary(self) -> list[_Clock]:
        live = [c for c in self.clocks.values() if not c.done]
        output = [c for c in live if c.kind == "output"]
        return output or live

    def _evaluate(self, now: float) -> list[DetectorOutput]:
        if self._ended or (self.view is not None and self.view.stopping):
            for clock in self.clocks.values():
                clock.done = True
        out: list[DetectorOutput] = []
        pace = self._current_pace()
        if pace != self._pace:
            self._pace = pace
            out.append(PaceUpdate(now, pace[0], pace[1]))
        primary = self._primary()
        for clock in self.clocks.values():
            clock.stalled = not clock.done and self.overdue(clock, now) > 0
        silent_cpu = [c for c in primary if c.stalled and c.kind == "cpu"]
        stalled = [c for c in primary if c.stalled and self.paced(c)]
        if silent_cpu and not stalled and not self._cpu_suspected:
            # No progress lines to pace the job: quiet CPUs only ask for stack evidence.
            self._cpu_suspected = True
            ranks = tuple(sorted({c.rank for c in silent_cpu if c.rank is not None}))
            out.append(Suspicion(now, ranks, "ranks used no CPU for a while", self.name))
        elif not silent_cpu:
            self._cpu_suspected = False
        if not stalled:
            if self._firing is None:
                return out
            was_stalled = [self.clocks[k] for k in self._firing_stalled if k in self.clocks]
            self._firing, self._firing_stalled = None, ()
            out.append(self._transition(False, Severity.WARNING, [], now,
                                        ended=self._why_over(was_stalled)))
            return out
        critical = any(
            now - (c.last_step_at or c.created_at)
            >= self.window_of(c) * self.settings.critical_after_multiplier
            for c in stalled
        )
        severity = Severity.CRITICAL if critical else Severity.WARNING
        keys = tuple(sorted(c.key for c in stalled))
        if self._firing is severity and keys == self._firing_stalled:
            return out
        if self._firing is None:
            stalled_ranks = {c.rank for c in stalled if c.rank is not None}
            stepping = {
                c.rank for c in self._primary() if not c.stalled and not c.done and c.rank is not None
            }
            # With no local rank still stepping, any of them may be the culprit: look at all.
            suspects = stalled_ranks if stepping else stalled_ranks | self.known_ranks
            out.append(Suspicion(now, tuple(sorted(suspects)), "progress stalled", self.name))
        self._firing, self._firing_stalled = severity, keys
        out.append(self._transition(True, severity, stalled, now))
        return out

    def _why_over(self, was_stalled: list[_Clock]) -> str | None:
        """Why a stall is over when no step ended it (None: steps came again). A stall that
        ends because the job is stopped or its ranks exited did not resume."""
        if self._ended:
            return "job ended"
        if self.view is not None and self.view.stopping:
            return "job stopping: a stop was asked"
        if was_stalled and all(c.done for c in was_stalled):
            return "the stalled ranks exited"
        return None

    def _transition(
        self, firing: bool, severity: Severity, stalled: list[_Clock], now: float,
        ended: str | None = None,
    ) -> Transition:
        primary = [c for c in self._primary() if c.kind == "output"]
        stalled_ranks = sorted({c.rank for c in stalled if c.rank is not None})
        # Advancing means stepping: an output clock of that rank within its window. A rank with
        # any stalled clock is not advancing, whatever its CPU does.
        advancing = sorted(
            {
                c.rank
                for c in primary
                if not c.stalled and not c.done and c.rank is not None
            }
            - set(stalled_ranks)
        )
        # Silence alone never blames a rank that may be waiting for another one (on this node or
        # another): only ranks that stalled while local peers still step are culprits.
        # A job of one rank has nobody else to wait for.
        culprits: tuple[int, ...] = ()
        if stalled_ranks and (advancing or self.world_size == 1):
            culprits = tuple(stalled_ranks)
        if not firing:
            return Transition(
                detector=self.name,
                alertname="ProgressStalled",
                firing=False,
                severity=severity,
                category=Category.UNDETERMINED,
                identity={},
                summary=ended or "training progress resumed",
            )
        worst = max(stalled, key=lambda c: now - (c.last_step_at or c.created_at))
        quiet = now - (worst.last_step_at or worst.created_at)
        what = "no first step" if worst.last_step_at is None else f"no step for {quiet:.0f} s"
        who = ("ranks " + ",".join(map(str, stalled_ranks))) if stalled_ranks else "job progress"
        if len(stalled_ranks) == 1:
            who = f"rank {stalled_ranks[0]}"
        summary = f"{who} stalled: {what}"
        if worst.step is not None and worst.last_step_at is not None:
            summary += f" (last step {worst.step})"
        if advancing:
            summary += "; still advancing: " + ",".join(map(str, advancing))
        elif not culprits:
            elsewhere = self.world_size is not None and self.world_size > len(self.known_ranks)
            summary += (
                "; waiting for a rank on another node"
                if elsewhere
                else "; no rank on this node is ahead: waiting for a rank it cannot name"
            )
            here = (
                self.view.host_states_since(worst.last_step_at) if self.view is not None else {}
            )
            if here:
                summary += " (here: " + ", ".join(
                    f"rank {r} {state}" + (f" at {frame}" if frame else "")
                    for r, (state, frame) in sorted(here.items())[:4]
                ) + ")"
        evidence: dict[str, EvidenceValue] = {
            "stalled": [c.key for c in stalled],
            "stalled_ranks": stalled_ranks,
            "advancing_ranks": advancing,
            "quiet_seconds": round(quiet, 1),
            "window_seconds": round(self.window_of(worst), 1),
            "last_step": worst.step,
            "signal": worst.kind,
        }
        return Transition(
            detector=self.name,
            alertname="ProgressStalled",
            firing=True,
            severity=severity if culprits else Severity.WARNING,
            category=Category.UNDETERMINED,
            identity={},
            summary=summary,
            description=(
                "Training steps stopped coming for longer than the learned stall window. "
                "Ranks waiting in a collective are victims; the rank that is not is the culprit."
            ),
            evidence=evidence,
            culprit_ranks=culprits,
        )

    # -- reporting -----------------------------------------------------------------------
    def metric_families(self, now: float) -> Sequence[MetricFamilyData]:
        clocks = sorted(self.clocks.values(), key=lambda c: (c.rank is None, c.rank or 0, c.key))
        stepped = [c for c in clocks if c.last_step_at is not None]
        return [
            gauge(
                "rank_step",
                "Last step counter seen for each rank (`job`: unattributed lines).",
                ("rank",),
                [((c.key,), c.step or 0) for c in stepped if c.kind == "output"],
            ),
            gauge(
                "rank_last_step_age_seconds",
                "Seconds since each rank's last step or activity.",
                ("rank", "signal"),
                [((c.key, c.kind), now - (c.last_step_at or now)) for c in stepped],
            ),
            gauge(
                "rank_stall_window_seconds",
                "Current stall window of each rank's clock.",
                ("rank",),
                [((c.key,), self.window_of(c)) for c in clocks],
            ),
            gauge(
                "rank_stalled",
                "1 when the rank's clock is past its stall window.",
                ("rank",),
                [((c.key,), 1.0 if c.stalled else 0.0) for c in clocks if not c.done],
            ),
            gauge(
                "job_stalled",
                "1 when training progress on this node is stalled.",
                (),
                1.0 if self._firing else 0.0,
            ),
            gauge(
                "long_phase",
                "1 while a known long phase (checkpoint, evaluation) holds the clocks.",
                ("phase",),
                [((self.phase,), 1.0)] if self.phase and self.phase_until > now else [],
            ),
        ]

    def health(self, now: float) -> ConcernHealth:
        if not self.clocks:
            return ConcernHealth(
                self.name, Health.UNKNOWN, "no progress lines or rank processes seen"
            )
        if self._firing is Severity.CRITICAL:
            return ConcernHealth(self.name, Health.CRITICAL, "progress stalled")
        if self._firing is Severity.WARNING:
            return ConcernHealth(self.name, Health.WARNING, "progress stalled")
        return ConcernHealth(self.name, Health.OK)
