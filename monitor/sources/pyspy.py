"""The stack sampler: py-spy dumps of the ranks and their DataLoader workers, on demand.

Suspicion → evidence: any detector's `Suspicion` (delivered through `on_observation`) asks for
a *round* of dumps, `repeats` passes `repeat_gap_seconds` apart. Rounds start at most every
`min_round_gap_seconds`; a slow background round (one pass) runs every
`background_interval_seconds`, and once at start to learn early whether py-spy can attach.

A pass costs in proportion to what is suspected (a dump costs ~10 ms of CPU; a node has
up to hundreds of processes):
1. the suspected ranks' main processes and, in a round's first pass or when the rank stayed
   idle since, their DataLoader workers (a suspicion naming no local rank, and the background
   round: every rank's main process, no worker);
2. every other rank's main process, when a main process dumped in step 1 waits in a
   collective (the rank holding it up is elsewhere, and the verdict compares all of them);
3. the workers of any main process dumped so far that waits for its DataLoader.
A wait counts as evidence only when the process used (almost) no CPU since its previous dump:
in a healthy job the ranks pass through collectives and DataLoader waits all the time.

Each dump is `py-spy dump --json --nonblocking --pid N` (an argv list, never a shell; never
pausing the rank), killed when it exceeds `dump_timeout_seconds`. Candidates are filtered on
/proc/PID/exe being a Python interpreter. Each process also gets a /proc reading (state, wchan,
CPU time, bytes written). The full dump is written to `<state_dir>/pyspy/`; the observations
carry its path and a small classification.

When py-spy cannot read any rank (missing, ptrace refused) the poll raises SourceError, so the
runner reports `source_up{source="pyspy"} 0`; the cause is logged once with what to do.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import shutil
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import structlog

from monitor.errors import SourceError
from monitor.model import (
    MetricFamilyData,
    Observation,
    ProcessInfo,
    ProcessSnapshot,
    ProcRole,
    ProcState,
    Suspicion,
    counter,
    gauge,
)
from monitor.parse.stacks import (
    DumpResult,
    MainState,
    ProcReading,
    StackParseError,
    StackPass,
    StackSample,
    classify_error,
    classify_main,
    classify_worker,
    error_headline,
    parse_dump,
)
from monitor.settings import PyspySettings

log = structlog.get_logger("rankwatch.pyspy")

ProcessTable = Callable[[], "ProcessSnapshot | None"]

_PYTHON_EXE = re.compile(r"^(python|pypy)[\d.]*[dmu]*$")
# Idle between two dumps: less CPU than this fraction of a core (the progress detector's
# default `cpu_active_fraction`), plus a little for the /proc clock's granularity.
IDLE_CPU_FRACTION = 0.02
IDLE_CPU_SLACK_SECONDS = 0.02
_CAP_SYS_PTRACE = 19


@dataclass(frozen=True, slots=True)
class Target:
    pid: int
    role: ProcRole
    rank: int | None
    rank_pid: int | None


@dataclass
class _Round:
    round_id: int
    passes: int
    trigger: str
    next_pass_at: float
    focus: frozenset[int] | None  # suspected ranks; None: no rank in particular
    done: int = 0


@dataclass(frozen=True)
class _Request:
    reason: str
    ranks: tuple[int, ...]  # () when the suspicion names no rank


@dataclass
class _Counters:
    dumps: dict[str, int] = field(default_factory=dict)
    rounds: dict[str, int] = field(default_factory=dict)
    cpu_seconds: dict[str, float] = field(default_factory=dict)
    last_dump_seconds: float | None = None
    last_pass_seconds: float | None = None


class PyspySampler:
    """PolledSource + ObservationListener + MetricSource. See the module docstring.

    `process_table` returns the latest ProcessSnapshot (the process probe's), or None before
    the first one; the sampler dumps its RANK processes and, for each, the WORKER processes
    whose `rank_pid` is that rank's pid.
    """

    name = "pyspy"

    def __init__(
        self,
        settings: PyspySettings,
        *,
        state_dir: str | os.PathLike[str],
        process_table: ProcessTable,
        poll_interval_seconds: float = 0.5,
        proc_root: str = "/proc",
        monotonic: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.interval_seconds = poll_interval_seconds
        self.dump_dir = Path(state_dir) / "pyspy"
        self._process_table = process_table
        self._proc = Path(proc_root)
        self._monotonic = monotonic
        self._wall = wall
        self._lock = threading.Lock()
        self._requested: list[_Request] = []  # suspicions not yet served
        self._dump_files: deque[Path] | None = None  # written dumps, oldest first
        self._readings: dict[int, tuple[float, float]] = {}  # pid → (at, CPU s) at its last dump
        self._round: _Round | None = None
        self._round_ids = 0
        self._last_round_at: float | None = None
        self._last_background_at: float | None = None
        self._blind: tuple[DumpResult, str] | None = None
        self._told_blind: set[DumpResult] = set()
        self._counters = _Counters()
        self._pool = ThreadPoolExecutor(
            max_workers=settings.max_parallel_dumps, thread_name_prefix="pyspy"
        )
        self._argv_prefix = self._build_argv()

    # -- wiring --------------------------------------------------------------------------
    def _build_argv(self) -> list[str]:
        argv = [find_executable(self.settings.executable), "dump", "--json"]
        if self.settings.native:
            # py-spy refuses --native with --nonblocking: a native dump pauses the process.
            argv.append("--native")
        elif self.settings.nonblocking:
            argv.append("--nonblocking")
        return argv

    def argv_for(self, pid: int) -> list[str]:
        return [*self._argv_prefix, "--pid", str(pid)]

    def on_observation(self, obs: Observation) -> None:
        """Called by the daemon for every derived observation; reacts to Suspicion only."""
        if isinstance(obs, Suspicion):
            ranks = ",".join(str(r) for r in obs.ranks) or "all"
            self.request(f"{obs.detector}: {obs.reason} (ranks {ranks})", obs.ranks)

    def request(self, reason: str, ranks: Iterable[int] = ()) -> None:
        """Ask for a round on `ranks` (none: no rank in particular) as soon as the rate limit
        allows (thread-safe)."""
        with self._lock:
            if len(self._requested) < 32:
                self._requested.append(_Request(reason, tuple(ranks)))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    # -- polling -------------------------------------------------------------------------
    def poll(self, now: float) -> Sequence[Observation]:
        if not self.settings.enabled:
            return []
        round_ = self._due_round(now)
        if round_ is None:
            self._raise_if_blind()
            return []
        snapshot = self._process_table()
        targets = select_targets(snapshot.processes if snapshot else ())
        if not targets:
            if round_.done == 0:
                self._round = None  # nothing to dump yet: do not spend the rate limit
            self._raise_if_blind()
            return []
        if round_.done == 0:
            self._start(round_, now)
        cpu_started = _children_cpu_seconds()
        observations = self._run_pass(round_, targets)
        kind = _kind(round_)
        with self._lock:
            self._counters.cpu_seconds[kind] = self._counters.cpu_seconds.get(kind, 0.0) + max(
                0.0, _children_cpu_seconds() - cpu_started
            )
        round_.done += 1
        round_.next_pass_at = self._monotonic() + self.settings.repeat_gap_seconds
        if round_.done >= round_.passes:
            self._round = None
        self._raise_if_blind()
        return observations

    def _due_round(self, now: float) -> _Round | None:
        """The round whose next pass is due now, starting a new one if allowed."""
        if self._round is not None:
            return self._round if now >= self._round.next_pass_at else None
        gap_ok = self._last_round_at is None or (
            now - self._last_round_at >= self.settings.min_round_gap_seconds
        )
        with self._lock:
            if self._requested and gap_ok:
                requests, self._requested = self._requested, []
                focus = (
                    None
                    if any(not r.ranks for r in requests)
                    else frozenset(rank for r in requests for rank in r.ranks)
                )
                self._round = self._new_round(
                    self.settings.repeats, f"suspicion: {requests[0].reason}", focus
                )
                return self._round
        interval = self.settings.background_interval_seconds
        background_due = interval > 0 and (
            self._last_background_at is None or now - self._last_background_at >= interval
        )
        if background_due and gap_ok:
            self._round = self._new_round(1, "background", None)
            return self._round
        return None

    def _new_round(self, passes: int, trigger: str, focus: frozenset[int] | None) -> _Round:
        self._round_ids += 1
        return _Round(self._round_ids, passes, trigger, next_pass_at=0.0, focus=focus)

    def _start(self, round_: _Round, now: float) -> None:
        self._last_round_at = now
        kind = _kind(round_)
        if kind == "background":
            self._last_background_at = now
        self._counters.rounds[kind] = self._counters.rounds.get(kind, 0) + 1
        log.debug("pyspy_round", round=round_.round_id, trigger=round_.trigger)

    def _run_pass(self, round_: _Round, targets: Sequence[Target]) -> list[Observation]:
        started = time.perf_counter()
        plan = PassPlan(targets, round_.focus, first_pass=round_.done == 0)
        samples: list[StackSample] = []
        if self._blind is not None:
            # Blind: probe with one dump; the others would fail the same way.
            probe = self._sample(plan.first()[0], round_)
            samples.append(probe)
            plan.dumped(probe, self._idle_since_last_dump(probe))
            if probe.result.blinds:
                plan = PassPlan((), None)
        batch = plan.first()
        while batch:
            done = list(self._pool.map(lambda t: self._sample(t, round_), batch))
            for sample in done:
                plan.dumped(sample, self._idle_since_last_dump(sample))
            samples += done
            batch = plan.next()
        samples.sort(key=plan.order)
        alive = {t.pid for t in targets}
        self._readings = {pid: r for pid, r in self._readings.items() if pid in alive}
        self._counters.last_pass_seconds = time.perf_counter() - started
        self._update_blindness(samples)
        out: list[Observation] = list(samples)
        out.append(
            StackPass(
                at=self._monotonic(),
                round_id=round_.round_id,
                pass_index=round_.done,
                passes=round_.passes,
                trigger=round_.trigger,
                pids=tuple(s.pid for s in samples),
            )
        )
        return out

    def _idle_since_last_dump(self, sample: StackSample) -> bool:
        """Whether the process used (almost) no CPU since its previous dump; False when it
        has none (no evidence yet: the next pass tells)."""
        if sample.proc is None:
            return False
        previous = self._readings.get(sample.pid)
        self._readings[sample.pid] = (sample.at, sample.proc.cpu_seconds)
        return idle_between(previous, sample.at, sample.proc.cpu_seconds)

    def _update_blindness(self, samples: Sequence[StackSample]) -> None:
        attempted = [s for s in samples if s.result not in (DumpResult.GONE, DumpResult.NOT_PYTHON)]
        if not attempted:
            return
        if all(s.result.blinds for s in attempted):
            first = attempted[0]
            diagnosis = diagnose(first.result, first.message, first.pid, self._proc, self.settings)
            self._blind = (first.result, diagnosis)
            if first.result not in self._told_blind:
                self._told_blind.add(first.result)
                log.warning("pyspy_cannot_attach", reason=first.result.value, detail=diagnosis)
        elif any(s.result is DumpResult.OK for s in attempted):
            if self._blind is not None:
                log.info("pyspy_attached_again")
            self._blind = None

    def _raise_if_blind(self) -> None:
        if self._blind is not None:
            result, diagnosis = self._blind
            raise SourceError(result.value, diagnosis)

    # -- one dump ------------------------------------------------------------------------
    def _sample(self, target: Target, round_: _Round) -> StackSample:
        proc = read_proc(self._proc, target.pid)
        started = time.perf_counter()  # a measurement: real time, whatever clock is injected
        result, text, message = self._dump(target.pid)
        duration = time.perf_counter() - started
        self._counters.last_dump_seconds = duration
        main = worker = None
        path = ""
        if result is DumpResult.OK:
            try:
                dump = parse_dump(text, target.pid)
            except StackParseError as exc:
                result, message = DumpResult.BAD_OUTPUT, str(exc)
            else:
                if target.role is ProcRole.WORKER:
                    worker = classify_worker(dump)
                else:
                    main = classify_main(dump)
                path = self._write_dump(target, round_, text)
        with self._lock:
            self._counters.dumps[result.value] = self._counters.dumps.get(result.value, 0) + 1
        return StackSample(
            at=self._monotonic(),
            pid=target.pid,
            role=target.role,
            rank=target.rank,
            rank_pid=target.rank_pid,
            round_id=round_.round_id,
            pass_index=round_.done,
            result=result,
            message=message,
            main=main,
            worker=worker,
            proc=proc,
            dump_path=path,
            duration_seconds=duration,
        )

    def _dump(self, pid: int) -> tuple[DumpResult, str, str]:
        if not is_python_process(self._proc, pid):
            gone = not (self._proc / str(pid)).exists()
            return (DumpResult.GONE if gone else DumpResult.NOT_PYTHON), "", "not a Python process"
        try:
            child = subprocess.Popen(
                self.argv_for(pid),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,  # a terminal's Ctrl-C must not reach py-spy mid-dump
            )
        except FileNotFoundError:
            return (
                DumpResult.MISSING,
                "",
                f"py-spy executable not found: {self.settings.executable}",
            )
        except PermissionError as exc:
            return DumpResult.MISSING, "", f"py-spy executable not runnable: {exc}"
        try:
            stdout, stderr = child.communicate(timeout=self.settings.dump_timeout_seconds)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            return DumpResult.TIMEOUT, "", f"dump exceeded {self.settings.dump_timeout_seconds:g} s"
        if child.returncode != 0:
            return classify_error(stderr), "", error_headline(stderr)
        return DumpResult.OK, stdout, ""

    def _write_dump(self, target: Target, round_: _Round, text: str) -> str:
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(self._wall()))
        who = "worker" if target.role is ProcRole.WORKER else "rank"
        name = (
            f"{stamp}-round{round_.round_id}.{round_.done}"
            f"-rank{target.rank}-{who}-{target.pid}.json"
        )
        path = self.dump_dir / name
        try:
            self.dump_dir.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            log.warning("pyspy_dump_not_written", path=str(path), error=str(exc))
            return ""
        self._prune(path)
        return str(path)

    def _prune(self, written: Path) -> None:
        """Keep the newest `max_dump_files` dumps so the state directory cannot fill a disk.
        The directory is listed once (dumps left by an earlier run); after that the sampler
        remembers what it wrote, oldest first."""
        with self._lock:
            if self._dump_files is None:
                try:
                    earlier = [p for p in self.dump_dir.glob("*.json") if p != written]
                    earlier.sort(key=_mtime)
                except OSError:
                    earlier = []
                self._dump_files = deque(earlier)
            self._dump_files.append(written)
            while len(self._dump_files) > self.settings.max_dump_files:
                with contextlib.suppress(OSError):
                    self._dump_files.popleft().unlink()

    # -- metrics -------------------------------------------------------------------------
    def metric_families(self) -> list[MetricFamilyData]:
        with self._lock:
            dumps = sorted(self._counters.dumps.items())
            rounds = sorted(self._counters.rounds.items())
            cpu = sorted(self._counters.cpu_seconds.items())
        families = [
            counter(
                "pyspy_dumps",
                "py-spy dumps taken, by result (ok, permission_denied, not_python, gone, ...).",
                ("result",),
                [((result,), count) for result, count in dumps],
            ),
            counter(
                "pyspy_rounds",
                "Dump rounds started, by trigger (suspicion, background).",
                ("trigger",),
                [((trigger,), count) for trigger, count in rounds],
            ),
            counter(
                "pyspy_cpu_seconds",
                "CPU time of the py-spy processes, by round trigger (suspicion, background): "
                "children reaped while a pass ran.",
                ("trigger",),
                [((trigger,), seconds) for trigger, seconds in cpu],
            ),
        ]
        if self._counters.last_dump_seconds is not None:
            families.append(
                gauge(
                    "pyspy_dump_duration_seconds",
                    "Wall time of the most recent py-spy dump.",
                    (),
                    self._counters.last_dump_seconds,
                )
            )
        if self._counters.last_pass_seconds is not None:
            families.append(
                gauge(
                    "pyspy_pass_duration_seconds",
                    "Wall time of the most recent pass over all ranks and workers.",
                    (),
                    self._counters.last_pass_seconds,
                )
            )
        return families


# ---------------------------------------------------------------------------------------
# Helpers (module level so tests and the wrap-mode docs can use them directly)


def find_executable(name: str) -> str:
    """A bare name is looked up next to this interpreter first (py-spy is installed with
    rankwatch, in the same environment), then on PATH; a path is used as given."""
    if os.sep in name:
        return name
    sibling = Path(sys.executable).parent / name
    if sibling.is_file() and os.access(sibling, os.X_OK):
        return str(sibling)
    return shutil.which(name) or name


def select_targets(processes: Iterable[ProcessInfo]) -> list[Target]:
    """Ranks first (by rank), each followed by its DataLoader workers (by pid)."""
    procs = [p for p in processes if p.state not in (ProcState.GONE, ProcState.ZOMBIE)]
    ranks = sorted(
        (p for p in procs if p.role is ProcRole.RANK and p.is_python),
        key=lambda p: (p.rank if p.rank is not None else 1 << 30, p.pid),
    )
    targets: list[Target] = []
    for rank in ranks:
        targets.append(Target(rank.pid, ProcRole.RANK, rank.rank, None))
        workers = sorted(
            (p for p in procs if p.role is ProcRole.WORKER and p.rank_pid == rank.pid),
            key=lambda p: p.pid,
        )
        targets.extend(Target(w.pid, ProcRole.WORKER, rank.rank, rank.pid) for w in workers)
    return targets


class PassPlan:
    """Which processes one pass dumps, batch by batch, as the stacks come in (see the module
    docstring). `targets` is select_targets' list; `focus` the suspected ranks, None for none
    in particular; `first_pass`: the round's first, where the suspected ranks' workers go with
    them (later passes dump them only for a suspected rank that stayed idle)."""

    def __init__(
        self, targets: Sequence[Target], focus: frozenset[int] | None, first_pass: bool = True
    ) -> None:
        self._position = {t.pid: i for i, t in enumerate(targets)}
        self._mains = [t for t in targets if t.role is ProcRole.RANK]
        self._workers: dict[int, list[Target]] = {}
        for t in targets:
            if t.role is ProcRole.WORKER and t.rank_pid is not None:
                self._workers.setdefault(t.rank_pid, []).append(t)
        focused = [t for t in self._mains if focus is not None and t.rank in focus]
        self._focused = {t.pid for t in focused}
        self._first = list(focused)
        if first_pass:
            self._first += [w for m in focused for w in self._workers.get(m.pid, ())]
        if not focused:
            self._first = list(self._mains)
        self._dumped: set[int] = set()
        self._collective = False
        self._wanted_workers: list[int] = []  # main processes whose workers the evidence asks

    def first(self) -> list[Target]:
        return [t for t in self._first if t.pid not in self._dumped]

    def dumped(self, sample: StackSample, idle: bool) -> None:
        """Note a dump; `idle`: the process used no CPU since its previous dump (a wait that
        is evidence, not a moment of a healthy step)."""
        self._dumped.add(sample.pid)
        main = sample.main
        if main is None or not idle:
            return
        states = (main.state, main.idle_state)
        if MainState.IN_COLLECTIVE in states:
            self._collective = True
        if MainState.DATALOADER_WAIT in states or sample.pid in self._focused:
            self._wanted_workers.append(sample.pid)

    def next(self) -> list[Target]:
        """The next batch the evidence asks for; empty when the pass is complete."""
        batch: list[Target] = []
        if self._collective:
            batch += [t for t in self._mains if t.pid not in self._dumped]
        for pid in self._wanted_workers:
            batch += [w for w in self._workers.get(pid, ()) if w.pid not in self._dumped]
        self._wanted_workers = []
        return batch

    def order(self, sample: StackSample) -> int:
        return self._position.get(sample.pid, len(self._position))


def idle_between(previous: tuple[float, float] | None, at: float, cpu_seconds: float) -> bool:
    """Whether a process whose CPU time was `previous` = (at, CPU s) used (almost) none until
    `at`; False without an earlier reading."""
    if previous is None or at <= previous[0]:
        return False
    used = cpu_seconds - previous[1]
    return used <= IDLE_CPU_FRACTION * (at - previous[0]) + IDLE_CPU_SLACK_SECONDS


def _kind(round_: _Round) -> str:
    return "background" if round_.trigger == "background" else "suspicion"


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def is_python_process(proc_root: Path, pid: int) -> bool:
    """Whether /proc/PID/exe is a Python interpreter (py-spy fails on anything else)."""
    try:
        exe = os.readlink(proc_root / str(pid) / "exe")
    except OSError:
        return False
    name = os.path.basename(exe.removesuffix(" (deleted)"))
    return bool(_PYTHON_EXE.match(name))


_STATE_CODES = {
    "R": ProcState.RUNNING,
    "S": ProcState.SLEEPING,
    "D": ProcState.DISK_SLEEP,
    "T": ProcState.STOPPED,
    "t": ProcState.STOPPED,
    "Z": ProcState.ZOMBIE,
    "X": ProcState.GONE,
}


def read_proc(proc_root: Path, pid: int) -> ProcReading | None:
    """State, wchan, CPU seconds and bytes written of one process; None when it is gone."""
    base = proc_root / str(pid)
    try:
        stat = (base / "stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    state = _STATE_CODES.get(fields[0], ProcState.OTHER)
    try:
        wchan = (base / "wchan").read_text().strip()
    except OSError:
        wchan = ""
    written: int | None = None
    try:
        for line in (base / "io").read_text().splitlines():
            if line.startswith("wchar:"):
                written = int(line.split()[1])
    except (OSError, ValueError):
        written = None
    return ProcReading(
        state=state, wchan="" if wchan == "0" else wchan, cpu_seconds=cpu, written_bytes=written
    )


def diagnose(
    result: DumpResult, message: str, pid: int, proc_root: Path, settings: PyspySettings
) -> str:
    """A plain sentence on why py-spy cannot read stacks, and what would let it."""
    if result is DumpResult.MISSING:
        return (
            f"py-spy cannot run ({message}); install it next to rankwatch "
            f"(pip install py-spy) or set pyspy.executable. Judging from /proc only."
        )
    if result is DumpResult.BAD_OPTIONS:
        return f"py-spy rejected its options ({message}). Judging from /proc only."
    euid = os.geteuid()
    scope = _read_int(proc_root / "sys/kernel/yama/ptrace_scope")
    has_cap = _has_cap_sys_ptrace(proc_root)
    owner = _owner_uid(proc_root, pid)
    reasons = []
    if owner is not None and owner != euid and not has_cap:
        reasons.append(f"process {pid} belongs to uid {owner}, rankwatch runs as uid {euid}")
    if scope is not None and scope >= 1 and not has_cap:
        reasons.append(
            f"kernel.yama.ptrace_scope={scope} lets only a process's ancestors"
            + (" (or a tracer it named with PR_SET_PTRACER)" if scope == 1 else "")
            + " read it without CAP_SYS_PTRACE"
        )
    if euid == 0 and not has_cap:
        reasons.append(
            "rankwatch runs as root without CAP_SYS_PTRACE (a container needs --cap-add SYS_PTRACE)"
        )
    detail = "; ".join(reasons) or message
    return (
        f"py-spy cannot read the ranks' stacks: {detail}. Judging from /proc only "
        f"(state, CPU time). See docs/stacks.md, 'Letting rankwatch read stacks'."
    )


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _has_cap_sys_ptrace(proc_root: Path) -> bool:
    try:
        for line in (proc_root / "self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> _CAP_SYS_PTRACE & 1)
    except (OSError, ValueError):
        pass
    return False


def _owner_uid(proc_root: Path, pid: int) -> int | None:
    try:
        return (proc_root / str(pid)).stat().st_uid
    except OSError:
        return None
