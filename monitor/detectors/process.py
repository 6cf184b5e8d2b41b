"""Process detector: ranks that die, stop, or sit in uninterruptible disk sleep.

States per rank and edges:
    UNSEEN  --snapshot-->            ALIVE
    ALIVE   --state stopped ≥ hold-->  STOPPED   (fires RankStopped, critical, rank_stopped)
    STOPPED --state not stopped-->   ALIVE     (resolves RankStopped)
    ALIVE   --disk sleep ≥ hold-->   DISK_SLEEP (fires RankDiskSleep, warning, storage_io)
    DISK_SLEEP --other state-->      ALIVE     (resolves RankDiskSleep)
    any     --exit non-zero/signal--> DEAD     (fires RankDead, critical, rank_dead; a SIGKILL
                                              under memory pressure says "possible OOM kill",
                                              category oom). DEAD is final for the job.
                                              Which death is the failure and which its
                                              consequence is the incident layer's call.
    any     --exit 0-->              EXITED    (no alert)
    With `signal_death_hold_seconds` > 0 (SLURM mode), a death by SIGTERM or SIGKILL waits
    that long before firing, and JobEnded (the epilog stopping rankwatch: scancel, time limit,
    preemption) within the hold drops it: the scheduler ended the job, no rank failed.
    An exit whose status nobody could learn (not our child, no process-event connector) waits
    `unknown_exit_hold_seconds`: the launcher exiting 0 within it (JobEnded with code 0) means a
    clean end; a non-zero job status fires at once; otherwise it fires as a warning.
Health: UNKNOWN until the probe has reported (or while it is down); CRITICAL with a dead or
stopped rank; OK otherwise.
"""

from __future__ import annotations

import signal as signal_module
from collections.abc import Sequence
from dataclasses import dataclass, field

from monitor.model import (
    Category,
    ConcernHealth,
    DetectorOutput,
    Health,
    JobEnded,
    MetricFamilyData,
    Observation,
    ProcessExit,
    ProcessInfo,
    ProcessSnapshot,
    ProcRole,
    ProcState,
    Severity,
    SourceState,
    Suspicion,
    Transition,
    counter,
    gauge,
)
from monitor.settings import ProcessSettings

NAME = "process"
# What slurmstepd sends on scancel, time limit and preemption (SIGTERM, then SIGKILL).
SCHEDULER_SIGNALS = (signal_module.SIGTERM, signal_module.SIGKILL)


def signal_name(number: int) -> str:
    try:
        return signal_module.Signals(number).name
    except ValueError:
        return f"signal {number}"


@dataclass
class _Rank:
    rank: int
    pid: int
    info: ProcessInfo
    stopped_since: float | None = None
    disk_since: float | None = None
    stopped_firing: bool = False
    disk_firing: bool = False
    exit: ProcessExit | None = None
    workers: int = 0


@dataclass
class ProcessDetector:
    settings: ProcessSettings
    name: str = NAME
    ranks: dict[int, _Rank] = field(default_factory=dict)
    source_up: bool | None = None
    dead: list[ProcessExit] = field(default_factory=list)
    signal_death_hold_seconds: float = 0.0
    held: list[tuple[float, ProcessExit]] = field(default_factory=list)
    ended_by_scheduler: list[ProcessExit] = field(default_factory=list)
    unknown_held: list[tuple[float, ProcessExit]] = field(default_factory=list)

    def observe(self, obs: Observation, now: float) -> Sequence[DetectorOutput]:
        if isinstance(obs, ProcessSnapshot):
            self.source_up = True
            return self._snapshot(obs, now)
        if isinstance(obs, ProcessExit):
            return self._exit(obs, now)
        if isinstance(obs, SourceState) and obs.source == "process":
            self.source_up = obs.up
        if isinstance(obs, JobEnded):
            self.ended_by_scheduler.extend(ex for _, ex in self.held)
            self.held.clear()
            unknown, self.unknown_held = self.unknown_held, []
            if obs.exit_code not in (0, None):
                # The job failed: an unknown exit may well have been the cause.
                return [out for _, ex in unknown for out in self._dead(ex)]
        return ()

    def tick(self, now: float) -> Sequence[DetectorOutput]:
        out: list[DetectorOutput] = []
        while self.held and now - self.held[0][0] >= self.signal_death_hold_seconds:
            _, ex = self.held.pop(0)
            out.extend(self._dead(ex))
        hold = self.settings.unknown_exit_hold_seconds
        while self.unknown_held and now - self.unknown_held[0][0] >= hold:
            _, ex = self.unknown_held.pop(0)
            out.extend(self._dead(ex))
        out.extend(self._check_holds(now))
        return out

    def _snapshot(self, snap: ProcessSnapshot, now: float) -> list[DetectorOutput]:
        workers: dict[int, int] = {}
        for info in snap.processes:
            if info.role is ProcRole.WORKER and info.rank is not None:
                workers[info.rank] = workers.get(info.rank, 0) + 1
        for info in snap.processes:
            if info.role is not ProcRole.RANK or info.rank is None:
                continue
            state = self.ranks.get(info.rank)
            if state is None or state.pid != info.pid:
                if state is not None and state.exit is None and state.pid != info.pid:
                    pass  # a restarted rank (elastic): follow the new process
                state = _Rank(info.rank, info.pid, info)
                self.ranks[info.rank] = state
            state.info = info
            state.workers = workers.get(info.rank, 0)
            if info.state is ProcState.STOPPED:
                state.stopped_since = (
                    state.stopped_since if state.stopped_since is not None else now
                )
            else:
                state.stopped_since = None
            if info.state is ProcState.DISK_SLEEP:
                state.disk_since = state.disk_since if state.disk_since is not None else now
            else:
                state.disk_since = None
        return self._check_holds(now)

    def _check_holds(self, now: float) -> list[DetectorOutput]:
        out: list[DetectorOutput] = []
        for state in self.ranks.values():
            if state.exit is not None:
                continue
            stopped = (
                state.stopped_since is not None
                and now - state.stopped_since >= self.settings.stopped_alert_seconds
            )
            if stopped and not state.stopped_firing:
                state.stopped_firing = True  # edge ALIVE -> STOPPED
                held = now - (state.stopped_since or now)
                out.append(self._stopped(state, True, held))
                out.append(Suspicion(now, (state.rank,), "rank stopped", self.name))
            elif not stopped and state.stopped_firing and state.stopped_since is None:
                state.stopped_firing = False  # edge STOPPED -> ALIVE
                out.append(self._stopped(state, False, 0.0))
            in_disk = (
                state.disk_since is not None
                and now - state.disk_since >= self.settings.disk_sleep_alert_seconds
            )
            if in_disk and not state.disk_firing:
                state.disk_firing = True  # edge ALIVE -> DISK_SLEEP
                out.append(self._disk(state, True, now - (state.disk_since or now)))
            elif state.disk_firing and state.disk_since is None:
                state.disk_firing = False  # edge DISK_SLEEP -> ALIVE
                out.append(self._disk(state, False, 0.0))
        return out

    def _stopped(self, state: _Rank, firing: bool, held: float) -> Transition:
        summary = (
            f"rank {state.rank} stopped (SIGSTOP or traced) for {held:.0f} s, pid {state.pid}"
            if firing
            else f"rank {state.rank} running again, pid {state.pid}"
        )
        return Transition(
            detector=self.name,
            alertname="RankStopped",
            firing=firing,
            severity=Severity.CRITICAL,
            category=Category.RANK_STOPPED,
            identity={"rank": str(state.rank)},
            summary=summary,
            description=(
                "The rank's process is in the stopped state (SIGSTOP, SIGTSTP, or a debugger). "
                "Every collective waits for it; the other ranks will time out."
            ),
            evidence={
                "pid": state.pid,
                "state": state.info.state.value,
                "stopped_seconds": round(held, 1),
            },
            culprit_ranks=(state.rank,),
        )

    def _disk(self, state: _Rank, firing: bool, held: float) -> Transition:
        return Transition(
            detector=self.name,
            alertname="RankDiskSleep",
            firing=firing,
            severity=Severity.WARNING,
            category=Category.STORAGE_IO,
            identity={"rank": str(state.rank)},
            summary=(
                f"rank {state.rank} in uninterruptible disk sleep for {held:.0f} s, pid {state.pid}"
                if firing
                else f"rank {state.rank} left disk sleep"
            ),
            description="The rank is blocked in the kernel on I/O (state D): storage is stalling it.",
            evidence={"pid": state.pid, "disk_sleep_seconds": round(held, 1)},
            culprit_ranks=(state.rank,),
        )

    def _exit(self, ex: ProcessExit, now: float) -> list[DetectorOutput]:
        if ex.role is not ProcRole.RANK or ex.rank is None:
            return []
        state = self.ranks.get(ex.rank)
        if state is not None and state.pid != ex.pid:
            return []  # an old incarnation of a restarted rank
        if state is None:
            return []
        state.exit = ex
        if ex.exit_code == 0 and ex.signal is None:
            return []  # edge -> EXITED
        if self.signal_death_hold_seconds > 0 and ex.signal in SCHEDULER_SIGNALS:
            self.held.append((now, ex))
            return []
        if ex.signal is None and ex.exit_code is None:
            self.unknown_held.append((now, ex))
            return []
        return self._dead(ex)

    def _dead(self, ex: ProcessExit) -> list[DetectorOutput]:
        if ex.rank is None:
            return []
        self.dead.append(ex)  # edge -> DEAD
        # Whether this death is the failure or its consequence (a launcher tearing the job down,
        # a stop someone asked for) is the incident layer's call: it sees every rank's death.
        used = 1.0 - (ex.mem_available_bytes / ex.mem_total_bytes) if ex.mem_total_bytes else 0.0
        possible_oom = ex.oom_killed or (
            ex.signal == signal_module.SIGKILL and used >= self.settings.oom_memory_fraction
        )
        if ex.signal is not None:
            how = f"killed by {signal_name(ex.signal)}"
        elif ex.exit_code is not None:
            how = f"exited with code {ex.exit_code}"
        else:
            how = "exited (exit status unknown: not our child and no process-event connector)"
        summary = f"rank {ex.rank} (pid {ex.pid}) {how}"
        if ex.oom_killed:
            summary += "; killed by the kernel's OOM killer (its memory cgroup's oom_kill rose)"
        elif possible_oom:
            summary += f"; possible OOM kill (node memory {used:.0%} used)"
        severity = (
            Severity.CRITICAL if (ex.signal is not None or ex.exit_code) else Severity.WARNING
        )
        culprits: tuple[int, ...] = (ex.rank,)
        return [
            Transition(
                detector=self.name,
                alertname="RankDead",
                firing=True,
                severity=severity,
                category=Category.OOM if possible_oom else Category.RANK_DEAD,
                identity={"rank": str(ex.rank)},
                summary=summary,
                description=(
                    "A rank process ended while the job runs. The remaining ranks will block in "
                    "their next collective until the watchdog times out."
                ),
                evidence={
                    "pid": ex.pid,
                    "exit_code": ex.exit_code,
                    "signal": signal_name(ex.signal) if ex.signal else None,
                    "status_source": ex.status_source,
                    "last_rss_bytes": ex.last_rss_bytes,
                    "node_memory_used_fraction": round(used, 3),
                    "oom_killed": ex.oom_killed,
                },
                culprit_ranks=culprits,
            )
        ]

    def metric_families(self, now: float) -> Sequence[MetricFamilyData]:
        ranks = sorted(self.ranks.values(), key=lambda r: r.rank)
        state_samples = []
        for r in ranks:
            current = ProcState.GONE if r.exit is not None else r.info.state
            for s in ProcState:
                state_samples.append(((str(r.rank), s.value), 1.0 if s is current else 0.0))
        live = [r for r in ranks if r.exit is None]
        return [
            gauge(
                "rank_state",
                "Process state of each rank (1 for the current state).",
                ("rank", "state"),
                state_samples,
            ),
            counter(
                "rank_cpu_seconds",
                "CPU time used by each rank's main process.",
                ("rank",),
                [((str(r.rank),), r.info.cpu_seconds) for r in ranks],
            ),
            gauge(
                "rank_rss_bytes",
                "Resident memory of each rank's main process.",
                ("rank",),
                [((str(r.rank),), r.info.rss_bytes) for r in live],
            ),
            gauge(
                "rank_threads",
                "Threads of each rank's main process.",
                ("rank",),
                [((str(r.rank),), r.info.threads) for r in live],
            ),
            gauge(
                "rank_workers",
                "Worker processes (DataLoader) of each rank.",
                ("rank",),
                [((str(r.rank),), r.workers) for r in live],
            ),
            gauge(
                "rank_exited",
                "1 once the rank's process has ended.",
                ("rank",),
                [((str(r.rank),), 1.0 if r.exit else 0.0) for r in ranks],
            ),
            counter(
                "rank_deaths",
                "Ranks that ended with a non-zero status or a signal.",
                (),
                len(self.dead),
            ),
        ]

    def health(self, now: float) -> ConcernHealth:
        if not self.source_up or not self.ranks:
            reason = "process probe down" if self.source_up is False else "no rank seen yet"
            return ConcernHealth(self.name, Health.UNKNOWN, reason)
        if self.dead or any(r.stopped_firing for r in self.ranks.values()):
            return ConcernHealth(self.name, Health.CRITICAL, "rank dead or stopped")
        if any(r.disk_firing for r in self.ranks.values()):
            return ConcernHealth(self.name, Health.WARNING, "rank in disk sleep")
        return ConcernHealth(self.name, Health.OK)
