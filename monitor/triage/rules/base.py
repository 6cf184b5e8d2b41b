"""What every rule shares: the evidence it reads (Context), what it concludes (Finding),
and the helpers that name processes and places in a sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from monitor.model import Category
from monitor.parse.collectives import CollectivePicture
from monitor.parse.log_events import EventKind
from monitor.parse.log_patterns import FieldValue, Level
from monitor.triage.evidence import GLOBAL_ORIGINS, Located, whereabouts, who
from monitor.triage.lexicon import (
    OWN_FAULT,
    SHELL_TRACE,
    is_pci_address,
    looks_failed,
    read_line,
    words_family,
)
from monitor.triage.reader import FileScan, TailLine, failed_alike
from monitor.triage.topology import Topology


@dataclass(frozen=True)
class Finding:
    category: Category
    culprit_ranks: tuple[int, ...] = ()
    culprits: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()
    cause: Located | None = None
    recommendations: tuple[str, ...] = ()


@dataclass
class Context:
    located: list[Located]
    by_kind: dict[EventKind, list[Located]]
    picture: CollectivePicture
    by_event: dict[int, Located]  # id(event) → its Located
    scans: Sequence[FileScan]
    world_size: int | None
    topology: Topology = field(default_factory=Topology)

    def of(self, *kinds: EventKind) -> list[Located]:
        out: list[Located] = []
        for kind in kinds:
            out.extend(self.by_kind.get(kind, ()))
        out.sort(key=Located.order)
        return out

    def at(self, event: object) -> Located | None:
        return self.by_event.get(id(event))

    @cached_property
    def passed_threads(self) -> tuple[tuple[int, int, int], ...]:
        """(file index, first line, last line) of each traceback its process went on after
        (`stepped_past`), whose connect a retry then made (`reconnected_after`), a Ray node its autoscaler had
        just removed (`removed_idle_above`), a Ray worker whose task Ray retried while the job
        trained on (`ray_retried_past`), a stall the lagging ranks trained past
        (`stall_trained_past`), a container's earlier end its current state supersedes
        (`superseded_last_states`), or CPython swallowed (`swallowed`, up to its exception
        line): nothing in those records is the job's failure."""
        return tuple((e.file_index, e.event.line, e.event.end_line)
                     for e in self.of(EventKind.PYTHON_TRACEBACK)
                     if stepped_past(self, e) or reconnected_after(self, e)
                     or logged_as_handled(self, e) or e.event.fields.get("logging_error")
                     ) + tuple(
            (e.file_index, e.event.line, e.event.end_line)
            for e in self.of(EventKind.ACTOR_DIED) if removed_idle_above(self, e)) + tuple(
            (e.file_index, e.event.line, e.event.end_line)
            for e in self.of(EventKind.ACTOR_DIED, EventKind.HOST_OOM)
            if ray_retried_past(self, e)) + tuple(
            (e.file_index, e.event.line, e.event.end_line)
            for e in self.of(EventKind.DESYNC_REPORT) if stall_trained_past(self, e)) + tuple(
            last_state for index in range(len(self.scans))
            for last_state in superseded_last_states(self, index)) + tuple(
            (e.file_index, e.event.line, _exception_line(self, e))
            for e in self.of(EventKind.PYTHON_TRACEBACK) if swallowed(self, e))

    def passed_over(self, file_index: int, line: int) -> bool:
        """Whether a line of a file lies in a record the job went on after (`passed_threads`)."""
        return any(i == file_index and a <= line <= b for i, a, b in self.passed_threads)

    @property
    def timed_out_ranks(self) -> set[int]:
        return set(self.picture.timeouts)

    def global_ranks(self, items: Sequence[Located]) -> tuple[int, ...]:
        """Ranks of items that are global ranks. Before torch 2.2 lines carry no `[rankN]:`
        prefix; then the `[Rank N]` of ProcessGroupNCCL messages is the only rank there is
        (the default group's rank is the global rank) and counts too."""
        allowed = GLOBAL_ORIGINS
        if not any(scan.ranks for scan in self.scans):
            allowed = allowed | {"pg"}
        return tuple(sorted({i.rank for i in items if i.rank is not None
                             and i.rank_origin in allowed}))


Rule = Callable[[Context], "Finding | None"]


def waits_for_nccl_id(item: Located) -> bool:
    """A rank's store wait, logged as an error, for a communicator's NCCL id (`[1] is setting up
    NCCL communicator and retrieving ncclUniqueId from [0] … wait timeout`): it was held in a
    group's set-up, waiting on that group's first rank."""
    return (item.kind is EventKind.STORE_TIMEOUT and item.event.level >= Level.ERROR
            and "ncclUniqueId" in item.event.text)


def one_subject(scans: Sequence[FileScan]) -> tuple[str, ...]:
    """The one pod or node every file's orchestrator output that states one is about (`pod
    w-4 on node gpu-12` from a pasted `kubectl describe pod`); () for none, or for files about
    two (two pods stopped: no one of them is the story)."""
    subjects = {s for scan in scans for s in scan.subjects}
    return tuple(subjects) if len(subjects) == 1 else ()


def _best_located(items: Sequence[Located]) -> Located:
    """Of the lines that tell one failure, the one that says most of where it ran (NCCL's
    own line has host and pid; the same error quoted as a `Last error:` has neither)."""
    return max(items, key=lambda i: (bool(i.event.fields.get("pid")), bool(whereabouts(i))))


def raised_where(ctx: Context, item: Located) -> str:
    """Where the process that wrote an error ran: its own line's prefix, or that of the
    traceback it closes (an inference engine's `[… TP0] Scheduler hit an exception:
    Traceback`, whose exception line carries no prefix)."""
    if where := whereabouts(item):
        return where
    raised = next(iter(enclosing(ctx, item, EventKind.PYTHON_TRACEBACK)), None)
    return whereabouts(raised) if raised is not None else ""


def first_written(items: Sequence[Located]) -> Located:
    """The first of `items` in time where that is known: by their stamps, but a line above
    another in the same file came first whatever its stamp is missing (a worker's unstamped
    traceback above a peer's stamped report of what followed it). Lines of different files
    with no stamp to compare keep the stamps' order."""
    first = min(items, key=Located.order)
    above = [i for i in items if i.file_index == first.file_index
             and i.event.line < first.event.line and i.time is None]
    return min(above, key=lambda i: i.event.line) if above else first


def written_before(a: Located, b: Located) -> bool:
    """Whether `a` is known to have come before `b`: above it in the same file, or stamped
    earlier in another; unknown (False) where either lacks a stamp across files."""
    if a.file_index == b.file_index:
        return a.event.line < b.event.line
    return a.time is not None and b.time is not None and a.time < b.time


def enclosing(ctx: Context, item: Located, kind: EventKind) -> list[Located]:
    """The reports of `kind` in the same file whose lines hold this one's (a traceback its
    exception line closes, a dead Ray actor's report its detail line is part of)."""
    return [r for r in ctx.of(kind) if r.file_index == item.file_index
            and r.event.line < item.event.line <= r.event.end_line]


def _named(rank: int | None, item: Located) -> str:
    """A culprit's name: its rank and where it ran (`rank 3 (node7:4242)`), or where the
    process ran when no rank is shown (an srun task or a local rank when only that is);
    "" when none is."""
    if rank is None and item.rank is not None and item.rank_origin in ("task", "local"):
        where = whereabouts(item)
        return who(item) + (f" ({where})" if where else "")
    return _called(rank, whereabouts(item))


# The ways a launcher or the kernel says a process was killed: the victim, never the process
# that sent the signal (torchrun's `Sending process 3129 closing signal`, its `forcefully
# exiting via Signals.SIGKILL` of a peer it stops)
_KILL_VICTIM = re.compile(
    r"\b([Pp]rocess \d{1,2}) terminated with signal SIGKILL\b|"
    r"Signal 9 \(SIGKILL\) received by PID (\d+)|"
    r"exitcode\s*:?\s*-9\b.{0,40}?\(?pid:?\s*(\d+)|"
    r"Killed process (\d+)")


def _killed_in_tail(scan: FileScan) -> tuple[str, ...]:
    """The processes a file's last lines say were killed (`process 2 terminated with signal
    SIGKILL`): beside a report that memory ran out, the OOM killer's victims."""
    return tuple(dict.fromkeys(next(g for g in m.groups() if g) for t in scan.tail
                               for m in _KILL_VICTIM.finditer(t.text)))[:3]


def _some(names: Sequence[str], shown: int = 4) -> str:
    """`a, b, c, d and 3 more`: a list of nodes short enough for a page."""
    rest = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {rest} more" if rest > 0 else "")


def _called(rank: int | None, where: str) -> str:
    if rank is None and where.lower().startswith("process "):
        return f"spawned worker {where}"  # torch.multiprocessing's index, not a pid
    if rank is None and where.startswith("Container rank "):
        return f"{where} (Paddle's launcher's worker)"
    if rank is None and is_pci_address(where):
        return f"the GPU at {where}"  # a kernel driver's line: the device, not a process
    if rank is None and where.startswith(("pod ", "executor ", "worker ")):
        return where  # kubectl's event's object, Spark's executor: named as such
    if rank is None and where.startswith("engine process "):
        return f"the {where}"  # an inference engine's own tag (SGLang's TP0), not a place
    if rank is None:
        return f"the process at {where}" if where else ""
    return f"rank {rank} ({where})" if where else f"rank {rank}"


def _one_failed_worker(ctx: Context) -> tuple[int, int | None] | None:
    """The local rank and pid of the one worker torchrun's agent reports failed (`failed
    (exitcode: 1) local_rank: 0 (pid: 358104)`); None with two or more, and for DeepSpeed's
    launcher (it prints the last-started worker, not the failed one)."""
    failed = {(local, e.event.int_field("pid"))
              for e in ctx.of(EventKind.AGENT_WORKER_FAILED)
              if e.event.fields.get("launcher") != "deepspeed"
              and e.event.int_field("exitcode") not in (None, 0)
              and (local := e.event.int_field("local_rank")) is not None}
    return next(iter(failed)) if len(failed) == 1 else None


def _failed_worker(ctx: Context) -> str | None:
    """The one failed worker, named as the agent names it: where an error's own lines show no
    rank, it is the process that raised it when no other worker failed."""
    one = _one_failed_worker(ctx)
    if one is None:
        return None
    local, pid = one
    return f"local_rank {local}" + (f" (pid {pid})" if pid is not None else "")


def _failed_worker_rank(ctx: Context) -> int | None:
    """The global rank torchrun's failure table gives the one failed worker (`rank      : 0
    (local_rank: 0)` under `Root Cause`, with the pid the agent reported); None where the
    table is not shown or names another process."""
    one = _one_failed_worker(ctx)
    if one is None or one[1] is None:
        return None
    local, pid = one
    for table in ctx.of(EventKind.CHILD_FAILED_SUMMARY):
        f = table.event.fields
        rank = f.get("root_rank")
        if isinstance(rank, int) and f.get("root_pid") == pid and f.get("root_local_rank") == local:
            # (others exited alike in the same second: "root cause" is only the first noticed)
            return None if failed_alike(f, "exitcode") else rank
    return None


# The host's network could not be set up for NCCL: bootstrap.cc's `Bootstrap : no socket
# interface found`, the socket transport's `NET/Socket : no interface found`, the AWS OFI
# plugin's `NET/OFI Couldn't open AV` and other `NET/OFI … failed` lines.
# ... and with NCCL_COMM_ID set, bootstrapNetInit's `NET/Socket : No usable listening interface
# found` after misc/socket.cc's `Net : No interface found in the same subnet as remote address`
_NET_SETUP = re.compile(r"no socket interface found|NET/Socket : no interface found|"
                        r"NET/Socket : No usable listening interface found|"
                        r"No interface found in the same subnet as remote address|"
                        r"NET/OFI (?:Couldn't|Unable to|Failed to)")


# NCCL's INFO line naming the network it went on with, after `host:pid:tid [dev]`
_USING_NETWORK = re.compile(r"\b([\w.-]+):(\d+):(\d+) \[\d+\] (?:\S+ )?NCCL INFO "
                            r"(?:Using network \w|NET/(?:Socket|IB) : Using \[)")


# Who wrote a line: NCCL's `host:pid:tid [dev]`, libfabric's `libfabric:pid:…` (no host, no tid)
_NCCL_OR_FABRIC_WRITER = re.compile(r"\b([\w.-]+):(\d+):(\d+) \[\d+\] (?:\S+ )?NCCL |"
                                    r"\blibfabric:(\d+):")


_FALLBACK_LINES = 40  # NCCL's init prints its network choice right after the plugin gave up


_Writer = tuple[str | None, str, str | None]  # host, pid, thread (None where not shown)


def _writer(text: str) -> _Writer | None:
    said = _NCCL_OR_FABRIC_WRITER.search(text)
    if said is None:
        return None
    return said.group(1), said.group(2) or said.group(4), said.group(3)


def _chose_another_network(scan: FileScan, writer: _Writer, line: int) -> bool:
    """Whether the same NCCL thread (host, pid and thread, where shown) said which network it
    went on with within a few lines after `line`: a proxy thread's failure while another
    communicator initialises, or another pod's process with the same pid, is no fallback."""
    host, pid, tid = writer
    return any(0 < t.line - line <= _FALLBACK_LINES
               for t in scan.tail
               if (m := _USING_NETWORK.search(t.text)) is not None and m.group(2) == pid
               and (host is None or m.group(1) == host) and (tid is None or m.group(3) == tid))


def _ranks_text(ranks: Sequence[int]) -> str:
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(map(str, ranks))


# Exceptions that report another process's failure or a stop, never the raiser's own bug
_COLLATERAL = ("DistBackendError", "ChildFailedError", "SignalException", "KeyboardInterrupt",
               "DistNetworkError", "DistStoreError", "RendezvousConnectionError", "NCCL",
               "ProcessExitedException", "ActorDiedError", "RayActorError",
               # Ray: the worker process died; why is not in the exception
               "WorkerCrashedError", "LocalRayletDiedError", "RaySystemError",
               # Dask's scheduler: every worker that ran the task died (`KilledWorker: … all
               # those workers died while running it`); the nanny's lines say why, if anything
               "KilledWorker",
               # Ray: an object whose owner or node died; Tune's summary of trials that failed
               # (each trial's own error, where shown, comes before it)
               "OwnerDiedError", "ObjectLostError", "ObjectReconstructionFailed",
               "NodeDiedError", "TuneError",
               # vLLM's engine after one of its workers died
               "EngineDeadError",
               # the agent's rendezvous ended or timed out: a node never came (init_timeout)
               "RendezvousClosedError", "RendezvousTimeoutError",
               # Ray Train's waits for its workers: read as timeouts, not the job's bug
               "WorkerGroupStartupTimeoutError", "BroadcastCollectiveTimeoutError",
               # mp.spawn's wrapper: the worker's own traceback follows it
               "ProcessRaisedException",
               # a task cancelled (asyncio, concurrent.futures): by whatever stopped waiting
               "CancelledError",
               # TensorFlow's status of a remote call (gRPC's UNAVAILABLE, DEADLINE_EXCEEDED):
               # the other end went or did not answer; what it says is read by the lexicon
               "UnavailableError", "DeadlineExceededError",
               # Dask's comm and tornado's stream: the other end closed it
               "CommClosedError", "StreamClosedError",
               # aiohttp's: the server closed the connection (as http.client's
               # RemoteDisconnected: the peer's story, not shown)
               "ServerDisconnectedError",
               # submitit's job that ended without a result: its error stream below and the
               # scheduler's state (`state: NODE_FAIL`) say why
               "UncompletedJobError")


# A process that crashed or was killed (a native crash handler, Python's faulthandler, a
# signal the shell or launcher reported)
_CRASHED = (EventKind.NATIVE_CRASH, EventKind.FAULTHANDLER, EventKind.SIGNAL_KILL)


# NCCL's codes for a failed system call, a broken invariant, a lost peer and a failed CUDA
# call: NCCL's own WARN line holds the reason; the exception that carries the code is not the
# job's bug.
_NCCL_UNEXPLAINED = ("unhandled system error", "ncclSystemError", "internal error",
                     "ncclInternalError", "ncclRemoteError",
                     "remote process exited or there was a network error",
                     "unhandled cuda error", "ncclUnhandledCudaError")


def says_nccl_unexplained(text: str) -> bool:
    """Whether a message is NCCL's error without a reason. A bare "internal error" is NCCL's
    only where NCCL is named (an object store's `We encountered an internal error. Please try
    again.` is the store's own)."""
    return any(w in text for w in _NCCL_UNEXPLAINED if w != "internal error") or (
        "internal error" in text and ("NCCL" in text or "nccl" in text))


def _message(item: Located) -> str:
    return f"{item.event.fields.get('message', '')} {item.event.fields.get('exc_message', '')}"


def _ray_task(ctx: Context, item: Located) -> Located | None:
    """The Ray task whose error `item` is: a RayTaskError header shortly before it."""
    before = [t for t in ctx.of(EventKind.RAY_TASK_ERROR)
              if t.file_index == item.file_index and 0 <= item.event.line - t.event.line <= 40]
    return before[-1] if before else None


def _ray_task_name(task: Located) -> str:
    fields = task.event.fields
    return f"Ray task {fields.get('task')} (pid {fields.get('pid')} on {fields.get('ip')})"


def _ray_rank(ctx: Context, task: Located) -> tuple[int, ...]:
    """The rank a worker group's actor states in its repr (`repr=Worker[rank=3]`), or the one
    Ray Train's table of its workers gives the task's process (`ip=…, pid=30390)
    world_rank=2`)."""
    rank = task.event.int_field("repr_rank")
    if rank is not None:
        return (rank,)
    return ray_worker_rank(ctx, task.event.int_field("pid"), task.event.fields.get("ip"))


def ray_worker_rank(ctx: Context, pid: object, ip: object) -> tuple[int, ...]:
    """The world rank Ray Train's table of its workers gives the process at (ip, pid)."""
    # (the table's row names its process; a worker's own line is under its actor's prefix)
    rows = {rank for e in ctx.of(EventKind.RAY_WORKER_RANK)
            if (e.event.int_field("pid") or e.event.int_field("actor_pid")) == pid
            and (e.event.fields.get("ip") or e.event.host) == ip
            and (rank := e.event.int_field("world_rank")) is not None}
    return (rows.pop(),) if len(rows) == 1 else ()


_SPAWN_EXIT = re.compile(r"process (\d+) terminated with (?:signal (\w+)|exit code (-?\d+))")
# mp.spawn's report of the worker whose error ended the job, before that worker's traceback
_SPAWN_REPORT = re.compile(r"^-- [Pp]rocess (\d+) terminated with the following error:")


def _spawn_reports(ctx: Context, file_index: int) -> list[tuple[int, str]]:
    """(line, worker index) of every mp.spawn report of a worker's error in one file's tail."""
    return [(t.line, m[1]) for t in ctx.scans[file_index].tail
            if (m := _SPAWN_REPORT.match(t.text.strip())) is not None]


_LEGACY_LOCAL = re.compile(r"--local[_-]rank[= ]'?(\d+)")


# a new attempt's word (a restart, a resume, a requeue): steps after it are another process's
# (a client's `resuming normal operation` after its network came back is no new attempt)
_NEW_ATTEMPT = re.compile(r"(?i)\brestart|\bresum(?:e|ed|ing)\b(?! normal operation)|"
                          r"\bStarting worker group\b|"
                          r"\battempt[ #]\d|\brequeue")


def rank_stepped_on(ctx: Context, file_index: int, line: int, rank: int) -> bool:
    """`rank` logged two steps of its own after `line` in that file, with no new attempt's
    word between and no collective's wait that ran out after: the process that wrote `line`
    went on (a few steps then silence and the others' timeouts are batches it had fetched
    before its feeder died)."""
    tail = ctx.scans[file_index].tail
    after = [t for t in tail if t.line > line]
    if any(_NEW_ATTEMPT.search(t.text) for t in after) or waits_ran_out_after(
            ctx, file_index, line) or _exit_reported(ctx, rank):
        return False
    steps = [t for t in after if t.rank == rank and training_line(t)]
    before = [int(m[1]) for t in tail if t.line < line and t.rank == rank
              and (m := _STEP_NUMBER.search(t.text)) is not None]
    later = [int(m[1]) for t in steps if (m := _STEP_NUMBER.search(t.text)) is not None]
    if before and later and max(later) <= max(before):
        return False  # its stdout, flushed late: steps from before the failure
    return len(steps) >= 2


# (Megatron pads its number: `iteration        1/     500`)
# (`it 22040 | loss …`: a loop's own short word, read only in a line that also gives a loss)
_STEP_NUMBER = re.compile(r"(?i)\b(?:step|iter(?:ation)?|it)\b\W{0,3}? {0,12}(\d+)")


# Lightning's progress bar of one epoch (`Epoch 8: 100%|██████████| 782/782 [03:18<00:00, …]`)
_EPOCH_BAR = re.compile(r"^Epoch (\d+): +\d{1,3}%\|")


def step_number(text: str) -> int | None:
    """The number of the step a training line names (`step 3/6`, `iteration 1200`)."""
    m = _STEP_NUMBER.search(text)
    return int(m[1]) if m is not None else None


_EXIT_REPORTS = (EventKind.CHILD_FAILED_SUMMARY, EventKind.AGENT_WORKER_FAILED)


def exit_reports(ctx: Context) -> list[tuple[Located, object]]:
    """torchrun's reports of a worker's exit (its failure table, its `failed (exitcode …)`
    line), each with the rank it names: the table's root cause, the line's own rank."""
    return [(e, e.event.fields.get("root_rank") if e.kind is EventKind.CHILD_FAILED_SUMMARY
             else e.rank) for e in ctx.of(*_EXIT_REPORTS)]


def table_entries(item: Located) -> list[dict[str, FieldValue]]:
    """torchrun's failure table, entry by entry: its root cause first (when shown), then the
    other failures, each with the fields read from it (rank, local_rank, pid, exitcode,
    signal, time, host)."""
    f = item.event.fields
    root = {k.removeprefix("root_"): v for k, v in f.items() if k.startswith("root_")}
    others = f.get("other_failures")
    rest = [dict(o) for o in others if isinstance(o, tuple)] if isinstance(others, tuple) else []
    return [root, *rest] if root else rest


def _exit_reported(ctx: Context, rank: int) -> bool:
    """The rank's launcher reported its exit."""
    return any(named == rank for _, named in exit_reports(ctx))


def went_on_past(ctx: Context, item: Located) -> bool:
    """The process that wrote `item` went on after it: a thread's traceback the job went on
    after, or a failure its own rank logged steps past."""
    return ctx.passed_over(item.file_index, item.event.line) or (
        item.rank is not None and item.rank_origin in GLOBAL_ORIGINS
        and rank_stepped_on(ctx, item.file_index, item.event.end_line, item.rank))


_WAITS = (EventKind.WATCHDOG_TIMEOUT, EventKind.STORE_TIMEOUT, EventKind.HEARTBEAT_HANG)


def waits_ran_out_after(ctx: Context, file_index: int, line: int,
                        time: float | None = None) -> bool:
    """A collective's or the store's wait ran out after `line` of that file (or, given its
    time, after it in any file): the job stalled after all."""
    return any((e.file_index == file_index and e.event.line > line)
               or (time is not None and e.time is not None and e.time > time)
               for e in ctx.of(*_WAITS))


_IGNORED = re.compile(r"^\s*Exception ignored (?:in|on)\b")


def record_lines(ctx: Context, item: Located) -> list[TailLine]:
    """The lines of an event's record (a traceback, a failure table), from its first line to
    its last, as far as its file's tail holds them."""
    return [t for t in ctx.scans[item.file_index].tail
            if item.event.line <= t.line <= item.event.end_line]


def _exception_line(ctx: Context, item: Located) -> int:
    """The line of a traceback's exception (`AssertionError: …`): its record ends there."""
    name = str(item.event.fields.get("exc_type", "")).rsplit(".", 1)[-1]
    return next((t.line for t in record_lines(ctx, item)
                 if name and t.text.lstrip().startswith(name)), item.event.end_line)


def swallowed(ctx: Context, item: Located) -> bool:
    """A traceback CPython printed under `Exception ignored in: <function … __del__ …>`: it
    swallowed the exception (a destructor's, one at shutdown), which ends nothing."""
    tail = ctx.scans[item.file_index].tail
    return any(_IGNORED.match(t.text) for t in tail
               if item.event.line - 1 <= t.line <= item.event.line) and not any(
        # (one record only: a second traceback after it is a real exception's)
        t.text.lstrip().startswith("Traceback (most recent call last)") for t in tail
        if item.event.line < t.line <= item.event.end_line)


# A client's own word that a connection it had failed to make was made after all (Ray's
# `Connected to Ray cluster.`, its `Ray runtime started.`)
CONNECTED = re.compile(r"\b(?:Connected|Reconnected|connected) to (?!.*\b(?:fail|lost|refused))|"
                       # netty's client in Spark's block fetches, after its retry
                       r"\bSuccessfully created connection to\b|"
                       r"\bRay runtime started\b|\bhas successfully connected\b|"
                       # TensorFlow's and slurmctld's words for a peer or node that came back
                       r"\bCluster successfully recovered\b|\bnow responding\b")


def connected_after(ctx: Context, index: int, line: int, host: str = "") -> bool:
    """The same file shows, after `line`, a connect made (to `host` as a whole name, where
    given: `ps-1` is not `ps-12`, `10.0.3.5` not `10.0.3.51`)."""
    named = re.compile(rf"(?<![\w.\-]){re.escape(host)}(?![\w\-]|\.\w)") if host else None
    return any(t.line > line and CONNECTED.search(t.text) is not None
               and (named is None or named.search(t.text) is not None)
               and read_line(t.text) is None for t in ctx.scans[index].tail)


# an exception's word that its client could not connect to a host (Spark's block fetcher:
# `IOException: Failed to connect to n52.internal/10.0.3.52:7337`)
_COULD_NOT_CONNECT = re.compile(r"\b(?:[Ff]ailed to connect to |[Cc]ould not connect to |"
                                r"[Cc]onnection refused: )(?P<host>[A-Za-z0-9][\w.\-]*)")


def reconnected_after(ctx: Context, item: Located) -> bool:
    """A traceback of a client that could not connect to a host, where its file later shows a
    connect to that host made (`Retrying fetch (1/3)`, then `Successfully created connection
    to n52.internal/…`): a retry that worked."""
    said = _COULD_NOT_CONNECT.search(str(item.event.fields.get("exc_message", "")))
    # (a host name, not prose: botocore's `Could not connect to the endpoint URL`)
    return said is not None and any(c.isdigit() or c in ".-" for c in said["host"]) and (
        connected_after(ctx, item.file_index, item.event.end_line, said["host"]))


# Ray's autoscaler taking idle nodes away (`(autoscaler +53m10s) Removing 2 nodes of type
# gpu-worker (idle).`)
_REMOVED_IDLE = re.compile(r"\bRemoving \d+ nodes? of type \S+ \(idle\)")
# a training run's word that it finished (Ray Train's `Training completed after 10 iterations`)
# (not Ray Train's report of each iteration: `Training finished iteration 12 at …`)
TRAINING_DONE = re.compile(r"(?i)\btraining (?:is )?(?:finished|completed?|done)\b(?! iteration)")


def ray_retried_past(ctx: Context, item: Located) -> bool:
    """A Ray worker's death (its memory monitor's kill, a worker that died) under Ray's word,
    on its line or the record's line above it, that it retries the task the worker ran (`Task
    compute_score failed due to oom. There are infinite oom retries remaining, so the task will
    be retried. Error: …`, `… failed. There are 3 retries remaining, so the task will be
    retried.`), with the job's training going on after it in the same file: a retry the run
    went past."""
    return any(item.event.line - 1 <= t.line <= item.event.line
               and "so the task will be retried" in t.text
               for t in ctx.scans[item.file_index].tail) and trained_after(
        ctx, item.file_index, item.event.end_line)


def removed_idle_above(ctx: Context, item: Located) -> bool:
    """Ray marked a node dead right after its autoscaler, in the same file, removed idle
    nodes (within a few lines) once the training had finished: the removal, not a loss."""
    if "marked dead" not in str(item.event.fields.get("message", "")):
        return False
    tail = ctx.scans[item.file_index].tail
    removed = [t.line for t in tail
               if 0 < item.event.line - t.line <= 5 and _REMOVED_IDLE.search(t.text)]
    # (and only once the training had finished: a node lost mid-run is a loss, whatever else
    # the autoscaler did)
    return bool(removed) and any(t.line < min(removed) and TRAINING_DONE.search(t.text)
                                 for t in tail)


def _logged_record(item: Located) -> bool:
    """The line right above a traceback is its writer's record of handling it (the parser's
    `logged_under`)."""
    return bool(item.event.fields.get("logged_under"))


def logged_as_handled(ctx: Context, item: Located) -> bool:
    """A traceback the program logged under a record of its own as handled (`WARNING uploader:
    sample upload skipped`, then the traceback), after which its writer went on (a line of its
    own that is no failure; or the same exception, logged the same way, went on before), with
    nothing failing in its file after it but tracebacks logged the same way. A crash's own
    report may follow any warning, but its writer writes nothing after it."""
    if item.kind is not EventKind.PYTHON_TRACEBACK or not _logged_record(item):
        return False
    logged = _traceback_lines(ctx, item.file_index)
    if any(e.file_index == item.file_index and e.event.line > item.event.end_line
           and e.event.level >= Level.ERROR
           and not (e.kind is EventKind.PYTHON_TRACEBACK and _logged_record(e))
           for e in ctx.located) or any(
            t.line > item.event.end_line and looks_failed(t.text) and t.line not in logged
            for t in ctx.scans[item.file_index].tail):
        return False
    said = raised_as(item)
    return _went_on(ctx, item, logged) or any(
        e.file_index == item.file_index and e.event.line < item.event.line
        and e.rank == item.rank and _logged_record(e) and _went_on(ctx, e, logged)
        and raised_as(e) == said
        for e in ctx.of(EventKind.PYTHON_TRACEBACK))


def raised_as(item: Located) -> tuple[object, object]:
    """A traceback's exception, type and message: two alike are the same error raised."""
    return item.event.fields.get("exc_type"), item.event.fields.get("exc_message")


def _went_on(ctx: Context, item: Located, logged: set[int]) -> bool:
    """The writer of a traceback wrote a line after it that is no failure and no part of a
    traceback logged as handled (`logged`, its file's such lines)."""
    return any(t.line > item.event.end_line and t.rank == item.rank and t.line not in logged
               and t.text.strip() and not looks_failed(t.text)
               for t in ctx.scans[item.file_index].tail)


def _traceback_lines(ctx: Context, index: int) -> set[int]:
    """The lines of the file's tracebacks logged as handled (their own failing words are
    theirs)."""
    return {line for e in ctx.of(EventKind.PYTHON_TRACEBACK)
            if e.file_index == index and _logged_record(e)
            for line in range(e.event.line, e.event.end_line + 1)}


def stall_trained_past(ctx: Context, report: Located) -> bool:
    """A desync report (Horovod's stall warning) after the last of which, in its file, each
    rank it names as lagging logged steps of its own: a stall the job got past."""
    lagging = ctx.picture.lagging
    if not lagging:
        return False
    last = max(r.event.end_line for r in ctx.of(EventKind.DESYNC_REPORT)
               if r.file_index == report.file_index)
    tail = ctx.scans[report.file_index].tail
    return all(any(t.line > last and t.rank == rank and training_line(t) for t in tail)
               for rank in lagging)


# `kubectl describe pod`'s container: its current state, then the one before (`Last State:`)
_STATE = re.compile(r"^\s*State:\s+(\w+)")
_LAST_STATE = re.compile(r"^\s*Last State:\s+\w+")
_COMPLETED = re.compile(r"^\s*(?:Reason:\s+Completed|Exit Code:\s+0)\s*$")


def superseded_last_states(ctx: Context, index: int) -> list[tuple[int, int, int]]:
    """(file, first line, last line) of each `Last State:` block of `kubectl describe pod`
    whose container's current state, just above it, completed with exit code 0: the container
    was restarted and finished (an earlier OOMKilled is its past). A container running again
    is not: its job may have failed for that past, as its operator may say."""
    tail = ctx.scans[index].tail
    out = []
    for i, line in enumerate(tail):
        if "Last State:" not in line.text or _LAST_STATE.match(line.text) is None:
            continue
        above = [t for t in tail[max(0, i - 8):i] if t.line >= line.line - 8]
        state = next((m[1] for t in reversed(above) if (m := _STATE.match(t.text))), None)
        if state == "Terminated" and sum(1 for t in above if _COMPLETED.match(t.text)) >= 2:
            out.append((index, line.line, line.line + 5))
        elif state == "Running" and _another_container_failed(tail, i):
            # a container running again beside the pod's container that failed for a reason
            # of its own (`Reason: Error`): its earlier end is a sidecar's past (a log
            # shipper's OOMKilled), not the failed container's
            out.append((index, line.line, line.line + 5))
    out.extend(_events_of_a_completed_pod(tail, index))
    return out


_FAILED_STATE = re.compile(r"^\s*Reason:\s+Error\s*$")


def _another_container_failed(tail: list[TailLine], at: int) -> bool:
    """The pod described around `tail[at]` (from its `Name:` line to its `Events:`) has a
    container whose current state ended with `Reason: Error`, other than the one above `at`."""
    start = next((j for j in range(at, -1, -1) if tail[j].text.startswith("Name:")), 0)
    end = next((j for j in range(at, len(tail)) if tail[j].text.rstrip() == "Events:"),
               len(tail))
    own = next((j for j in range(at - 1, start - 1, -1) if _STATE.match(tail[j].text)), at)
    for j in range(start, end):
        if j == own or "Last State:" in tail[j].text or _STATE.match(tail[j].text) is None:
            continue
        if tail[j].text.split(":", 1)[1].strip() == "Terminated" and any(
                _FAILED_STATE.match(t.text) for t in tail[j + 1:j + 3]):
            return True
    return False


def _events_of_a_completed_pod(tail: list[TailLine], index: int) -> list[tuple[int, int, int]]:
    """(file, first line, last line) of the `Events:` table of a `kubectl describe pod` whose
    every container's current state completed with exit code 0: a failed image pull, a probe
    or a back-off in it is the pod's past, which it went on from to finish."""
    out = []
    states: list[bool] = []  # each container's current state since the block's Name line
    for i, line in enumerate(tail):
        if line.text.startswith("Name:"):
            states = []
        elif (m := _STATE.match(line.text)) is not None and "Last State:" not in line.text:
            below = [t for t in tail[i + 1:i + 6] if t.line <= line.line + 5]
            states.append(m[1] == "Terminated"
                          and sum(1 for t in below if _COMPLETED.match(t.text)) >= 2)
        elif line.text.rstrip() == "Events:" and states and all(states):
            # (its rows are indented; the table ends at the first line that is not: the next
            # command's prompt, its output, another paste)
            end = next((t.line for t in tail[i + 1:]
                        if not t.text.strip() or not t.text[:1].isspace()), tail[-1].line + 1)
            out.append((index, line.line, end - 1))
    return out


def _ended_its_run(ctx: Context, item: Located) -> bool:
    """A traceback that ran out of the main script's top level (its outermost frame
    `<module>`, no thread's) after its file showed training steps: it ended the process that
    trained, and step lines after it are that process's output flushed at its exit (a
    script's stdout to a file is block-buffered) or another process's, not training going
    on."""
    frames = item.event.fields.get("frames")
    outermost = frames[0] if isinstance(frames, tuple) and frames else ""
    return (str(outermost).endswith(" <module>") and not item.event.fields.get("in_thread")
            and any(t.line < item.event.line and training_line(t)
                    for t in ctx.scans[item.file_index].tail))


def stepped_past(ctx: Context, item: Located) -> bool:
    """A traceback its process went on after: its own rank logged later steps (it caught and
    logged the error), or, raised in a thread other than the main one (`Exception in thread
    NAME:`), the same file shows the job's progress after it and no wait ran out since."""
    if item.kind is not EventKind.PYTHON_TRACEBACK:
        return False
    if item.rank is not None and item.rank_origin in GLOBAL_ORIGINS:
        return rank_stepped_on(ctx, item.file_index, item.event.end_line, item.rank)
    if (item.rank is None and not _ended_its_run(ctx, item)
            and file_trained_on(ctx, item.file_index, item.event.end_line)):
        return True
    if not item.event.fields.get("in_thread") or waits_ran_out_after(
            ctx, item.file_index, item.event.end_line, item.time):
        return False
    if item.rank is not None:
        # the thread's own rank must go on: other ranks' steps say nothing of it
        return rank_stepped_on(ctx, item.file_index, item.event.end_line, item.rank)
    return (any(p.file_index == item.file_index and p.event.line > item.event.end_line
                for p in ctx.of(EventKind.PROGRESS))
            # (or its step lines, as far as the file's tail holds them)
            or trained_after(ctx, item.file_index, item.event.end_line))


# a training loop's own report of a step (`step 5 | loss 2.8998`, Keras' `300/300 - 208s -
# loss: 1.6603`, Megatron's `iteration 1001/ 500000 | … | lm loss: 2.34E+00`, the Hugging Face
# Trainer's `{'loss': 1.2345, …, 'epoch': 0.52}`)
_TRAINING = re.compile(r"(?i)(?:\b(?:step|iter(?:ation)?|it|epoch)\b\W{0,12}\d+|\b\d+/ *\d+\b)"
                       r".{0,240}\bloss\b|^\{'loss': [\d.]|"
                       # verl's console logger: a step's metrics, `step:12 - actor/pg_loss:-0.01
                       # - …` (its keys name the loss `pg_loss`, `vf_loss`, past 240 columns)
                       r"^step:\d+ - [\w/@.\-]+:-?[\d.]")


def training_line(line: TailLine) -> bool:
    """A line of the job's training going on: its progress bar or a step's loss."""
    return (line.progress is not None or _TRAINING.search(line.text) is not None
            or _EPOCH_BAR.search(line.text) is not None)


# A line that starts another part of a paste: a shell prompt and its command, a header a
# reporter or `tail` put over a file's lines (`--- rank 3 stdout ---`, `==> w-2.log <==`)
_PASTE_BREAK = re.compile(r"^\s*(?:\S*[$#%>] \S|(?:-{3,}|={3,}|#{3,}) ?\S.*|==> .* <==\s*$)")


def another_part_between(scan: FileScan, first: int, last: int) -> bool:
    """A line between `first` and `last` where the job's script ran its next command (its
    shell's trace, `+ python eval.py`): what follows is not the same run's. A command the file
    showed before `first` run again (a requeued job's script tracing its `+ srun … train.py`
    anew) is the same run's next attempt; a user's own command (`$ kubectl logs w-1`) shows
    what ran, and is no step of the job."""
    ran = {t.text.strip() for t in scan.tail if t.line <= first} | {
        text.strip() for line, text in scan.head_commands if line <= first}
    return any(first < t.line < last and SHELL_TRACE.match(t.text)
               and t.text.strip() not in ran for t in scan.tail)


def file_trained_on(ctx: Context, index: int, line: int) -> bool:
    """A failing line of no rank's after which its file shows the job's training go on: two
    steps numbered past every step before the line, with no failing line, no new attempt's
    word and no wait that ran out between or after them, and no other paste's part between
    (a client that logged a failed write or fetch, went around it and trained on)."""
    tail = ctx.scans[index].tail
    if not tail or line < tail[0].line or waits_ran_out_after(ctx, index, line):
        return False  # (above the tail, the steps before the line are not all in view)
    after = [t for t in tail if t.line > line]
    if any(_NEW_ATTEMPT.search(t.text) for t in after):
        return False
    # (numbered by step; where no training line numbers one, by the epoch of Lightning's bars)
    counter = _STEP_NUMBER if any(training_line(t) and _STEP_NUMBER.search(t.text)
                                  for t in tail) else _EPOCH_BAR
    numbered = [(t.line, int(m[1])) for t in after if training_line(t)
                and (m := counter.search(t.text)) is not None]
    before = [int(m[1]) for t in tail if t.line < line
              and (m := counter.search(t.text)) is not None]
    if numbered and before and numbered[0][1] < max(before):
        return False  # (the count started over: another run, not this one going on)
    later = [n for _, n in numbered if not before or n > max(before)]
    if len(later) < 2 or len(set(later)) < 2:
        return False
    first_step = min(at for at, _ in numbered)
    if any(line < t.line < first_step and _PASTE_BREAK.search(t.text) for t in tail):
        return False  # another command's output, pasted below: not the time after the line
    return not any(t.line > first_step and looks_failed(t.text) for t in after) and not any(
        e.file_index == index and e.event.line > first_step and e.event.level >= Level.ERROR
        for e in ctx.located)


def others_trained_past(ctx: Context, file_index: int, line: int) -> bool:
    """No error below `line` in its file, while another file shows the job training (rank 0
    alone prints its steps): what that line warned of was got past."""
    return not any(e.file_index == file_index and e.event.line > line
                   and e.event.level >= Level.ERROR for e in ctx.located) and any(
        trained_after(ctx, index, 0) for index in range(len(ctx.scans)) if index != file_index)


def trained_after(ctx: Context, file_index: int, line: int) -> bool:
    """Whether the file shows the job's training going on after `line`, as far as its tail
    holds it."""
    return any(t.line > line and training_line(t) for t in ctx.scans[file_index].tail)


def nfs_answered_again(ctx: Context, item: Located) -> bool:
    """The kernel's `nfs: server fs01 not responding, still trying`, answered by its later
    `nfs: server fs01 OK` in the same file: a pause the mount rode out."""
    server = item.event.fields.get("server")
    if not server or "not responding" not in item.event.text:
        return False
    return any(t.line > item.event.line and f"nfs: server {server} OK" in t.text
               for t in ctx.scans[item.file_index].tail)


# a process's own MPI_Abort (MPICH, Intel MPI, Cray MPICH, Open MPI)
MPI_ABORT = re.compile(r"\bAbort\(-?\d+\)|MPI_Abort\(|MPI_ABORT was invoked")


def crashed_while_stopping(ctx: Context, item: Located) -> bool:
    """TGI's word that a shard crashed, after its launcher said it was stopping them all
    (`Received SIGTERM, terminating`): the stop's, not the shard's first failure."""
    return item.event.fields.get("tgi_shard") == "crashed" and any(
        t.line < item.event.line and "Received SIG" in t.text
        for t in ctx.scans[item.file_index].tail)


def mpi_ended_ranks(ctx: Context) -> set[int]:
    """The ranks mpirun names as the processes that ended the job by themselves: one that
    called MPI_Abort, or Open MPI's first process to exit with a status (`The first process to
    do so was: Process name: [[40021,1],2]  Exit code: 1`, a status, not a signal)."""
    return {rank for e in ctx.of(EventKind.MPI_EXIT)
            if (MPI_ABORT.search(e.event.text)
                or ("Process name:" in e.event.text and e.event.int_field("signo") is None)
                # TGI's launcher on the one shard whose process ended first
                or (e.event.fields.get("tgi_shard") and not crashed_while_stopping(ctx, e)))
            and (rank := e.event.int_field("mpi_rank")) is not None}


def launcher_ended_ranks(ctx: Context) -> set[int]:
    """The ranks a launcher names as the processes that ended the job: mpirun's (above), and
    Paddle's `the trainer process with rank=[1] was aborted`."""
    return mpi_ended_ranks(ctx) | {
        rank for e in ctx.of(EventKind.MPI_EXIT)
        if "was aborted" in e.event.text and (rank := e.event.int_field("mpi_rank")) is not None}


# An exception about the job's own distributed plumbing: a store, a rendezvous, a connection,
# a wait that timed out, a launcher's report of its workers
_PLUMBING = re.compile(r"Dist\w*Error|Rendezvous\w*Error|ChildFailedError|Connection|Timeout|"
                       r"timed out|\bstore\b|\bstore->|\bNCCL\b|\bbarrier\b|Interrupt|"
                       r"SystemExit|\bsignal\b", re.I)


def raised_of_its_own(item: Located) -> bool:
    """An exception a process raised of its own (its code, its input, its device, its memory,
    as the lexicon reads its words), not about the job's plumbing (a store, a rendezvous, a
    connection, a wait) nor a wrapper that points elsewhere (`… initialization failed. Please
    check log messages above`, a spawned process's exception re-raised)."""
    said = f"{item.event.fields.get('exc_type')}: {item.event.fields.get('exc_message')}"
    return (item.event.level >= Level.ERROR and _PLUMBING.search(said) is None
            and _POINTS_ELSEWHERE.search(said) is None and words_family(said) in OWN_FAULT)


# An exception whose own words send the reader elsewhere
_POINTS_ELSEWHERE = re.compile(r"(?i)Process(?:Raised|Exited)Exception|messages? above|"
                               r"initiali[sz]ation failed|see (?:the )?(?:above|logs?)")
