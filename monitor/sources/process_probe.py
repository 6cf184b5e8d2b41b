"""Process probe (polled in a worker thread): the job's ranks, their workers, and exits.

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

Cost (a node runs hundreds of processes; the probe runs every second): one read of
/proc/PID/stat per process gives everything that changes (state, parent, CPU time, threads,
RSS); the tree is walked through /proc/PID/task/TID/children, the main thread's only on most
polls and every thread's every `full_scan_every` polls and for processes new to the probe (a
process forked from another thread, or by a DataLoader worker, is found by a full scan). Environment, command line and executable
are read once per process, again only when an exec changes its name.
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
FULL_SCAN_EVERY = 10
# How long after its memory cgroup's OOM-kill count rose a rank's SIGKILL is still that kill's:
# the kernel frees a large process's memory before it is gone, slower on a loaded machine.
OOM_TEARDOWN_SECONDS = 10.0

_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")
_COMM_MAX = 15  # the kernel truncates a process name to 15 characters

_STATES = {
    "R": ProcState.RUNNING,
    "S": ProcState.SLEEPING,
    "I": ProcState.SLEEPING,
    "D": ProcState.DISK_SLEEP,
    "T": ProcState.STOPPED,
    "t": ProcState.STOPPED,
    "Z": ProcState.ZOMBIE,
    "X": ProcState.GONE,
    "x": ProcState.GONE,
}


@dataclass(frozen=True, slots=True)
class ProcStat:
    """What /proc/PID/stat says of one process."""

    name: str  # the kernel's (comm), at most 15 characters
    state: ProcState
    ppid: int
    cpu_seconds: float
    threads: int
    start_ticks: int  # since boot: with the pid, identifies the process
    rss_bytes: int


def _read(path: str) -> bytes:
    """A whole small /proc file; os-level calls (a buffered file object costs as much as the
    read itself, hundreds of times a second)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = [os.read(fd, 4096)]
        while len(chunks[-1]) == 4096:
            chunks.append(os.read(fd, 4096))
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_stat(proc_root: str, pid: int) -> ProcStat | None:
    """One read of /proc/PID/stat; None when the process is gone."""
    try:
        raw = _read(f"{proc_root}/{pid}/stat")
    except OSError:
        return None
    close = raw.rfind(b")")
    fields = raw[close + 2 :].split()
    if close < 0 or len(fields) < 22:
        return None
    return ProcStat(
        name=raw[raw.find(b"(") + 1 : close].decode("utf-8", "replace"),
        state=_STATES.get(fields[0].decode("ascii", "replace"), ProcState.OTHER),
        ppid=int(fields[1]),
        cpu_seconds=(int(fields[11]) + int(fields[12])) / _TICKS,
        threads=int(fields[17]),
        start_ticks=int(fields[19]),
        rss_bytes=int(fields[21]) * _PAGE,
    )


def read_children(proc_root: str, pid: int, every_thread: bool) -> list[int] | None:
    """Children of `pid` from /proc/PID/task/TID/children (of its main thread, or of every
    thread); None when the kernel has no such file (CONFIG_PROC_CHILDREN off)."""
    tids = [str(pid)]
    if every_thread:
        try:
            tids = os.listdir(f"{proc_root}/{pid}/task")
        except OSError:
            return []
    children: list[int] = []
    for tid in tids:
        try:
            children.extend(int(c) for c in _read(f"{proc_root}/{pid}/task/{tid}/children").split())
        except FileNotFoundError:
            main_thread_there = tid == str(pid) and os.path.exists(f"{proc_root}/{pid}/task/{tid}")
            if main_thread_there:
                return None
            # else the thread (or the whole process) is gone
        except OSError:
            continue
    return children


@dataclass(frozen=True)
class _Static:
    """Per-process facts read once (environment, executable), keyed by pid and start time."""

    start_ticks: int
    name: str  # an exec keeps pid and start time but changes the name: read again then
    cmdline: tuple[str, ...]
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
        *,
        proc_root: str = "/proc",
        full_scan_every: int = FULL_SCAN_EVERY,
    ) -> None:
        self.roots = roots
        self.book = book
        self.interval_seconds = interval_seconds
        self.proc_root = proc_root
        self.full_scan_every = max(1, full_scan_every)
        self._polls = 0
        self._workers: set[int] = set()  # children of workers are looked for on full scans
        self._children_files = True  # False: the kernel has none, ask psutil
        self._static: dict[int, _Static] = {}
        self._seen: dict[int, _Seen] = {}
        self._deferred: dict[int, int] = {}  # pid → polls waited for an exit status
        self.latest: ProcessSnapshot | None = None
        self.environments: dict[int, dict[str, str]] = {}
        self._ranks_from_env = False
        # (pid, start) of processes once seen as workers: one stays a worker when its rank dies
        # and it is reparented, although it carries the rank's RANK variable.
        self._known_workers: set[tuple[int, int]] = set()
        # rank pid -> (memory cgroup, its OOM-kill count one poll ago, and now, and when the
        # count last rose while the rank was seen)
        self._oom: dict[int, tuple[Path | None, int | None, int | None, float | None]] = {}

    def poll(self, now: float) -> Sequence[Observation]:
        full_scan = self._polls % self.full_scan_every == 0
        self._polls += 1
        stats = self._collect(full_scan)
        if not stats and not self._seen:
            roots = list(self.roots())
            if roots and not any(psutil.pid_exists(p) for p in roots):
                raise SourceError("no_process", f"none of the watched pids {roots} exists")
        infos = self._classify(stats, full_scan)
        mem = psutil.virtual_memory()
        snapshot = ProcessSnapshot(now, tuple(infos), int(mem.total), int(mem.available))
        out: list[Observation] = [snapshot]
        out.extend(self._exits(now, infos, snapshot))
        self.latest = snapshot
        return out

    # -- discovery -----------------------------------------------------------------------
    def _collect(self, full_scan: bool) -> dict[int, ProcStat]:
        """Every process of the watched trees, by pid, in discovery order."""
        found: dict[int, ProcStat] = {}
        pending = list(self.roots())
        while pending:
            pid = pending.pop(0)
            if pid in found:
                continue
            stat = read_stat(self.proc_root, pid)
            if stat is None:
                continue
            found[pid] = stat
            if stat.state is ProcState.ZOMBIE:
                continue
            new = pid not in self._static
            if full_scan or new or pid not in self._workers:
                pending.extend(self._children(pid, full_scan or new))
        return found

    def _children(self, pid: int, every_thread: bool) -> list[int]:
        if self._children_files:
            children = read_children(self.proc_root, pid, every_thread)
            if children is not None:
                return children
            self._children_files = False
        try:
            return [c.pid for c in psutil.Process(pid).children()]
        except psutil.NoSuchProcess:
            return []
        except psutil.AccessDenied as exc:
            raise SourceError("access_denied", f"cannot read process {pid}: {exc}") from exc

    def _static_for(self, pid: int, stat: ProcStat, recheck: bool) -> _Static | None:
        cached = self._static.get(pid)
        if (
            cached is not None
            and cached.start_ticks == stat.start_ticks
            and (cached.name == stat.name or stat.state is ProcState.ZOMBIE)
            and not (
                recheck and stat.state is not ProcState.ZOMBIE and self._exec_since(pid, cached)
            )
        ):
            return cached
        try:
            proc = psutil.Process(pid)
        except psutil.NoSuchProcess:
            return None
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
            stat.start_ticks,
            stat.name,
            self._cmdline(pid),
            self._is_python(pid, stat.name),
            rank,
            local_rank,
            env_readable,
            rank_env,
            kept,
            world_size,
        )
        self._static[pid] = static
        return static

    def _cmdline(self, pid: int) -> tuple[str, ...]:
        try:
            with open(f"{self.proc_root}/{pid}/cmdline", "rb") as fh:
                raw = fh.read()
        except OSError:
            return ()
        return tuple(part.decode("utf-8", "replace") for part in raw.split(b"\0") if part)

    def _exec_since(self, pid: int, cached: _Static) -> bool:
        """An exec of a program with the same name keeps pid, start time and name: the
        command line tells them apart (checked on full scans only)."""
        cmdline = self._cmdline(pid)
        return bool(cmdline) and cmdline != cached.cmdline

    def _is_python(self, pid: int, name: str) -> bool:
        try:
            exe = os.path.basename(os.readlink(f"{self.proc_root}/{pid}/exe"))
        except OSError:
            exe = ""
        exe = exe.removesuffix(" (deleted)")
        name = exe or name
        return name.startswith("python") or name in WORKER_TITLES

    def _classify(self, stats: dict[int, ProcStat], full_scan: bool) -> list[ProcessInfo]:
        statics: dict[int, _Static] = {}
        parents: dict[int, int] = {}
        for pid, stat in stats.items():
            static = self._static_for(pid, stat, full_scan)
            if static is None:
                continue
            parents[pid] = stat.ppid
            statics[pid] = static
        for pid in list(self._static):
            if pid not in statics:
                del self._static[pid]

        rank_of: dict[int, int | None] = {}
        # Topmost process carrying a rank variable: its parent does not carry the same rank.
        for pid, static in statics.items():
            parent = statics.get(parents[pid])
            if (pid, static.start_ticks) in self._known_workers:
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
        for pid, static in statics.items():
            rank_pid = self._owning_rank(pid, parents, rank_of)
            if pid in rank_of:
                role, rank, local = ProcRole.RANK, rank_of[pid], static.local_rank
            elif rank_pid is not None:
                role, rank, local = ProcRole.WORKER, rank_of[rank_pid], None
                self._known_workers.add((pid, static.start_ticks))
            else:
                role, rank, local = ProcRole.LAUNCHER, None, None
            info = _info(pid, stats[pid], role, rank, local, rank_pid, static)
            if role is ProcRole.RANK and inferred_world:
                # Ranks told apart by the process tree alone: the tree is the whole job.
                info = dataclasses.replace(info, world_size=inferred_world)
            infos.append(info)
        self._workers = {i.pid for i in infos if i.role is ProcRole.WORKER}
        self._known_workers = {w for w in self._known_workers if w[0] in statics}
        return infos

    @staticmethod
    def _infer_ranks(statics: dict[int, _Static], parents: dict[int, int]) -> dict[int, int | None]:
        pythons = [pid for pid, s in statics.items() if s.is_python]
        topmost = [pid for pid in pythons if parents.get(pid) not in pythons]
        if not topmost:
            return {}
        top = min(topmost, key=lambda p: statics[p].start_ticks)
        children = [pid for pid in pythons if parents.get(pid) == top]
        members = children or ([] if is_launcher(statics[top].cmdline) else [top])
        members.sort(key=lambda p: (statics[p].start_ticks, p))
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
            # The baseline is the count one poll before the last sighting: a rank the OOM
            # killer is still tearing down is seen alive once more, after the count rose.
            cgroup, kills_before, _last, rose_at = self._oom.pop(pid, (None, None, None, None))
            kills_now = oom_kills(cgroup) if cgroup is not None else None
            # A rank the OOM killer is tearing down (gigabytes to free, a loaded machine) may
            # be seen alive for several polls after the count rose: a rise that recent counts.
            oom_killed = status.signal == signal.SIGKILL and (
                (kills_now is not None and kills_before is not None and kills_now > kills_before)
                or (rose_at is not None and now - rose_at <= OOM_TEARDOWN_SECONDS)
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
                    known, _before, last, rose_at = self._oom.get(pid, (None, None, None, None))
                    cgroup = _still_its_own(memory_cgroup(pid), known)
                    kills = oom_kills(cgroup) if cgroup else None
                    same = known == cgroup and last is not None
                    before = last if same else kills
                    if same and kills is not None and last is not None and kills > last:
                        rose_at = now
                    self._oom[pid] = (cgroup, before, kills, rose_at if same else None)
        # Within one poll, report the rank that failed on its own before those its launcher
        # terminated afterwards (SIGTERM/SIGINT), so the first cause is named first.
        out.sort(key=lambda e: e.signal in _TEARDOWN_SIGNALS)
        return out


def _still_its_own(cgroup: Path | None, known: Path | None) -> Path | None:
    """The rank's memory cgroup as read now, unless the read lost it: on cgroup v1 the kernel
    shows an exiting task (one the OOM killer is tearing down) in the root, and a vanished
    task has none. A live rank is moved into a cgroup, never out to one of its ancestors."""
    if known is None:
        return cgroup
    if cgroup is None or (cgroup != known and known.is_relative_to(cgroup)):
        return known
    return cgroup


def _info(
    pid: int,
    stat: ProcStat,
    role: ProcRole,
    rank: int | None,
    local_rank: int | None,
    rank_pid: int | None,
    static: _Static,
) -> ProcessInfo:
    if stat.state is ProcState.ZOMBIE:
        return ProcessInfo(
            pid,
            stat.ppid,
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
    return ProcessInfo(
        pid=pid,
        ppid=stat.ppid,
        role=role,
        rank=rank,
        local_rank=local_rank,
        rank_pid=rank_pid,
        name=_full_name(stat.name, static.cmdline),
        state=stat.state,
        cpu_seconds=stat.cpu_seconds,
        rss_bytes=stat.rss_bytes,
        threads=stat.threads,
        is_python=static.is_python,
        env_readable=static.env_readable,
        world_size=static.world_size,
    )


def _full_name(name: str, cmdline: tuple[str, ...]) -> str:
    """The kernel cuts names at 15 characters; the command line has the whole one (as psutil
    reports it)."""
    if len(name) >= _COMM_MAX and cmdline:
        whole = os.path.basename(cmdline[0])
        if whole.startswith(name):
            return whole
    return name


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
