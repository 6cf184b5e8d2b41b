"""Verdicts from stacks: stalled DataLoader workers, the rank holding up a collective, stuck
checkpoint writes, and known long phases.

Pure: observations and `now` in, transitions and derived observations out.

Inputs: StackSample / StackPass (the py-spy sampler), ProcessSnapshot (CPU time and state of
every watched process), ProcessExit, SourceState of the "pyspy" source.

Per rank, the *effective state* of its main thread in a sample is the classifier's state, with
two corrections from /proc: a stopped process is `stopped`, one in uninterruptible sleep is
`disk_sleep`; and where the classifier gave an `idle_state` (DDP's backward, which waits for the
gradient all-reduce), that state applies when the process used no CPU since the previous sample.

Alerts (identity: rank), each quiet → firing → resolved:
- DataloaderStalled (dataloader_stall, critical). Fires when the rank's main thread waited for
  a batch in its last two samples while one of its workers was busy in the same frame in its
  last two samples without using CPU in between. Resolves when a newer sample shows the main
  thread elsewhere or the worker in another frame, when both use CPU again, or when the worker
  exits.
- RankNotInCollective (category from the culprit's state). Fires when local ranks waited in a
  collective (or, on CUDA, on the GPU behind one) in their last two samples for at least
  `straggler_alert_seconds` while this rank was elsewhere in both of its last two samples (or
  stopped, or in disk sleep) — or, when no local rank waits but the job has ranks on other nodes
  (WORLD_SIZE) and has not stepped for its stall window, when this rank is outside any
  collective (the node that sees its rank elsewhere names it; the others cannot) — unless a
  DataloaderStalled or CheckpointStalled alert already explains it or the rank is in a known
  long phase and making progress. When no local rank is recognised as waiting but the job has
  not stepped for its stall window, the odd one out decides instead (a warning: suspected): if
  more than half of at least three local ranks show one and the same stack in their last two
  samples, they are the waiting majority and a rank whose stack differs is named.
  Resolves when that no longer holds.
- CheckpointStalled (storage_io, critical). Fires when the rank was saving a checkpoint in its
  last two samples, wrote nothing and used no CPU (or stayed in disk sleep) for at least
  `checkpoint_stall_seconds`. Resolves when it writes or computes again, or leaves the save.

Derived observations:
- Suspicion: a rank used no CPU for `suspect_idle_seconds`; repeated every `recheck_seconds`
  while it stays idle, so the evidence stays fresh.
- PhaseHint: a rank seen in a checkpoint, init or evaluation phase (once per episode), and each
  local rank waiting in a collective meanwhile, so the progress detector widens its window. A
  stack taken before the job's last step shows no init or checkpoint phase: a step ends those
  (as the job view has it), and a rank dumped at start-up and not since is not starting up
  still once the job has trained.

Health: UNKNOWN until the sampler has been seen up and while py-spy cannot attach; otherwise
the worst firing alert, or OK.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from monitor.incidents import ENDED_BY_A_STEP, HostStates, JobFacts
from monitor.model import (
    Category,
    ConcernHealth,
    DetectorOutput,
    EvidenceValue,
    Health,
    MetricFamilyData,
    Observation,
    PhaseHint,
    ProcessExit,
    ProcessSnapshot,
    ProcRole,
    ProcState,
    Severity,
    SourceState,
    Suspicion,
    Transition,
    gauge,
)
from monitor.parse.stack_groups import OddOnesOut, group_stacks, odd_ones_out
from monitor.parse.stacks import (
    DumpResult,
    MainState,
    Phase,
    StackPass,
    StackSample,
    WorkerState,
)
from monitor.settings import ProgressSettings, PyspySettings

STOPPED = "stopped"
DISK_SLEEP = "disk_sleep"
RANK_STATES: tuple[str, ...] = (*(s.value for s in MainState), STOPPED, DISK_SLEEP)
# A rank waiting for its peers: inside the collective call (gloo, or NCCL's own wait), or, on
# CUDA, on its GPU whose collective kernel cannot finish until every rank launched it.
WAITING_STATES = frozenset({MainState.IN_COLLECTIVE.value, MainState.GPU_WAIT.value})
REMOTE_PEERS = -1  # stands for "the ranks on other nodes" where local victims are listed

# CPU accounting has a 10 ms tick: a process must exceed the idle fraction by this much
# before it counts as having run.
_CPU_SLACK_SECONDS = 0.02
# A step seen this soon after a stack was taken may have been printed before it (the line is
# read, and the job's pace published on a tick, after the job prints it).
_STEP_SEEN_SLACK_SECONDS = 2.0
_SAMPLES_KEPT = 6


@dataclass
class _Proc:
    pid: int
    role: ProcRole
    rank: int | None
    rank_pid: int | None
    state: ProcState = ProcState.OTHER
    state_since: float = 0.0
    cpu_at: float | None = None
    cpu_seconds: float = 0.0
    active_at: float | None = None  # last time it used more CPU than the idle fraction
    written_bytes: int | None = None
    written_changed_at: float | None = None
    suspected_at: float | None = None
    samples: deque[StackSample] = field(default_factory=lambda: deque(maxlen=_SAMPLES_KEPT))


@dataclass
class _Firing:
    alertname: str
    rank: int
    since: float
    culprit_pid: int
    category: Category
    severity: Severity
    waiting_pids: tuple[int, ...] = ()  # RankNotInCollective: the ranks that wait for it


class StackDetector:
    name = "stacks"

    def __init__(
        self, settings: PyspySettings, progress: ProgressSettings, view: JobFacts | None = None
    ) -> None:
        self.settings = settings
        self.progress = progress
        self.view = view
        self._procs: dict[int, _Proc] = {}
        self._rank_pid: dict[int, int] = {}
        self._firing: dict[tuple[str, int], _Firing] = {}
        self._hinted: dict[int, Phase] = {}
        # A verdict that needs one more look once enough time has passed: when, and why.
        self._confirm_at: float | None = None
        self._confirm_why = ""
        self._sampler_seen = False
        self._blind_reason = ""
        self._published: tuple[tuple[tuple[int, str, str], ...], tuple[tuple[int, float], ...]] = (
            (),
            (),
        )
        self._world_size: int | None = None

    # -- inputs --------------------------------------------------------------------------
    def observe(self, obs: Observation, now: float) -> Sequence[DetectorOutput]:
        if isinstance(obs, ProcessSnapshot):
            self._on_snapshot(obs)
        elif isinstance(obs, StackSample):
            self._on_sample(obs)
        elif isinstance(obs, StackPass):
            self._sampler_seen = True
            self._blind_reason = ""
            return self._evaluate(now)
        elif isinstance(obs, ProcessExit):
            return self._on_exit(obs, now)
        elif isinstance(obs, SourceState) and obs.source == "pyspy":
            self._sampler_seen = self._sampler_seen or obs.up
            self._blind_reason = "" if obs.up else (obs.reason or "py-spy is down")
        return ()

    def _proc(self, pid: int, role: ProcRole, rank: int | None, rank_pid: int | None) -> _Proc:
        proc = self._procs.get(pid)
        if proc is None:
            proc = self._procs[pid] = _Proc(pid, role, rank, rank_pid)
        else:
            proc.role, proc.rank = role, rank if rank is not None else proc.rank
            proc.rank_pid = rank_pid if rank_pid is not None else proc.rank_pid
        if role is ProcRole.RANK and proc.rank is not None:
            self._rank_pid[proc.rank] = pid
        return proc

    def _on_snapshot(self, snap: ProcessSnapshot) -> None:
        present = set()
        for info in snap.processes:
            if info.role is ProcRole.LAUNCHER:
                continue
            if info.role is ProcRole.RANK and info.world_size is not None:
                self._world_size = info.world_size
            present.add(info.pid)
            proc = self._proc(info.pid, info.role, info.rank, info.rank_pid)
            self._note_state(proc, info.state, snap.at)
            self._note_cpu(proc, snap.at, info.cpu_seconds)
            if info.state is ProcState.RUNNING:
                proc.active_at = snap.at  # running, or waiting its turn for a CPU: not idle
        # Forget processes that left the table (workers come and go), except those an alert
        # still names: their ProcessExit resolves it.
        named = {f.culprit_pid for f in self._firing.values()}
        for pid in [p for p in self._procs if p not in present and p not in named]:
            gone = self._procs.pop(pid)
            if gone.role is ProcRole.RANK and self._rank_pid.get(gone.rank or -1) == pid:
                self._rank_pid.pop(gone.rank or -1, None)

    def _on_sample(self, sample: StackSample) -> None:
        proc = self._proc(sample.pid, sample.role, sample.rank, sample.rank_pid)
        if sample.proc is not None:
            self._note_state(proc, sample.proc.state, sample.at)
            self._note_cpu(proc, sample.at, sample.proc.cpu_seconds)
            written = sample.proc.written_bytes
            if written is not None and written != proc.written_bytes:
                proc.written_bytes, proc.written_changed_at = written, sample.at
        if sample.result is DumpResult.OK:
            proc.samples.append(sample)

    @staticmethod
    def _note_state(proc: _Proc, state: ProcState, at: float) -> None:
        if state is not proc.state:
            proc.state, proc.state_since = state, at

    def _note_cpu(self, proc: _Proc, at: float, cpu_seconds: float) -> None:
        if proc.cpu_at is None:
            proc.cpu_at, proc.cpu_seconds, proc.active_at = at, cpu_seconds, at
            return
        if at <= proc.cpu_at:
            return
        used = cpu_seconds - proc.cpu_seconds
        if used > self.progress.cpu_active_fraction * (at - proc.cpu_at) + _CPU_SLACK_SECONDS:
            proc.active_at = at
        proc.cpu_at, proc.cpu_seconds = at, cpu_seconds

    def _on_exit(self, exit_: ProcessExit, now: float) -> list[DetectorOutput]:
        gone = self._procs.pop(exit_.pid, None)
        out: list[DetectorOutput] = []
        for key, firing in list(self._firing.items()):
            if firing.culprit_pid == exit_.pid or (
                gone is not None and gone.role is ProcRole.RANK and firing.rank == gone.rank
            ):
                out.append(self._resolve(key, f"process {exit_.pid} exited"))
        if gone is not None and gone.role is ProcRole.RANK and gone.rank is not None:
            self._rank_pid.pop(gone.rank, None)
            self._hinted.pop(gone.rank, None)
        return out

    # -- time ----------------------------------------------------------------------------
    def tick(self, now: float) -> Sequence[DetectorOutput]:
        out: list[DetectorOutput] = []
        idle_ranks = []
        longest = 0.0
        if self.view is not None and self.view.stopping:
            return out  # ranks of a job being stopped go quiet: nothing to look for
        stepping = (
            self.view is not None
            and self.view.last_progress_at is not None
            and now - self.view.last_progress_at < self._idle_limit()
        )
        for rank, pid in sorted(self._rank_pid.items()):
            if stepping:
                break  # the job steps: a rank using little CPU is waiting its turn, not stuck
            proc = self._procs.get(pid)
            if proc is None or proc.active_at is None:
                continue
            idle = now - proc.active_at
            if idle < self._idle_limit():
                continue
            new_episode = proc.suspected_at is None or proc.suspected_at < proc.active_at
            stale = proc.suspected_at is not None and (
                now - proc.suspected_at >= self.settings.recheck_seconds
            )
            if new_episode or stale:
                proc.suspected_at = now
                idle_ranks.append(rank)
                longest = max(longest, idle)
        if idle_ranks:
            out.append(
                Suspicion(
                    at=now,
                    ranks=tuple(idle_ranks),
                    reason=f"rank {_ranks_text(idle_ranks)} used no CPU for {longest:.0f} s",
                    detector=self.name,
                )
            )
        if self._confirm_at is not None and now >= self._confirm_at:
            # Ranks that spin while they wait (NCCL) never look idle: look again explicitly.
            out.append(Suspicion(now, tuple(sorted(self._rank_pid)), self._confirm_why, self.name))
            self._confirm_at = None
        out.extend(self._resolve_on_activity())
        return out

    def _idle_limit(self) -> float:
        """How long a rank may use no CPU before it is worth a look: a rank waiting in a
        collective, or for a CPU, is not idle within the job's own stall window."""
        window = self.view.stall_window_seconds if self.view is not None else None
        return max(self.settings.suspect_idle_seconds, window or 0.0)

    def _straggler_limit(self, busy: bool) -> float:
        """How long peers must wait for a rank outside the collective before it is named. A busy
        culprit may be in a long phase of the job's own (an evaluation nobody announced): it
        gets the job's stall window too."""
        limit = self.settings.straggler_alert_seconds
        window = self.view.stall_window_seconds if self.view is not None else None
        return max(limit, window or 0.0) if busy else limit

    def _confirm_later(self, at: float, why: str) -> None:
        if self._confirm_at is None or at < self._confirm_at:
            self._confirm_at, self._confirm_why = at, why

    def _resolve_on_activity(self) -> list[DetectorOutput]:
        """Alerts are over once the processes they describe run again, whatever the stacks say:
        a stalled worker and its rank, a stalled save, or every rank that was waiting."""
        out: list[DetectorOutput] = []
        for key, firing in list(self._firing.items()):
            if firing.alertname == "RankNotInCollective":
                waiting = [self._procs.get(pid) for pid in firing.waiting_pids]
                if waiting and all(p is None or _after(p.active_at, firing.since) for p in waiting):
                    out.append(self._resolve(key, "the waiting ranks run again"))
                continue
            culprit = self._procs.get(firing.culprit_pid)
            main = self._procs.get(self._rank_pid.get(firing.rank, -1))
            if culprit is None or main is None:
                continue
            if _after(culprit.active_at, firing.since) and _after(main.active_at, firing.since):
                out.append(self._resolve(key, "the process uses CPU again"))
        return out

    # -- verdicts ------------------------------------------------------------------------
    def _evaluate(self, now: float) -> list[DetectorOutput]:
        out: list[DetectorOutput] = []
        readings = self._rank_states(now)
        states = {rank: (state, frame) for rank, (state, frame, _at) in readings.items()}
        published = tuple((r, state, frame) for r, (state, frame) in sorted(states.items()))
        sampled = tuple((r, at) for r, (_state, _frame, at) in sorted(readings.items()))
        if (published, sampled) != self._published:
            self._published = (published, sampled)
            out.append(HostStates(now, published, sampled))
        out.extend(self._phase_hints(now, states))
        thin = [
            rank
            for rank, pid in self._rank_pid.items()
            if pid in self._procs and len(self._procs[pid].samples) < 2
        ]
        if thin and self._job_quiet(now) is not None:
            # A verdict needs two looks at each rank: the job has stopped, so take the second.
            self._confirm_later(
                now + self.settings.repeat_gap_seconds,
                f"confirm: a second look at rank {_ranks_text(sorted(thin))}",
            )
        for rank in sorted(self._rank_pid):
            out.extend(self._dataloader_verdict(rank, now, states))
            out.extend(self._checkpoint_verdict(rank, now))
        out.extend(self._straggler_verdicts(now, states))
        if self._firing:
            # Keep the evidence of a firing alert fresh, so it resolves when the job recovers.
            self._confirm_later(now + self.settings.recheck_seconds, "recheck: alert firing")
        return out

    def _rank_states(self, now: float) -> dict[int, tuple[str, str, float]]:
        """rank → (effective state of its latest sample, that sample's frame, when what the
        state says was seen: the sample's time, or now for a process shown stopped)."""
        states = {}
        for rank, pid in self._rank_pid.items():
            proc = self._procs.get(pid)
            if proc is None:
                continue
            if proc.state is ProcState.STOPPED:
                frame = _main_frame(proc.samples[-1]) if proc.samples else ""
                states[rank] = (STOPPED, frame, now)
            elif not proc.samples:
                continue
            else:
                last = proc.samples[-1]
                prev = proc.samples[-2] if len(proc.samples) > 1 else None
                states[rank] = (self._effective(last, prev, proc), _main_frame(last), last.at)
        return states

    def _effective(self, sample: StackSample, prev: StackSample | None, proc: _Proc) -> str:
        if sample.proc is not None and sample.proc.state is ProcState.STOPPED:
            return STOPPED
        if sample.proc is not None and sample.proc.state is ProcState.DISK_SLEEP:
            return DISK_SLEEP
        main = sample.main
        if main is None:
            return MainState.UNKNOWN.value
        if main.idle_state is not main.state:
            idle_before = proc.active_at is not None and (
                sample.at - proc.active_at >= self.settings.repeat_gap_seconds
            )
            if idle_before or (prev is not None and self._idle_between(prev, sample)):
                return main.idle_state.value
        return main.state.value

    def _idle_between(self, first: StackSample, second: StackSample) -> bool:
        if first.proc is None or second.proc is None or second.at <= first.at:
            return False
        used = second.proc.cpu_seconds - first.proc.cpu_seconds
        return (
            used <= self.progress.cpu_active_fraction * (second.at - first.at) + _CPU_SLACK_SECONDS
        )

    def _last_two(self, pid: int | None) -> tuple[StackSample, StackSample] | None:
        proc = self._procs.get(pid) if pid is not None else None
        if proc is None or len(proc.samples) < 2:
            return None
        return proc.samples[-2], proc.samples[-1]

    # DataloaderStalled ------------------------------------------------------------------
    def _dataloader_verdict(
        self, rank: int, now: float, states: dict[int, tuple[str, str]]
    ) -> list[DetectorOutput]:
        key = ("DataloaderStalled", rank)
        main_pid = self._rank_pid[rank]
        pair = self._last_two(main_pid)
        waiting = pair is not None and all(
            s.main is not None and s.main.state is MainState.DATALOADER_WAIT for s in pair
        )
        stuck = self._stuck_worker(main_pid) if waiting else None
        if stuck is None:
            if key in self._firing and pair is not None:
                return [self._resolve(key, f"rank {rank} gets batches again")]
            return []
        worker, frame, since = stuck
        assert pair is not None
        if key in self._firing:
            return []
        victims = self._victims(states, exclude=rank, now=now)
        stuck_seconds = now - since
        worker_sample = worker.samples[-1]
        proc = worker_sample.proc
        where = "the main process" if worker.pid == main_pid else f"DataLoader worker {worker.pid}"
        summary = f"rank {rank}: {where} stuck {stuck_seconds:.0f} s in {frame}"
        if victims:
            victim_ranks = [v["rank"] for v in victims]
            summary += (
                f"; rank {victim_ranks[0]} waits in a collective"
                if len(victim_ranks) == 1
                else f"; ranks {_ranks_text(victim_ranks)} wait in a collective"
            )
        evidence: dict[str, EvidenceValue] = {
            "rank": rank,
            "worker_pid": worker.pid,
            "frame": frame,
            "stuck_seconds": round(stuck_seconds, 1),
            "worker_top_frames": list(worker_sample.worker.top if worker_sample.worker else ()),
            "worker_state": proc.state.value if proc else "unknown",
            "worker_wchan": proc.wchan if proc else "",
            "worker_cpu_seconds": proc.cpu_seconds if proc else None,
            "rank_pid": main_pid,
            "rank_frame": _main_frame(pair[1]),
            "victims": list(victims),
            "waiting_ranks": [v["rank"] for v in victims],
            "dump_path": worker_sample.dump_path,
            "rank_dump_path": pair[1].dump_path,
            **self._stack_evidence(),
        }
        self._firing[key] = _Firing(
            "DataloaderStalled", rank, now, worker.pid, Category.DATALOADER_STALL, Severity.CRITICAL
        )
        return [
            Transition(
                detector=self.name,
                alertname="DataloaderStalled",
                firing=True,
                severity=Severity.CRITICAL,
                category=Category.DATALOADER_STALL,
                identity={"rank": str(rank)},
                summary=summary,
                description=(
                    f"Rank {rank}'s main thread waits for a batch ({_main_frame(pair[1])}) "
                    f"while {where} stayed in {frame} across {len(worker.samples)} dumps "
                    "without using CPU. The other ranks wait in their next collective until "
                    "the NCCL/gloo timeout."
                ),
                evidence=evidence,
                culprit_ranks=(rank,),
            )
        ]

    def _stuck_worker(self, main_pid: int) -> tuple[_Proc, str, float] | None:
        """A worker of this rank (or its main process, without workers) stuck in one frame."""
        candidates = [
            p for p in self._procs.values() if p.role is ProcRole.WORKER and p.rank_pid == main_pid
        ]
        for worker in sorted(candidates, key=lambda p: p.pid):
            pair = self._last_two(worker.pid)
            if pair is None or not all(
                s.worker is not None and s.worker.state is WorkerState.BUSY and s.worker.frame
                for s in pair
            ):
                continue
            first, second = pair
            assert first.worker is not None and second.worker is not None
            assert first.worker.frame is not None and second.worker.frame is not None
            if first.worker.frame.location != second.worker.frame.location:
                continue
            if not self._idle_between(first, second):
                continue
            return worker, second.worker.frame.location, self._stuck_since(worker, first)
        main = self._procs.get(main_pid)
        pair = self._last_two(main_pid)
        if main is not None and pair is not None and not candidates:
            # num_workers=0: the main process runs the dataset code itself.
            frames = [s.main.user_frame for s in pair if s.main is not None]
            if (
                len(frames) == 2
                and frames[0] is not None
                and frames[1] is not None
                and frames[0].location == frames[1].location
                and self._idle_between(*pair)
            ):
                return main, frames[1].location, self._stuck_since(main, pair[0])
        return None

    @staticmethod
    def _stuck_since(proc: _Proc, first_sample: StackSample) -> float:
        since = first_sample.at
        if proc.active_at is not None:
            since = min(since, proc.active_at)
        return since

    def _victims(
        self, states: dict[int, tuple[str, str]], exclude: int, now: float
    ) -> list[dict[str, EvidenceValue]]:
        victims: list[dict[str, EvidenceValue]] = []
        for rank, (state, frame) in sorted(states.items()):
            if rank == exclude or state not in WAITING_STATES:
                continue
            proc = self._procs.get(self._rank_pid.get(rank, -1))
            waiting = (
                now - proc.active_at if proc is not None and proc.active_at is not None else 0.0
            )
            victims.append(
                {
                    "rank": rank,
                    "pid": self._rank_pid.get(rank),
                    "state": state,
                    "frame": frame,
                    "idle_seconds": round(waiting, 1),
                }
            )
        return victims

    # CheckpointStalled ------------------------------------------------------------------
    def _checkpoint_verdict(self, rank: int, now: float) -> list[DetectorOutput]:
        key = ("CheckpointStalled", rank)
        pid = self._rank_pid[rank]
        proc = self._procs.get(pid)
        pair = self._last_two(pid)
        if proc is None or pair is None:
            return []
        saving = all(s.main is not None and _is_saving(s) for s in pair)
        in_disk_sleep = proc.state is ProcState.DISK_SLEEP
        no_writes = (
            pair[0].proc is not None
            and pair[1].proc is not None
            and (pair[0].proc.written_bytes == pair[1].proc.written_bytes)
        )
        idle = self._idle_between(*pair)
        if not saving or not ((no_writes and idle) or in_disk_sleep):
            if key in self._firing:
                return [self._resolve(key, f"rank {rank} writes its checkpoint again")]
            return []
        if in_disk_sleep:
            since = proc.state_since
        else:
            # Stalled since the later of its last write and its last CPU use.
            changes = [t for t in (proc.written_changed_at, proc.active_at) if t is not None]
            since = max(changes) if changes else pair[0].at
        stalled = now - since
        if key in self._firing:
            return []
        if stalled < self.settings.checkpoint_stall_seconds:
            self._confirm_later(
                since + self.settings.checkpoint_stall_seconds,
                f"confirm: rank {rank} checkpoint save not writing",
            )
            return []
        sample = pair[1]
        frame = _main_frame(sample)
        how = "in uninterruptible disk sleep" if in_disk_sleep else "writing nothing, using no CPU"
        self._firing[key] = _Firing(
            "CheckpointStalled", rank, now, pid, Category.STORAGE_IO, Severity.CRITICAL
        )
        return [
            Transition(
                detector=self.name,
                alertname="CheckpointStalled",
                firing=True,
                severity=Severity.CRITICAL,
                category=Category.STORAGE_IO,
                identity={"rank": str(rank)},
                summary=f"rank {rank}: checkpoint save stalled {stalled:.0f} s ({how}) in {frame}",
                description=(
                    f"Rank {rank} is inside a checkpoint save and has made no write progress for "
                    f"{stalled:.0f} s. Check the filesystem it writes to."
                ),
                evidence={
                    "rank": rank,
                    "pid": pid,
                    "frame": frame,
                    "top_frames": list(sample.main.top if sample.main else ()),
                    "stalled_seconds": round(stalled, 1),
                    "process_state": proc.state.value,
                    "wchan": sample.proc.wchan if sample.proc else "",
                    "written_bytes": sample.proc.written_bytes if sample.proc else None,
                    "dump_path": sample.dump_path,
                    **self._stack_evidence(),
                },
                culprit_ranks=(rank,),
            )
        ]

    # RankNotInCollective ----------------------------------------------------------------
    def _straggler_verdicts(
        self, now: float, states: dict[int, tuple[str, str]]
    ) -> list[DetectorOutput]:
        out: list[DetectorOutput] = []
        waiting_since = self._persistent_victims()
        # No local rank waits, but the peers are on other nodes and the job stopped stepping:
        # the node that sees its rank outside any collective names it (the others cannot).
        quiet = self._job_quiet(now)
        # Nobody recognisably waits and the job stopped: the ranks that look alike are the
        # waiting majority, whatever they wait in, and the odd ones out are the suspects.
        odd = self._odd_ones_out() if not waiting_since and quiet is not None else None
        remote = not waiting_since and odd is None and quiet is not None and self._peers_elsewhere()
        for rank in sorted(self._rank_pid):
            key = ("RankNotInCollective", rank)
            outlier = odd is not None and rank in odd.outliers
            culprit = (
                self._culprit_state(rank, now)
                if (waiting_since and rank not in waiting_since) or remote or outlier
                else None
            )
            explained = culprit is not None and self._explained(rank, culprit, now)
            limit = self._straggler_limit(culprit is not None and self._busy(rank))
            if odd is not None and quiet is not None:
                # Overdue by the job's own pace, and only a warning; a busy outlier may be in a
                # long phase nobody announced, so it gets the busy limit first.
                need = self._straggler_limit(True) if self._busy(rank) else 0.0
                victims = dict.fromkeys(odd.majority.ranks, quiet) if quiet >= need else {}
            elif remote and quiet is not None:
                victims = {REMOTE_PEERS: quiet} if quiet >= limit else {}
            else:
                victims = {r: now - t for r, t in waiting_since.items() if now - t >= limit}
            if culprit is not None and not explained and not victims and waiting_since:
                first = min(waiting_since.values())
                self._confirm_later(first + limit, f"confirm: rank {rank} not in the collective")
            elif culprit is not None and not explained and not victims and quiet is not None:
                self._confirm_later(
                    now + limit - quiet, f"confirm: rank {rank} outside collectives"
                )
            if culprit is None or explained or not victims:
                if key in self._firing:
                    out.append(
                        self._resolve(key, f"rank {rank} is no longer holding up a collective")
                    )
                continue
            state, frame = culprit
            category, severity = _straggler_category(state)
            if outlier:
                severity = Severity.WARNING  # suspected: nothing recognised the others' wait
            current = self._firing.get(key)
            if current is not None and current.category is category:
                continue
            waiting = max(victims.values())
            victim_list = [r for r in sorted(victims) if r != REMOTE_PEERS]
            if outlier and odd is not None:
                summary = (
                    f"rank {rank} is the odd one out while the job has made no step for "
                    f"{waiting:.0f} s: ranks {_ranks_text(victim_list)} all show one stack"
                    + (f" (at {self._group_frame(odd.majority.ranks)})" if victim_list else "")
                    + f", rank {rank} another: {_describe(state)}"
                    + (f" at {frame}" if frame else "")
                )
            elif victim_list:
                summary = (
                    f"rank {rank} is not in the collective that rank {_ranks_text(victim_list)} "
                    f"{'has' if len(victim_list) == 1 else 'have'} waited in for {waiting:.0f} s: "
                    f"{_describe(state)}" + (f" at {frame}" if frame else "")
                )
            else:
                summary = (
                    f"rank {rank} is outside any collective while the job has made no step for "
                    f"{waiting:.0f} s (its peers run on other nodes): {_describe(state)}"
                    + (f" at {frame}" if frame else "")
                )
            pid = self._rank_pid[rank]
            proc = self._procs.get(pid)
            last = proc.samples[-1] if proc is not None and proc.samples else None
            self._firing[key] = _Firing(
                "RankNotInCollective",
                rank,
                now,
                pid,
                category,
                severity,
                waiting_pids=self._idle_pids(victim_list, now),
            )
            out.append(
                Transition(
                    detector=self.name,
                    alertname="RankNotInCollective",
                    firing=True,
                    severity=severity,
                    category=category,
                    identity={"rank": str(rank)},
                    summary=summary,
                    description=(
                        "Ranks waiting in a collective are victims; the rank that never got "
                        "there is the culprit. Its stack shows where it is instead."
                    ),
                    evidence={
                        "rank": rank,
                        "pid": pid,
                        "state": state,
                        "frame": frame,
                        "top_frames": list(last.main.top if last is not None and last.main else ()),
                        "process_state": proc.state.value if proc else "unknown",
                        "wchan": last.proc.wchan if last is not None and last.proc else "",
                        "victims": self._victims(states, exclude=rank, now=now),
                        "waiting_ranks": victim_list,
                        "waiting_seconds": round(waiting, 1),
                        "stack_groups": self._stack_groups_evidence(),
                        "dump_path": last.dump_path if last is not None else "",
                        **self._stack_evidence(),
                    },
                    culprit_ranks=(rank,),
                )
            )
        return out

    def _signatures(self, *, stable: bool) -> dict[int, str]:
        """rank → the signature of its latest stack (with `stable`, only ranks whose last two
        stacks were the same: a rank stuck in one place)."""
        out = {}
        for rank, pid in self._rank_pid.items():
            proc = self._procs.get(pid)
            if proc is None or not proc.samples or proc.samples[-1].main is None:
                continue
            last = proc.samples[-1].main
            if stable:
                pair = self._last_two(pid)
                if pair is None or pair[0].main is None:
                    continue
                if pair[0].main.signature != last.signature:
                    continue
            out[rank] = last.signature
        return out

    def _odd_ones_out(self) -> OddOnesOut | None:
        """The waiting majority and the ranks outside it. The majority must be stuck (the same
        stack twice); an outlier may be anywhere, busy or not."""
        latest = self._signatures(stable=False)
        if len(latest) < len(self._rank_pid):
            return None  # a rank not yet seen could be the odd one out, or the majority's
        odd = odd_ones_out(latest)
        if odd is None:
            return None
        stable = self._signatures(stable=True)
        if any(stable.get(r) != odd.majority.signature for r in odd.majority.ranks):
            return None
        if any(self._busy(r) for r in odd.majority.ranks):
            return None  # a majority that computes is not waiting for anyone
        return odd

    def _group_frame(self, ranks: Sequence[int]) -> str:
        proc = self._procs.get(self._rank_pid.get(ranks[0], -1)) if ranks else None
        return _main_frame(proc.samples[-1]) if proc is not None and proc.samples else ""

    def _stack_groups_evidence(self) -> list[EvidenceValue]:
        """The local ranks grouped by stack, largest group first: who looks like whom."""
        return [
            {
                "ranks": list(g.ranks),
                "signature": g.signature,
                "frame": self._group_frame(g.ranks),
            }
            for g in group_stacks(self._signatures(stable=False))
        ]

    def _idle_pids(self, ranks: Sequence[int], now: float) -> tuple[int, ...]:
        """Pids of these ranks when all of them are idle now (their CPU use then means they run
        again); empty when some spin while they wait, where only a new dump can tell."""
        pids = [self._rank_pid[r] for r in ranks if r in self._rank_pid]
        procs = [self._procs.get(pid) for pid in pids]
        idle = all(
            p is not None
            and p.active_at is not None
            and now - p.active_at >= self.settings.repeat_gap_seconds
            for p in procs
        )
        return tuple(pids) if idle else ()

    def _persistent_victims(self) -> dict[int, float]:
        """rank → since when it waits, for ranks in a collective in their last two samples."""
        victims = {}
        stepped = self.view.last_progress_at if self.view is not None else None
        for rank, pid in self._rank_pid.items():
            proc = self._procs.get(pid)
            if proc is None or proc.state is ProcState.STOPPED or len(proc.samples) < 2:
                continue
            samples = list(proc.samples)
            if stepped is not None and samples[-1].at < stepped:
                continue  # the job stepped after this sample: the wait it showed is over
            run_start: float | None = None
            for index in range(len(samples) - 1, -1, -1):
                prev = samples[index - 1] if index > 0 else None
                if self._effective(samples[index], prev, proc) not in WAITING_STATES:
                    break
                run_start = samples[index].at
            if run_start is None or run_start > samples[-2].at:
                continue  # not in a collective in both of the last two samples
            if proc.active_at is not None:
                run_start = min(run_start, proc.active_at)
            victims[rank] = run_start
        return victims

    def _job_quiet(self, now: float) -> float | None:
        """Seconds since the job last stepped, once its pace is known and it is overdue."""
        view = self.view
        if view is None or view.last_progress_at is None or view.stall_window_seconds is None:
            return None
        quiet = now - view.last_progress_at
        return quiet if quiet >= view.stall_window_seconds else None

    def _peers_elsewhere(self) -> bool:
        """The job has ranks this node does not run (WORLD_SIZE larger than its ranks here)."""
        return self._world_size is not None and self._world_size > len(self._rank_pid)

    def _busy(self, rank: int) -> bool:
        """The rank used CPU between its last two samples."""
        pair = self._last_two(self._rank_pid.get(rank))
        return pair is not None and not self._idle_between(*pair)

    def _culprit_state(self, rank: int, now: float) -> tuple[str, str] | None:
        """The rank's state when it is consistently outside any collective, else None."""
        pid = self._rank_pid[rank]
        proc = self._procs.get(pid)
        if proc is None:
            return None
        last = proc.samples[-1] if proc.samples else None
        frame = _main_frame(last) if last is not None else ""
        if proc.state is ProcState.STOPPED:
            return STOPPED, frame
        # A process that writes passes through disk sleep all the time; only one that stays
        # there without writing is held up by storage.
        if (
            proc.state is ProcState.DISK_SLEEP
            and now - proc.state_since >= self.settings.straggler_alert_seconds
            and not _after(proc.written_changed_at, proc.state_since)
        ):
            return DISK_SLEEP, frame
        pair = self._last_two(pid)
        if pair is None:
            return None
        older = proc.samples[-3] if len(proc.samples) > 2 else None
        first_state = self._effective(pair[0], older, proc)
        second_state = self._effective(pair[1], pair[0], proc)
        if first_state in WAITING_STATES or second_state in WAITING_STATES:
            return None
        return second_state, frame

    def _explained(self, rank: int, culprit: tuple[str, str], now: float) -> bool:
        """Another alert already names this rank, or it is busy in a known long phase (seen in
        its stack, or announced in the job's output)."""
        if ("DataloaderStalled", rank) in self._firing or (
            "CheckpointStalled",
            rank,
        ) in self._firing:
            return True
        state, _frame = culprit
        proc = self._procs.get(self._rank_pid[rank])
        pair = self._last_two(self._rank_pid[rank])
        if proc is None or pair is None:
            return False
        announced = self.view.in_phase(now) if self.view is not None else None
        if announced is not None and state not in (STOPPED, DISK_SLEEP):
            wrote_now = _after(proc.written_changed_at, pair[0].at)
            if wrote_now or not self._idle_between(*pair):
                return True  # the job said it is in a long phase, and this rank works at it
        phase = pair[1].main.phase if pair[1].main is not None else None
        wrote = (
            pair[0].proc is not None
            and pair[1].proc is not None
            and (pair[0].proc.written_bytes != pair[1].proc.written_bytes)
        )
        if state == DISK_SLEEP and (announced is not None or phase is not None):
            # a save on a busy disk sleeps in the kernel between its writes: while its bytes
            # still grow it works at the phase; one that wrote nothing is stuck in it
            return wrote or _after(proc.written_changed_at, pair[0].at)
        if phase is None and state not in (MainState.IN_CHECKPOINT.value, MainState.IN_INIT.value):
            return False
        if state in (STOPPED, DISK_SLEEP):
            return False
        # A phase that still makes progress is expected to be slow; a stalled one is not, and
        # a stalled save is CheckpointStalled's to report once it has lasted long enough.
        return wrote or not self._idle_between(*pair) or phase is Phase.CHECKPOINT

    # PhaseHint --------------------------------------------------------------------------
    def _phase_hints(self, now: float, states: dict[int, tuple[str, str]]) -> list[DetectorOutput]:
        """Once per episode: ranks in a known long phase, and the local ranks waiting for them."""
        in_phase: dict[int, tuple[Phase, str]] = {}
        for rank, pid in sorted(self._rank_pid.items()):
            proc = self._procs.get(pid)
            last = proc.samples[-1] if proc is not None and proc.samples else None
            if last is None or last.main is None or last.main.phase is None:
                continue
            if self._phase_over(last.main.phase, last.at):
                continue
            in_phase[rank] = (last.main.phase, f"stacks: {_main_frame(last)}")
        if in_phase:
            holder, (phase, _origin) = min(in_phase.items())
            for rank, (state, _frame) in sorted(states.items()):
                if rank not in in_phase and state in WAITING_STATES:
                    in_phase[rank] = (phase, f"stacks: waiting for rank {holder} ({phase.value})")
        out: list[DetectorOutput] = []
        for rank in sorted(self._rank_pid):
            wanted = in_phase.get(rank)
            if wanted is None:
                self._hinted.pop(rank, None)
            elif self._hinted.get(rank) is not wanted[0]:
                self._hinted[rank] = wanted[0]
                out.append(PhaseHint(now, rank, wanted[0].value, self._hold(wanted[0]), wanted[1]))
        return out

    def _phase_over(self, phase: Phase, sampled_at: float) -> bool:
        """Whether the job stepped after a stack showing this phase was taken, for a phase a
        step ends (start-up, a save): such a stack says where the rank was then, not now. A
        rank sampled at start-up in init_process_group and not sampled since (a later round
        looked only at the suspect) is not still starting up once the job has trained."""
        stepped = self.view.last_progress_at if self.view is not None else None
        return (
            stepped is not None
            and phase.value in ENDED_BY_A_STEP
            and stepped > sampled_at + _STEP_SEEN_SLACK_SECONDS
        )

    def _hold(self, phase: Phase) -> float:
        return {
            Phase.CHECKPOINT: self.progress.checkpoint_grace_seconds,
            Phase.INIT: self.progress.first_step_grace_seconds,
            Phase.EVALUATION: self.progress.evaluation_grace_seconds,
        }[phase]

    # -- shared --------------------------------------------------------------------------
    def _resolve(self, key: tuple[str, int], why: str) -> Transition:
        firing = self._firing.pop(key)
        return Transition(
            detector=self.name,
            alertname=firing.alertname,
            firing=False,
            severity=firing.severity,
            category=firing.category,
            identity={"rank": str(firing.rank)},
            summary=f"rank {firing.rank}: {why}",
        )

    def _stack_evidence(self) -> dict[str, EvidenceValue]:
        if self._blind_reason:
            return {"stack_evidence": f"unavailable: {self._blind_reason}"}
        return {"stack_evidence": "py-spy"}

    # -- outputs -------------------------------------------------------------------------
    def metric_families(self, now: float) -> Sequence[MetricFamilyData]:
        states = self._rank_states(now)
        ranks = sorted(states)
        stalled = {r for (name, r) in self._firing if name == "DataloaderStalled"}
        # Only while the job is overdue: a busy rank's signature changes with every dump, and
        # a series per dump would churn the metrics store for nothing.
        signatures = self._signatures(stable=True) if self._job_quiet(now) is not None else {}
        return [
            gauge(
                "rank_in_collective",
                "1 when the rank's latest stack shows it waiting for its peers: inside a "
                "collective, or (CUDA) on the GPU behind one.",
                ("rank",),
                [((str(r),), 1.0 if states[r][0] in WAITING_STATES else 0.0) for r in ranks],
            ),
            gauge(
                "rank_stack_state",
                "1 for the state of the rank's main thread in its latest stack dump.",
                ("rank", "state"),
                [
                    ((str(r), s), 1.0 if states[r][0] == s else 0.0)
                    for r in ranks
                    for s in RANK_STATES
                ],
            ),
            gauge(
                "rank_stack_signature",
                "1 for the signature of the rank's stack when its last two dumps agree, "
                "exported while the job is overdue for a step: ranks stuck alike share it.",
                ("rank", "signature"),
                [((str(r), sig), 1.0) for r, sig in sorted(signatures.items())],
            ),
            gauge(
                "dataloader_stalled",
                "1 while a DataloaderStalled alert fires for the rank.",
                ("rank",),
                [((str(r),), 1.0 if r in stalled else 0.0) for r in sorted(self._rank_pid)],
            ),
        ]

    def health(self, now: float) -> ConcernHealth:
        if self._blind_reason:
            return ConcernHealth(self.name, Health.UNKNOWN, self._blind_reason)
        if not self._sampler_seen:
            return ConcernHealth(self.name, Health.UNKNOWN, "no stack dump taken yet")
        if not self._firing:
            return ConcernHealth(self.name, Health.OK)
        worst = max(self._firing.values(), key=lambda f: f.severity.rank)
        health = Health.CRITICAL if worst.severity is Severity.CRITICAL else Health.WARNING
        return ConcernHealth(self.name, health, f"{worst.alertname} rank {worst.rank}")


def _after(moment: float | None, since: float) -> bool:
    return moment is not None and moment > since


def _main_frame(sample: StackSample) -> str:
    """The frame that decided the state of the sample's main thread (MainClass.where)."""
    return sample.main.where if sample.main is not None else ""


def _is_saving(sample: StackSample) -> bool:
    main = sample.main
    if main is None:
        return False
    if main.state is MainState.IN_CHECKPOINT:
        return True
    return main.phase is Phase.CHECKPOINT and main.state is MainState.COMPUTE


def _ranks_text(ranks: Sequence[object]) -> str:
    return ",".join(str(r) for r in ranks)


_STRAGGLER_CATEGORY: dict[str, tuple[Category, Severity]] = {
    MainState.COMPUTE.value: (Category.COLLECTIVE_DESYNC, Severity.CRITICAL),
    MainState.DATALOADER_WAIT.value: (Category.DATALOADER_STALL, Severity.WARNING),
    MainState.IN_CHECKPOINT.value: (Category.STORAGE_IO, Severity.CRITICAL),
    MainState.IN_INIT.value: (Category.INIT_TIMEOUT, Severity.CRITICAL),
    STOPPED: (Category.RANK_STOPPED, Severity.CRITICAL),
    DISK_SLEEP: (Category.STORAGE_IO, Severity.CRITICAL),
}


def _straggler_category(state: str) -> tuple[Category, Severity]:
    return _STRAGGLER_CATEGORY.get(state, (Category.UNDETERMINED, Severity.WARNING))


def _describe(state: str) -> str:
    return {
        MainState.COMPUTE.value: "it is in user code",
        MainState.DATALOADER_WAIT.value: "it waits for a batch from its DataLoader",
        MainState.IN_CHECKPOINT.value: "it is in a checkpoint save",
        MainState.IN_INIT.value: "it is still initialising the process group",
        MainState.GPU_WAIT.value: "its host waits on its GPU",
        STOPPED: "its process is stopped",
        DISK_SLEEP: "its process is in uninterruptible disk sleep",
    }.get(state, "its stack does not say where")
