"""Rules that read the GPU and its memory: hardware faults, CUDA errors, out of memory, NCCL
refusing a device layout.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from monitor.model import Category
from monitor.parse.log_events import EventKind, Level
from monitor.triage.evidence import GLOBAL_ORIGINS, Located, compress_ranks, who
from monitor.triage.lexicon import (
    Family,
    logged_below_error,
    places,
    service_named_rank,
    words_family,
)
from monitor.triage.rules.base import (
    _NET_SETUP,
    _SPAWN_EXIT,
    Context,
    Finding,
    _best_located,
    _called,
    _failed_worker,
    _killed_in_tail,
    _message,
    _named,
    _ray_rank,
    _ray_task,
    _ray_task_name,
    _spawn_reports,
    enclosing,
    first_written,
    launcher_ended_ranks,
    mpi_ended_ranks,
    raised_where,
    ray_worker_rank,
    table_entries,
    trained_after,
    training_line,
    written_before,
)
from monitor.triage.topology import task_ranks


def _continuation(ctx: Context, item: Located) -> str:
    """The text of the lines that continue an event's line (the kernel's `CPU: 6 PID: 208253
    Comm: python` under `invoked oom-killer`, a message a paster wrapped)."""
    return ctx.scans[item.file_index].continued.get(item.event.line, "")


def _labelled(where: Sequence[str]) -> str:
    return ", ".join(f"pid {w}" if w.isdigit() else w for w in where)


# torch >= 2.1 lists the GPU's processes after `CUDA out of memory` (wrapped or not)
_GPU_USER = re.compile(r"Process\s+(\d+)\s+has\s+[\d.]+\s*[KMGT]i?B\s+memory\s+in\s+use")


# and the GPU and the request, on the lines a paster wrapped them onto
_WRAPPED_GPU = re.compile(r"\bGPU (\d+) has a total capacity|\(GPU (\d+); ")
_WRAPPED_REQUEST = re.compile(r"Tried to allocate ([\d.]+ ?[KMGT]i?B)")


def _oom_detail(ctx: Context, item: Located, field: str) -> object:
    """An OOM event's GPU index or request, from its own line or the lines that continue it."""
    value = item.event.fields.get(field)
    if value is not None:
        return value
    m = (_WRAPPED_GPU if field == "gpu" else _WRAPPED_REQUEST).search(_continuation(ctx, item))
    return next((g for g in m.groups() if g), None) if m is not None else None


def _gpu_user(ctx: Context, item: Located) -> str | None:
    """The one process torch says holds the GPU's memory: the one that ran out. With several
    listed, the message does not say which one asked."""
    said = f"{item.event.text}\n{_continuation(ctx, item)}"
    if "this process has" in said:
        return None  # (the process saw itself: the one listed is another on that GPU)
    users = set(_GPU_USER.findall(said))
    return users.pop() if len(users) == 1 else None


def _enclosing_actor(ctx: Context, item: Located) -> Located | None:
    """The dead Ray actor whose report holds this line (`Worker exit detail: … low on memory`
    under the RayActorError that names the actor's pid and ip)."""
    return next((a for a in enclosing(ctx, item, EventKind.ACTOR_DIED)
                 if a.event.fields.get("ip")), None)


_HW_XID_CAUSES = frozenset({48, 63, 64, 74, 79, 92, 94, 95, 109, 119, 120, 137, 145, 149, 154})

# Two clocks' stamps of one moment differ by at most a time-zone offset (a node's dmesg -T and
# syslog in local time, a container's log in UTC): an Xid farther than this from every line of
# the job's own files was logged on another day, whatever the zones.
_OTHER_DAY = 14 * 3600.0


def of_this_job(ctx: Context, item: Located) -> bool:
    """Whether a kernel's GPU line can be the job's: not on a host other than the one its whole
    world ran on (NCCL's init lines), nor a day away from the job's own stamped lines (a pasted
    dmesg keeps yesterday's faults, already reset)."""
    said = str(item.event.fields.get("host") or item.event.host or "")
    job_host = _nccl_buses(ctx)[1]
    if said and job_host and said.split(".")[0] != job_host.split(".")[0]:
        return False
    if another_programs_before_the_job(ctx, item) or another_programs_own_fault(ctx, item):
        return False
    if item.time is None or item.time_inferred:
        return True
    job = _job_times(ctx, item, _KERNEL_GPU)
    return not job or min(job) - _OTHER_DAY <= item.time <= max(job) + _OTHER_DAY


_KERNEL_GPU = frozenset({EventKind.XID, EventKind.GPU_FAULT})
_KERNEL_LINES = _KERNEL_GPU | {EventKind.HOST_OOM}


def _job_times(ctx: Context, item: Located, kernel: frozenset[EventKind]) -> list[float]:
    """The own stamps of the job's lines that can be compared with a kernel line's: another
    clock's, none of the `kernel` kinds."""
    return [i.time for i in ctx.located if i.time is not None and not i.time_inferred
            and i.domain != item.domain and i.kind not in kernel]


def _job_pids(ctx: Context) -> set[int]:
    """The job's processes the logs name: NCCL's init lines, the launcher's tables and exit
    lines, the processes it sent its closing signal."""
    pids = {*_nccl_pids(ctx), *_launcher_pids(ctx)}
    pids |= {p for e in ctx.of(EventKind.AGENT_SIGTERM, EventKind.AGENT_WORKER_FAILED)
             if (p := e.event.int_field("pid")) is not None}
    return pids


# the names a training job's own processes go by in the kernel's lines
_JOB_PROCESS = re.compile(r"python|pt_main|torchrun|deepspeed|accelerate|ray::|pt_data_worker",
                          re.IGNORECASE)


_WELL_BEFORE = 3600.0


def another_programs_before_the_job(ctx: Context, item: Located) -> bool:
    """A kernel line stamped before the job's first stamped line that names another program:
    a pid that is none of the job's (where the logs name the job's), or a process that is no
    training job's (`jupyter-lab`). Before the job alone would not do (a node's dmesg in
    local time can read hours earlier than a log in UTC); another program alone would not do
    either (a GPU that failed under another process fails the job too, once the job runs)."""
    if item.time is None or item.time_inferred:
        return False
    job = _job_times(ctx, item, _KERNEL_LINES)
    # (the job's first stamped event may be its first error, long after it began: only a
    # line well before it, an hour and more, is before the job; a fault of the job's own
    # process an hour before its first failure did not end it)
    if not job or item.time >= min(job) - _WELL_BEFORE:
        return False
    pid, pids = item.event.int_field("pid"), _job_pids(ctx)
    if item.kind is not EventKind.HOST_OOM:
        # (the process an Xid names holds the GPU's context: a rank of the job's, or not)
        return pid is not None and bool(pids) and pid not in pids
    # (the OOM killer's victim may be a job's DataLoader worker, none of the ranks' pids:
    # only a name no training process goes by is another program's)
    return _another_programs_name(item) and (pid is None or pid not in pids)


def _another_programs_name(item: Located) -> bool:
    """The kernel line names its process by a name no training process goes by
    (`jupyter-kernel`), not by none."""
    name = str(item.event.fields.get("process") or "").strip("'<>")
    return name not in ("", "unknown") and _JOB_PROCESS.search(name) is None


def another_programs_own_fault(ctx: Context, item: Located) -> bool:
    """An Xid of a program's own fault (13, 31, 43: its bad access, its channel the driver
    stopped) named for a process that is none of the job's (the logs name the job's pids) and
    goes by no training process's name (`jupyter-kernel`): that program's, whenever it came.
    A hardware Xid stays the job's whoever held the GPU: the GPU failed under it too."""
    if item.kind is not EventKind.XID or item.event.fields.get("role") != "software":
        return False
    pid, pids = item.event.int_field("pid"), _job_pids(ctx)
    return pid is not None and bool(pids) and pid not in pids and _another_programs_name(item)


def jobs_xids(ctx: Context) -> list[Located]:
    return [x for x in ctx.of(EventKind.XID) if of_this_job(ctx, x)]


# a kernel log saved per machine and named for it: `dmesg-node17.txt`, `dmesg_node17.log`,
# `kern-node17.log`, `node17.kern.log`, `node17-dmesg.txt`, `node17_syslog` (the name part,
# not a word of the log kind itself)
_KERNEL_LOG_NAME = re.compile(
    r"^(?:dmesg|kern(?:el)?(?:\.log)?|syslog|journal(?:ctl)?)[-_.](?P<a>[A-Za-z][\w.\-]*?)"
    r"(?:\.(?:txt|log|out))*$|"
    r"^(?P<b>[A-Za-z][\w\-]*?)[-_.](?:dmesg|kern(?:el)?|syslog|journal(?:ctl)?)(?:\.(?:txt|log|out))*$")
_NOT_A_HOST = frozenset({"dmesg", "kern", "kernel", "syslog", "journal", "journalctl", "log",
                         "txt", "out", "all", "host", "node", "nodes", "gpu", "gpus", "k", "T"})


def kernel_log_host(path: str) -> str | None:
    """The machine a kernel log's file is named for, where its lines name none."""
    m = _KERNEL_LOG_NAME.match(path.replace("\\", "/").rsplit("/", 1)[-1])
    host = m and (m.group("a") or m.group("b"))
    return host if host and host not in _NOT_A_HOST else None


def gpu_hardware(ctx: Context) -> Finding | None:
    cuda = [e for e in ctx.of(EventKind.CUDA_ERROR) if e.event.fields.get("hardware") is True]
    hw_xids = [x for x in jobs_xids(ctx) if x.event.fields.get("role") == "hardware" or (
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
        elif process := _named(None, first):
            # no rank: the process its line names (a worker's `(VllmWorker rank=3 pid=51234)`
            # prefix, a host:pid stamp), on whose GPU the error came
            culprits.append(process)
    devices: dict[str, set[int]] = defaultdict(set)
    hosts: dict[str, set[str]] = defaultdict(set)
    for x in hw_xids:
        xid = x.event.int_field("caused_by") or x.event.int_field("xid") or 0
        devices[str(x.event.fields.get("pci"))].add(xid)
        # (the journal's own host: a PCI address repeats on every node); a bare dmesg names
        # none, its file may (`dmesg-node17.txt`, `node17.kern.log`)
        if host := (x.event.host or kernel_log_host(x.file)):
            hosts[str(x.event.fields.get("pci"))].add(host)
    for pci, causes in sorted(devices.items()):
        on = f" on {next(iter(hosts[pci]))}" if len(hosts[pci]) == 1 else ""
        culprits.append(f"GPU {pci}{on} (Xid {', '.join(str(c) for c in sorted(causes))})")
    if hw_xids and not ranks:
        # the process an Xid names (`pid=88231`) is a rank where a launcher's summary or
        # NCCL's init lines give that pid's rank; the GPU it names is one where NCCL's init
        # lines on the job's one node give the rank that ran on that bus
        pid_rank = {**_nccl_pids(ctx), **_launcher_pids(ctx)}
        buses = _nccl_buses(ctx)
        ranks = tuple(sorted({r for x in hw_xids if (r := pid_rank.get(
            x.event.int_field("pid") or -1, _bus_rank(buses, x))) is not None}))
        culprits = [*(f"rank {r}" for r in ranks), *culprits]
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


# Kubernetes' event of the kernel's kill on a node (`Warning  OOMKilling  node/gke-pool-q7vd
# Memory cgroup out of memory: Killed process 2817731 (python) …`)
_NODE_OBJECT = re.compile(r"(?<![\w/])node/([A-Za-z0-9][\w.-]*\w)(?![\w./-])")


def _oom_node(ctx: Context, item: Located) -> str:
    """The node a kernel OOM kill happened on, where its line or its file says: Kubernetes'
    event names the node object; `kubectl describe node N` is about that one node."""
    m = _NODE_OBJECT.search(item.event.text)
    if m is not None:
        return m[1]
    # (the node's own events only: a kernel line pasted below it may be another node's)
    if "System OOM encountered" not in item.event.text:
        return ""
    subjects = ctx.scans[item.file_index].subjects
    return subjects[0].removeprefix("node ") if len(subjects) == 1 and subjects[0].startswith(
        "node ") else ""


def _slurm_oom_node(ctx: Context, item: Located) -> str | None:
    """The node a SLURM memory kill happened on: its own line's, or (slurmstepd names none on
    its older lines) the node of the same job's `*** JOB N ON node CANCELLED AT …`."""
    if item.event.fields.get("node"):
        return str(item.event.fields["node"])
    # srun's own word for the task the memory limit took names its node (`srun: error:
    # gpu-h-104: task 3: Out Of Memory`); the cancel's node is only where the step's first
    # task ran, on a job of several nodes
    oom_nodes = {str(t.event.fields["node"]) for t in ctx.of(EventKind.SLURM_TASK_EXIT)
                 if t.event.fields.get("oom") and t.event.fields.get("node")}
    if oom_nodes:
        return ", ".join(sorted(oom_nodes))
    job = str(item.event.fields.get("job") or item.event.fields.get("step") or "").split(".")[0]
    return next((str(c.event.fields["node"]) for c in ctx.of(EventKind.SLURM_CANCEL)
                 if c.event.fields.get("node") and job
                 and str(c.event.fields.get("job")).split(".")[0] == job), None)


# earlyoom's own kill line (`sending SIGTERM to process 31337 uid 1000 "python3": oom_score
# 712, …`), where its `earlyoom[911]:` tag was cut
_EARLYOOM_KILL = re.compile(r"\bsending SIG\w+ to process \d+ uid \d+ \"")


def out_of_memory(ctx: Context) -> Finding | None:
    ooms = ctx.of(EventKind.CUDA_OOM)
    gpu = [e for e in ooms if not e.event.fields.get("bad_size")
           # (an allocation the job logged as a warning and trained on after: a batch-size
           # finder's try, a retry with a smaller batch)
           and not (logged_below_error(e.event.text)
                    and trained_after(ctx, e.file_index, e.event.line))
           # (a Ray task's header that re-raises the error of the task it waited on, whose
           # own header and error follow: the innermost one is where memory ran out)
           and not ("RayTaskError(" in e.event.text and any(
               o.file_index == e.file_index and 0 < o.event.line - e.event.line <= 60
               for o in ooms))]
    # NCCL's "unhandled cuda error" whose last error is the allocation that failed
    # (or NCCL's own allocation that failed: alloc.h's `Failed to CUDA calloc %ld bytes`)
    gpu += [e for e in ctx.of(EventKind.PYTHON_TRACEBACK, EventKind.NCCL_ERROR)
            if any(w in str(e.event.fields.get("last_error", ""))
                   for w in ("out of memory", "Failed to CUDA calloc", "Failed to CUDA malloc"))]
    # (not a container's earlier end its current state supersedes: `kubectl describe`'s
    # `Last State: … OOMKilled` above a restarted container that completed)
    host = [e for e in ctx.of(EventKind.HOST_OOM, EventKind.SLURM_OOM)
            if not ctx.passed_over(e.file_index, e.event.line)
            and not (e.kind is EventKind.HOST_OOM and another_programs_before_the_job(ctx, e))
            # (Ray's memory monitor killed a task, which Ray retries, and training went on
            # in the same file: a Ray Data map task, not a trainer)
            and not ("killed due to memory pressure" in e.event.text
                     and trained_after(ctx, e.file_index, e.event.line))]
    tasks = [e for e in ctx.of(EventKind.SLURM_TASK_EXIT) if e.event.fields.get("oom")]
    if not tasks and any(
            e.kind is EventKind.SLURM_OOM and e.event.fields.get("count")
            # (the job step's own events, not the batch script's or the extern step's)
            and not str(e.event.fields.get("step", "")).endswith((".batch", ".extern"))
            for e in host):
        # Slurm before 23.02 says `task 5: Killed` of a task the cgroup's OOM killer ended
        # (its count of oom-kill events in the step above; not a step over its accounted
        # limit, which Slurm ends whole): the one task srun says was SIGKILLed is that task
        killed = [e for e in ctx.of(EventKind.SLURM_TASK_EXIT)
                  if e.event.fields.get("signal") == "SIGKILL"]
        ids = killed[0].event.fields.get("tasks") if len(killed) == 1 else ()
        tasks = killed if isinstance(ids, tuple) and len(ids) == 1 and not any(
            # (not a task the step's cancel ended: a preemption's, a time limit's)
            c.file_index == killed[0].file_index and c.event.line < killed[0].event.line
            for c in ctx.of(EventKind.SLURM_CANCEL)) else []
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
        index = _oom_detail(ctx, item, "gpu")
        culprits.append(_named(r, item) + (f" on GPU {index}" if index is not None else ""))
    for item in gpu:
        index = _oom_detail(ctx, item, "gpu")
        on_gpu = f" on GPU {index}" if index is not None else ""
        if item.kind is EventKind.CUDA_OOM:
            evidence.append(f"{who(item)}: CUDA out of memory (tried to allocate "
                            f"{_oom_detail(ctx, item, 'requested')}{on_gpu}) ({item.where})")
        else:
            evidence.append(f"{who(item)}: NCCL's CUDA call failed, last error "
                            f"{item.event.fields.get('last_error')} ({item.where})")
        task = _ray_task(ctx, item) if item.rank is None else None
        if task is not None:
            ranks = tuple(sorted({*ranks, *_ray_rank(ctx, task)}))
            culprits.extend([*(f"rank {r}" for r in _ray_rank(ctx, task)), _ray_task_name(task)])
        elif item.rank is None and len(gpu) == 1 and len(ended := mpi_ended_ranks(ctx)) == 1:
            # the one unlabelled OOM, and mpirun names the one process that ended it
            mpi_rank = next(iter(ended))
            ranks = tuple(sorted({*ranks, mpi_rank}))
            culprits.append(f"rank {mpi_rank}{on_gpu} (its launcher's first process to exit)")
        elif item.rank is None and (
                service_rank := service_named_rank(item.event.text)) is not None:
            # a managed service's verdict that carries the OOM names the process it reports
            # (Azure ML's `User process 'Rank 3' exited with status code 1. … Error: … CUDA out
            # of memory`)
            ranks = tuple(sorted({*ranks, service_rank}))
            culprits.append(f"rank {service_rank}{on_gpu}")
        elif item.rank is None:
            # torch's message lists the GPU's processes, often wrapped onto the next lines
            user = _gpu_user(ctx, item)
            where = raised_where(ctx, item)
            if user and f"pid {user}" not in where and f":{user}" not in where:
                # (torch's message names the process that ran out: its pid beside a host tag)
                where = f"{where}, pid {user}" if where else f"pid {user}"
            worker = _failed_worker(ctx) if not where else None
            culprits.append(f"{worker}, the launcher's one failed worker, ran out of GPU "
                            f"memory{on_gpu}" if worker else
                            f"{_called(None, where) if where else 'the process'} that ran out "
                            f"of GPU memory{on_gpu} (rank not shown)")
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
            # (a Ray Train worker: the table of the workers its trainer started gives its rank)
            killed_ranks.extend(ray_worker_rank(ctx, pid, item.event.fields.get("ip")))
        elif pid is not None and item.kind is EventKind.HOST_OOM:
            rank = pid_rank.get(pid) if isinstance(pid, int) else None
            killer = ("earlyoom" if "earlyoom" in item.event.text
                      or _EARLYOOM_KILL.search(item.event.text) else "the kernel OOM killer")
            if rank is not None:
                killed_ranks.append(rank)
                evidence.append(f"pid {pid} is rank {rank} in the launcher's summary: the "
                                f"launcher's report of its exit was {killer}'s kill")
            node = _oom_node(ctx, item)
            culprits.append(f"pid {pid} ({item.event.fields.get('process')}) killed by "
                            f"{killer}" + (f" on node {node}" if node else "")
                            + (f" = rank {rank}" if rank is not None else ""))
        elif str(item.event.fields.get("process", "")).startswith("/"):
            # systemd-oomd names the cgroup it killed (`/system.slice/train.service`)
            unit = str(item.event.fields["process"]).rstrip("/").rsplit("/", 1)[-1]
            culprits.append(f"{unit} (killed by systemd-oomd under memory pressure)")
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
    # (the kernel's kill of a pid names whose it was: only one of mpirun's rank counts)
    kill_pids = {p for e in host if e.kind is EventKind.HOST_OOM
                 and (p := e.event.int_field("pid")) is not None}
    if host and not ranks and not killed_ranks and len(sigkilled := {
            rank for e in ctx.of(EventKind.MPI_EXIT) if e.event.int_field("signo") == 9
            and (rank := e.event.int_field("mpi_rank")) is not None
            and (not kill_pids or e.event.int_field("pid") in kill_pids)}) == 1:
        # the memory ran out and mpirun names the one process the kill ended (`mpirun noticed
        # that process rank 44 with PID 118818 on node rome0114 exited on signal 9`)
        killed_ranks.extend(sigkilled)
        evidence.append(f"mpirun: rank {next(iter(sigkilled))} was the one process killed "
                        "(signal 9)")
    if killed_ranks:
        ranks = tuple(sorted({*ranks, *killed_ranks}))
        culprits[:0] = [f"rank {r}" for r in ranks if f"rank {r}" not in culprits]
    for item in workers:
        evidence.append(f"{who(item)}: a DataLoader worker was killed (host memory) ({item.where})")
        # (the worker its own report names, where no kill line names a process: the one the
        # memory limit took)
        if (pid := item.event.fields.get("pid")) and not culprits and len(workers) == 1:
            of = ctx.global_ranks([item])
            culprits.append(f"DataLoader worker pid {pid}" + (f" of rank {of[0]}" if of else ""))
    recs = []
    if gpu:
        recs.append("GPU memory: lower the micro-batch or sequence length, enable activation "
                    "checkpointing, or set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
                    "against fragmentation.")
    if host or tasks or workers:
        recs.append("Host memory: raise the job's memory limit (--mem) or lower DataLoader "
                    "workers/prefetch; `sacct -j JOB -o MaxRSS` shows the peak.")
    cause = min([*gpu, *host, *tasks, *workers], key=Located.order)
    ran_out = ctx.global_ranks(gpu)
    if len(ran_out) > 1 and not workers and not tasks:
        # several ranks ran out of GPU memory alike (a batch too large for every GPU): none
        # is the first, none is named a culprit rank (each stays listed with its GPU)
        ranks = ()
    return Finding(Category.OOM, ranks, tuple(dict.fromkeys(culprits)), tuple(evidence), cause,
                   tuple(recs))


def _nccl_pids(ctx: Context) -> dict[int, int]:
    """pid → global rank, from NCCL's init lines (`host:pid:tid … comm … rank R nranks N`),
    where a pid is only one rank's on every host that shows it."""
    seen: dict[int, set[int]] = defaultdict(set)
    for scan in ctx.scans:
        for (_host, pid), (_nranks, rank) in scan.pid_ranks.items():
            seen[pid].add(rank)
    return {pid: next(iter(ranks)) for pid, ranks in seen.items() if len(ranks) == 1}


def _pci_key(pci: object) -> str:
    """A GPU's PCI address as domain:bus:device, lower case (`0000:b1:00`)."""
    parts = str(pci or "").lower().removeprefix("pci:").split(".")[0].split(":")
    return ":".join(p.zfill(2) if i else p.zfill(4) for i, p in enumerate(parts)) if len(
        parts) == 3 else ""


def _bus_rank(buses: tuple[dict[str, int], str], xid: Located) -> int | None:
    """The rank on the bus an Xid names (`buses`: `_nccl_buses`), where it names no process of
    its own (a pid that is none of the job's is another program's GPU use) and no host other
    than the job's."""
    if xid.event.int_field("pid") is not None:
        return None
    ranks, host = buses
    said = xid.event.fields.get("host") or xid.event.host
    if said and said != host:
        return None
    return ranks.get(_pci_key(xid.event.fields.get("pci")))


def _nccl_buses(ctx: Context) -> tuple[dict[str, int], str]:
    """PCI address → global rank, and the host, from NCCL's init lines of the job's world
    communicator (`… rank 6 nranks 8 cudaDev 6 nvmlDev 6 busId b1000 … Init COMPLETE`), where
    they show every rank of it on one host (another node has the same buses), each rank its own
    process on one bus."""
    inits = [e for e in ctx.of(EventKind.NCCL_INIT) if e.event.fields.get("bus_id")]
    world = max((e.event.int_field("nranks") or 0 for e in inits), default=0)
    inits = [e for e in inits if e.event.int_field("nranks") == world]
    hosts = {str(e.event.fields.get("host") or e.event.host or "") for e in inits}
    if len(hosts) != 1:
        return {}, ""
    seen: dict[str, set[int]] = defaultdict(set)
    buses_of: dict[int, set[str]] = defaultdict(set)
    for e in inits:
        # NCCL prints the bus id as the hex of the address's digits (`0000:b1:00.0` → b1000)
        digits = str(e.event.fields["bus_id"]).lower().zfill(9)
        bus, rank = f"{digits[:4]}:{digits[4:6]}:{digits[6:8]}", e.event.int_field("nccl_rank")
        if rank is not None:
            seen[bus].add(rank)
            buses_of[rank].add(bus)
    pids = {e.event.fields.get("pid") for e in inits}
    if len(buses_of) != world or len(pids) != world or any(len(b) > 1 for b in buses_of.values()):
        # (the world's every rank on that one host, each its own process on one bus: a job of
        # one node, not one process driving every GPU, nor two runs of it)
        return {}, ""
    return {bus: next(iter(r)) for bus, r in seen.items() if len(r) == 1}, next(iter(hosts))


def _launcher_pids(ctx: Context) -> dict[int, int]:
    """pid → global rank, from the launcher's failure summaries and mpirun's report of the
    process that died (`process rank 5 with PID 48213 on node …`: an MPI rank is the job's)."""
    out: dict[int, int] = {}
    for item in ctx.of(EventKind.MPI_EXIT):
        pid, rank = item.event.fields.get("pid"), item.event.fields.get("mpi_rank")
        if isinstance(pid, int) and isinstance(rank, int):
            out[pid] = rank
    for item in ctx.of(EventKind.CHILD_FAILED_SUMMARY):
        for entry in table_entries(item):
            pid, rank = entry.get("pid"), entry.get("rank")
            if isinstance(pid, int) and isinstance(rank, int):
                out[pid] = rank
    # torchrun's agent's `failed (exitcode: -9) local_rank: 2 (pid: 5511)`, where its node's
    # rendezvous result (or a job of one node) says which global rank that local rank is
    for item in ctx.of(EventKind.AGENT_WORKER_FAILED):
        pid = item.event.int_field("pid")
        if pid is not None and item.rank is not None and item.rank_origin in GLOBAL_ORIGINS \
                and item.event.fields.get("launcher") != "deepspeed":
            out.setdefault(pid, item.rank)
    # DeepSpeed's launcher on each worker it started, its pid and local rank, on a job of one
    # node (its own `nnodes=1`, `WORLD INFO DICT` with one host): local rank is global rank
    if ctx.topology.one_node:
        for item in ctx.of(EventKind.WORKER_SPAWNED):
            pid, local = item.event.int_field("pid"), item.event.int_field("local_rank")
            if pid is not None and local is not None:
                out.setdefault(pid, local)
    return out


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


def _spawned_exit(ctx: Context, first: Located) -> str | None:
    """The one mp.spawn worker the same file reports dead (`ProcessExitedException: process 3
    terminated with signal SIGABRT`): the process whose error this is. Its index is a local
    one, named, never taken for a rank."""
    indices = {m.group(1) for item in ctx.of(EventKind.PYTHON_TRACEBACK)
               if item.file_index == first.file_index
               and (m := _SPAWN_EXIT.search(_message(item))) is not None}
    # and its report of a worker's exception (`-- Process 0 terminated with the following
    # error:`): two different workers reported anywhere in the file name none
    indices |= {index for _line, index in _spawn_reports(ctx, first.file_index)}
    return f"process {indices.pop()}" if len(indices) == 1 else None


def _torn_down_after_own_error(ctx: Context, item: Located) -> bool:
    """A CUDA error the rank reported while it went down of its own earlier error: the
    runtime unloading after its exception, or any CUDA error after its own watchdog timed out
    (it aborts its communicators and takes the process down; a kernel that had faulted would
    have failed the watchdog's query at once, not after the timeout)."""
    if item.rank is not None and any(
            e.rank == item.rank and written_before(e, item)
            for e in ctx.of(EventKind.WATCHDOG_TIMEOUT)):
        return True
    if item.rank is not None and any(
            e.rank == item.rank and written_before(e, item)
            and _PEER_LOST.search(e.event.text)
            for e in ctx.of(EventKind.NCCL_ERROR, EventKind.WATCHDOG_TERMINATED)):
        # ... or after its own NCCL work failed because a peer was lost (`ncclRemoteError`,
        # `remote process exited or there was a network error`, `communicator was aborted`):
        # the watchdog aborts the communicator under the kernels in flight, and the CUDA
        # error the rank's next call reports is that abort's, not its GPU's
        return True
    if not _CUDA_TEARDOWN.search(f"{item.event.fields.get('message')} {item.event.text}"):
        return False
    return any(e.kind is EventKind.PYTHON_TRACEBACK and e.file_index == item.file_index
               and e.rank == item.rank and e.event.line < item.event.line
               and e.event.level >= Level.ERROR for e in ctx.of(EventKind.PYTHON_TRACEBACK))


def _faulting_process(ctx: Context) -> str:
    """The one process the kernel's Xid lines name as a program's GPU exception (Xid 13, 31,
    43 with `pid=3312907, name=python3`): where a CUDA error names no process, the one whose
    access faulted."""
    pids = {(str(x.event.fields.get("pid")), str(x.event.fields.get("pci")))
            for x in jobs_xids(ctx) if x.event.fields.get("role") == "software"
            and str(x.event.fields.get("pid") or "").isdigit()}
    if len(pids) != 1:
        return ""
    pid, pci = pids.pop()
    return f"pid {pid} on GPU {pci} (the kernel's Xid names it)"


# NCCL's line header, `host:pid:tid [dev] file.cc:line NCCL WARN …`
_NCCL_HEADER = re.compile(r"^\s*(?:\[\w+\]:\s*)?(?P<host>[\w.-]+):(?P<pid>\d+):\d+ \[\d+\]")


def nccl_init_went_on(ctx: Context, item: Located) -> bool:
    """A `NCCL WARN Cuda failure '…'` that the same process's communicator came up past (its
    own `… Init COMPLETE` later in the file): a capability probe NCCL fell back from (the P2P
    transport's peer-access or IPC check, then `via SHM`), not the failure of that rank."""
    if "NCCL WARN" not in item.event.text:
        return False
    head = _NCCL_HEADER.match(item.event.text)
    if head is None:
        return False
    return any(e.file_index == item.file_index and e.event.line > item.event.line
               and "Init COMPLETE" in e.event.text
               and (m := _NCCL_HEADER.match(e.event.text)) is not None
               and m.group("host", "pid") == head.group("host", "pid")
               for e in ctx.located)


def cuda_software(ctx: Context) -> Finding | None:
    # (the runtime unloading as its process exits is no kernel's failure: `CUDA error: driver
    # shutting down` after the same process's own exception is its teardown)
    errors = [e for e in ctx.of(EventKind.CUDA_ERROR) if e.event.fields.get("hardware") is not True
              and not _torn_down_after_own_error(ctx, e) and not nccl_init_went_on(ctx, e)]
    if not errors:
        return _kernel_gpu_exception(ctx) or _cpp_gpu_exception(ctx)
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
    if not ranks and task is None and first.rank is None:
        # an unlabelled CUDA error, and the launcher names the one process that ended the job
        # (mpirun's abort, Paddle's `the trainer process with rank=[1] was aborted`)
        ended = launcher_ended_ranks(ctx)
        if len(ended) == 1:
            one = next(iter(ended))
            return Finding(
                Category.GPU_CUDA, (one,), (f"rank {one}",),
                (f"{who(first)}: CUDA error: {first.event.fields.get('message')} "
                 f"({first.where}); the launcher names rank {one} as the process that ended "
                 "the job",), first,
                ("Rerun with CUDA_LAUNCH_BLOCKING=1 to find the failing kernel; 'device-side "
                 "assert' usually means a bad index or label.",),
            )
    named = [_named(r, next(e for e in errors if e.rank == r)) for r in ranks] or [
        _ray_task_name(task) if task is not None else _named(None, _best_located(errors))]
    if not ranks and task is None and not any(named):
        raised = raised_where(ctx, first)
        named = [_called(None, raised) if raised else _spawned_exit(ctx, first)
                 or _faulting_process(ctx) or ""]
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


# NCCL's checks that every rank was started alike: the same world size at the bootstrap root
# (bootstrap.cc), the same NCCL version at init (init.cc, 2.23+) and in RAS (ras.cc)
_SET_UP_WRONG = re.compile(
    r"Bootstrap Root : mismatch in rank count from procs (?P<sizes>\d+ : \d+)"
    r"|Mismatched NCCL version detected : (?P<versions>rank \d+ version \d+ rank \d+ version \d+)"
    r"|NCCL version mismatch with remote peer (?P<peer>\S+) \((?P<local>local: \d+, remote \d+)\)")


def _set_up_wrong(found: re.Match[str], item: Located) -> Finding:
    if found["sizes"]:
        culprit = "the job's launch (its processes disagree on the world size)"
        text = f"NCCL's bootstrap root: processes gave different rank counts ({found['sizes']})"
        advice = ("Start every node with the same world size (nnodes, nproc_per_node, "
                  "WORLD_SIZE); a node launched with another count joined this job's root.")
    else:
        what = found["versions"] or f"{found['peer']}, {found['local']}"
        culprit = "the job's environment (ranks run different NCCL versions)"
        text = f"NCCL: ranks run different NCCL versions ({what})"
        advice = ("Use one NCCL on every node (the same container image or torch wheel); "
                  "check LD_LIBRARY_PATH and NCCL_* library overrides.")
    return Finding(Category.SOFTWARE, (), (culprit,), (f"{text} ({item.where})",), item,
                   (advice,))


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
        refused = _SET_UP_WRONG.search(text)
        if refused is not None:
            return _set_up_wrong(refused, item)
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
    return _nccl_refused_use(ctx)


# NCCL's own code for a call or a setting it refuses (`invalid usage`, `invalid argument`)
_REFUSED = re.compile(r"\binvalid usage\b|ncclInvalidUsage|\binvalid argument\b|ncclInvalidArgument")


def _nccl_refused_use(ctx: Context) -> Finding | None:
    """NCCL refusing how it was called or configured (`invalid usage` with its reason:
    `Unrecognized element token "bogus" when parsing "bogus"` for an NCCL_PROTO it cannot
    read), as the first error: the job's use or setting of NCCL, not a fault of the ranks that
    met it. One rank alone refused is that rank's call; every reporting rank alike, none. An
    interface that does not exist is the network rules' (the host's network setup)."""
    refused = [e for e in ctx.of(EventKind.NCCL_ERROR)
               if _REFUSED.search(f"{e.event.fields.get('message', '')} {e.event.text}")]
    if not refused:
        return None
    first = first_written(refused)
    reason = str(first.event.fields.get("last_error") or "")
    own = {id(t) for t in enclosing(ctx, first, EventKind.PYTHON_TRACEBACK)}  # its own report
    warned = None if reason else _warned_just_above(ctx, first)
    if warned is not None:
        # NCCL's own WARN a few lines above, from the same process, is the reason (nccl-tests'
        # `Failed: NCCL error bench.cu:64 'invalid usage …'` under `NCCL WARN Invalid rank
        # requested : 8/8`), and its return-code trace below it is the same failure
        reason = str(warned.event.fields.get("message") or "")
        own |= {id(e) for e in ctx.of(EventKind.NCCL_ERROR)
                if e.file_index == first.file_index and e.rank == first.rank
                and warned.event.line <= e.event.line < first.event.line
                and e.event.fields.get("retcode") is not None}
    if not reason or _NET_SETUP.search(reason) or any(
            written_before(e, first) and e.event.level >= Level.ERROR and id(e) not in own
            and e.kind is not EventKind.NCCL_WARN for e in ctx.located):
        return None  # no reason shown, the network's, or another error came first
    reporters = ctx.global_ranks(refused)
    others = {e.rank for e in ctx.located if e.event.level >= Level.ERROR
              and e.rank is not None and e.rank not in reporters}
    ranks = reporters if len(reporters) == 1 and others else ()
    return Finding(
        Category.SOFTWARE, ranks, tuple(f"rank {r}" for r in ranks) or (
            "the job's use or setting of NCCL",),
        (f"{who(first)}: NCCL refused the call ({first.where}): '{reason[:160]}'"
         + (f"; rank(s) {compress_ranks(reporters)} met it alike: the setting or the code they "
            "all ran, no one rank's" if len(reporters) > 1 else ""),), first,
        ("Check the NCCL_* settings the job runs with (a value NCCL cannot read) and the "
         "arguments of the failing call.",),
    )


def _warned_just_above(ctx: Context, item: Located) -> Located | None:
    """The last NCCL WARN of the same process (its rank, or its pid) within a few lines above
    `item`, in the same file, where its words name no cause of another family."""
    pid = item.event.fields.get("pid")
    near = [w for w in ctx.of(EventKind.NCCL_WARN)
            if w.file_index == item.file_index and 0 <= item.event.line - w.event.line <= 6
            and w.event.fields.get("message")
            and ((item.rank is not None and w.rank == item.rank)
                 or (pid is not None and w.event.fields.get("pid") == pid))]
    # (a WARN that names a cause of its own, `Cuda failure 'invalid argument'` or a network's
    # error, is the GPU's or the network's story, for the rules that read those)
    if not near or words_family(str(near[-1].event.fields.get("message"))) not in (
            Family.FAILED, Family.SOFTWARE):
        return None
    return near[-1]


# The CUDA runtime refusing calls while the process exits (`cudaErrorCudartUnloading: driver
# shutting down`): teardown after whatever ended the process, not a GPU's failure
_CUDA_TEARDOWN = re.compile(r"cudaErrorCudartUnloading|driver shutting down")
# NCCL's and ProcessGroupNCCL's words for work that failed because a peer went away
_PEER_LOST = re.compile(r"remote process exited or there was a network error|ncclRemoteError"
                        r"|communicator was aborted")


def _cpp_gpu_exception(ctx: Context) -> Finding | None:
    """A C++ program's uncaught exception whose message names a CUDA failure in its own words
    (Marian's `what():  … gpuAssert(cudaError_t, …) threw util::Exception. GPUassert: an
    illegal memory access was encountered`): the GPU's failure in that process."""
    for item in ctx.of(EventKind.CPP_EXCEPTION):
        what = str(item.event.fields.get("what", ""))
        if ("NCCL" in what or words_family(what) is not Family.GPU
                or _CUDA_TEARDOWN.search(what) is not None):
            continue  # NCCL's codes are read by the NCCL rules
        if any(e.order() < item.order() and e.event.level >= Level.ERROR
               and e.kind in (EventKind.PYTHON_TRACEBACK, EventKind.CPP_EXCEPTION)
               for e in ctx.located if e is not item):
            return None  # another error came first: this one may be its aftermath
        ranks = ctx.global_ranks([item])
        name = _named(ranks[0], item) if ranks else _named(None, item)
        return Finding(
            Category.GPU_CUDA, ranks, (name,) if name else (),
            (f"{who(item)}: an uncaught C++ exception reports a CUDA failure: {what[:160]} "
             f"({item.where})",), item,
            ("Rerun with CUDA_LAUNCH_BLOCKING=1 to find the failing kernel; if the error "
             "repeats on one GPU only, have it checked.",),
        )
    return None


def _kernel_gpu_exception(ctx: Context) -> Finding | None:
    """The kernel's record of a program's GPU exception (Xid 13 SM exception, 31 MMU fault,
    43 channel stopped): an illegal access by the process it names, on that GPU."""
    xids = [x for x in jobs_xids(ctx) if x.event.fields.get("role") == "software"]
    if not xids:
        return None
    first = xids[0]
    f = first.event.fields
    pid = str(f.get("pid") or "").strip("'")
    process = f" (pid {pid}, {f.get('process')})" if pid.isdigit() else ""
    # (the rank that pid was, in NCCL's init lines or the launcher's report of its end)
    rank = {**_nccl_pids(ctx), **_launcher_pids(ctx)}.get(int(pid)) if pid.isdigit() else None
    return Finding(
        Category.GPU_CUDA, (rank,) if rank is not None else (),
        ((f"rank {rank}",) if rank is not None else ()) + (f"GPU {f.get('pci')}{process}",),
        (f"the kernel logged Xid {f.get('xid')} on GPU {f.get('pci')}{process}: "
         f"{str(f.get('message'))[:120]} ({first.where}); a program's illegal GPU access",),
        first,
        ("Rerun with CUDA_LAUNCH_BLOCKING=1 (or compute-sanitizer) to find the kernel that "
         "faulted; if the Xid repeats across jobs on this GPU only, have the GPU checked.",),
    )


def _trained_from_start_past(ctx: Context, item: Located) -> bool:
    """A fault logged before the job's first training line in its file, which the job then
    trained past (a job script's `nvidia-smi` that could not reach a GPU outside the job's
    CUDA_VISIBLE_DEVICES): the node's state, not the job's failure."""
    tail = ctx.scans[item.file_index].tail
    return not any(t.line < item.event.line and training_line(t) for t in tail) and (
        trained_after(ctx, item.file_index, item.event.line))


def gpu_fault(ctx: Context) -> Finding | None:
    """Driver and PCIe lines about a GPU: the hardware under the software errors."""
    items = [i for i in ctx.of(EventKind.GPU_FAULT) if not i.event.fields.get("corrected")
             and not _nic_behind(ctx, i) and of_this_job(ctx, i)
             and not _trained_from_start_past(ctx, i)]
    if not items:
        return None
    named = [i for i in items if i.event.fields.get("pci")]
    # (a root port's AER line names the device it received the error from: that device)
    device_items = [i for i in named if "device handle" in i.event.text
                    or "NVIDIA GPU" in i.event.text or "received" in i.event.text]
    devices = sorted({str(i.event.fields["pci"]) for i in device_items})
    ports = sorted({str(i.event.fields["pci"]) for i in named if "AER" in i.event.text
                    and "received" not in i.event.text})
    culprits = [f"GPU {d}" for d in devices] + [f"PCIe port {p}" for p in ports
                                                  if not devices]
    first = items[0]
    hosts = sorted({i.event.host for i in items if i.event.host})
    evidence = [f"{first.event.text.strip()[:160]} ({first.where})"]
    if ports:
        evidence.append(f"kernel PCIe AER errors on {', '.join(ports)}")
    # the rank on that GPU, where NCCL's init lines give each rank's bus on this one host
    buses = _nccl_buses(ctx)
    on_bus = {r for i in device_items if (r := _bus_rank(buses, i)) is not None}
    if not on_bus:
        # ... or the one rank whose own CUDA call failed (the others only relayed its loss)
        on_bus = set(ctx.global_ranks(ctx.of(EventKind.CUDA_ERROR)))
    one_rank = tuple(on_bus) if len(on_bus) == 1 else ()
    return Finding(
        Category.GPU_CUDA, one_rank,
        tuple(f"rank {r}" for r in one_rank) + tuple(culprits) + tuple(f"node {h}" for h in hosts),
        tuple(evidence), first,
        ("Drain the node and check the GPU and its PCIe link (`nvidia-smi -q`, `dmesg | grep -i "
         "-e xid -e aer`); reseat or replace it before resubmitting.",),
    )


# the kernel's network drivers, as they prefix their lines about a device
# (`mlx5_core 0000:5e:00.0: …`, Intel's, Broadcom's, Amazon's EFA)
_NIC_DRIVER = re.compile(r"\b(?:mlx[45]_core|ice|i40e|ixgbe|bnxt_en|bnxt_re|efa|ena|irdma)"
                         r" (?P<pci>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d)")


def _nic_behind(ctx: Context, item: Located) -> bool:
    """A PCIe error from a port whose device is a network card, as the kernel's lines about
    that device show (`mlx5_core 0000:5e:00.0: PCIe Bus Error …`): the network's fault, not
    a GPU's."""
    source = item.event.fields.get("source")
    if "AER" not in item.event.text or not source:
        return False
    return any(m is not None and m["pci"].startswith(str(source).split(".")[0])
               for t in ctx.scans[item.file_index].tail
               for m in (_NIC_DRIVER.search(t.text),))
