"""Process probe (psutil, polled in a worker thread): the job's ranks, their workers, and exits.

Roles:
- rank: the topmost process of the tree whose environment carries RANK / LOCAL_RANK /
  SLURM_PROCID (DataLoader workers inherit the variables, so only the topmost one counts).
  Fallback when no environment is readable (another user's processes without ptrace rights):
  if the topmost Python process has Python children, those children are the ranks (a
  launcher such as torchrun); otherwise it is rank 0 itself. Ranks found this way are numbered
  in order of start time and the fallback is visible in `env_readable=False`.
- worker: a descendant of a rank (DataLoader workers: process title `pt_data_worker`, or Python
  children of a rank).
- launcher: everything else in the tree.

A rank or worker that disappears becomes a ProcessExit whose status comes, in order of trust,
from wait() on our own child, the kernel's process-event connector, the zombie's /proc entry,
or nowhere ("unknown": never a guess).
"""

from __future__ import annotations

import dataclasses
import os
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from monitor.errors import SourceError
from monitor.model import (
    Observation,
    ProcessExit,
    ProcessInfo,
    ProcessSnapshot,
    ProcRole,
    ProcState,
)
from monitor.sources.exit_events import ExitStatus, ExitStatusBook, decode_wait_status
from monitor.sources.oom_counter import memory_cgroup, oom_kills

_TEARDOWN_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
RANK_VARIABLES = ("RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "LOCAL_RANK")
WORLD_SIZE_VARIABLES = ("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS")
# Launchers start and tear down ranks; they are never ranks themselves, even once their
# workers are gone (torchrun outliving them) or when no environment is readable.
LAUNCHER_WORDS = (
    "torchrun", "torch.distributed.run", "torch.distributed.launch", "torch/distributed/run.py",
    "torch/distributed/launch.py", "accelerate", "deepspeed", "mpirun", "mpiexec", "srun",
    "pdsh", "orterun", "prterun", "jsrun", "hydra_pmi_proxy",
)


def is_launcher(cmdline: Sequence[str]) -> bool:
    """Does this command line start a launcher (by its program or `python -m` module)?"""
    for arg in cmdline[:3]:
        base = arg.rsplit("/", 1)[-1]
        if base in LAUNCHER_WORDS or any(word in arg for word in LAUNCHER_WORDS if "/" in word):
            return True
        if base.startswith(("torchrun", "deepspeed", "accelerate")):
            return True
    return False
WORKER_TITLES = ("pt_data_worker",)

_STATES = {
    psutil.STATUS_RUNNING: ProcState.RUNNING,
    psutil.STATUS_SLEEPING: ProcState.SLEEPING,
    psutil.STATUS_IDLE: ProcState.SLEEPING,
    psutil.STATUS_DISK_SLEEP: ProcState.DISK_SLEEP,
    psutil.STATUS_STOPPED: ProcState.STOPPED,
    psutil.STATUS_TRACING_STOP: ProcState.STOPPED,
    psutil.STATUS_ZOMBIE: ProcState.ZOMBIE,
    psutil.STATUS_DEAD: ProcState.GONE,
}


@dataclass(frozen=True)
class _Static:
    """Per-process facts read once (environment, executable), keyed by (pid, create_time)."""

    create_time: float
    cmdline: tuple[str, ...]  # exec keeps pid and start time: the command line tells them apart
    is_python: bool
    rank: int | None
    local_rank: int | None
    env_readable: bool
    rank_env: bool
    environ: tuple[tuple[str, str], ...]
    world_size: int | None = None


@dataclass(frozen=True)
class _Seen:
    info: ProcessInfo
    create_time: float


def _is_python(proc: psutil.Process) -> bool:
    try:
        exe = os.path.basename(proc.exe())
    except (psutil.Error, OSError):
        exe = ""
    name = exe or proc.name()
    return name.startswith("python") or name in WORKER_TITLES


def _int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


# Environment variables worth keeping for other sources (NCCL RAS address, job identity).
KEPT_VARIABLES = ("NCCL_RAS_ADDR", "NCCL_RAS_ENABLE", "SLURM_JOB_ID", "MASTER_ADDR")


class ProcessProbe:
    name = "process"

    def __init__(
        self,
        roots: Callable[[], Sequence[int]],
        book: ExitStatusBook,
        interval_seconds: float = 1.0,
    ) -> None:
        self.roots = roots
        self.book = book
        self.interval_seconds = interval_seconds
        self._static: dict[int, _Static] = {}
        self._seen: dict[int, _Seen] = {}
        self._deferred: dict[int, int] = {}  # pid → polls waited for an exit status
        self.latest: ProcessSnapshot | None = None
        self.environments: dict[int, dict[str, str]] = {}
        self._ranks_from_env = False
        self._workers: set[tuple[int, float]] = set()  # (pid, start time) once seen as workers
        # rank pid -> (its memory cgroup, that cgroup's OOM-kill count at the last poll)
        self._oom: dict[int, tuple[Path | None, int | None]] = {}

    def poll(self, now: float) -> Sequence[Observation]:
        procs = self._collect()
        if not procs and not self._seen:
            roots = list(self.roots())
            if roots and not any(psutil.pid_exists(p) for p in roots):
                raise SourceError("no_process", f"none of the watched pids {roots} exists")
        infos = self._classify(procs)
        mem = psutil.virtual_memory()
        snapshot = ProcessSnapshot(now, tuple(infos), int(mem.total), int(mem.available))
        out: list[Observation] = [snapshot]
        out.extend(self._exits(now, infos, snapshot))
        self.latest = snapshot
        return out

    # -- discovery -----------------------------------------------------------------------
    def _collect(self) -> list[psutil.Process]:
        found: dict[int, psutil.Process] = {}
        for pid in self.roots():
            try:
                root = psutil.Process(pid)
                found[root.pid] = root
                for child in root.children(recursive=True):
                    found[child.pid] = child
            except psutil.NoSuchProcess:
                continue
            except psutil.AccessDenied as exc:
                raise SourceError("access_denied", f"cannot read process {pid}: {exc}") from exc
        return list(found.values())

    def _static_for(self, proc: psutil.Process) -> _Static | None:
        cached = self._static.get(proc.pid)
        try:
            create_time = proc.create_time()
            cmdline = tuple(proc.cmdline())
        except psutil.ZombieProcess:
            # A rank killed and not yet reaped (its launcher does not wait for it): it keeps the
            # identity it had alive, so it is reported dead now, not forgotten as a launcher.
            if cached is not None:
                return cached
            cmdline = ()
        except psutil.Error:
            return None
        if cached is not None and cached.create_time == create_time and cached.cmdline == cmdline:
            return cached
        env: dict[str, str] = {}
        env_readable = True
        try:
            env = proc.environ()
        except (psutil.AccessDenied, psutil.ZombieProcess, OSError):
            env_readable = False
        except psutil.NoSuchProcess:
            return None
        rank_env = any(var in env for var in RANK_VARIABLES)
        local_rank = _int_or_none(env.get("LOCAL_RANK"))
        candidates = [_int_or_none(env.get(var)) for var in RANK_VARIABLES]
        rank = next((value for value in candidates if value is not None), None)
        sizes = [_int_or_none(env.get(var)) for var in WORLD_SIZE_VARIABLES]
        world_size = next((value for value in sizes if value is not None), None)
        kept = tuple((k, env[k]) for k in KEPT_VARIABLES if k in env)
        static = _Static(
            create_time,
            cmdline,
            _is_python(proc),
            rank,
            local_rank,
            env_readable,
            rank_env,
            kept,
            world_size,
        )
        self._static[proc.pid] = static
        return static

    def _classify(self, procs: list[psutil.Process]) -> list[ProcessInfo]:
        statics: dict[int, _Static] = {}
        parents: dict[int, int] = {}
        live: dict[int, psutil.Process] = {}
        for proc in procs:
            static = self._static_for(proc)
            if static is None:
                continue
            try:
                parents[proc.pid] = proc.ppid()
            except psutil.Error:
                continue
            statics[proc.pid] = static
            live[proc.pid] = proc
        for pid in list(self._static):
            if pid not in statics:
                del self._static[pid]
        self._workers = {w for w in self._workers if w[0] in statics}

        rank_of: dict[int, int | None] = {}
        # Topmost process carrying a rank variable: its parent does not carry the same rank.
        for pid, static in statics.items():
            parent = statics.get(parents[pid])
            if (pid, static.create_time) in self._workers:
                continue  # a worker stays a worker when its rank dies and it is reparented
            if static.rank_env and not (parent and parent.rank_env and parent.rank == static.rank):
                rank_of[pid] = static.rank
        inferred_world = 0
        if rank_of:
            self._ranks_from_env = True
        elif not self._ranks_from_env:
            # Only before any rank was found by its environment: once ranks were seen that way,
            # a tree without them is a launcher outliving its workers, not a new rank.
            rank_of = self._infer_ranks(statics, parents)
            inferred_world = len(rank_of)

        self.environments = {pid: dict(statics[pid].environ) for pid in rank_of}
        infos: list[ProcessInfo] = []
        for pid, proc in live.items():
            static = statics[pid]
            rank_pid = self._owning_rank(pid, parents, rank_of)
            if pid in rank_of:
                role, rank, local = ProcRole.RANK, rank_of[pid], static.local_rank
            elif rank_pid is not None:
                role, rank, local = ProcRole.WORKER, rank_of[rank_pid], None
                self._workers.add((pid, static.create_time))
            else:
                role, rank, local = ProcRole.LAUNCHER, None, None
            info = _read_dynamic(proc, role, rank, local, rank_pid, static, parents[pid])
            if info is not None and role is ProcRole.RANK and inferred_world:
                # Ranks told apart by the process tree alone: the tree is the whole job.
                info = dataclasses.replace(info, world_size=inferred_world)
            if info is not None:
                infos.append(info)
        return infos

    @staticmethod
    def _infer_ranks(statics: dict[int, _Static], parents: dict[int, int]) -> dict[int, int | None]:
        pythons = [pid for pid, s in statics.items() if s.is_python]
        topmost = [pid for pid in pythons if parents.get(pid) not in pythons]
        if not topmost:
            return {}
        top = min(topmost, key=lambda p: statics[p].create_time)
        children = [pid for pid in pythons if parents.get(pid) == top]
        members = children or ([] if is_launcher(statics[top].cmdline) else [top])
        members.sort(key=lambda p: (statics[p].create_time, p))
        return {pid: i for i, pid in enumerate(members)}

    @staticmethod
    def _owning_rank(
        pid: int, parents: dict[int, int], rank_of: dict[int, int | None]
    ) -> int | None:
        seen = 0
        current = parents.get(pid)
        while current is not None and seen < 64:
            if current in rank_of:
                return current
            current = parents.get(current)
            seen += 1
        return None

    # -- exits ---------------------------------------------------------------------------
    def _exits(
        self, now: float, infos: list[ProcessInfo], snapshot: ProcessSnapshot
    ) -> list[ProcessExit]:
        alive = {i.pid: i for i in infos}
        current = {pid: i for pid, i in alive.items() if i.role is not ProcRole.LAUNCHER}
        out: list[ProcessExit] = []
        for pid, seen in list(self._seen.items()):
            info = alive.get(pid)
            if info is not None and info.role is ProcRole.LAUNCHER:
                del self._seen[pid]  # reclassified (an early guess), not an exit
                continue
            if info is not None and info.state is not ProcState.ZOMBIE:
                continue
            status = self.book.lookup(pid)
            if status is None and info is not None:
                status = _zombie_status(pid)
            if status is None and self._deferred.get(pid, 0) < 1 and info is None:
                # The connector's event may be a moment behind the reaping parent: wait a poll.
                self._deferred[pid] = self._deferred.get(pid, 0) + 1
                continue
            self._deferred.pop(pid, None)
            del self._seen[pid]
            status = status or ExitStatus(None, None, "unknown")
            cgroup, kills_before = self._oom.pop(pid, (None, None))
            kills_now = oom_kills(cgroup) if cgroup is not None else None
            oom_killed = (
                status.signal == signal.SIGKILL
                and kills_now is not None
                and kills_before is not None
                and kills_now > kills_before
            )
            out.append(
                ProcessExit(
                    at=now,
                    pid=pid,
                    role=seen.info.role,
                    rank=seen.info.rank,
                    exit_code=status.exit_code,
                    signal=status.signal,
                    last_rss_bytes=seen.info.rss_bytes,
                    mem_total_bytes=snapshot.mem_total_bytes,
                    mem_available_bytes=snapshot.mem_available_bytes,
                    status_source=status.source,
                    oom_killed=oom_killed,
                )
            )
        for pid, info in current.items():
            if info.state is not ProcState.ZOMBIE and pid not in self._deferred:
                self._seen[pid] = _Seen(info, 0.0)
                if info.role is ProcRole.RANK:
                    # Read each poll: a rank may be moved into its job's cgroup after it starts.
                    cgroup = memory_cgroup(pid)
                    self._oom[pid] = (cgroup, oom_kills(cgroup) if cgroup else None)
        # Within one poll, report the rank that failed on its own before those its launcher
        # terminated afterwards (SIGTERM/SIGINT), so the first cause is named first.
        out.sort(key=lambda e: e.signal in _TEARDOWN_SIGNALS)
        return out


def _read_dynamic(
    proc: psutil.Process,
    role: ProcRole,
    rank: int | None,
    local_rank: int | None,
    rank_pid: int | None,
    static: _Static,
    ppid: int,
) -> ProcessInfo | None:
    try:
        with proc.oneshot():
            status = proc.status()
            cpu = proc.cpu_times()
            rss = proc.memory_info().rss
            threads = proc.num_threads()
            name = proc.name()
    except psutil.ZombieProcess:
        return ProcessInfo(
            proc.pid,
            ppid,
            role,
            rank,
            local_rank,
            rank_pid,
            "",
            ProcState.ZOMBIE,
            0.0,
            0,
            0,
            static.is_python,
            static.env_readable,
            static.world_size,
        )
    except psutil.Error:
        return None
    return ProcessInfo(
        pid=proc.pid,
        ppid=ppid,
        role=role,
        rank=rank,
        local_rank=local_rank,
        rank_pid=rank_pid,
        name=name,
        state=_STATES.get(status, ProcState.OTHER),
        cpu_seconds=float(cpu.user + cpu.system),
        rss_bytes=int(rss),
        threads=int(threads),
        is_python=static.is_python,
        env_readable=static.env_readable,
        world_size=static.world_size,
    )


def _zombie_status(pid: int) -> ExitStatus | None:
    """A zombie's wait status is the last field of /proc/PID/stat (Linux >= 3.5)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    if len(fields) < 50:
        return None
    code, sig = decode_wait_status(int(fields[-1]))
    return ExitStatus(code, sig, "zombie")
