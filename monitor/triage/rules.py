"""Diagnosis rules: each reads the evidence and either concludes (a Finding) or passes.

The first rule that concludes wins (see RULES for the order: direct evidence of a cause before
the symptoms it produces). A Finding names a category from the closed set, the culprit ranks
(global ranks only), human-readable culprits (which may be a GPU, a host pair or an
unlabelled process), the evidence sentences with file:line, the cause event and advice.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from monitor.model import Category
from monitor.parse.collectives import CollectivePicture
from monitor.parse.ddp_check import contradictory, counts_said
from monitor.parse.envelope import split_envelope
from monitor.parse.log_events import EventKind, Level
from monitor.parse.log_patterns import CHECKPOINT_PHASE_WORDS, DATA_PHASE_WORDS, FieldValue
from monitor.triage.evidence import GLOBAL_ORIGINS, Located, compress_ranks, whereabouts, who
from monitor.triage.lexicon import (
    CATEGORY,
    CORRUPT_DATA,
    OWN_FAULT,
    Family,
    Reading,
    is_pci_address,
    node_names,
    places,
    read_line,
    self_named_rank,
)
from monitor.triage.reader import FileScan, TailLine
from monitor.triage.topology import Topology, task_ranks


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


def _best_located(items: Sequence[Located]) -> Located:
    """Of the lines that tell one failure, the one that says most of where it ran (NCCL's
    own line has host and pid; the same error quoted as a `Last error:` has neither)."""
    return max(items, key=lambda i: (bool(i.event.fields.get("pid")), bool(whereabouts(i))))


def _named(rank: int | None, item: Located) -> str:
    """A culprit's name: its rank and where it ran (`rank 3 (node7:4242)`), or where the
    process ran when no rank is shown (an srun task or a local rank when only that is);
    "" when none is."""
    if rank is None and item.rank is not None and item.rank_origin in ("task", "local"):
        where = whereabouts(item)
        return who(item) + (f" ({where})" if where else "")
    return _called(rank, whereabouts(item))


def _continuation(ctx: Context, item: Located) -> str:
    """The text of the lines that continue an event's line (the kernel's `CPU: 6 PID: 208253
    Comm: python` under `invoked oom-killer`, a message a paster wrapped)."""
    return ctx.scans[item.file_index].continued.get(item.event.line, "")


def _labelled(where: Sequence[str]) -> str:
    return ", ".join(f"pid {w}" if w.isdigit() else w for w in where)


# torch >= 2.1 lists the GPU's processes after `CUDA out of memory` (wrapped or not)
_GPU_USER = re.compile(r"Process\s+(\d+)\s+has\s+[\d.]+\s*[KMGT]i?B\s+memory\s+in\s+use")


def _gpu_user(ctx: Context, item: Located) -> str | None:
    """The one process torch says holds the GPU's memory: the one that ran out. With several
    listed, the message does not say which one asked."""
    users = set(_GPU_USER.findall(f"{item.event.text}\n{_continuation(ctx, item)}"))
    return users.pop() if len(users) == 1 else None


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


def _enclosing_actor(ctx: Context, item: Located) -> Located | None:
    """The dead Ray actor whose report holds this line (`Worker exit detail: … low on memory`
    under the RayActorError that names the actor's pid and ip)."""
    return next((a for a in ctx.of(EventKind.ACTOR_DIED)
                 if a.file_index == item.file_index and a.event.fields.get("ip")
                 and a.event.line < item.event.line <= a.event.end_line), None)


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
    if rank is None:
        return f"the process at {where}" if where else ""
    return f"rank {rank} ({where})" if where else f"rank {rank}"


def desync_report(ctx: Context) -> Finding | None:
    lagging = ctx.picture.lagging
    if not lagging:
        return None
    first = ctx.of(EventKind.DESYNC_REPORT)[0]
    return Finding(
        Category.COLLECTIVE_DESYNC, lagging, tuple(f"rank {r}" for r in lagging),
        (f"the desync report names rank(s) {compress_ranks(lagging)} as lagging "
         f"({first.where})",), first,
        ("Look at what the lagging ranks were doing (their last lines and stacks); "
         "`rankwatch run` takes py-spy dumps of a straggler before the watchdog fires.",),
    )


_HW_XID_CAUSES = frozenset({48, 63, 64, 74, 79, 92, 94, 95, 109, 119, 120, 137, 145, 149, 154})


# Horovod's stall inspector (0.20 and later): a header, then one line per stalled rank with
# the tensors it has not submitted while others have (`0: [HorovodBroadcast_…, …]`)
_STALLED_HEADER = re.compile(r"^(?:Stalled|Missing) ranks:\s*$")
_STALLED_RANK = re.compile(r"^(\d+): \[")


def horovod_stalled(ctx: Context) -> Finding | None:
    """Horovod's stall report, one rank a line. One rank listed never submitted what the
    others wait for: the culprit. Several ranks listed, each missing others' tensors, are in
    different collectives at one point: a desync no single rank can be blamed for."""
    for scan in ctx.scans:
        tail = scan.tail
        for i, head in enumerate(tail):
            if _STALLED_HEADER.match(head.text.strip()) is None:
                continue
            ranks: list[int] = []
            for line in tail[i + 1:i + 1 + 4096]:
                m = _STALLED_RANK.match(line.text.strip())
                if m is None:
                    break
                ranks.append(int(m.group(1)))
            if not ranks:
                continue
            where = f"{scan.path}:{head.line}"
            if len(set(ranks)) == 1:
                return Finding(
                    Category.COLLECTIVE_DESYNC, (ranks[0],), (f"rank {ranks[0]}",),
                    (f"Horovod's stall inspector: rank {ranks[0]} has not submitted the tensors "
                     f"the other ranks wait in ({where})",), None,
                    (f"Find why rank {ranks[0]} took another path (a condition on the rank, an "
                     "exception caught, data it ran out of) before the stalled step.",),
                )
            return Finding(
                Category.COLLECTIVE_DESYNC, (), (),
                (f"Horovod's stall inspector: ranks {compress_ranks(ranks)} each wait in "
                 f"tensors the others have not submitted ({where}): they are in different "
                 "collectives at one point, and no single rank can be blamed",), None,
                ("Compare the order in which the ranks submit their collectives (a branch on "
                 "the rank, a broadcast on one and an allreduce on another) at that step.",),
            )
    return None


def gpu_hardware(ctx: Context) -> Finding | None:
    cuda = [e for e in ctx.of(EventKind.CUDA_ERROR) if e.event.fields.get("hardware") is True]
    hw_xids = [x for x in ctx.of(EventKind.XID) if x.event.fields.get("role") == "hardware" or (
        x.event.fields.get("role") == "secondary"
        and x.event.int_field("caused_by") in _HW_XID_CAUSES)]
    if not cuda and not hw_xids:
        return None
    culprits: list[str] = []
    evidence: list[str] = []
    ranks = ctx.global_ranks(cuda)
    for rank in ranks:
        first = next(e for e in cuda if e.rank == rank)
        culprits.append(_named(rank, first))
        evidence.append(f"rank {rank}: CUDA error: {first.event.fields.get('message')} "
                        f"({first.where})")
    if cuda and not ranks:
        first = cuda[0]
        evidence.append(f"{who(first)}: CUDA error: {first.event.fields.get('message')} "
                        f"({first.where})")
        if first.event.fields.get("gpu") is not None:
            culprits.append(f"GPU {first.event.fields.get('gpu')}")
    devices: dict[str, set[int]] = defaultdict(set)
    for x in hw_xids:
        xid = x.event.int_field("caused_by") or x.event.int_field("xid") or 0
        devices[str(x.event.fields.get("pci"))].add(xid)
    for pci, causes in sorted(devices.items()):
        culprits.append(f"GPU {pci} (Xid {', '.join(str(c) for c in sorted(causes))})")
    if hw_xids:
        pids = sorted({str(x.event.fields["pid"]) for x in hw_xids if x.event.fields.get("pid")})
        evidence.append(
            f"kernel Xid errors on {len(devices)} GPU(s): "
            + "; ".join(f"{p} Xid {', '.join(str(c) for c in sorted(v))}"
                        for p, v in sorted(devices.items()))
            + (f" (processes {', '.join(pids)})" if pids else "")
            + f" ({hw_xids[0].where})"
        )
    cause = min([*cuda, *hw_xids], key=Located.order)
    return Finding(
        Category.GPU_CUDA, ranks, tuple(culprits), tuple(evidence), cause,
        ("Drain the node(s) and check the GPUs (`nvidia-smi -q -d ECC,ROW_REMAPPER`, "
         "`dmesg | grep -i xid`); replace or reset the failing GPU before resubmitting.",),
    )


def _failed_worker(ctx: Context) -> str | None:
    """The one worker torchrun's agent reports failed (`failed (exitcode: 1) local_rank: 0
    (pid: 358104)`), named as the agent names it: where an error's own lines show no rank,
    it is the process that raised it when no other worker failed. None with two or more,
    and for DeepSpeed's launcher (it prints the last-started worker, not the failed one)."""
    failed = {(e.event.int_field("local_rank"), e.event.fields.get("pid"))
              for e in ctx.of(EventKind.AGENT_WORKER_FAILED)
              if e.event.fields.get("launcher") != "deepspeed"
              and e.event.int_field("exitcode") not in (None, 0)
              and e.event.int_field("local_rank") is not None}
    if len(failed) != 1:
        return None
    ((local, pid),) = failed
    return f"local_rank {local}" + (f" (pid {pid})" if pid is not None else "")


def _slurm_oom_node(ctx: Context, item: Located) -> str | None:
    """The node a SLURM memory kill happened on: its own line's, or (slurmstepd names none on
    its older lines) the node of the same job's `*** JOB N ON node CANCELLED AT …`."""
    if item.event.fields.get("node"):
        return str(item.event.fields["node"])
    job = str(item.event.fields.get("job") or item.event.fields.get("step") or "").split(".")[0]
    return next((str(c.event.fields["node"]) for c in ctx.of(EventKind.SLURM_CANCEL)
                 if c.event.fields.get("node") and job
                 and str(c.event.fields.get("job")).split(".")[0] == job), None)


def out_of_memory(ctx: Context) -> Finding | None:
    gpu = [e for e in ctx.of(EventKind.CUDA_OOM) if not e.event.fields.get("bad_size")]
    # NCCL's "unhandled cuda error" whose last error is the allocation that failed
    # (or NCCL's own allocation that failed: alloc.h's `Failed to CUDA calloc %ld bytes`)
    gpu += [e for e in ctx.of(EventKind.PYTHON_TRACEBACK, EventKind.NCCL_ERROR)
            if any(w in str(e.event.fields.get("last_error", ""))
                   for w in ("out of memory", "Failed to CUDA calloc", "Failed to CUDA malloc"))]
    host = ctx.of(EventKind.HOST_OOM, EventKind.SLURM_OOM)
    tasks = [e for e in ctx.of(EventKind.SLURM_TASK_EXIT) if e.event.fields.get("oom")]
    # A worker killed by SIGKILL is usually the OOM killer, but only a kernel or cgroup line
    # says so; without one the `dataloader` rule names the worker, cause undetermined.
    workers = [e for e in ctx.of(EventKind.DATALOADER_WORKER_DIED)
               if e.event.fields.get("cause") == "killed"] if (host or tasks) else []
    if not (gpu or host or tasks or workers):
        return None
    culprits: list[str] = []
    evidence: list[str] = []
    ranks = ctx.global_ranks([*gpu, *workers])
    for r in ranks:
        item = next(e for e in [*gpu, *workers] if e.rank == r)
        index = item.event.fields.get("gpu")
        culprits.append(_named(r, item) + (f" on GPU {index}" if index is not None else ""))
    for item in gpu:
        index = item.event.fields.get("gpu")
        on_gpu = f" on GPU {index}" if index is not None else ""
        if item.kind is EventKind.CUDA_OOM:
            evidence.append(f"{who(item)}: CUDA out of memory (tried to allocate "
                            f"{item.event.fields.get('requested')}{on_gpu}) ({item.where})")
        else:
            evidence.append(f"{who(item)}: NCCL's CUDA call failed, last error "
                            f"{item.event.fields.get('last_error')} ({item.where})")
        task = _ray_task(ctx, item) if item.rank is None else None
        if task is not None:
            ranks = tuple(sorted({*ranks, *_ray_rank(task)}))
            culprits.extend([*(f"rank {r}" for r in _ray_rank(task)), _ray_task_name(task)])
        elif item.rank is None:
            # torch's message lists the GPU's processes, often wrapped onto the next lines
            user = _gpu_user(ctx, item)
            where = whereabouts(item) or (f"pid {user}" if user else "")
            at = f" at {where}" if where else ""
            worker = _failed_worker(ctx) if not where else None
            culprits.append(f"{worker}, the launcher's one failed worker, ran out of GPU "
                            f"memory{on_gpu}" if worker else
                            f"the process{at} that ran out of GPU memory{on_gpu} (rank "
                            "not shown)")
    for item in tasks:
        task_ids = [t for t in item.event.fields.get("tasks") or () if isinstance(t, int)]  # type: ignore[union-attr]
        node = item.event.fields.get("node")
        if as_ranks := task_ranks(ctx.topology, task_ids):
            ranks = tuple(sorted({*ranks, *as_ranks}))
        culprits.extend(f"task {t} on {node}" for t in task_ids)
        evidence.append(f"srun: task {compress_ranks(task_ids)} on {node} ran out of memory "
                        f"({item.where})")
    pid_rank = _launcher_pids(ctx)
    killed_ranks: list[int] = []
    for item in host:
        evidence.append(f"{item.kind.value}: {item.event.text.strip()[:160]} ({item.where})")
        pid = item.event.fields.get("pid")
        if item.kind is EventKind.SLURM_OOM and (node := _slurm_oom_node(ctx, item)):
            culprits.append(f"node {node} (the job's memory limit)")
        elif pid is not None and item.kind is EventKind.HOST_OOM and item.event.fields.get("ip"):
            culprits.append(f"pid {pid} on node {item.event.fields.get('ip')} (host memory: "
                            "killed by Ray's memory monitor)")
        elif pid is not None and item.kind is EventKind.HOST_OOM:
            rank = pid_rank.get(pid) if isinstance(pid, int) else None
            if rank is not None:
                killed_ranks.append(rank)
                evidence.append(f"pid {pid} is rank {rank} in the launcher's summary: the "
                                "launcher's exit -9 for it was the OOM killer")
            culprits.append(f"pid {pid} ({item.event.fields.get('process')}) killed by the "
                            "kernel OOM killer" + (f" = rank {rank}" if rank is not None else ""))
        elif item.event.fields.get("ip"):
            culprits.append(f"node {item.event.fields.get('ip')} (host memory)")
        elif item.event.fields.get("pod"):
            culprits.append(f"pod {item.event.fields.get('pod')} (OOMKilled)")
        elif actor := _enclosing_actor(ctx, item):  # Ray's own words under its actor's
            culprits.append(f"Ray worker pid {actor.event.fields.get('pid')} on node "
                            f"{actor.event.fields.get('ip')} (host memory)")
        elif "invoked oom-killer" in item.event.text:
            # the allocating task that woke the OOM killer, named by the kernel's next line;
            # the victim is another line's (`Killed process N`), named above when shown
            if not any(h.event.fields.get("pid") for h in host) and (
                    invoker := places(_continuation(ctx, item))[:1]):
                culprits.append(f"{_labelled(invoker)} ({item.event.fields.get('process')}, "
                                "invoked the OOM killer; its victim is not shown)")
        elif named := places(item.event.text) or places(_continuation(ctx, item)):
            culprits.append(f"{_labelled(named)} (host memory)")  # fields the pattern lacks
        elif victims := _killed_in_tail(ctx.scans[item.file_index]):
            culprits.append(f"{_labelled(victims)} (killed when host memory ran out)")
    if killed_ranks:
        ranks = tuple(sorted({*ranks, *killed_ranks}))
        culprits[:0] = [f"rank {r}" for r in ranks if f"rank {r}" not in culprits]
    for item in workers:
        evidence.append(f"{who(item)}: a DataLoader worker was killed (host memory) ({item.where})")
    recs = []
    if gpu:
        recs.append("GPU memory: lower the micro-batch or sequence length, enable activation "
                    "checkpointing, or set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
                    "against fragmentation.")
    if host or tasks or workers:
        recs.append("Host memory: raise the job's memory limit (--mem) or lower DataLoader "
                    "workers/prefetch; `sacct -j JOB -o MaxRSS` shows the peak.")
    cause = min([*gpu, *host, *tasks, *workers], key=Located.order)
    return Finding(Category.OOM, ranks, tuple(dict.fromkeys(culprits)), tuple(evidence), cause,
                   tuple(recs))


# A missing file (FileNotFoundError) is not among them: a path the job got wrong, or two
# ranks racing on one file, is the job's bug; the storage did what it was asked.
_IO_EXCEPTIONS = frozenset({"OSError", "IOError", "FileExistsError", "PermissionError",
                            "BlockingIOError", "ConnectionResetError", "TimeoutError",
                            "ConnectionError", "ReadTimeoutError", "ReadTimeout"})


def _launcher_pids(ctx: Context) -> dict[int, int]:
    """pid → global rank, from the launcher's failure summaries."""
    out: dict[int, int] = {}
    for item in ctx.of(EventKind.CHILD_FAILED_SUMMARY):
        fields = item.event.fields
        pid, rank = fields.get("root_pid"), fields.get("root_rank")
        if isinstance(pid, int) and isinstance(rank, int):
            out[pid] = rank
        others = fields.get("other_failures")
        for entry in others if isinstance(others, tuple) else ():
            values = dict(entry)
            if isinstance(values.get("pid"), int) and isinstance(values.get("rank"), int):
                out[values["pid"]] = values["rank"]
    return out


def _worker(item: Located) -> str:
    """The dead DataLoader worker, by its rank and pid as far as the line shows them."""
    pid = item.event.fields.get("pid") or item.event.fields.get("pids")
    worker = f"DataLoader worker pid {pid}" if pid else "a DataLoader worker"
    return f"{worker} of {who(item)}" if item.rank is not None else worker


def dataloader(ctx: Context) -> Finding | None:
    died = ctx.of(EventKind.DATALOADER_WORKER_DIED)
    timeouts = ctx.of(EventKind.DATALOADER_TIMEOUT)
    if died:
        # A worker that "exited unexpectedly" says nothing of why; a line that names the cause
        # (a bus error, shared memory) is the better witness of the same death.
        named = [e for e in died if e.event.fields.get("cause") not in ("exited", None)]
        first = named[0] if named else died[0]
        cause = first.event.fields.get("cause")
        ranks = ctx.global_ranks([first])
        culprits = (_worker(first),)
        if cause == "bus_error" or first.event.fields.get("shm"):
            return Finding(
                Category.INFRASTRUCTURE, ranks, culprits,
                (f"{who(first)}: a DataLoader worker hit a bus error: shared memory (/dev/shm) "
                 f"is too small ({first.where})",), first,
                ("Give the container more shared memory (`--shm-size`, `--ipc=host`, or a "
                 "bigger /dev/shm), or lower num_workers.",),
            )
        if cause == "exception":
            exc = str(first.event.fields.get("exc", ""))
            # the worker's original exception (its last lines) may say the input is corrupt
            corrupt = CORRUPT_DATA.search(first.event.text) or next(
                (m for t in ctx.scans[first.file_index].tail if t.line >= first.event.line
                 if (m := CORRUPT_DATA.search(t.text)) is not None), None)
            category = (Category.DATA if corrupt else
                        Category.STORAGE_IO if exc in _IO_EXCEPTIONS else Category.SOFTWARE)
            return Finding(
                category, ranks, culprits,
                (f"{who(first)}: {exc} in a DataLoader worker ({first.where})"
                 + (f"; the input it read is corrupt: '{corrupt.group(0)}'" if corrupt else ""),),
                first,
                ("Fix the sample or the data path the worker failed on (the 'Original "
                 "Traceback' shows the frame).",),
            )
        if cause == "killed":
            return Finding(
                Category.UNDETERMINED, ranks, culprits,
                (f"{_worker(first)} was killed by SIGKILL ({first.where}); that is usually "
                 "the host OOM killer, but no kernel or cgroup line here says so",), first,
                ("Check `dmesg -T | grep -i 'killed process'` on that host; if it was the OOM "
                 "killer, lower num_workers/prefetch_factor or raise the memory limit.",),
            )
        return Finding(
            Category.UNDETERMINED, ranks, culprits,
            (f"{who(first)}: a DataLoader worker died ({cause}) ({first.where}); nothing here "
             "shows why",), first,
            ("Rerun with num_workers=0 to see the worker's own error.",),
        )
    if timeouts:
        first = timeouts[0]
        return Finding(
            Category.DATALOADER_STALL, ctx.global_ranks([first]),
            (who(first),) if first.rank is not None else (),
            (f"{who(first)}: DataLoader timed out after "
             f"{first.event.fields.get('timeout_seconds')} s ({first.where})",), first,
            ("Find the slow sample or storage behind the stalled worker (py-spy dump of the "
             "worker).",),
        )
    return None


def mismatch(ctx: Context) -> Finding | None:
    if not ctx.picture.mismatches:
        return None
    m = ctx.picture.mismatches[0]
    parts = [f"{op} NumelIn={numel} on rank(s) {compress_ranks(ranks)}"
             for (op, numel), ranks in sorted(m.variants.items(), key=lambda kv: kv[1])]
    evidence = [f"collective #{m.seq} differs across ranks: " + "; ".join(parts)]
    if m.culprits:
        evidence.append(f"rank(s) {compress_ranks(m.culprits)}: {m.reason}")
    else:
        evidence.append(m.reason)
        evidence.append("no single rank can be blamed: each side only sees the other disagree")
    # Different operations at one sequence number: the ranks' code paths diverged (a desync);
    # the same operation with different sizes is a shape bug in the job.
    ops = {op for op, _numel in m.variants}
    category = Category.COLLECTIVE_DESYNC if len(ops) > 1 else Category.SOFTWARE
    return Finding(
        category, m.culprits, tuple(f"rank {r}" for r in m.culprits), tuple(evidence),
        ctx.at(m.first_timeout),
        ("The ranks called different collectives (or different sizes) at the same point: make "
         "every rank issue the same collectives in the same order with the same shapes; "
         "TORCH_DISTRIBUTED_DEBUG=DETAIL checks this at run time.",),
    )


def straggler(ctx: Context) -> Finding | None:
    for stuck in ctx.picture.stuck:
        if not stuck.stragglers or not stuck.waiting:
            continue
        evidence = []
        for rank in stuck.stragglers:
            status = stuck.straggler_status[rank]
            where = ctx.at(status)
            evidence.append(
                f"rank {rank} never entered collective #{stuck.seq} "
                f"({stuck.op_type or 'op unknown'}, PG {stuck.pg}): last enqueued "
                f"{status.fields.get('last_enqueued')}, last completed "
                f"{status.fields.get('last_completed')}" + (f" ({where.where})" if where else "")
            )
        evidence.append(f"{len(stuck.waiting)} rank(s) wait inside it: "
                        f"{compress_ranks(stuck.waiting)}")
        category, doing = _straggler_activity(ctx, stuck.stragglers)
        if doing:
            evidence.append(doing)
        return Finding(
            category, stuck.stragglers, tuple(f"rank {r}" for r in stuck.stragglers),
            tuple(evidence), ctx.at(stuck.straggler_status[stuck.stragglers[0]]),
            ("Find what the straggler was doing instead of joining the collective (its last "
             "lines, a py-spy dump); `rankwatch run` names it live, before the watchdog fires.",),
        )
    return None


def _straggler_activity(ctx: Context, ranks: Sequence[int]) -> tuple[Category, str]:
    """Refine collective_desync with what the straggler's own lines show it doing."""
    wanted = set(ranks)
    for item in ctx.located:
        if item.rank not in wanted or item.kind is not EventKind.PYTHON_TRACEBACK:
            continue
        if item.event.fields.get("in_data_code"):
            return Category.DATA, f"rank {item.rank} was in data-loading code ({item.where})"
        if item.event.fields.get("in_checkpoint_code"):
            return Category.STORAGE_IO, f"rank {item.rank} was saving a checkpoint ({item.where})"
    for scan in ctx.scans:
        if not scan.ranks or not scan.ranks <= wanted:
            continue
        for tail in reversed(scan.tail):
            phase = _phase(tail)
            if phase == "data":
                return Category.DATA, (f"its last output is data preparation: "
                                       f"{tail.text.strip()[:100]!r} ({scan.path}:{tail.line})")
            if phase == "checkpoint":
                return Category.STORAGE_IO, (f"its last output is a checkpoint save: "
                                             f"{tail.text.strip()[:100]!r} "
                                             f"({scan.path}:{tail.line})")
            if tail.progress is not None or "DataLoader" in tail.text:
                break
    return Category.COLLECTIVE_DESYNC, ""


def _phase(tail: TailLine) -> str:
    text = tail.text
    if any(word in text for word in CHECKPOINT_PHASE_WORDS):
        return "checkpoint"
    desc = str((tail.progress or {}).get("desc", ""))
    if any(word in desc for word in DATA_PHASE_WORDS) or "DataLoader" in text:
        return "data"
    return ""


def data_phase(ctx: Context) -> Finding | None:
    """A process that did not time out was still preparing data for about the timeout."""
    timeouts = ctx.of(EventKind.WATCHDOG_TIMEOUT)
    if not timeouts:
        return None
    timed_out = ctx.timed_out_ranks
    longest = max((t.event.int_field("timeout_ms") or 0) for t in timeouts) / 1000.0
    for item in ctx.of(EventKind.PROGRESS):
        desc = str(item.event.fields.get("desc", ""))
        if not any(word in desc for word in DATA_PHASE_WORDS):
            continue
        labelled = item.rank is not None and item.rank_origin != "pg"
        if labelled and item.rank in timed_out:
            continue
        elapsed = elapsed_seconds(str(item.event.fields.get("elapsed", "")))
        if longest and elapsed is not None and elapsed < 0.5 * longest:
            continue
        ranks = ctx.global_ranks([item]) if labelled else ()
        culprits = ((f"rank {ranks[0]}",) if ranks else
                    (f"the process printing {desc!r} (its rank is not shown in the log)",))
        first = timeouts[0].event.fields
        evidence = [
            f"{who(item) if labelled else 'an unlabelled process'} was still in {desc!r} "
            f"({item.event.fields.get('step')}/{item.event.fields.get('total')}, "
            f"{item.event.fields.get('elapsed')} elapsed) when the collective timed out after "
            f"{longest:.0f} s ({item.where})",
            f"the timed-out collective (#{first.get('seq')} {first.get('op')} "
            f"NumelIn={first.get('numel_in')}) waited for it ({timeouts[0].where})",
        ]
        in_data = [t for t in ctx.of(EventKind.PYTHON_TRACEBACK)
                   if t.event.fields.get("in_data_code")]
        if in_data:
            evidence.append(f"a traceback in data-loading code follows ({in_data[0].where})")
        return Finding(
            Category.DATA, ranks, culprits, tuple(evidence), item,
            ("Do the data preparation before init_process_group, on every rank, or cache it; "
             "or raise the process-group timeout above the preparation time.",),
        )
    return None


def elapsed_seconds(text: str) -> float | None:
    """tqdm's `29:56` or `2:22:47` → seconds."""
    parts = text.split(":")
    if not text or not all(p.isdigit() for p in parts):
        return None
    total = 0.0
    for part in parts:
        total = total * 60 + int(part)
    return total


_SCHEDULER_NOISE = frozenset({EventKind.RETRY, EventKind.CONNECTION_ERROR, EventKind.NCCL_WARN})


def _failed_before(ctx: Context, item: Located) -> bool:
    """Did the job fail before `item`: an error earlier in its file, or a task that exited by
    itself (srun's `Exited with exit code`, `Killed`) anywhere?"""
    return any(e.event.level >= Level.ERROR and e.kind not in _SCHEDULER_NOISE
               and e.kind is not EventKind.SLURM_CANCEL
               and ((e.kind is EventKind.SLURM_TASK_EXIT and not _stopped_by_srun(e))
                    or (e.file_index == item.file_index and e.event.line < item.event.line))
               for e in ctx.located)


def _stopped_by_srun(item: Located) -> bool:
    """`tasks 0-3: Terminated`: srun stopping the step's other tasks, not a task's failure."""
    return (item.event.fields.get("signal") == "SIGTERM"
            or str(item.event.fields.get("status_text", "")).startswith("Terminated"))


def scheduler(ctx: Context) -> Finding | None:
    cancels = [e for e in ctx.of(EventKind.SLURM_CANCEL)
               if e.event.fields.get("reason") in ("time_limit", "preemption", "node_failure")]
    # A plain cancel (scancel, or Slurm <= 23.02 for a failed task) or a requeue is a stop
    # from outside only when nothing in the job failed before it.
    cancels += [e for e in ctx.of(EventKind.SLURM_CANCEL)
                if e.event.fields.get("reason") in ("cancelled", "job_requeue")
                and not _failed_before(ctx, e)]
    nodes = [e for e in ctx.of(EventKind.SLURM_TASK_EXIT)
             if str(e.event.fields.get("status_text", "")).startswith(
                 ("Node failure", "Task launch for"))]
    # torchrun stops its workers with SIGTERM when one fails; any other signal it sends them is
    # the one it was sent (a closed terminal's SIGHUP, Ctrl-C's SIGINT)
    forwarded = [e for e in ctx.of(EventKind.AGENT_SIGTERM)
                 if e.event.fields.get("signal") in ("SIGHUP", "SIGINT", "SIGQUIT")
                 and not _failed_before(ctx, e)]
    items = [*cancels, *nodes, *forwarded,
             *ctx.of(EventKind.AGENT_DEATH_SIGNAL, EventKind.POD_EVICTED)]
    if not items:
        return None
    first = min(items, key=Located.order)
    earlier = [e for e in ctx.located if e.order() < first.order()
               and e.event.level >= Level.ERROR and e.kind not in _SCHEDULER_NOISE]
    if earlier and first.time is not None:
        return None  # the job was already failing when the scheduler stepped in
    fields = first.event.fields
    if first.kind is EventKind.SLURM_CANCEL:
        text = (f"SLURM cancelled {str(fields.get('what', '')).lower()} {fields.get('job')} due "
                f"to {str(fields.get('reason')).replace('_', ' ')} ({first.where})")
    elif first.kind is EventKind.AGENT_DEATH_SIGNAL:
        text = (f"the launcher received {fields.get('signal')} from outside the job (scheduler "
                f"cancel, preemption or a user) ({first.where})")
    elif first.kind is EventKind.AGENT_SIGTERM:
        text = (f"the launcher passed {fields.get('signal')} on to its workers ({first.where}): "
                "it was sent from outside the job (a closed terminal, Ctrl-C, the scheduler)")
    elif first.kind is EventKind.POD_EVICTED:
        pod, node = fields.get("pod"), fields.get("node")
        what = {"Preempted": "preempted", "PreemptionByScheduler": "preempted",
                "NodeNotReady": "lost the node of", "TaintManagerEviction": "evicted"}.get(
            str(fields.get("what")), "evicted")
        subject = f"pod {pod}" if pod else (f"the job's pod on node {node}" if node else "a pod")
        text = f"Kubernetes {what} {subject} of the job ({first.where})"
        return Finding(
            Category.INFRASTRUCTURE, (),
            tuple([f"pod {pod}"] if pod else []) + tuple([f"node {node}"] if node else []),
            (text,), first,
            ("An eviction is the node's or the cluster's decision (node pressure, a drain, "
             "preemption): `kubectl describe pod` and the node's conditions say which.",),
        )
    else:
        text = f"srun: {fields.get('status_text')} ({first.where})"
    named = tuple(dict.fromkeys(str(e.event.fields["node"]) for e in nodes
                                if e.event.fields.get("node"))) if first in nodes else ()
    culprit: tuple[str, ...]
    if len(named) > 1:  # srun could not start the step on several nodes: every one of them
        culprit = ("nodes " + _some(named),)
        text += f"; {len(named)} nodes in all"
    else:
        culprit = (f"node {fields['node']}",) if fields.get("node") else ()
    return Finding(
        Category.INFRASTRUCTURE, (), culprit, (text,), first,
        ("Time limit: raise --time or checkpoint more often; preemption or node failure: "
         "resubmit and have the node checked.",),
    )


def _connect_failed(ctx: Context, item: Located) -> bool:
    """proxy.cc's `[Proxy Service N] Failed to execute operation Connect …, retcode R`: the
    transport's connection could not be made by a system call of this host's (R 2) or inside
    NCCL (R 3). Retcode 6 is a remote error, and a peer that closed its end in the same log
    may be why the connect failed: either way the peer went away, which says nothing of this
    host's network; so is the proxy's service thread failing to hear from a rank of its own
    node (`Could not receive type from localRank 7`): that process went away. Retcode 1, or
    a `Cuda failure` beside it, is the P2P transport's CUDA call (peer access, IPC in a
    container): the GPU's, not the network's."""
    f = item.event.fields
    if f.get("op") != "Connect" or str(f.get("retcode")) not in ("2", "3"):
        return False  # the common case, before the file's other warnings are looked at
    same_file = [w for w in ctx.of(EventKind.NCCL_WARN_NET, EventKind.NCCL_WARN)
                 if w.file_index == item.file_index]
    return not any(w.event.fields.get("consequence") or "Cuda failure" in w.event.text
                   or "Could not receive type from localRank" in w.event.text
                   for w in same_file)


def network(ctx: Context) -> Finding | None:
    warns = [e for e in ctx.of(EventKind.NCCL_WARN_NET)
             if not e.event.fields.get("consequence") and (
                 e.event.fields.get("peer")
                 or any(w in str(e.event.fields.get("error", "")) for w in _UNREACHABLE)
                 # the host's own socket or verbs call failed: its network setup
                 or str(e.event.fields.get("op", "")).startswith(("Socket", "ibv_"))
                 or _connect_failed(ctx, e))]
    errors = [e for e in ctx.of(EventKind.NCCL_ERROR)
              if (e.event.fields.get("peer") or _connect_failed(ctx, e))
              and not e.event.fields.get("consequence")]
    connects = [e for e in ctx.of(EventKind.STORE_TIMEOUT)
                if e.event.fields.get("phase") == "connect"]
    rendezvous = [e for e in ctx.of(EventKind.RENDEZVOUS_ERROR)
                  if "Connection" in str(e.event.fields.get("exc", ""))
                  and not _rendezvous_went(ctx, e)]
    store_raised = [e for e in ctx.of(EventKind.PYTHON_TRACEBACK)
                    if _store_unreachable(ctx, e) or _peer_unreachable(e)]
    # The HCA or port itself failed: the completions flushed after it are its consequences.
    async_events = [e for e in ctx.of(EventKind.NCCL_WARN)
                    if _IB_ASYNC.search(str(e.event.fields.get("message", "")))]
    if async_events:
        return _ib_async_event(async_events[0])
    setup = [e for e in ctx.of(EventKind.NCCL_WARN, EventKind.NCCL_ERROR, EventKind.PYTHON_TRACEBACK)
             if _NET_SETUP.search(f"{e.event.fields.get('message', '')} "
                                  f"{e.event.fields.get('last_error', '')}")]
    items = [*warns, *errors, *connects, *rendezvous, *store_raised]
    setup = [e for e in setup if not _setup_fell_back(ctx, e)]
    if not items and setup:
        return _net_setup(_best_located(setup))
    if not items:
        return None
    first = min(items, key=Located.order)
    fields = first.event.fields
    evidence: list[str] = []
    if first.kind in (EventKind.NCCL_WARN_NET, EventKind.NCCL_ERROR):
        host = fields.get("host")
        if host:
            local = f"{host} GPU {fields.get('cuda_dev')} (pid {fields.get('pid')})"
            if first.event.host and first.event.host != host:  # a launcher's tag: its address
                local += f" on {first.event.host}"
        elif first.rank is not None:
            local = who(first)
        elif (task := _ray_task(ctx, first)) is not None:
            local = _ray_task_name(task)
        elif whereabouts(first):
            local = f"the process at {whereabouts(first)}"
        else:
            local = f"the process writing {first.file.rsplit('/', 1)[-1]}"
        detail = fields.get("error") or (
            f"its NCCL proxy failed to connect the transport (retcode {fields.get('retcode')})"
            if _connect_failed(ctx, first) else None) or (
            f"completion error {fields.get('status')}, vendor err {fields.get('vendor_err')}"
            if fields.get("status") is not None else "network error")
        port = fields.get("peer_port")
        peer = fields.get("peer") or "a peer the line does not name"
        if str(peer).startswith("["):  # `[PRIVATE_IP]`: the paste masked the address
            peer = "a peer whose address the log masks"
        peer_text = f"{peer}<{port}>" if port is not None else str(peer)
        culprit = f"{local} <-> {peer_text}"
        evidence.append(f"{local}: {detail} talking to {peer_text} ({first.where})")
    elif first.kind is EventKind.PYTHON_TRACEBACK and not _store_unreachable(ctx, first):
        named = _RAISED_PEER.search(str(fields.get("exc_message", "")))
        culprit = f"the peer endpoint {named.group(1)}:{named.group(2)}" if named else (
            "a peer the error does not name")
        evidence.append(f"{who(first)} could not connect to {culprit}: "
                        f"{fields.get('exc_type')}: {fields.get('exc_message')} ({first.where})")
    elif first.kind is EventKind.PYTHON_TRACEBACK:
        given = _launch_endpoint(ctx)
        culprit = f"the rendezvous store endpoint {given or '(MASTER_ADDR:MASTER_PORT)'}"
        evidence.append(f"{who(first)} could not connect to the rendezvous store: "
                        f"{fields.get('exc_type')}: {fields.get('exc_message')} ({first.where})")
    elif fields.get("own_address"):
        culprit = f"the host name {fields.get('host')} (gloo could not resolve its own address)"
        evidence.append(f"{who(first)}: gloo could not resolve the host name "
                        f"{fields.get('host')} it was to listen on ({first.where}); set "
                        "GLOO_SOCKET_IFNAME to an interface, or fix the name's DNS entry")
    elif fields.get("unresolved") and fields.get("host") and fields.get("port") is None:
        # every name that did not resolve (a launcher tries each host of its list)
        names = tuple(dict.fromkeys(
            str(i.event.fields["host"]) for i in sorted(items, key=Located.order)
            if i.event.fields.get("unresolved") and i.event.fields.get("host")
            and i.event.fields.get("port") is None))
        culprit = (f"the host name{'s' if len(names) > 1 else ''} {_some(names)} "
                   f"({'they do' if len(names) > 1 else 'it does'} not resolve)")
        evidence.append(f"{who(first)} could not resolve the host name {fields.get('host')}: "
                        f"{fields.get('error')} ({first.where})")
    else:
        endpoint = _endpoint(ctx, fields)
        culprit = f"the rendezvous endpoint {endpoint}"
        evidence.append(f"{who(first)} could not reach the rendezvous/store endpoint "
                        f"{endpoint} ({first.where})")
        evidence.extend(f"{item.event.fields.get('exc')} ({item.where})" for item in rendezvous[:1])
    # The rank that reports a link's failure is one end of it, not shown to be the faulty one:
    # the link (host, device, peer) is named instead.
    nccl_line = first.kind in (EventKind.NCCL_WARN_NET, EventKind.NCCL_ERROR)
    return Finding(
        Category.NETWORK, () if nccl_line else ctx.global_ranks([first]),
        (culprit,), tuple(evidence), first,
        ("Check the link between these hosts (`ibstat`, `ibv_devinfo`, switch counters) and "
         "that NCCL uses the right interfaces (NCCL_SOCKET_IFNAME, NCCL_IB_HCA); for the "
         "rendezvous, a reachable MASTER_ADDR and port.",),
    )


# The host's network could not be set up for NCCL: bootstrap.cc's `Bootstrap : no socket
# interface found`, the socket transport's `NET/Socket : no interface found`, the AWS OFI
# plugin's `NET/OFI Couldn't open AV` and other `NET/OFI … failed` lines.
_NET_SETUP = re.compile(r"no socket interface found|NET/Socket : no interface found|"
                        r"NET/OFI (?:Couldn't|Unable to|Failed to)")


# NCCL's INFO line naming the network it went on with, after `host:pid:tid [dev]`
_USING_NETWORK = re.compile(r"\b([\w.-]+):(\d+):(\d+) \[\d+\] (?:\S+ )?NCCL INFO "
                            r"(?:Using network \w|NET/(?:Socket|IB) : Using \[)")
# Who wrote a line: NCCL's `host:pid:tid [dev]`, libfabric's `libfabric:pid:…` (no host, no tid)
_NCCL_OR_FABRIC_WRITER = re.compile(r"\b([\w.-]+):(\d+):(\d+) \[\d+\] (?:\S+ )?NCCL |"
                                    r"\blibfabric:(\d+):")
# A network plugin's set-up complaint, what NCCL falls back from (never a failure in the job's
# traffic): the plugin's own words, and the set-up failures `network` reads
_PLUGIN_SETUP = re.compile(r"initiali[sz]ation failed|Failing initiali[sz]ation|No device found|"
                           r"Unable to create|Couldn't open|Unable to find|" + _NET_SETUP.pattern)
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


def _setup_fell_back(ctx: Context, item: Located) -> bool:
    """A set-up failure the rules parsed (`NET/OFI aws-ofi-nccl initialization failed`) after
    which its NCCL thread went on with another network (`NCCL INFO Using network Socket`)."""
    writer = _writer(item.event.text)
    if writer is None:
        pid, host = item.event.fields.get("pid"), item.event.fields.get("host")
        if pid is None:
            return False
        writer = (str(host) if host else None, str(pid), None)
    return _chose_another_network(ctx.scans[item.file_index], writer, item.event.line)


def _plugin_fallback_line(scan: FileScan, tail: TailLine, reading: Reading) -> bool:
    """A failing line no pattern knew that is a network plugin's set-up complaint (NCCL's or
    libfabric's) right before its NCCL thread went on with another network."""
    writer = _writer(tail.text)
    return (reading.family in (Family.NETWORK, Family.FAILED) and writer is not None
            and _PLUGIN_SETUP.search(tail.text) is not None
            and _chose_another_network(scan, writer, tail.line))


def still_failing(scan: FileScan) -> bool:
    """Whether a failing line of the file's tail that no pattern knew is more than a network
    plugin's complaint NCCL then fell back from."""
    return any((reading := read_line(t.text)) is not None
               and not _plugin_fallback_line(scan, t, reading) for t in scan.loose)


def _net_setup(item: Located) -> Finding:
    where = whereabouts(item)
    text = str(item.event.fields.get("last_error") or item.event.fields.get("message") or "")
    return Finding(
        Category.NETWORK, (), (f"the network setup of {where}" if where else
                               "the network setup of the host that wrote it",),
        (f"{who(item)}: NCCL could not set up the host's network: {text.strip()[:120]} "
         f"({item.where})",), item,
        ("Check the interfaces NCCL may use on that host (NCCL_SOCKET_IFNAME, NCCL_IB_HCA, the "
         "network plugin's provider and its libfabric/EFA setup) and run with "
         "NCCL_DEBUG=INFO to see which one it tried.",),
    )


# net_ib.cc: `NET/IB : mlx5_3:1 Got async event : port error` (<= 2.21: without the device),
# `NET/IB : mlx5_3:1 async fatal event: local catastrophic error` (2.23+)
_IB_ASYNC = re.compile(r"NET/IB : (?:(\S+) )?(?:Got async event|async fatal event) ?: ?(.+)")


def _ib_async_event(item: Located) -> Finding:
    m = _IB_ASYNC.search(str(item.event.fields.get("message", "")))
    assert m is not None
    f = item.event.fields
    device = f" HCA {m[1]}" if m[1] else " its IB device"
    where = f"{f.get('host')}{device}" if f.get("host") else f"{who(item)}{device}"
    return Finding(
        Category.NETWORK, (), (where,),
        (f"{where}: InfiniBand async event '{m[2].strip()}' ({item.where}); the errors that "
         "follow on this link are its consequence",), item,
        ("Check that HCA and its port (`ibstat`, `ibv_devinfo`, the switch port's counters, "
         "the cable); drain the node if the port keeps failing.",),
    )


def _keep_alive(item: Located) -> bool:
    """An elastic agent that lost the rendezvous mid-run (its keep-alive heartbeats fail)."""
    return "keep-alive heartbeat" in item.event.text


_PEER_WENT = ("Broken pipe", "Connection reset by peer")


def _store_went(ctx: Context, item: Located) -> bool:
    """A rendezvous error whose own traceback says the store's connection broke (`Broken
    pipe`, `Connection reset by peer`), none that it could not be reached: the store was
    reached and went away, which says nothing of the network."""
    said = [str(e.event.fields.get("exc_message", "")) for e in ctx.of(EventKind.PYTHON_TRACEBACK)
            if e.file_index == item.file_index]
    return any(w in m for m in said for w in _PEER_WENT) and not any(
        w in m for m in said for w in _UNREACHABLE)


def _rendezvous_went(ctx: Context, item: Located) -> bool:
    return _keep_alive(item) or _store_went(ctx, item)


def rendezvous_lost(ctx: Context) -> Finding | None:
    """The rendezvous store went away after the job started: the host that kept it (the
    first node's agent) is gone or cut off, and its own logs hold why; the agents that
    report it only see the loss."""
    lost = [e for e in ctx.of(EventKind.RENDEZVOUS_ERROR) if _rendezvous_went(ctx, e)]
    # the store's connection broke while a rank fetched NCCL's id (not torch's heartbeat
    # `got 0 bytes`, printed by every survivor after any rank died)
    lost += [e for e in ctx.of(EventKind.STORE_CONNECTION_LOST)
             if e.event.fields.get("phase") == "nccl_id"]
    if not lost:
        return None
    lost.sort(key=Located.order)
    first = lost[0]
    how = ("its keep-alive heartbeats fail with" if _keep_alive(first) else
           "its connection to the store broke:")
    said = first.event.fields.get("exc") or first.event.fields.get("error")
    return Finding(
        Category.UNDETERMINED, (), (),
        (f"{who(first)} lost the rendezvous: {how} "
         f"{said} ({first.where}, {len(lost)} time(s)); the node "
         "that kept the store stopped answering, and these logs do not say why",), first,
        ("Read the logs of the node that hosts the rendezvous store (the rdzv endpoint, "
         "usually the first node) and its kernel log around that time.",),
    )


def _host_port(fields: Mapping[str, FieldValue]) -> str | None:
    host, port = fields.get("host"), fields.get("port")
    if host is None:
        return None
    return f"{host}:{port}" if port is not None else str(host)


def _launch_endpoint(ctx: Context) -> str | None:
    """The endpoint the launcher was given (`--rdzv_endpoint`, `MASTER_ADDR=`), if shown."""
    given = [_host_port(e.event.fields) for e in ctx.of(EventKind.LAUNCH_ENDPOINT)]
    first = next((g for g in given if g is not None), None)
    return None if first is None else f"{first} (as the launcher was given)"


def _endpoint(ctx: Context, fields: Mapping[str, FieldValue]) -> str:
    """host:port of the endpoint an error names, else the one the launcher was given."""
    return _host_port(fields) or _launch_endpoint(ctx) or "(not named in the logs)"


_UNREACHABLE = ("Connection timed out", "Connection refused", "No route to host",
                "Network is unreachable",
                # libfabric's provider could not deliver to the far endpoint
                "(UNDELIVERABLE)")
# gloo's pair and c10d's socket name the address they could not connect to:
# `connect [10.0.0.2]:13195: Connection refused`
_RAISED_PEER = re.compile(r"connect(?:ing)?(?: to)? \[?([\w.:\-]+?)\]?:(\d+)\W")


def _peer_unreachable(item: Located) -> bool:
    """An exception of the job's transport (gloo, c10d sockets) that says it could not
    connect to a peer: the link or the peer is down, not the job's code."""
    message = str(item.event.fields.get("exc_message", ""))
    if "connectFullMesh failed" in message:  # gloo, at start-up; its pair may name no peer
        return any(w in message for w in (*_UNREACHABLE, "Connect timeout"))
    return (any(w in message for w in _UNREACHABLE) and _RAISED_PEER.search(message) is not None
            and any(w in message for w in ("gloo", "c10d", "socket", "pair.cc")))


def _store_unreachable(ctx: Context, item: Located) -> bool:
    """An exception raised while connecting to the rendezvous store (TCPStore in the
    rendezvous handler): the endpoint could not be reached. A paste that starts below the
    traceback's header has no frames parsed: the lines just above the exception say it."""
    frames = item.event.fields.get("frames")
    message = str(item.event.fields.get("exc_message", ""))
    if not any(w in message for w in _UNREACHABLE):
        return False
    shown = [str(f) for f in frames] if isinstance(frames, tuple) else []
    if not shown and item.event.fields.get("headless"):
        shown = [t.text for t in ctx.scans[item.file_index].tail
                 if item.event.line - 6 <= t.line < item.event.line]
    return any("rendezvous" in f or "TCPStore" in f for f in shown)


_BARRIER_REPORT_LINES = 20  # the exit barrier's traceback under its `Error waiting on exit barrier`


def init_timeout(ctx: Context) -> Finding | None:
    waits = [e for e in ctx.of(EventKind.STORE_TIMEOUT) if e.event.fields.get("phase") == "wait"]
    waits += [e for e in ctx.of(EventKind.PYTHON_TRACEBACK)
              if str(e.event.fields.get("exc_type", "")).endswith(
                  ("RendezvousTimeoutError", "WorkerGroupStartupTimeoutError"))]
    # the elastic agent's error file (`"message": "RendezvousTimeoutError: "`)
    waits += [e for e in ctx.of(EventKind.RENDEZVOUS_ERROR)
              if e.event.fields.get("exc") == "RendezvousTimeoutError"]
    # torchrun's agent waiting for the other nodes' agents at the end (its exit barrier) is
    # no startup wait: the exit_barrier rule reads it
    waits = [w for w in waits if not any(
        b.file_index == w.file_index and 0 <= w.event.line - b.event.line <= _BARRIER_REPORT_LINES
        for b in ctx.of(EventKind.EXIT_BARRIER))]
    waits.sort(key=Located.order)
    if not waits:
        # Still waiting in the store barrier when the log ends: the job never stepped after
        # it (steps before it belong to an earlier process group or run).
        steps = ctx.of(EventKind.PROGRESS)
        waits = [e for e in ctx.of(EventKind.STORE_TIMEOUT)
                 if e.event.fields.get("phase") == "barrier_wait"
                 and not any(s.file_index == e.file_index and s.event.line > e.event.line
                             for s in steps)]
    if not waits:
        return None
    first = waits[0]
    fields = first.event.fields
    detail = ""
    if fields.get("joined") is not None:
        detail = f": {fields.get('joined')} of {fields.get('expected')} joined"
    elif fields.get("keys"):
        detail = f": keys {fields.get('keys')}"
    absent = _absent_from_barrier(ctx)
    evidence = [f"{who(first)}: store/rendezvous wait timed out{detail} ({first.where}); a rank "
                "never arrived"]
    root = None if absent else _unique_id_root(ctx, waits)
    if root is not None:
        absent = (root,)
        evidence.append(f"rank {root} never published the NCCL unique id the others wait for: "
                        "it never reached the communicator's creation")
    if absent:
        evidence.append(f"every rank of the world but {_ranks_text(absent)} reports waiting in "
                        "the store barrier: the absent one never reached init_process_group")
    return Finding(
        Category.INIT_TIMEOUT, absent, tuple(f"rank {r}" for r in absent),
        tuple(evidence), first,
        ("Check that every rank started (scheduler, container pull, a crash before "
         "init_process_group) and that they all use the same MASTER_ADDR and port.",),
    )


# ProcessGroupNCCL: `[45] is setting up NCCL communicator and retrieving ncclUniqueId from
# [0] via c10d key-value store by key '0', but store->get('0') got error: …`
_UNIQUE_ID_WAIT = re.compile(r"\[(\d+)\] is setting up NCCL communicator and retr(?:ie|ei)ving "
                             r"ncclUniqueId from \[(\d+)\]")  # torch <= 1.11 misspelt it


def _unique_id_root(ctx: Context, waits: Sequence[Located]) -> int | None:
    """The rank whose NCCL unique id every waiting rank asks the store for. Its number is a
    rank of the group being created: the global one only for the default group (named in the
    keys, or the waiting rank's number in the group is its global rank)."""
    roots: set[int] = set()
    for item in waits:
        m = _UNIQUE_ID_WAIT.search(item.event.text)
        if m is None:
            continue
        default = "default_pg" in item.event.text or (  # the keys the store waited for
            item.rank is not None and item.rank_origin != "local" and item.rank == int(m[1]))
        if not default:
            return None
        roots.add(int(m[2]))
    return roots.pop() if len(roots) == 1 else None


def _absent_from_barrier(ctx: Context) -> tuple[int, ...]:
    """The ranks that never joined the store barrier, when the others each said they wait
    (`... for rank: N ... world_size=W, worker_count=J`), most of the world spoke, and the
    count of those missing (W - J) is exactly how many of 0..W-1 never spoke."""
    waits = [e.event for e in ctx.of(EventKind.STORE_TIMEOUT)
             if e.event.fields.get("phase") in ("barrier_wait", "wait")]
    worlds = {e.int_field("expected") for e in waits} - {None}
    joined = {e.int_field("joined") for e in waits} - {None}
    if len(worlds) != 1 or len(joined) != 1:
        return ()
    world, count = worlds.pop(), joined.pop()
    assert world is not None and count is not None
    waiting = {e.int_field("rank_in_message") for e in waits} - {None}
    absent = tuple(r for r in range(world) if r not in waiting)
    # Most of the world must have spoken: one rank's own log shows only that rank waiting.
    if not absent or len(absent) != world - count or len(absent) >= len(waiting):
        return ()
    return absent


def _ranks_text(ranks: Sequence[int]) -> str:
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(map(str, ranks))


# urllib3's cause when no connection was made at all (refused, no route, a name that does
# not resolve), and the pool's endpoint: `HTTPConnectionPool(host='0.0.0.0', port=8000)`
_NEVER_CONNECTED = re.compile(r"NewConnectionError|Failed to establish a new connection|"
                              r"Connection refused|No route to host|Name or service not known|"
                              r"Temporary failure in name resolution")
_HTTP_POOL = re.compile(r"HTTPS?ConnectionPool\(host='([^']+)', port=(\d+)\)")


def retries_exhausted(ctx: Context) -> Finding | None:
    """Retries that ran out (attempt N of N, "Max retries exceeded"): recovering noise always
    shows attempt 1 of N; exhaustion is a failure of what was being retried."""
    exhausted = [e for e in ctx.of(EventKind.RETRY) if e.event.fields.get("exhausted")
                 # the job went on past it: a side service's retries (a model hub, a metrics
                 # uploader) that ran out, no failure of the job
                 and not any(p.file_index == e.file_index and p.event.line > e.event.line
                             and (e.rank is None or p.rank is None or p.rank == e.rank)
                             for p in ctx.of(EventKind.PROGRESS))]
    if not exhausted:
        return None
    first = exhausted[0]
    context = first.event.fields.get("context")
    category = {"storage": Category.STORAGE_IO, "network": Category.NETWORK}.get(
        str(context), Category.UNDETERMINED)
    culprits: tuple[str, ...] = ()
    if _NEVER_CONNECTED.search(first.event.text):
        # whatever it talked to (a store, a server), the endpoint could not be reached
        category = Category.NETWORK
        pool = _HTTP_POOL.search(first.event.text)
        culprits = (f"the endpoint {pool[1]}:{pool[2]}",) if pool else ()
    # the rank that could not reach an endpoint is one end of the link, not its fault
    ranks = () if category is Category.NETWORK else ctx.global_ranks([first])
    recovering = sum(1 for e in ctx.of(EventKind.RETRY)
                     if not e.event.fields.get("exhausted") and e.event.int_field("attempt") == 1)
    evidence = [f"{who(first)}: retries exhausted ({context}): {first.event.text.strip()[:160]} "
                f"({first.where})"]
    if recovering:
        evidence.append(f"{recovering} earlier retry line(s) recovered at attempt 1 (noise)")
    return Finding(
        category, ranks, ((who(first),) if ranks else ()) + culprits, tuple(evidence), first,
        ("The retried operation failed for good: check the storage or endpoint it talks to "
         "(throttling, credentials, a full or unreachable file system).",),
    )


# A line inside a C++ error's report, not its head: a frame, c10's `Exception raised from`
# (a Python frame first is as often the launcher's own traceback, printed out of order)
_INSIDE_REPORT = re.compile(r"\s*(?:frame #\d+:|Exception raised from )")


def _opens_inside_another_report(ctx: Context, first: Located) -> bool:
    """The file opens inside a report whose head was cut off and whose writer is not shown,
    before `first`: another process's error came first (two watchdogs' identical CUDA stacks,
    the paste starting in the first one's frames)."""
    tail = ctx.scans[first.file_index].tail
    if not tail or tail[0].line != 1:  # the tail must hold the file's start
        return False
    opening = next((t for t in tail if t.text.strip() and not t.text.lstrip().startswith(
        ("```", "~~~"))), None)  # a markdown fence is the paste's, not the log's
    return (opening is not None and opening.line < first.event.line and opening.rank is None
            and _INSIDE_REPORT.match(opening.text) is not None)


def cuda_software(ctx: Context) -> Finding | None:
    errors = [e for e in ctx.of(EventKind.CUDA_ERROR) if e.event.fields.get("hardware") is not True]
    if not errors:
        return _kernel_gpu_exception(ctx)
    first = errors[0]
    ranks = ctx.global_ranks(errors)
    if ranks and _opens_inside_another_report(ctx, first):
        return Finding(
            Category.GPU_CUDA, (), (),
            (f"{who(first)}: CUDA error: {first.event.fields.get('message')} ({first.where}), "
             "after the end of another process's report of an error, its writer cut off: "
             "which rank failed first is not shown",), first,
            ("Read every rank's output from the start of the failure: the first CUDA error's "
             "rank is the one to rerun with CUDA_LAUNCH_BLOCKING=1.",),
        )
    task = None if ranks else _ray_task(ctx, first)
    named = [_named(r, next(e for e in errors if e.rank == r)) for r in ranks] or [
        _ray_task_name(task) if task is not None else _named(None, _best_located(errors))]
    return Finding(
        Category.GPU_CUDA, ranks, tuple(n for n in named if n),
        (f"{who(first)}: CUDA error: {first.event.fields.get('message')} ({first.where})",),
        first,
        ("Rerun with CUDA_LAUNCH_BLOCKING=1 to find the failing kernel; 'device-side assert' "
         "usually means a bad index or label.",),
    )


_DUPLICATE_GPU = re.compile(r"Duplicate GPU detected : rank (\d+) and rank (\d+) both on CUDA "
                            r"device (\w+)")


_RANK_TWICE = re.compile(r"Bootstrap Root : rank (\d+) of (\d+) ranks has already checked in")


def nccl_usage(ctx: Context) -> Finding | None:
    """NCCL refusing a communicator whose ranks share a GPU (`Duplicate GPU detected`, init.cc):
    the job placed two ranks on one device (no set_device(local_rank), a wrong
    CUDA_VISIBLE_DEVICES), a launch bug, not a fault of either rank."""
    for item in ctx.located:
        text = f"{item.event.fields.get('last_error', '')} {item.event.fields.get('message', '')}"
        twice = _RANK_TWICE.search(text)
        if twice is not None:
            # bootstrap.cc: two processes were started as one rank (a launch bug)
            rank = int(twice[1])
            return Finding(
                Category.SOFTWARE, (rank,), (f"rank {rank} (started twice)",),
                (f"NCCL's bootstrap root: rank {rank} of {twice[2]} has already checked in "
                 f"({item.where}): two processes were launched as rank {rank}",), item,
                ("Check the launcher's rank assignment (node rank, SLURM_PROCID, the number of "
                 "tasks per node): each rank must be started once.",),
            )
        m = _DUPLICATE_GPU.search(text)
        if m is None:
            continue
        return Finding(
            Category.SOFTWARE, (), (f"rank {m[1]} and rank {m[2]} on one GPU (CUDA device {m[3]})",),
            (f"NCCL: ranks {m[1]} and {m[2]} are both on CUDA device {m[3]} ({item.where}); "
             "every rank needs its own GPU",), item,
            ("Call torch.cuda.set_device(local_rank) before init_process_group (or give each "
             "rank its own CUDA_VISIBLE_DEVICES).",),
        )
    return None


def _kernel_gpu_exception(ctx: Context) -> Finding | None:
    """The kernel's record of a program's GPU exception (Xid 13 SM exception, 31 MMU fault,
    43 channel stopped): an illegal access by the process it names, on that GPU."""
    xids = [x for x in ctx.of(EventKind.XID) if x.event.fields.get("role") == "software"]
    if not xids:
        return None
    first = xids[0]
    f = first.event.fields
    pid = str(f.get("pid") or "").strip("'")
    process = f" (pid {pid}, {f.get('process')})" if pid.isdigit() else ""
    return Finding(
        Category.GPU_CUDA, (), (f"GPU {f.get('pci')}{process}",),
        (f"the kernel logged Xid {f.get('xid')} on GPU {f.get('pci')}{process}: "
         f"{str(f.get('message'))[:120]} ({first.where}); a program's illegal GPU access",),
        first,
        ("Rerun with CUDA_LAUNCH_BLOCKING=1 (or compute-sanitizer) to find the kernel that "
         "faulted; if the Xid repeats across jobs on this GPU only, have the GPU checked.",),
    )


_COLLATERAL = ("DistBackendError", "ChildFailedError", "SignalException", "KeyboardInterrupt",
               "DistNetworkError", "DistStoreError", "RendezvousConnectionError", "NCCL",
               "ProcessExitedException", "ActorDiedError", "RayActorError",
               # Ray: the worker process died; why is not in the exception
               "WorkerCrashedError", "LocalRayletDiedError", "RaySystemError",
               # vLLM's engine after one of its workers died
               "EngineDeadError",
               # the agent's rendezvous ended or timed out: a node never came (init_timeout)
               "RendezvousClosedError", "RendezvousTimeoutError",
               # Ray Train's waits for its workers: read as timeouts, not the job's bug
               "WorkerGroupStartupTimeoutError", "BroadcastCollectiveTimeoutError",
               # mp.spawn's wrapper: the worker's own traceback follows it
               "ProcessRaisedException")


# An exception whose message starts with the rank that raised it (Megatron's NaN checks).
_SELF_NAMED = re.compile(r"\[?Rank (\d+)\]?: ")


def _collective_timed_out(item: Located) -> bool:
    """An exception a collective call raised because it waited too long (gloo's and old
    NCCL's `work.wait()`: `RuntimeError: Operation timed out!`): the symptom of a peer that did
    not arrive, not this process's bug. A connection that timed out is the network's."""
    message = str(item.event.fields.get("exc_message", ""))
    return (item.event.fields.get("in_collective") is True and "timed out" in message.lower()
            and "onnect" not in message)


# DeepSpeed's launcher checks every host of its hostfile with `ssh HOST hostname` first
_SSH_UNREACHABLE = re.compile(r"host=([\w.\-]+) was not reachable via ssh")
# ssh's own words when it cannot get there: the network's (a login it was refused is not)
_SSH_NETWORK = re.compile(r"ssh: (?:connect to host ([\w.\-]+) port \d+|Could not resolve "
                          r"hostname ([\w.\-]+)): (No route to host|Connection refused|"
                          r"Connection timed out|Network is unreachable|Name or service not "
                          r"known|Temporary failure in name resolution)")


# ssh's last word when every way of logging in was refused: `user@host: Permission denied
# (publickey,password).` (the host reached, the login not)
_SSH_REFUSED = re.compile(r"(?<![\w.\-@])(?!git@)(?:[\w.\-]+@)?([\w.\-]+): Permission denied \((?:publickey|password|"
                          r"gssapi|keyboard-interactive|hostbased)[\w,\-]*\)")


# what a launcher says after ssh failed: pdsh's exit 255, ORTE's or PRRTE's daemons not started
_LAUNCH_FAILED = re.compile(r"ssh exited with exit code 255|unable to (?:reliably )?start one or more "
                            r"daemons")
_GIT_FATAL = re.compile(r"fatal: Could not read from remote repository")


def ssh_unreachable(ctx: Context) -> Finding | None:
    """A launcher that could not ssh into a host of its hostfile. ssh's exit status 255 is
    any failure of ssh itself (a refused key as much as a lost route): the network only when
    ssh's own line says so; the host is named either way."""
    checks = [e for e in ctx.of(EventKind.PYTHON_TRACEBACK)
              if _SSH_UNREACHABLE.search(str(e.event.fields.get("exc_message", "")))]
    said = [(t.line, scan.path, m) for scan in ctx.scans for t in scan.loose
            if (m := _SSH_NETWORK.search(t.text)) is not None]
    refused = [(t.line, scan.path, m) for scan in ctx.scans for t in scan.tail
               if (m := _SSH_REFUSED.search(t.text)) is not None
               and any(_LAUNCH_FAILED.search(u.text) for u in scan.tail)
               and not any(_GIT_FATAL.search(u.text) for u in scan.tail
                           if 0 < u.line - t.line <= 2)]
    if not checks and not said and not refused:
        return None
    if refused and not said:
        line, path, m = min(refused, key=lambda s: s[0])
        return Finding(
            Category.INFRASTRUCTURE, (), (f"host {m.group(1)} (ssh login refused)",),
            (f"the launcher's ssh login to {m.group(1)} was refused ({path}:{line}): the tasks "
             "there could not be started",), None,
            (f"Check the launching node's ssh key and {m.group(1)}'s authorized_keys (the "
             "launcher logs in without a password), then rerun.",),
        )
    if said:
        line, path, m = min(said, key=lambda s: s[0])
        host = m.group(1) or m.group(2)
        where = f"{path}:{line}"
        return Finding(
            Category.NETWORK, (), (f"host {host} (ssh: {m.group(3)})",),
            (f"ssh could not reach {host}: {m.group(3)} ({where})",), None,
            ("Check that the host is up and reachable from the launching node (its name, "
             "route and firewall), then rerun.",),
        )
    first = checks[0]
    m = _SSH_UNREACHABLE.search(str(first.event.fields.get("exc_message", "")))
    host = m.group(1) if m else "a host of the hostfile"
    return Finding(
        Category.UNDETERMINED, (), (f"host {host} (not reachable via ssh)",),
        (f"the launcher could not ssh into {host} ({first.where}); ssh's exit status 255 "
         "says ssh itself failed, and its own error (a refused key, no route, a name that "
         "does not resolve) is not shown",), first,
        (f"Run `ssh -v {host} hostname` from the launching node: its last lines say whether "
         "the host, the route or the login is at fault.",),
    )


# torch could not write a tensor's shared-memory file (an mmap that failed is memory, not
# /dev/shm filling)
_TORCH_SHM_FILE = re.compile(r"unable to write to file </torch_\d+_")
# An accelerator runtime's own result in an exception the job's code raised (XLA's
# `RESOURCE_EXHAUSTED: Error allocating device buffer` on a TPU's HBM too)
_ACCELERATOR_OOM = re.compile(r"PT_DEVMEM Allocation failed|\b(?:ZE|UR)_RESULT_ERROR_OUT_OF_\w*MEMORY|"
                              r"RESOURCE_EXHAUSTED: .{0,60}(?:[Aa]llocat|[Oo]ut of memory|"
                              r"[Aa]ttempting to reserve|[Rr]an out of memory)")
_ACCELERATOR_ERROR = re.compile(r"\b(?:ZE|UR)_RESULT_ERROR_\w+")
_OWN_ADVICE = {
    Category.OOM: "The device ran out of memory on the rank that raised it: lower the "
                  "micro-batch or shard the model further.",
    Category.GPU_CUDA: "The accelerator's runtime failed on the rank that raised it: check that "
                       "device (its driver's log, a rerun on another one).",
    Category.INFRASTRUCTURE: "The node's /dev/shm filled: give the container more shared "
                             "memory (--shm-size) or fewer DataLoader workers.",
}


# mp.spawn's report of the worker whose error ended the job, before that worker's traceback
_SPAWN_REPORT = re.compile(r"^-- [Pp]rocess (\d+) terminated with the following error:")


def _spawned_worker(ctx: Context, item: Located) -> str | None:
    """The mp.spawn worker that raised `item`: the spawn report nearest above it, when the
    file's reports name one worker. Its index is a local one (a global rank only on one
    node): named, never taken for a rank."""
    reports = [(t.line, m[1]) for t in ctx.scans[item.file_index].tail
               if (m := _SPAWN_REPORT.match(t.text.strip())) is not None]
    above = [index for line, index in reports if line < item.event.line]
    if not above or len({index for _, index in reports}) != 1:
        return None
    return _called(None, f"process {above[-1]}")


_PARENT_GONE = ("UnpicklingError", "EOFError", "ConnectionResetError", "BrokenPipeError",
                "FileNotFoundError")


def _aftermath(ctx: Context, item: Located) -> bool:
    """An exception that only follows another process's end: Python's report of one it
    ignored in a `__del__` while tearing down (`Exception ignored in: <function ….__del__>`,
    its innermost frame the `__del__`), or a spawned child that could not read its start-up
    data from a parent already gone (under multiprocessing's `spawn_main`, while unpickling,
    not while importing the job's `__main__`)."""
    frames = item.event.fields.get("frames")
    shown = [str(f) for f in frames] if isinstance(frames, tuple) else []
    exc = str(item.event.fields.get("exc_type", "")).rsplit(".", 1)[-1]
    if (any("spawn_main" in f for f in shown) and exc in _PARENT_GONE
            and not any(w in f for f in shown for w in ("prepare", "_fixup_main"))):
        return True
    return bool(shown) and shown[-1].endswith(" __del__") and any(
        t.line == item.event.line - 1 and t.text.lstrip().startswith("Exception ignored in")
        for t in ctx.scans[item.file_index].tail)


def _transport_gave_up(item: Located) -> bool:
    """EAGAIN out of a torch.distributed call (`RuntimeError: Resource temporarily unavailable`
    from `_dist_broadcast_coalesced`): the collective's socket timed out waiting for a peer, the
    peer's story, not the job's bug."""
    frames = item.event.fields.get("frames")
    return ("Resource temporarily unavailable" in str(item.event.fields.get("exc_message", ""))
            and str(item.event.fields.get("exc_type", "")).rsplit(".", 1)[-1] == "RuntimeError"
            and isinstance(frames, tuple) and bool(frames)
            and _TORCH_DIST_FRAME.search(str(frames[-1])) is not None)


_TORCH_DIST_FRAME = re.compile(r"torch/(?:distributed/(?!elastic/)|nn/parallel/distributed\.py)")


def own_exception(ctx: Context) -> Finding | None:
    own = [item for item in ctx.of(EventKind.PYTHON_TRACEBACK)
           if item.event.fields.get("exc_type")
           and not any(w in str(item.event.fields["exc_type"]) for w in _COLLATERAL)
           and not _launcher_called_process(item)
           # horovodrun's and mpirun's report of the first process to exit non-zero
           and "exited with non-zero status" not in str(item.event.fields.get("exc_message", ""))
           # mp.spawn's report of a worker's exit (a bare `Exception` before torch 1.6)
           and _SPAWN_EXIT.search(str(item.event.fields.get("exc_message", ""))) is None
           and not any(w in str(item.event.fields.get("exc_message", ""))
                       for w in (*_PEER_LOST, *_WAITED_FOR_A_PEER, *_NCCL_UNEXPLAINED))
           and "CUDA" not in str(item.event.fields.get("exc_message", ""))
           and not _collective_timed_out(item)
           and not _transport_gave_up(item)
           and not _aftermath(ctx, item)]
    if not own:
        return None
    first = own[0]
    exc = str(first.event.fields.get("exc_type"))
    message = str(first.event.fields.get("exc_message", ""))
    if _TORCH_SHM_FILE.search(message):
        # torch's shared-memory segment (`unable to write to file </torch_4740_…>: No space
        # left on device`): the node's /dev/shm filled, not a disk
        category = Category.INFRASTRUCTURE
    elif CORRUPT_DATA.search(message) and "_tensor_to_object" not in str(
            first.event.fields.get("frames", "")):  # the file it read is corrupt, not the disk
        category = Category.DATA
    elif exc.rsplit(".", 1)[-1] in _IO_EXCEPTIONS or any(
            w in message for w in ("Input/output error", "Stale file handle",
                                   "No space left on device", "Parent directory",
                                   # torch.save's writer: fewer bytes landed than it wrote
                                   "inline_container.cc", "unexpected pos")):
        category = Category.STORAGE_IO
    else:
        # in dataset code or not, the job's own exception is its bug (a stall in data
        # loading is another matter: the data_phase rule), unless it carries an accelerator
        # runtime's own result: Habana's allocator, Intel's Level Zero or Unified Runtime
        said = read_line(f"{exc}: {message}")
        category = (Category.OOM if _ACCELERATOR_OOM.search(message) or (
                        said is not None and said.family is Family.OOM) else
                    Category.GPU_CUDA if _ACCELERATOR_ERROR.search(message) else
                    Category.SOFTWARE)
    ranks = ctx.global_ranks([first])
    self_named = _SELF_NAMED.match(message)
    if not ranks and self_named is not None:  # `AssertionError: Rank 13: found NaN …`
        ranks = (int(self_named[1]),)
    task = None if ranks else _ray_task(ctx, first)
    raiser = _ray_task_name(task) if task is not None else who(first)
    worker = _failed_worker(ctx) if not ranks and task is None else None
    spawned = _spawned_worker(ctx, first) if not ranks and task is None and not worker else None
    culprits: tuple[str, ...] = (_named(ranks[0], first),) if ranks else (
        (raiser,) if task is not None else
        (f"{worker}, the launcher's one failed worker",) if worker else
        (spawned,) if spawned else ())
    if task is not None and _ray_rank(task):
        ranks = _ray_rank(task)
        culprits = (f"rank {ranks[0]}", raiser)
    return Finding(
        category, ranks, culprits,
        (f"{raiser} raised {exc}: {message[:160]} ({first.where})",), first,
        (_OWN_ADVICE.get(category, "Fix the exception on the first failing rank; the errors "
                         "on the other ranks are its consequences."),),
    )


# A collective that failed because its peer went away: the peer's failure is the cause.
_PEER_LOST = ("remote worker", "Connection reset by peer", "Connection closed by peer",
              "Connection closed by remote peer",
              # gRPC (TensorFlow's and JAX's collectives): the peer's end of the call closed
              "Socket closed",
              # Horovod stops every rank after one rank's exception or early exit
              "Horovod has been shut down")
# A collective that timed out waiting for a peer: the symptom of whoever did not arrive.
_WAITED_FOR_A_PEER = ("Timed out waiting", "Watchdog caught collective operation timeout",
                      "failed to pass monitoredBarrier", "communicator was aborted",
                      "timed out in call to wait()", "timed out in blocking wait",
                      "Application timeout caused pair closure", "timed out in monitoredBarrier",
                      "received errors while waiting for send/recv",
                      # JAX's and TensorFlow's coordination service: a task did not arrive
                      "Barrier timed out",
                      # gRPC's status for a call the other end did not answer in time
                      "DEADLINE_EXCEEDED",
                      # Ascend: HCCL's collectives run as device tasks, so a peer that never
                      # came shows as a device wait that timed out (EI0002's Notify wait)
                      "SynchronizeDeviceWithTimeout", "Notify register times out",
                      "internal task times out")


# NCCL's codes for a failed system call, a broken invariant, a lost peer and a failed CUDA
# call: NCCL's own WARN line holds the reason; the exception that carries the code is not the
# job's bug.
_NCCL_UNEXPLAINED = ("unhandled system error", "ncclSystemError", "internal error",
                     "ncclInternalError", "ncclRemoteError",
                     "remote process exited or there was a network error",
                     "unhandled cuda error", "ncclUnhandledCudaError")


_NCCL_SHM = re.compile(r"/dev/shm|shared memory segment|posix_fallocate|shm_open")


def nccl_unexplained(ctx: Context) -> Finding | None:
    """An NCCL system, internal or remote error whose reason no line shows (the rules that
    read a reason, a peer or a CUDA failure come first). An unhandled cuda error is NCCL's
    word that a CUDA call failed under it: the reporting rank's GPU, its reason shown or not."""
    errors = [e for e in ctx.of(EventKind.NCCL_ERROR)
              if e.event.fields.get("nccl_code") in ("system", "internal", "remote",
                                                      "unhandled_cuda")]
    errors += [e for e in ctx.of(EventKind.PYTHON_TRACEBACK)
               if any(w in str(e.event.fields.get("exc_message", "")) for w in _NCCL_UNEXPLAINED)]
    # a C++ program's own report of NCCL's code (`what():  NCCL failure: unhandled cuda error`)
    errors += [e for e in ctx.of(EventKind.CPP_EXCEPTION)
               if "NCCL" in (what := str(e.event.fields.get("what", "")))
               and any(w in what for w in _NCCL_UNEXPLAINED)]
    if not errors:
        return None
    errors.sort(key=Located.order)
    first = errors[0]
    reporters = ctx.global_ranks(errors)
    # A failed CUDA call is the reporting rank's own GPU; a failed socket or peer is not
    cuda = first.event.fields.get("nccl_code") == "unhandled_cuda" or any(
        w in f"{_message(first)} {first.event.fields.get('what', '')}"
        for w in ("unhandled cuda error", "ncclUnhandledCudaError"))
    # NCCL's WARN before it may say which CUDA call failed and why (a CUDA IPC handle that
    # would not open between two devices): that is the GPU's failure, not an unknown
    reasons = [w for w in ctx.of(EventKind.NCCL_WARN) if cuda
               and (r := read_line(w.event.text)) is not None and r.family is Family.GPU]
    if reasons:
        reason = reasons[0]
        culprits = tuple(f"rank {r}" for r in reporters) or tuple(
            filter(None, (_named(None, reason),)))
        return Finding(
            Category.GPU_CUDA, reporters, culprits,
            (f"{who(reason)}: {_message(reason)[:160]} ({reason.where}), then NCCL's "
             f"'unhandled cuda error' ({first.where})",), reason,
            ("Check the GPUs named (nvidia-smi topo -m, peer access, the driver's Xid lines); "
             "a CUDA failure inside NCCL is the node's, not the job's code.",),
        )
    # NCCL's `Last error:` about its shared-memory segment (`Error while creating shared
    # memory segment /dev/shm/nccl-…`, posix_fallocate's ENOSPC): the container's /dev/shm
    # explains the system error; the rank that met it is no culprit
    last = str(first.event.fields.get("last_error") or "")
    if not cuda and _NCCL_SHM.search(last):
        return Finding(
            Category.INFRASTRUCTURE, (), tuple(filter(None, (_named(None, first),))),
            (f"{who(first)}: NCCL's system error ({first.where}) came from its shared-memory "
             f"segment: '{last[:160]}'",), first,
            ("Give the container a larger /dev/shm (--shm-size, a memory-backed emptyDir), "
             "then rerun.",),
        )
    return Finding(
        Category.GPU_CUDA if cuda else Category.UNDETERMINED, reporters if cuda else (),
        tuple(f"rank {r}" for r in reporters) if cuda else (),
        (f"{who(first)}: NCCL error '{first.event.fields.get('message') or first.event.text}' "
         f"({first.where}) with no reason shown"
         + (f"; reported by rank(s) {compress_ranks(reporters)}, which may be the victims"
            if reporters else ""),), first,
        ("Rerun with NCCL_DEBUG=WARN (or INFO): the NCCL WARN line before the error names the "
         "failing system call, peer or link.",),
    )


def _launcher_called_process(item: Located) -> bool:
    """A launcher's own CalledProcessError about a worker (torch.distributed.launch, accelerate,
    a wrapper script): the worker's exit, not the job's bug."""
    message = _message(item)
    return str(item.event.fields.get("exc_type", "")).endswith("CalledProcessError") and (
        _LEGACY_LOCAL.search(message) is not None or "died with <Signals." in message)


def native_crash(ctx: Context) -> Finding | None:
    crashes = ctx.of(EventKind.FAULTHANDLER, EventKind.NATIVE_CRASH)
    if not crashes:
        return None
    first = crashes[0]
    ranks = ctx.global_ranks([first])
    crashed = {c.rank for c in crashes if c.rank is not None}
    if len(crashed) >= 2 and len({str(c.event.fields.get("signal")) for c in crashes}) == 1:
        # the same signal in several ranks at once: a shared cause (shared memory, the node),
        # not the first rank to print it
        return Finding(
            Category.UNDETERMINED, (), (),
            (f"ranks {compress_ranks(sorted(crashed))} all crashed with "
             f"{first.event.fields.get('signal')} (first at {first.where}); a cause they share "
             "(shared memory, the node) is likelier than one rank's fault",), first,
            ("A bus error in several ranks is usually a full /dev/shm (raise --shm-size); check "
             "the node's kernel log for other causes.",),
        )
    where = " inside a collective (all_reduce)" if first.event.fields.get("in_collective") else ""
    pid = first.event.int_field("pid")
    culprits: tuple[str, ...] = (who(first),) if ranks else ()
    if not ranks and pid is not None:
        # mpirun names the rank of the pid whose handler printed the crash
        mpi = [e.event.int_field("mpi_rank") for e in ctx.of(EventKind.MPI_EXIT)
               if e.event.int_field("pid") == pid]
        ranks = tuple(r for r in mpi[:1] if r is not None)
        culprits = (*(f"rank {r}" for r in ranks), f"pid {pid}")
    return Finding(
        Category.UNDETERMINED, ranks, culprits,
        (f"{who(first)} crashed with {first.event.fields.get('signal')}{where} "
         f"({first.where})",), first,
        ("A native crash: get a core dump, or run the failing rank with NCCL_DEBUG=INFO; "
         "check the node's kernel log for GPU or NIC errors.",),
    )


def _failed_alike(item: Located) -> list[int]:
    """The other ranks of a failure table that died as its root cause did: by the same
    signal, in the same second."""
    f = item.event.fields
    others = f.get("other_failures")
    if not isinstance(others, tuple) or not f.get("root_time"):
        return []
    alike = []
    for other in others:
        o = dict(other)
        if (o.get("signal") == f.get("root_signal") and o.get("time") == f.get("root_time")
                and isinstance(o.get("rank"), int)):
            alike.append(int(o["rank"]))
    return alike


def signal_kill(ctx: Context) -> Finding | None:
    aborted_by_watchdog = bool(ctx.of(EventKind.WATCHDOG_TIMEOUT, EventKind.NCCL_TEARDOWN))
    for item in ctx.of(EventKind.CHILD_FAILED_SUMMARY):
        signal = item.event.fields.get("root_signal")
        rank = item.event.fields.get("root_rank")
        if not isinstance(rank, int):
            finding = _killed_on_one_host(item)
            if finding is not None:
                return finding
            continue
        if not signal:
            continue
        if signal == "SIGABRT" and aborted_by_watchdog:
            continue  # the NCCL watchdog aborted it: a consequence of the timeout
        pid = item.event.fields.get("root_pid")
        alike = _failed_alike(item)
        if alike:
            ranks = compress_ranks(sorted({rank, *alike}))
            return Finding(
                Category.UNDETERMINED, (), (),
                (f"ranks {ranks} were all killed by {signal} in the same second "
                 f"({item.event.fields.get('root_time')}, {item.where}): the launcher's 'root "
                 "cause' is only the first it noticed, and one cause outside the ranks (the "
                 "host, its shared memory, a kill of the job) is as likely as a culprit among "
                 "them",), item,
                ("Check the host: `dmesg -T` for the kernel's word on the signal, `df -h "
                 "/dev/shm` for SIGBUS, the scheduler's record for a kill.",),
            )
        return Finding(
            Category.UNDETERMINED, (rank,), (f"rank {rank} (pid {pid})",),
            (f"rank {rank} (local_rank {item.event.fields.get('root_local_rank')}, pid {pid}) "
             f"was the first to fail: killed by {signal} ({item.where}); nothing in the logs "
             "says who sent it",), item,
            ("A SIGKILL is usually the host OOM killer or the scheduler: check `dmesg -T | grep "
             "-i 'killed process'` on that host and `sacct -j JOB -o MaxRSS,State`.",),
        )
    return None


def launcher_task_exit(ctx: Context) -> Finding | None:
    """mpirun and srun name the first process that died or exited by itself. An mpirun rank
    is the job's rank; an srun task is one only when srun started the ranks itself (not a
    per-node launcher), so it is named as a task. Why it died is not in these lines."""
    mpi = ctx.of(EventKind.MPI_EXIT)
    tasks = [e for e in ctx.of(EventKind.SLURM_TASK_EXIT)
             if not _stopped_by_srun(e) and not e.event.fields.get("oom")
             and (e.event.fields.get("exitcode") or e.event.fields.get("signal"))]
    if mpi:
        first = mpi[0]
        f = first.event.fields
        rank = first.event.int_field("mpi_rank")
        signal = f.get("signal_text") or (f"signal {f['signo']}" if f.get("signo") else "")
        how = f"died of {signal}" if signal else "was the first to exit with a non-zero status"
        on = f" on node {f['node']}" if f.get("node") else ""
        process = f.get("process_name") or (f"pid {f['pid']}" if f.get("pid") else "a process")
        name = f"rank {rank}{on}" if rank is not None else str(process)
        return Finding(
            Category.UNDETERMINED, (rank,) if rank is not None else (), (name,),
            (f"the launcher: {name} {how} ({first.where}); its own output, not shown, holds "
             "why",), first,
            ("Read that rank's own output (mpirun --tag-output prefixes it with [1,N]) and the "
             "node's kernel log (OOM killer) at that time.",),
        )
    if tasks:
        first = tasks[0]
        f = first.event.fields
        ids = [i for i in f.get("tasks") or () if isinstance(i, int)]  # type: ignore[union-attr]
        ranks = task_ranks(ctx.topology, ids)
        name = f"task {compress_ranks(ids)} on {f.get('node')}"
        if ranks:
            name = f"rank {compress_ranks(ranks)} (srun {name})"
        return Finding(
            Category.UNDETERMINED, ranks, (name,),
            (f"srun: {name} was the first to stop by itself: {f.get('status_text')} "
             f"({first.where}); the others were terminated after it",), first,
            ("Read that task's own output (srun --label prefixes it) for its error.",),
        )
    return None


def _killed_on_one_host(item: Located) -> Finding | None:
    """A failure table without its root cause (cut in the paste) whose every failure was
    killed by a signal on one host: the host is what the table shows, not a rank."""
    others = item.event.fields.get("other_failures")
    entries = [dict(e) for e in others] if isinstance(others, tuple) else []
    hosts = {e.get("host") for e in entries}
    signals = {e.get("signal") for e in entries}
    if not entries or len(hosts) != 1 or None in hosts or len(signals) != 1 or None in signals:
        return None
    host, signal = hosts.pop(), signals.pop()
    ranks = sorted(int(str(e["rank"])) for e in entries if isinstance(e.get("rank"), int))
    return Finding(
        Category.UNDETERMINED, (), (f"host {host} ({len(entries)} workers killed by {signal})",),
        (f"every failure the launcher lists ({len(entries)}: ranks "
         f"{', '.join(map(str, ranks)) or 'unknown'}) was killed by {signal} on host {host} "
         f"({item.where}); the table's root cause is not in the logs, and nothing says who "
         "sent the signal",), item,
        ("Several workers of one host killed at once is usually the host OOM killer or the "
         f"scheduler: check `dmesg -T | grep -i 'killed process'` on {host}.",),
    )


_FILE_RANK = re.compile(r"rank[_-]?(\d+)(?:\D*)$", re.IGNORECASE)


def _file_named_ranks(ctx: Context) -> dict[int, FileScan]:
    """Files named for one rank (`rank3.log`) whose lines carry no other rank's prefix."""
    out: dict[int, FileScan] = {}
    for index, scan in enumerate(ctx.scans):
        m = _FILE_RANK.search(scan.path.rsplit("/", 1)[-1])
        if m is None or scan.fr_dump is not None:
            continue
        rank = int(m.group(1))
        others = {i.rank for i in ctx.located if i.file_index == index
                  and i.rank is not None and i.rank_origin != "file"} - {rank}
        if not others:
            out[rank] = scan
    return out


def absent_rank(ctx: Context) -> Finding | None:
    """Every rank that reported waits in the same collective and the others of a known world
    said nothing: the silent rank is the suspect (it never entered, or died without a word)."""
    files = _file_named_ranks(ctx)
    world = ctx.world_size
    if world is None and files and set(files) == set(range(len(files))):
        world = len(files)
    if world is None:
        return None
    for stuck in ctx.picture.stuck:
        if stuck.stragglers or not stuck.waiting:
            continue
        reported = {i.rank for i in ctx.located if i.rank is not None
                    and i.kind not in (EventKind.PROGRESS, EventKind.NCCL_INIT)}
        silent = tuple(r for r in range(world) if r not in stuck.waiting and r not in reported)
        if len(silent) != 1:
            continue  # several silent ranks stay suspects (see the report's findings)
        quiet_files = [f"{files[r].path} ({files[r].lines} lines)" for r in silent if r in files]
        evidence = [
            f"rank(s) {compress_ranks(stuck.waiting)} of {world} time out in collective "
            f"#{stuck.seq} ({stuck.op_type or 'op unknown'}); rank(s) {compress_ranks(silent)} "
            "reported nothing: it never entered the collective, or died without a word"]
        if quiet_files:
            evidence.append("its log: " + ", ".join(quiet_files))
        return Finding(
            Category.UNDETERMINED, silent, tuple(f"rank {r} (did not report)" for r in silent),
            tuple(evidence), ctx.at(stuck.first_timeout),
            (f"Find out what rank(s) {compress_ranks(silent)} did: the node's kernel log "
             "(OOM killer, Xid), the scheduler's record of the process, a py-spy dump if it is "
             "still alive; `rankwatch run` watches every rank live.",),
        )
    return None


def one_group_desync(ctx: Context) -> Finding | None:
    """Two ranks timed out at one SeqNum in different collectives, one in the default group
    (its status line names PG 0) and one whose lines name no group at all, in logs that name
    no other group: most likely one group, its ranks in different collectives. Late among the
    rules (a guess of the group yields to any evidence of a cause) and never a culprit: the
    unnamed side may still be another group's collective at a coincident SeqNum."""
    stuck = ctx.picture.stuck
    named = {s.pg for s in stuck if s.pg is not None}
    if named != {"0"}:
        return None
    for unknown in (s for s in stuck if s.pg is None):
        if any(r in ctx.picture.statuses for r in unknown.waiting):
            continue  # a rank whose status line names its group is that group's
        for known in (s for s in stuck if s.pg == "0"):
            if unknown.seq == known.seq and unknown.op_type != known.op_type:
                return Finding(
                    Category.COLLECTIVE_DESYNC, (), (),
                    (f"collective #{known.seq}: rank(s) {compress_ranks(known.waiting)} in "
                     f"{known.op_type} (PG 0), rank(s) {compress_ranks(unknown.waiting)} in "
                     f"{unknown.op_type} (their lines name no group; the logs name no group "
                     "but PG 0): ranks of one group in different collectives, no single rank "
                     "to blame",), None,
                    ("Make every rank issue the same collectives in the same order; "
                     "TORCH_DISTRIBUTED_DEBUG=DETAIL names the first call that differs.",),
                )
    return None


def collective_hang(ctx: Context) -> Finding | None:
    world = ctx.world_size
    if world is None:
        return None
    for stuck in ctx.picture.stuck:
        if stuck.stragglers or len(stuck.waiting) < world:
            continue
        return Finding(
            Category.COLLECTIVE_HANG, (), (),
            (f"all {world} ranks entered collective #{stuck.seq} ({stuck.op_type}) and none "
             "completed it: the GPU or network side is stuck",), ctx.at(stuck.first_timeout),
            ("Check NCCL's own view (NCCL_DEBUG=INFO, the RAS port), the GPUs (Xid) and the "
             "network links of the job's nodes.",),
        )
    return None


_STORAGE_WORDS = ("PytorchStreamWriter failed", "No space left on device", "Disk quota exceeded",
                  "StorageFull")


def _message(item: Located) -> str:
    return f"{item.event.fields.get('message', '')} {item.event.fields.get('exc_message', '')}"


def ddp_mismatch(ctx: Context) -> Finding | None:
    """DDP's parameter check names the inconsistent rank; the rank that printed it is only the
    messenger."""
    items = ctx.of(EventKind.DDP_MISMATCH)
    if not items:
        return None
    first = items[0]
    bad = first.event.int_field("peer_rank")
    reporter = first.event.int_field("reporter_rank")
    unused = first.event.int_field("unused_rank")
    # Every rank compares itself with the others and reports the first that differs: the odd
    # rank reports rank 0, all the others report the odd one. The rank in every report is it.
    odd = _in_every_report([{i.event.int_field("reporter_rank"), i.event.int_field("peer_rank")}
                            for i in items if i.event.int_field("peer_rank") is not None])
    named = [i for i in items if odd is not None and i.event.int_field("peer_rank") == odd]
    if named:  # a report that names it, so its counts read the right way round
        first, bad = named[0], odd
        reporter = first.event.int_field("reporter_rank")
    if bad is not None and contradictory(i.event.fields for i in items):
        said = counts_said(i.event.fields for i in items)
        # one rank said to have two counts: reports from different groups, or interleaved
        # lines; no rank can be blamed from them
        return Finding(
            Category.SOFTWARE, (), (),
            (f"DDP's model check failed: the ranks built different models ({first.where}); "
             "the reports contradict each other on the counts "
             f"({'; '.join(f'rank {r}: {sorted(c)}' for r, c in sorted(said.items()))}), so no "
             "single rank can be named",), first,
            ("Compare how the ranks build the model (rank-dependent code, a missing adapter or "
             "checkpoint, a different config).",),
        )
    if bad is None and unused is not None:
        return Finding(
            Category.SOFTWARE, (unused,), (f"rank {unused}",),
            (f"DDP's reducer: parameters of rank {unused} received no gradient in the previous "
             f"iteration ({first.where}); its forward did not use them",), first,
            ("Make every parameter take part in the loss on every rank, or construct DDP with "
             "find_unused_parameters=True; TORCH_DISTRIBUTED_DEBUG=DETAIL names the "
             "parameters.",),
        )
    if bad is None:
        return None
    return Finding(
        Category.SOFTWARE, (bad,), (f"rank {bad}",),
        (f"DDP's model check: rank {reporter} has {first.event.fields.get('count')} parameters "
         f"while rank {bad} has an inconsistent {first.event.fields.get('expected')} "
         f"({first.where}); rank {bad} built a different model, rank {reporter} only reported it",),
        first,
        (f"Compare how rank {bad} builds the model (rank-dependent code, a missing adapter or "
         "checkpoint, a different config or world-size setting) with the other ranks.",),
    )


def _in_every_report(pairs: Sequence[set[int | None]]) -> int | None:
    """The one rank that every pairwise report (reporter and the rank it names, or the two
    sides of a mismatch) has in it, from two reports or more; None when there is no one."""
    if len(pairs) < 2:
        return None
    common = set.intersection(*pairs) - {None}
    return common.pop() if len(common) == 1 else None


def _agreeing_reporters(messages: Sequence[str], running: Sequence[Sequence[int]]
                        ) -> tuple[int, tuple[int, ...], tuple[str, str]] | None:
    """Torch's DETAIL check names, for the rank that reports, the first rank whose fingerprint
    differs from its own. Two reporters or more that run the same collective (as far as each
    report shows: a report cut after its own fingerprint still counts) and that name one and
    the same other rank disagree with that rank, not with each other: it is the odd one.
    `running`: the ranks each message says are running, the reporter first."""
    own: dict[int, tuple[str, str]] = {}
    named: set[int] = set()
    for message, ranks in zip(messages, running, strict=True):
        sides = _FINGERPRINT.findall(message)
        if not sides or not ranks or int(sides[0][0]) != ranks[0]:
            continue
        own[ranks[0]] = (sides[0][1], sides[0][2])
        named.update(ranks[1:])
    others = named - set(own)
    if len(own) < 2 or len(set(own.values())) != 1 or len(others) != 1 or named & set(own):
        return None
    return others.pop(), tuple(sorted(own)), next(iter(own.values()))


def monitored_barrier(ctx: Context) -> Finding | None:
    """gloo's monitored barrier: rank 0's report names the ranks that never arrived."""
    items = [i for i in ctx.of(EventKind.MONITORED_BARRIER) if i.event.fields.get("ranks")]
    if not items:
        return None
    first = items[0]
    ranks = tuple(sorted({int(r) for r in str(first.event.fields.get("ranks", "")).replace(
        " ", "").split(",") if r.isdigit()}))
    if not ranks:
        return None
    return Finding(
        Category.COLLECTIVE_DESYNC, ranks, tuple(f"rank {r}" for r in ranks),
        (f"the monitored barrier reports that rank(s) {compress_ranks(ranks)} did not reach it "
         f"({first.where})",), first,
        ("Look at what those ranks were doing instead (their last lines, their stacks); they "
         "took a different path or were stuck before the barrier.",),
    )


def barrier_unanswered(ctx: Context) -> Finding | None:
    """Ranks that reached gloo's monitored barrier and got no answer from rank 0, with rank 0's
    report not among the logs: rank 0 alone enforces the timeout and names who did not
    arrive, so these reports blame no one (and rank 0's own failure, when shown, came first
    in the rules)."""
    items = [i for i in ctx.of(EventKind.MONITORED_BARRIER)
             if i.event.fields.get("coordinator") is not None]
    if not items:
        return None
    first = items[0]
    coordinator = first.event.fields.get("coordinator")
    reporters = ctx.global_ranks(items) or tuple(sorted(
        {r for i in items if (r := i.event.int_field("reporter_rank")) is not None}))
    return Finding(
        Category.COLLECTIVE_DESYNC, (), (),
        (f"rank(s) {compress_ranks(reporters) if reporters else '(not shown)'} reached the "
         f"monitored barrier and rank {coordinator} did not answer them ({first.where}): rank "
         f"{coordinator} enforces the barrier and names the rank that did not arrive; its "
         "report is not in these logs, so no culprit can be named",), first,
        (f"Read rank {coordinator}'s log: its 'failed to pass monitoredBarrier' line names the "
         f"missing rank, or it shows rank {coordinator} failing before the barrier.",),
    )


_RUNNING = re.compile(r"Rank (\d+) is running")
_FINGERPRINT = re.compile(r"Rank (\d+) is running (?:inconsistent )?collective: "
                          r"CollectiveFingerPrint\((?:SequenceNumber=(\d+),? ?)?OpType=(\w+)")


def collective_mismatch(ctx: Context) -> Finding | None:
    """Ranks reported in different collectives: a desync, and with a pairwise report no single
    rank can be blamed."""
    items = ctx.of(EventKind.COLLECTIVE_MISMATCH)
    if not items:
        return None
    first = items[0]
    sides = _FINGERPRINT.findall(str(first.event.fields.get("message", "")))
    detail = ""
    if len(sides) >= 2:
        (r1, s1, o1), (r2, s2, o2) = sides[0], sides[1]
        same_seq = s1 == s2 and s1 != ""
        if same_seq and o1 != o2:
            detail = (f": at the same sequence number {s1} rank {r1} runs {o1} and rank {r2} "
                      f"runs {o2}")
        elif same_seq:
            detail = f": ranks {r1} and {r2} run {o1} #{s1} with different tensors"
        else:
            detail = (f": rank {r1} is in {o1}" + (f" #{s1}" if s1 else "")
                      + f", rank {r2} in {o2}" + (f" #{s2}" if s2 else ""))
    # Each report pairs two ranks; when every report pairs the same rank with another, that
    # rank is the one that differs from all the others.
    # (a report cut short still names both ranks: "… but Rank 0 is running")
    messages = [str(i.event.fields.get("message", "")) for i in items]
    running = [[int(r) for r in _RUNNING.findall(m)] for m in messages]
    pairs: list[set[int | None]] = [set(r) for r in running if len(set(r)) == 2]
    odd = _in_every_report(pairs)
    if odd is not None:
        return Finding(
            Category.COLLECTIVE_DESYNC, (odd,), (f"rank {odd}",),
            (f"ranks called different collectives{detail} ({first.where}); rank {odd} is in "
             f"every mismatch report ({len(pairs)}), each with another rank: it is the one that "
             "differs",), first,
            (f"Find where rank {odd}'s code path or tensor shapes diverge from the others'.",),
        )
    agreed = _agreeing_reporters(messages, running)
    if agreed is not None:
        odd, reporters, (seq, op) = agreed
        return Finding(
            Category.COLLECTIVE_DESYNC, (odd,), (f"rank {odd}",),
            (f"ranks {compress_ranks(reporters)} each report a mismatch while running the same "
             f"collective ({op}" + (f" #{seq}" if seq else "") + f"), and rank {odd} differs "
             f"from them ({first.where}): it is the odd one",), first,
            (f"Find where rank {odd}'s code path or tensor shapes diverge from the others'.",),
        )
    around = sorted({i.event.int_field("peer_rank") for i in items
                     if i.event.int_field("peer_rank") is not None})  # type: ignore[type-var]
    if around and not detail:
        detail = f": NCCL points at ranks around {compress_ranks(around)}"  # type: ignore[arg-type]
    return Finding(
        Category.COLLECTIVE_DESYNC, (), (),
        (f"ranks called different collectives{detail} ({first.where}); no single rank can be "
         "blamed from this report: each side only sees the other disagree",), first,
        ("Find where the ranks' code paths diverge (rank-dependent branches, data-dependent "
         "shapes, a collective inside a condition); TORCH_DISTRIBUTED_DEBUG=DETAIL and the "
         "flight recorder show every rank's sequence of collectives.",),
    )


def fingerprint_outlier(ctx: Context) -> Finding | None:
    """TORCH_DISTRIBUTED_DEBUG=DETAIL logs every rank's collective (sequence number, op,
    shapes). The ranks whose last collective differs from what a clear majority last ran
    (behind it, or another op or shape at its number) are the ones that diverged; ranks only
    ahead of it are a log cut while the others caught up; with no majority no rank can be
    blamed."""
    last: dict[int, tuple[object, ...]] = {}
    last_line: dict[int, Located] = {}
    for item in ctx.of(EventKind.COLLECTIVE_FINGERPRINT):
        if item.rank is None or item.rank_origin == "local":
            continue
        f = item.event.fields
        last[item.rank] = (f.get("seq"), f.get("op"), f.get("shape"), f.get("dtype"))
        last_line[item.rank] = item
    if len(last) < 2 or len(set(last.values())) < 2:
        return None
    counts: dict[tuple[object, ...], list[int]] = defaultdict(list)
    for rank, print_ in sorted(last.items()):
        counts[print_].append(rank)
    majority, agreeing = max(counts.items(), key=lambda kv: len(kv[1]))
    outliers = sorted(r for r, p in last.items() if p != majority)
    seq = majority[0]
    if isinstance(seq, int) and all(isinstance(last[r][0], int) and int(str(last[r][0])) > seq
                                    for r in outliers):
        return None  # ahead of the others: the log was cut while they caught up
    item = last_line[outliers[0]] if outliers else next(iter(last_line.values()))
    shown = "; ".join(f"rank {r}: {last[r][1]} #{last[r][0]} {last[r][2] or ''}".rstrip()
                      for r in sorted(last))
    if len(agreeing) <= len(outliers) or len(agreeing) < 2:
        return Finding(
            Category.COLLECTIVE_DESYNC, (), (),
            (f"the ranks' last collectives differ ({shown}) and no majority agrees: no single "
             f"rank can be blamed ({item.where})",), item,
            ("Find where the ranks' code paths diverge (rank-dependent branches, data-dependent "
             "shapes).",),
        )
    return Finding(
        Category.COLLECTIVE_DESYNC, tuple(outliers), tuple(f"rank {r}" for r in outliers),
        (f"{_ranks_text(outliers)} ran a different last collective than ranks "
         f"{compress_ranks(agreeing)} ({shown}; {item.where}): the odd ones out diverged",), item,
        (f"Find where {_ranks_text(outliers)} took another code path (a rank-dependent branch, "
         "a data-dependent shape, a collective inside a condition).",),
    )


def storage_write(ctx: Context) -> Finding | None:
    """A checkpoint or file write that failed: full disk, quota, the writer itself."""
    items = ctx.of(EventKind.STORAGE_WRITE)
    items += [t for t in ctx.of(EventKind.PYTHON_TRACEBACK)
              if any(w in _message(t) for w in _STORAGE_WORDS)]
    if not items:
        return None
    items.sort(key=Located.order)
    first = items[0]
    ranks = ctx.global_ranks(items[:1])
    dcp = ctx.of(EventKind.CHECKPOINT_FAILED)
    if dcp:
        # torch.distributed.checkpoint names the ranks whose write failed
        named = tuple(sorted({int(r) for r in str(dcp[0].event.fields.get("ranks", ""))
                              .replace(" ", "").split(",") if r.isdigit()}))
        ranks = named or ranks
    # a full /dev/shm often takes two lines (NCCL's proxy: `Accept failed No space left on
    # device`, then `failed to extend /dev/shm/nccl-…`): the neighbour names the segment
    shm = next((i for i in items if i.file_index == first.file_index
                and 0 <= i.event.line - first.event.line <= 3 and _shm_write(i)
                and (i is first or i.rank == first.rank)), None)
    first = shm or first
    text = _message(first).strip() or first.event.text.strip()
    f = first.event.fields
    if shm is not None:
        # NCCL's shared-memory transport could not grow its segment, or torch could not write
        # a tensor's shared-memory file (`</torch_4740_…>`): /dev/shm is too small
        where = whereabouts(first)
        return Finding(
            Category.INFRASTRUCTURE, (), (f"/dev/shm of {where}",) if where else (),
            (f"{who(first)}: a shared-memory segment could not be written: {text[:120]} "
             f"({first.where}); the node's or container's /dev/shm is too small",), first,
            ("Give the container more shared memory (`--shm-size`, `--ipc=host`, a bigger "
             "/dev/shm), or set NCCL_SHM_DISABLE=1.",),
        )
    if f.get("device") or f.get("server"):
        # the kernel's line about a file system: the node and the device are named, not a
        # rank (a kernel line in a rank's file is still the node's)
        where = f"node {first.event.host}" if first.event.host else "the node that logged it"
        what = f"device {f['device']}" if f.get("device") else f"NFS server {f['server']}"
        return Finding(
            Category.STORAGE_IO, (), (f"{where} ({what})",),
            (f"the kernel reports a storage failure on {where}: {text[:160]} "
             f"({first.where})",), first,
            ("Check that file system and its device on that node (`dmesg`, the NFS/Lustre "
             "server's state); the ranks that hung or failed there wrote to it.",),
        )
    evidence = [f"{who(first)}: a write failed: {text[:160]} ({first.where})"]
    if dcp:
        evidence.append(f"torch.distributed.checkpoint reports the failed ranks: "
                        f"{compress_ranks(ranks)} ({dcp[0].where})")
    culprits = [f"rank {r}" for r in ranks]
    task = _ray_task(ctx, first)
    if not ranks and task is not None:
        culprits.append(_ray_task_name(task))
        evidence.append(f"the error came from {_ray_task_name(task)} ({task.where})")
    return Finding(
        Category.STORAGE_IO, ranks, tuple(culprits),
        tuple(evidence), first,
        ("Check the target filesystem's free space and quota (`df -h`, `quota -s`, `lfs quota`) "
         "and where the checkpoint goes; keep fewer checkpoints or write them elsewhere.",),
    )


def _shm_write(item: Located) -> bool:
    """A write into shared memory: NCCL's shared-memory transport growing its segment
    (`/dev/shm/nccl-…`, posix_fallocate), or torch writing a tensor's file (`</torch_4740_…>`)."""
    text = item.event.text
    return (any(w in text for w in ("posix_fallocate", "shared memory segment", "/dev/shm/"))
            or _TORCH_SHM_FILE.search(_message(item) or text) is not None)


def _ray_task(ctx: Context, item: Located) -> Located | None:
    """The Ray task whose error `item` is: a RayTaskError header shortly before it."""
    before = [t for t in ctx.of(EventKind.RAY_TASK_ERROR)
              if t.file_index == item.file_index and 0 <= item.event.line - t.event.line <= 40]
    return before[-1] if before else None


def _ray_task_name(task: Located) -> str:
    fields = task.event.fields
    return f"Ray task {fields.get('task')} (pid {fields.get('pid')} on {fields.get('ip')})"


def _ray_rank(task: Located) -> tuple[int, ...]:
    """The rank a worker group's actor states in its repr (`repr=Worker[rank=3]`)."""
    rank = task.event.int_field("repr_rank")
    return () if rank is None else (rank,)


# The families whose words explain why a process died (not a lost peer, a kill or a bare
# failure, which only say that it did)
_EXPLAINS_A_DEATH = frozenset({Family.OOM, Family.GPU, Family.STORAGE, Family.INFRASTRUCTURE,
                               Family.NETWORK, Family.INIT_TIMEOUT, Family.ENVIRONMENT,
                               Family.SOFTWARE})


def _actors_own_failure(ctx: Context, task: Located) -> tuple[TailLine, Reading] | None:
    """The same Ray worker's (its prefix's pid) failing line nearest before the task's
    error, in words that explain a death."""
    pid, ip = task.event.int_field("pid"), task.event.fields.get("ip")
    found = None
    for tail in ctx.scans[task.file_index].loose:
        env = split_envelope(tail.text)
        if (tail.line < task.event.line and pid is not None and env.actor_pid == pid
                and (ip is None or env.host is None or env.host == ip)):
            reading = read_line(tail.text)
            if reading is not None and reading.family in _EXPLAINS_A_DEATH:
                found = (tail, reading)
    return found


def ray_creation_task(ctx: Context) -> Finding | None:
    """Ray: an actor's constructor raised and the actor died. Its own exception, when the
    traceback shows it, is read by the earlier rules; here the traceback was cut before it."""
    items = [t for t in ctx.of(EventKind.RAY_TASK_ERROR) if "creation task" in t.event.text]
    if not items:
        return None
    first = items[0]
    ranks = _ray_rank(first)
    said = _actors_own_failure(ctx, first)
    if said is not None:  # the actor's own lines before its death say why (a bind that failed)
        tail, reading = said
        return Finding(
            CATEGORY[reading.family], () if reading.family not in OWN_FAULT else ranks,
            (*(f"rank {r}" for r in ranks if reading.family in OWN_FAULT),
             _ray_task_name(first)),
            (f"{_ray_task_name(first)} died while it was being created ({first.where}), "
             f"after its own line '{reading.word}' "
             f"({ctx.scans[first.file_index].path}:{tail.line}): {tail.text.strip()[:160]}",),
            first,
            ("The actor's constructor met the failure its line names; its full traceback is "
             "in the worker's log under /tmp/ray/session_latest/logs on that node.",),
        )
    return Finding(
        Category.UNDETERMINED, ranks,
        (*(f"rank {r}" for r in ranks), _ray_task_name(first)),
        (f"{_ray_task_name(first)} died while it was being created ({first.where}); the "
         "exception that killed it is not in the logs",), first,
        ("The actor's constructor raised: its full traceback is in the worker's log under "
         "/tmp/ray/session_latest/logs (worker-*.err) on that node.",),
    )


def gpu_fault(ctx: Context) -> Finding | None:
    """Driver and PCIe lines about a GPU: the hardware under the software errors."""
    items = ctx.of(EventKind.GPU_FAULT)
    if not items:
        return None
    named = [i for i in items if i.event.fields.get("pci")]
    devices = sorted({str(i.event.fields["pci"]) for i in named if "device handle" in
                      i.event.text or "NVIDIA GPU" in i.event.text})
    ports = sorted({str(i.event.fields["pci"]) for i in named if "AER" in i.event.text})
    culprits = [f"GPU {d}" for d in devices] + [f"PCIe port {p}" for p in ports
                                                  if not devices]
    first = items[0]
    hosts = sorted({i.event.host for i in items if i.event.host})
    evidence = [f"{first.event.text.strip()[:160]} ({first.where})"]
    if ports:
        evidence.append(f"kernel PCIe AER errors on {', '.join(ports)}")
    return Finding(
        Category.GPU_CUDA, (), tuple(culprits) + tuple(f"node {h}" for h in hosts),
        tuple(evidence), first,
        ("Drain the node and check the GPU and its PCIe link (`nvidia-smi -q`, `dmesg | grep -i "
         "-e xid -e aer`); reseat or replace it before resubmitting.",),
    )


def actor_died(ctx: Context) -> Finding | None:
    """Ray: an actor or worker process died; Ray states the pid and, sometimes, the cause."""
    items = ctx.of(EventKind.ACTOR_DIED)
    if not items:
        return None
    node = [i for i in items if any(w in str(i.event.fields.get("message", "")) for w in (
        "node has crashed", "marked dead", "node has died", "node was terminated"))]
    if node:
        first = node[0]
        ips = sorted(set(re.findall(r"(?:Owner Ip address:|and address:|and ip:|IP:) ([\d.]+)",
                                    first.event.text)))
        return Finding(
            Category.INFRASTRUCTURE, (), tuple(f"node {ip}" for ip in ips),
            (f"Ray reports that a node died or was lost: "
             f"{str(first.event.fields.get('message'))[:120]} ({first.where})",), first,
            ("Check that node's health (kernel log, memory, power) and the Ray head's logs.",),
        )
    with_pid = [i for i in items if i.event.fields.get("pid")]
    first = with_pid[0] if with_pid else items[0]
    pid = first.event.fields.get("pid")
    ip = first.event.fields.get("ip")
    culprit = f"Ray worker pid {pid}" + (f" on {ip}" if ip else "") if pid else ""
    return Finding(
        Category.UNDETERMINED, (), (culprit,) if culprit else (),
        (f"a Ray actor/worker died ({first.where}); Ray's own message lists the OOM killer, "
         "`ray stop --force` or a crash as causes, and nothing here picks one",), first,
        ("Look for the worker's own log under /tmp/ray/session_latest/logs and the node's "
         "`dmesg` (OOM killer) at that time.",),
    )


_SPAWN_EXIT = re.compile(r"process (\d+) terminated with (?:signal (\w+)|exit code (-?\d+))")
# torch.distributed.launch before torchrun: `Command '[…, '--local_rank=3']' died with
# <Signals.SIGKILL: 9>.` or `returned non-zero exit status 1.`
_LEGACY_EXIT = re.compile(r"died with <Signals\.(SIG\w+): \d+>|returned non-zero exit status (-?\d+)")
_LEGACY_LOCAL = re.compile(r"--local[_-]rank[= ]'?(\d+)")


def _one_node_rank(ctx: Context, local: int, pid: FieldValue
                   ) -> tuple[tuple[int, ...], str, tuple[str, ...]]:
    """The ranks, name and reason for a launcher's local rank: on the job's one node it is
    the global rank; elsewhere it names a process, never a rank."""
    at = f"pid {pid}" if pid else ""
    if not ctx.topology.one_node:
        return (), f"local_rank {local}" + (f" ({at})" if at else ""), ()
    return ((local,), f"rank {local} (local_rank {local}" + (f", {at})" if at else ")"),
            (f"the job ran on one node ({ctx.topology.one_node}): local rank {local} is "
             f"rank {local}",))


def launcher_exit(ctx: Context) -> Finding | None:
    """What the launcher says about the first worker to fail: its rank (or local rank and pid)
    and its exit. A SIGKILL without OOM evidence is not a software bug; the category stays
    undetermined and the culprit is the killed process."""
    for item in ctx.of(EventKind.CHILD_FAILED_SUMMARY):
        rank = item.event.fields.get("root_rank")
        code = item.event.fields.get("root_exitcode")
        # a table cut after its root cause's rank still names the first failure
        if isinstance(rank, int) and (code is None or (isinstance(code, int) and code > 0)):
            pid = item.event.fields.get("root_pid")
            exit_text = f"exit code {code}" if code is not None else "its exit code cut off"
            return Finding(
                Category.UNDETERMINED, (rank,),
                (f"rank {rank} (pid {pid})" if pid is not None else f"rank {rank}",),
                (f"the launcher's summary names rank {rank} as the first failure, {exit_text} "
                 f"({item.where}); its own error is not in these logs",), item,
                (f"Read rank {rank}'s own output (or rerun with the entry point decorated with "
                 "torch.distributed.elastic.multiprocessing.errors.record) for its traceback.",),
            )
    for item in ctx.of(EventKind.AGENT_WORKER_FAILED):
        code = item.event.int_field("exitcode")
        local = item.event.int_field("local_rank")
        if code is None or code == 0 or local is None:
            continue
        pid = item.event.fields.get("pid")
        if item.event.fields.get("launcher") == "deepspeed":
            # DeepSpeed prints the last-started worker's command, not the failed one's: the
            # local rank is the culprit only when the launcher ran a single worker.
            workers = {e.event.fields.get("pid") for e in ctx.of(EventKind.AGENT_SIGTERM)
                       if "Killing subprocess" in e.event.text}
            if len(workers) != 1:
                return Finding(
                    Category.UNDETERMINED, (), (),
                    (f"DeepSpeed's launcher reports that a worker exited with code {code} "
                     f"({item.where}); its line shows the last-started worker's command "
                     f"(--local_rank={local}), not the failed one's, and "
                     + (f"{len(workers)} workers were running" if workers else
                        "the logs do not show how many workers ran"),), item,
                    ("Read each worker's own output for its error; `dmesg -T` on the host "
                     "for a kill.",),
                )
            pid = pid or next(iter(workers))
        ranks, process, one_node = _one_node_rank(ctx, local, pid)
        if code > 0:
            return Finding(
                Category.UNDETERMINED, ranks, (process,),
                (f"the launcher reports that {process} exited with code {code} "
                 f"({item.where}); its own error is not in these logs", *one_node), item,
                (f"Read local_rank {local}'s own output for its traceback (torchrun "
                 "--redirects/--tee, or the entry point decorated with "
                 "torch.distributed.elastic.multiprocessing.errors.record).",),
            )
        signal = item.event.fields.get("signal") or f"signal {-code}"
        return Finding(
            Category.UNDETERMINED, ranks, (process,),
            (f"the launcher reports {process} killed by {signal} "
             f"({item.where}); no kernel or cgroup line says whether the OOM killer or "
             "someone else sent it", *one_node), item,
            ("Check `dmesg -T | grep -i 'killed process'` on that host and the scheduler's "
             "accounting (`sacct -j JOB -o MaxRSS,State`).",),
        )
    for item in ctx.of(EventKind.PYTHON_TRACEBACK):
        if not str(item.event.fields.get("exc_type", "")).endswith("CalledProcessError"):
            continue
        message = _message(item)
        legacy = _LEGACY_EXIT.search(message)
        local_arg = _LEGACY_LOCAL.search(message)
        if legacy is None:
            continue
        signal = legacy.group(1)
        if local_arg is None:
            if not signal:
                continue
            return Finding(
                Category.UNDETERMINED, (), (),
                (f"a launcher reports that its worker command was killed by {signal} "
                 f"({item.where}); the command names no rank, and no kernel or cgroup line says "
                 "whether the OOM killer or someone else sent it",), item,
                ("Check `dmesg -T | grep -i 'killed process'` on that host and the scheduler's "
                 "accounting.",),
            )
        what = f"killed by {signal}" if signal else f"exit status {legacy.group(2)}"
        ranks, process, one_node = _one_node_rank(ctx, int(local_arg.group(1)), None)
        return Finding(
            Category.UNDETERMINED, ranks, (process,),
            (f"torch.distributed.launch reports the worker with --local_rank="
             f"{local_arg.group(1)} "
             f"{what} ({item.where})" + ("; no kernel or cgroup line says whether the OOM "
                                         "killer or someone else sent it" if signal else ""),
             *one_node),
            item,
            ("Check `dmesg -T | grep -i 'killed process'` on that host; the worker's own "
             "output holds its error when it exited by itself.",),
        )
    for item in ctx.of(EventKind.PYTHON_TRACEBACK):
        m = _SPAWN_EXIT.search(_message(item))
        if m is None:
            continue
        signal = m.group(2)
        return Finding(
            Category.UNDETERMINED, (), (f"process {m.group(1)}",),
            (f"torch.multiprocessing reports that process {m.group(1)} terminated with "
             f"{signal or 'exit code ' + str(m.group(3))} ({item.where})",), item,
            ("A SIGKILL is usually the host OOM killer or the scheduler: check `dmesg -T` on "
             "that host.",),
        )
    return None


def mpi_daemon_lost(ctx: Context) -> Finding | None:
    """Open MPI's runtime lost a node's daemon (the node died or its link did): the job was
    ended from under the training, the node is named."""
    lost = [e for e in ctx.of(EventKind.MPI_PEER_LOST) if e.event.fields.get("daemon")]
    if not lost:
        return None
    first = lost[0]
    nodes = [str(e.event.fields["peer_host"]) for e in ctx.of(EventKind.MPI_PEER_LOST)
             if e.file_index == first.file_index and e.event.fields.get("peer_host")
             and 0 < e.event.line - first.event.line <= 10]
    return Finding(
        Category.INFRASTRUCTURE, (), tuple(f"node {n}" for n in nodes[:1]),
        (f"Open MPI lost the daemon of {f'node {nodes[0]}' if nodes else 'a node'} "
         f"({first.where}): the node or its TCP link went away, and the job was ended",), first,
        ("Check that node's health (kernel log, power, network) before resubmitting.",),
    )


def exit_barrier(ctx: Context) -> Finding | None:
    """torchrun's agent finished its own workers and waited for the other nodes' agents in
    vain: another node failed or hung, and its logs hold why."""
    items = ctx.of(EventKind.EXIT_BARRIER)
    if not items:
        return None
    first = items[0]
    elapsed = first.event.fields.get("elapsed")
    return Finding(
        Category.UNDETERMINED, (), (),
        ("this node's agent gave up waiting for the other nodes at the exit barrier"
         + (f" after {float(str(elapsed)):.0f} s" if elapsed else "")
         + f" ({first.where}): another node failed or hung, and these logs do not show it",),
        first,
        ("Read the other nodes' logs: the first one to fail holds the cause.",),
    )


def mpi_peer_lost(ctx: Context) -> Finding | None:
    """Open MPI: a peer process disconnected without finalising. The peer's failure is the
    cause (Open MPI says so); its host is named, the reason is in its own output."""
    lost = [e for e in ctx.of(EventKind.MPI_PEER_LOST)
            if e.event.fields.get("peer_host") is None and not e.event.fields.get("daemon")]
    if not lost:
        return None
    first = lost[0]
    hosts = [e.event.fields["peer_host"] for e in ctx.of(EventKind.MPI_PEER_LOST)
             if e.file_index == first.file_index and e.event.fields.get("peer_host")
             and 0 < e.event.line - first.event.line <= 40]  # the help text is 13 lines
    peer = f"the peer process on {hosts[0]}" if hosts else ""
    return Finding(
        Category.UNDETERMINED, (), (peer,) if peer else (),
        (f"Open MPI: {peer or 'a peer process'} disconnected unexpectedly ({first.where}); "
         "its crash or exit is the cause, and these logs do not show it",), first,
        ("Read the output of the peer's ranks on that host (and its kernel log): a crash, an "
         "OOM kill or an exit without MPI_Finalize.",),
    )


def nccl_connect_refused(ctx: Context) -> Finding | None:
    """NCCL retrying a refused connect, once a second for the same process, and nothing after
    it: the peer's listening socket is not there (the peer died, or a firewall or the wrong
    interface). Recovered retries are followed by the job's progress and do not count."""
    retries = ctx.of(EventKind.NCCL_CONNECT_RETRY)
    per_process = Counter(_retrying_process(r) for r in retries)
    # a connect that timed out waited its timeout before each retry: two are long enough
    timed_out = Counter(_retrying_process(r) for r in retries
                        if "timed out" in str(r.event.fields.get("error")))
    stuck = [k for k, n in per_process.items()
             if n >= _STILL_REFUSED or timed_out[k] >= _STILL_TIMING_OUT]
    if not stuck:
        return None
    last = retries[-1]
    if any(p.file_index == last.file_index and p.event.line > last.event.line
           for p in ctx.of(EventKind.PROGRESS)):
        return None
    first = next(r for r in retries if _retrying_process(r) in stuck)
    f = first.event.fields
    local = f"{f.get('host')} GPU {f.get('cuda_dev')} (pid {f.get('pid')})"
    error = str(f.get("error") or "Connection refused")
    address = (f"{f.get('peer')}<{f.get('peer_port')}>" if f.get("peer_port") is not None
               else f.get("peer"))
    peer = (f"{address}, " if address else "") + (
        "a peer that refuses connections" if "refused" in error else
        f"a peer it cannot connect to ({error})")
    return Finding(
        Category.NETWORK, (), (f"{local} <-> {peer}" + ("" if address else " (address not shown)"),),
        (f"{local}: NCCL's connect fails again and again ({error}; "
         f"{per_process[stuck[0]]} retry lines from {first.where}) and the log ends there",),
        first,
        ("Run with NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=INIT,NET to see the address it "
         "connects to; check that the peer is alive, that NCCL_SOCKET_IFNAME picks a routable "
         "interface, and that no firewall blocks the ports.",),
    )


def _retrying_process(item: Located) -> tuple[int, object, object]:
    """Which process a retry line is from: its file, NCCL's host and pid."""
    return item.file_index, item.event.fields.get("host"), item.event.fields.get("pid")


# retry lines from one process: three seconds of refusals (NCCL 2.19 and later sleep 100 ms
# more before each try, so three of theirs are longer still)
_STILL_REFUSED = 3
_STILL_TIMING_OUT = 2  # each waited a connect timeout first


def _rank_of(tail: TailLine) -> int | None:
    """The rank a failing line is about: its prefix's, or the one its words name."""
    return tail.rank if tail.rank is not None else self_named_rank(tail.text)


def _next_reading_where(ctx: Context, readings: Sequence[tuple[int, TailLine, Reading]],
                        index: int, first: TailLine, family: Family) -> tuple[str, ...]:
    """What the failing line right under `first` names (blank lines between passed over),
    when it is the same failure's detail: of the same family, or of none (it only says that
    something failed), never another record's (a worker's exit below a network error)."""
    after = [(t, r) for i, t, r in readings if i == index and t.line > first.line]
    tail = ctx.scans[index].tail
    if not after or not tail or first.line < tail[0].line:  # the gap must be in the tail
        return ()
    line, reading = min(after, key=lambda tr: tr[0].line)
    # the tail keeps no blank line: any line it holds between the two is another record
    if (reading.family not in (family, Family.FAILED) or line.line - first.line > 3
            or any(first.line < t.line < line.line for t in tail)):
        return ()
    return reading.where


def _file_host(scan: FileScan) -> tuple[str, ...]:
    """The one machine whose syslog a file holds: a stop from outside names no node of its
    own, and the machine that logged it is the one stopped; () for none, or for several."""
    return tuple(scan.syslog_hosts) if len(scan.syslog_hosts) == 1 else ()


_RANK_ENDED = re.compile(r"\b[Rr]ank (\d+) (?:crashed|exited|died|was killed|terminated)\b")


def unrecognised_failure(ctx: Context) -> Finding | None:
    """The last resort: failing lines that no pattern turned into an event, read by the
    failure-family lexicon. A log from a stack the patterns never met is judged by what its
    errors are about (a full disk, a lost GPU, an unreachable host) instead of being called
    healthy; a line that only shows that something failed makes it `undetermined`."""
    readings = []  # (file index, line, what the lexicon read in it)
    for index, scan in enumerate(ctx.scans):
        # a line some pattern made an error of was judged by the rules; one whose event is
        # only a warning (a connection error the patterns count) is still read here
        evented = {e.line for e in scan.events if e.level >= Level.ERROR}
        for tail in scan.loose:
            reading = read_line(tail.text) if tail.line not in evented else None
            if reading is not None and not _plugin_fallback_line(scan, tail, reading):
                readings.append((index, tail, reading))
    if not readings:
        return None
    readings.sort(key=lambda r: (r[2].family, r[0], r[1].line))
    index, first, reading = readings[0]
    family = reading.family
    place = f"{ctx.scans[index].path}:{first.line}"
    category = CATEGORY[family]
    ranks: tuple[int, ...] = ()
    if family in OWN_FAULT:
        named = (_rank_of(t)
                 for _, t, r in readings if r.family is family)
        shown = {rank for rank in named if rank is not None}
        ranks = (shown.pop(),) if len(shown) == 1 else ()
    elif family is Family.KILLED and (ended := _RANK_ENDED.search(first.text)) is not None:
        # a launcher's own words for which rank ended (`Rank 2 crashed with exit code -6`):
        # that rank, its cause not shown
        ranks = (int(ended.group(1)),)
    # One failure often takes several lines (the kernel's two-line NVRM report): where the
    # first line names no place, the next lines of its family may.
    spots = reading.where or places(ctx.scans[index].continued.get(first.line, "")) or tuple(
        dict.fromkeys(w for _, _, r in readings if r.family is family for w in r.where))[:3] or (
        # or the failing line right under it, the same failure's detail (gRPC's `Additional
        # GRPC error information from remote target /job:ps/replica:0/task:0`)
        _next_reading_where(ctx, readings, index, first, family))
    if not spots and ranks:  # another failing line about the same rank may say where it ran
        spots = tuple(dict.fromkeys(
            w for _, t, r in readings
            if _rank_of(t) == ranks[0]
            for w in r.where))[:3]
    if not spots and family is Family.OOM:  # memory ran out, and a process was killed
        spots = _killed_in_tail(ctx.scans[index])
    where = ", ".join(spots)
    if family is Family.NETWORK:  # never a rank: the reporter is one end of the link
        name = f"the link to {where}" if where else ""
    elif family is Family.INFRASTRUCTURE and not ranks and (nodes := tuple(dict.fromkeys(
            # nodes or their scheduler: every node the family's lines name, not the first
            n for _, t, r in readings if r.family is family for n in node_names(t.text)))
            or _file_host(ctx.scans[index])):
        name = _some(nodes)
    else:
        name = _called(ranks[0] if ranks else None, where)
    culprits = (name,) if name else ()
    if family >= Family.PEER_LOST:
        said = (f"the first failing line no rule explains ({place}): {first.text[:160]}; "
                "it does not show the cause")
    else:
        said = (f"'{reading.word}' reads as {category.value} ({place}): {first.text[:160]} "
                "(a wording no pattern knows, read by the failure-family lexicon)")
    return Finding(
        category, ranks, culprits, (said,), None,
        ("This wording is not in rankwatch's pattern table: check the line above, and report "
         "it so a pattern can read its fields.",),
    )


RULES: tuple[Rule, ...] = (
    desync_report,
    horovod_stalled,
    gpu_hardware,
    gpu_fault,
    out_of_memory,
    ddp_mismatch,
    monitored_barrier,
    collective_mismatch,
    fingerprint_outlier,
    storage_write,
    actor_died,
    dataloader,
    mismatch,
    straggler,
    data_phase,
    scheduler,
    mpi_daemon_lost,
    network,
    rendezvous_lost,
    init_timeout,
    cuda_software,
    nccl_usage,
    ssh_unreachable,
    own_exception,
    retries_exhausted,
    nccl_unexplained,
    ray_creation_task,
    native_crash,
    signal_kill,
    launcher_exit,
    launcher_task_exit,
    absent_rank,
    barrier_unanswered,
    one_group_desync,
    collective_hang,
    mpi_peer_lost,
    nccl_connect_refused,
    exit_barrier,
    unrecognised_failure,
)

