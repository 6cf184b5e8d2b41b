"""Evidence for triage: every event with its file:line, its rank and its place in time.

`locate()` attributes and orders the events of all files:

* a file whose lines name exactly one global rank belongs to that rank, so its unprefixed
  lines (tracebacks, faulthandler dumps, OOM messages) are that rank's;
* NCCL lines are attributed through the pid → rank map of NCCL's init lines;
* wall times come from each line's own stamp (log shipper date, glog header); a line without
  one takes the previous stamped line's time in the same file (files are in order within
  themselves);
* every stamp belongs to a clock domain: the host its line or its file names (NCCL
  `host:pid:tid`, pdsh or accelerate prefixes), else the file itself; a file that names
  several hosts gives its unlabelled lines no domain. `monitor.triage.clocks` decides each
  domain's correction and `retime()` applies it before ordering.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from monitor.parse.log_events import EventKind, LogEvent, Stamp
from monitor.triage.reader import FileScan

_INF = float("inf")

# The rank origin of a local rank the logs show to be global: the job ran one node
# (topology.py).
ONE_NODE = "local=global"
SRUN_RANK = "task=global"  # an srun task id where srun started the ranks (topology.py)
RDZV_RANK = "local->global"  # a local rank its node's torchrun agent mapped (topology.py)
# Rank origins that are the job's global rank (a `pg` rank is one only before torch 2.2)
GLOBAL_ORIGINS = frozenset({"global", "file", "stream", "nccl", ONE_NODE, SRUN_RANK, RDZV_RANK})


@dataclass(frozen=True)
class Located:
    """An event with its file, its (possibly re-attributed) rank and its place in time."""

    event: LogEvent
    file: str
    file_index: int
    rank: int | None
    rank_origin: str | None
    time: float | None  # seconds on a common scale, clock corrections applied
    time_inferred: bool  # the line had no stamp: the previous stamped line's time
    domain: str | None = None  # the clock that stamped `time`: a host, or the file
    correction: float = 0.0  # seconds added to the stamp for its clock's skew
    window: tuple[float, float] = (0.0, 0.0)  # the true time may lie this much before/after
    section: str | None = None  # whose output it is, in a paste of several (`pod w-2`)

    @property
    def kind(self) -> EventKind:
        return self.event.kind

    @property
    def where(self) -> str:
        return f"{self.file}:{self.event.line}"

    def order(self) -> tuple[float, int, int]:
        return (self.time if self.time is not None else _INF, self.file_index, self.event.line)


def file_hosts(scan: FileScan) -> set[str]:
    """The hosts a file's lines name."""
    hosts = {e.host for e in scan.events if e.host}
    hosts.update(host for host, _pid in scan.pid_ranks)
    return hosts


# Line prefixes that name each line's writer (a Ray worker's pid, a host, a launcher's task or
# local rank): a file with them holds several processes' lines, and a rank one of them states
# is only that one's
_WRITER_PREFIXES = frozenset({"ray", "ray_repeat", "srun", "pdsh", "mpirun", "mpiexec",
                              "torchrun", "accelerate", "rank", "determined"})


# A file named for its rank: `rank3.log`, `rank_3.txt`, Open MPI's `--output-filename` tree
# (`out/1/rank.3/stderr`, by MPI_COMM_WORLD rank)
_RANK_FILE = re.compile(r"(?:^|/)rank[._-]?(\d+)(?:\.(?:log|txt|out|err))?$|"
                        # DeepSpeed's launcher's log of each worker (`--enable_each_rank_log
                        # DIR`: `{%Y%m%d%H%M%S}_rank{dist_rank}.log`, by its GLOBAL rank)
                        r"(?:^|/)\d{14}_rank(\d+)\.log$|"
                        r"(?:^|/)rank\.(\d+)/std(?:out|err)$|"
                        # Azure ML's log of each MPI process, by its rank
                        r"(?:^|/)std_log_process_(\d+)\.txt$")
# DeepSpeed's launcher's log of each worker (`--enable_each_rank_log DIR`:
# `{stamp}_localrank{N}.log`): a local rank, the global one only on a job of one node
_LOCAL_RANK_FILE = re.compile(r"_localrank(\d+)\.log$")


def sole_rank(scan: FileScan) -> int | None:
    """The one global rank a file's prefixed lines name, whose file it is, or, where no line
    is prefixed, the one its first lines declare (`RANK=9 … WORLD_SIZE=16`), or else the root
    cause its torchrun failure table names; None when they name several or none, or when the
    file is a paste of several processes' outputs (it has no one rank, whichever one it
    shows)."""
    if scan.sections:
        return None
    if len({e.fields["engine_process"] for e in scan.events
            if e.fields.get("engine_process")}) > 1:
        # an inference engine's one log of several processes, each line tagged with its own
        # (SGLang's `[… TP3]`, `[… TP0]`): a `[rank0]:` on one of them is that process's line
        return None
    if len(scan.ranks) == 1:
        return next(iter(scan.ranks))
    if scan.ranks:
        return None
    if not scan.prefixes & _WRITER_PREFIXES:
        if len(scan.declared_ranks) == 1:
            return next(iter(scan.declared_ranks))
        named = _RANK_FILE.search(scan.path)
        if named is not None:  # the job's or launcher's name for the file says whose it is
            return int(next(g for g in named.groups() if g))
    if len(scan.table_ranks) == 1:  # torchrun's root cause, where nothing else names one
        return next(iter(scan.table_ranks))
    return None


def locate(scans: Sequence[FileScan], own_clock: Iterable[str] = ()) -> list[Located]:
    """Every event with rank, clock domain and raw time (no correction), in time order.
    Files in `own_clock` are their own clock domain whatever hosts they name (a
    `--clock-offset` was given for the file)."""
    forced = set(own_clock)
    pid_ranks: dict[tuple[str, int], tuple[int, int]] = {}
    for scan in scans:
        for key, value in scan.pid_ranks.items():
            known = pid_ranks.get(key)
            if known is None or value[0] > known[0]:
                pid_ranks[key] = value
    year = default_year(scans)
    out: list[Located] = []
    for index, scan in enumerate(scans):
        file_rank = sole_rank(scan)
        named_local = _LOCAL_RANK_FILE.search(scan.path) if file_rank is None else None
        local_rank = int(named_local[1]) if named_local is not None else None
        starts = [line for line, _ in scan.sections]
        hosts = file_hosts(scan)
        forced_here = scan.path in forced
        file_domain: str | None
        if forced_here or not hosts:
            file_domain = scan.path
        else:
            file_domain = next(iter(hosts)) if len(hosts) == 1 else None
        last_time: float | None = None
        last_domain: str | None = file_domain
        for event in scan.events:
            rank, origin = event.rank, event.rank_origin
            # (a rank its lines' prefixes give the file overrides a group's or NCCL's own rank
            # in a message; one only stated or a launcher's root cause fills in unranked lines)
            # (not a line of another process's prefix, a Ray actor's or an engine's worker's
            # `(VllmWorkerProcess pid=4513) `: the file's rank is its own tagged lines')
            if file_rank is not None and "actor_pid" not in event.fields and (
                    rank is None or (origin in ("pg", "nccl") and scan.ranks)):
                rank, origin = file_rank, "file"
            elif rank is None and local_rank is not None:
                rank, origin = local_rank, "local"
            elif rank is None and event.host is not None:
                pid = event.fields.get("pid")
                if isinstance(pid, int) and (event.host, pid) in pid_ranks:
                    rank, origin = pid_ranks[(event.host, pid)][1], "nccl"
            time: float | None
            inferred = False
            if event.stamp is not None:
                time = event.stamp.sort_key(year)
                last_time = time
                domain = file_domain if forced_here else (event.host or file_domain)
                last_domain = domain
            else:
                time, inferred, domain = last_time, last_time is not None, last_domain
            at = bisect.bisect_right(starts, event.line)
            section = scan.sections[at - 1][1] if at else None
            out.append(Located(event, scan.path, index, rank, origin, time, inferred, domain,
                               section=section))
    out.sort(key=Located.order)
    return out


def retime(
    located: Sequence[Located],
    corrections: Mapping[str, float],
    windows: Mapping[str, tuple[float, float]],
) -> list[Located]:
    """The events with their clock's correction and uncertainty window, in time order."""
    if not any(corrections.values()) and not any(any(w) for w in windows.values()):
        return list(located)
    out = []
    for item in located:
        domain = item.domain
        if domain is None or item.time is None:
            out.append(item)
            continue
        shift_by = corrections.get(domain, 0.0)
        window = windows.get(domain, (0.0, 0.0))
        if shift_by or any(window):
            item = replace(item, time=item.time + shift_by, correction=shift_by, window=window)
        out.append(item)
    out.sort(key=Located.order)
    return out


def default_year(scans: Iterable[FileScan]) -> int:
    """Year-less glog stamps take the latest year any line shows (2000 when none does)."""
    years = [e.stamp.year for s in scans for e in s.events if e.stamp and e.stamp.year]
    return max(years) if years else 2000


def shift(stamp: Stamp, seconds: float) -> Stamp:
    """A stamp moved by `seconds` (within a few days; month ends are not crossed)."""
    total = stamp.seconds + seconds
    day = stamp.day
    while total < 0:
        total += 86400
        day -= 1
    while total >= 86400:
        total -= 86400
        day += 1
    return Stamp(stamp.year, stamp.month, max(day, 1), total)


def compress_ranks(ranks: Sequence[int]) -> str:
    """[0, 1, 2, 5, 7, 8] → "0-2, 5, 7-8"."""
    ordered = sorted(set(ranks))
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ", ".join(parts)


def who(item: Located) -> str:
    """How a sentence names the writer of an event."""
    if item.rank is None:
        return "an unlabelled process"
    if item.rank_origin == "file":
        return f"rank {item.rank} (the only rank in {item.file.rsplit('/', 1)[-1]})"
    if item.rank_origin == "pg":
        return f"rank {item.rank} (rank in its process group)"
    if item.rank_origin == "local":
        return f"local rank {item.rank}"
    if item.rank_origin == ONE_NODE:
        return f"rank {item.rank} (local rank on the job's one node)"
    if item.rank_origin == "task":
        return f"task {item.rank}"
    if item.rank_origin == SRUN_RANK:
        return f"rank {item.rank} (srun task {item.rank})"
    return f"rank {item.rank}"


def whereabouts(item: Located) -> str:
    """Where the writer of an event ran, as its lines state it: NCCL's `host:pid`, a Ray
    actor's pid and node, a launcher's host tag; "" when they state nothing."""
    fields = item.event.fields
    host = fields.get("host") or item.event.host
    pid = fields.get("pid") or fields.get("actor_pid")
    if not str(pid).isdigit():  # (an Xid's `pid='<unknown>'`: no process named)
        pid = None
    if host and pid:
        return f"{host}:{pid}"
    if item.section:  # the command that printed its output names it (`$ kubectl logs w-2`)
        return item.section + (f" (pid {pid})" if pid else "")
    if pid:
        return f"pid {pid}"
    if host:
        return str(host)
    engine = fields.get("engine_process")  # SGLang's `[… TP0]`: the engine's own process
    return f"engine process {engine}" if engine else ""


def describe(item: Located) -> str:
    """One short sentence for a timeline or causal-chain entry."""
    f = item.event.fields
    name = who(item)
    kind = item.kind
    if kind is EventKind.WATCHDOG_TIMEOUT:
        ran = item.event.int_field("ran_ms")
        span = (f"after {ran / 1000:.1f} s" if ran is not None else
                f"(timeout {(item.event.int_field('timeout_ms') or 0) / 1000:.0f} s)")
        return f"{name}: watchdog timed out collective #{f.get('seq')} {f.get('op')} {span}"
    if kind is EventKind.PG_STATUS:
        return (f"{name}: PG {f.get('pg')} last enqueued {f.get('last_enqueued')}, last "
                f"completed {f.get('last_completed')}")
    if kind is EventKind.FR_DUMP:
        role = f.get("role")
        if role == "initiator":
            return f"{name}: signalled the flight-recorder dump (its own watchdog fired)"
        if role == "observer":
            src = f.get("source_rank")
            return f"{name}: received the dump signal" + (
                f" from rank {src}" if src is not None else " from another rank")
        return f"{name}: flight recorder dump"
    if kind is EventKind.NCCL_TEARDOWN:
        return f"{name}: NCCL teardown (taking the process down)"
    if kind is EventKind.WATCHDOG_TERMINATED:
        return f"{name}: watchdog thread terminated: {str(f.get('cause', ''))[:80]}"
    if kind is EventKind.PYTHON_TRACEBACK:
        return f"{name}: traceback {f.get('exc_type') or '(exception line not shown)'}"
    if kind is EventKind.CHILD_FAILED_SUMMARY:
        return (f"torchrun: rank {f.get('root_rank')} failed first, exit code "
                f"{f.get('root_exitcode')} {f.get('root_signal') or ''}").strip()
    if kind is EventKind.PROGRESS and f.get("last"):
        return f"{name}: last progress {item.event.text.strip()[:80]}"
    return f"{name}: {kind.value}: {item.event.text.strip()[:100]}"
