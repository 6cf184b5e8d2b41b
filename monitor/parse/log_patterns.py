"""The pattern table: which log lines are events, and the fields each one carries.

Pure data plus small field converters. `monitor.parse.log_events` applies the table to a line
after the cheap pre-filter (`PREFILTER_LITERALS`) said it may hold an event; each row then
checks its own needles (plain substrings) before running its regular expressions, so a line
costs a regex only when it almost certainly matches.

Message templates are documented per torch / NCCL / SLURM version in the project's log-pattern
reference; the regexes accept every era listed there.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Union

from monitor.parse.launch_shape import launch_nodes, names_nodes_flag

FieldValue = Union[str, int, float, bool, None, tuple[Any, ...]]  # a runtime alias: X | Y is not usable here on 3.10
Fields = dict[str, FieldValue]


class EventKind(str, enum.Enum):
    """Kinds of log event: a closed set (the `kind` label of `rankwatch_log_events_total`)."""

    WATCHDOG_TIMEOUT = "watchdog_timeout"
    PG_STATUS = "pg_status"
    NCCL_TEARDOWN = "nccl_teardown"
    WATCHDOG_TERMINATED = "watchdog_terminated"
    HEARTBEAT_HANG = "heartbeat_hang"
    FR_DUMP = "fr_dump"
    REMOTE_ERROR = "remote_error"
    DESYNC_REPORT = "desync_report"
    NCCL_INIT = "nccl_init"
    NCCL_WARN = "nccl_warn"
    NCCL_WARN_NET = "nccl_warn_net"
    NCCL_ERROR = "nccl_error"
    NCCL_PEER_CLOSED = "nccl_peer_closed"
    STORE_TIMEOUT = "store_timeout"
    STORE_CONNECTION_LOST = "store_connection_lost"
    RENDEZVOUS_ERROR = "rendezvous_error"
    AGENT_WORKER_FAILED = "agent_worker_failed"
    AGENT_SIGTERM = "agent_sigterm"
    AGENT_DEATH_SIGNAL = "agent_death_signal"
    AGENT_RESTART = "agent_restart"  # torchrun's agent restarts its failed worker group
    AGENT_SUCCEEDED = "agent_succeeded"  # torchrun's agent: its worker group finished
    CHILD_FAILED_SUMMARY = "child_failed_summary"
    SIGNAL_KILL = "signal_kill"
    CUDA_ERROR = "cuda_error"
    CUDA_OOM = "cuda_oom"
    XID = "xid"
    HOST_OOM = "host_oom"
    DATALOADER_WORKER_DIED = "dataloader_worker_died"
    DATALOADER_TIMEOUT = "dataloader_timeout"
    PYTHON_TRACEBACK = "python_traceback"
    FAULTHANDLER = "faulthandler"
    NATIVE_CRASH = "native_crash"
    CPP_EXCEPTION = "cpp_exception"
    SLURM_CANCEL = "slurm_cancel"
    SLURM_OOM = "slurm_oom"
    SLURM_TASK_EXIT = "slurm_task_exit"
    RETRY = "retry"
    CONNECTION_ERROR = "connection_error"
    PROGRESS = "progress"
    DDP_MISMATCH = "ddp_mismatch"
    CHECKPOINT_FAILED = "checkpoint_failed"
    MONITORED_BARRIER = "monitored_barrier"
    COLLECTIVE_MISMATCH = "collective_mismatch"
    STORAGE_WRITE = "storage_write"
    GPU_FAULT = "gpu_fault"
    ACTOR_DIED = "actor_died"
    LAUNCH_ENDPOINT = "launch_endpoint"  # the rendezvous/master address a launcher was given
    LAUNCH_NODES = "launch_nodes"  # how many nodes a launcher was told to run
    COLLECTIVE_FINGERPRINT = "collective_fingerprint"  # one rank's collective (DETAIL debug)
    RAY_TASK_ERROR = "ray_task_error"  # the Ray task (and its pid) an error that follows came from
    RAY_WORKER_RANK = "ray_worker_rank"  # Ray Train's worker process (ip, pid) and its world rank
    RDZV_RANKS = "rdzv_ranks"  # torchrun's agent: its workers' local and global ranks
    WORKER_SPAWNED = "worker_spawned"  # DeepSpeed's launcher: a worker's pid and local rank
    MPI_PEER_LOST = "mpi_peer_lost"  # Open MPI: a peer process disconnected (and its host)
    NCCL_CONNECT_RETRY = "nccl_connect_retry"  # NCCL still retrying a refused connect
    NCCL_NET_CALL_FAILED = "nccl_net_call_failed"  # NCCL's return-code trace, in its network code
    MPI_EXIT = "mpi_exit"  # mpirun: the first process that died or exited non-zero
    MPI_ERROR = "mpi_error"  # MPI's error handler: the call that failed and its error class
    POD_EVICTED = "pod_evicted"  # Kubernetes (or Volcano) evicted a pod of the job
    EXIT_BARRIER = "exit_barrier"  # torchrun's agent gave up waiting for the other nodes' agents
    SRUN_TASKS = "srun_tasks"  # how many tasks srun starts on each node (`--ntasks-per-node=4`)


class Level(enum.IntEnum):
    """How bad an event is on its own (severity-ish; the diagnosis decides what matters)."""

    INFO = 0
    WARNING = 1
    ERROR = 2
    FATAL = 3


# Substrings at least one of which every event line contains (case-sensitive on purpose:
# str.find is far cheaper than any case-folding). Block continuation lines (traceback frames,
# C++ frames, NCCL return-code chains) need no literal: readers feed every line while a
# block is open.
# The live pre-filter: every literal costs one pass over each chunk of output (about a
# nanosecond per byte), so the live path keeps only what alerts need and what an exception
# line's "rror"/"xception" or a timeout's "imeout" does not already catch.
LIVE_LITERALS: tuple[str, ...] = (
    "rror",
    "xception",
    "Traceback",
    "WARN",
    "ignal",
    "illed",
    "imeout",
    "imed out",
    "etry",
    "atchdog",
    "collective #",
    "] failed",
    "failed (exitcode",  # torchrun's agent under any logging format (`…api:failed (exitcode`)
    "core dumped",
    "0 bytes",
    "terminate called",
    "Segmentation fault",
    "- Init ",  # NCCL communicator init: a long phase (PhaseHint)
    # nvidia-smi on a broken GPU ("…: GPU is lost"; its "Unknown Error" form already has
    # "rror"). The other lines live routes read need no literal of their own: storage
    # writes, DDP's model check, monitoredBarrier, collective mismatches and Ray's dead actors
    # come as exception lines ("rror"/"xception") or NCCL WARNs, gloo's transport timeouts
    # say "imed out", kernel PCIe AER lines say "rror". The driver's "fallen off the bus" is a
    # kernel line (as Xid), not in a job's output.
    "device handle",
    # a stop someone asked for, in Lightning's and DeepSpeed's launcher's words
    "Received SIGTERM", "process received SIG",
    "not reaching the collective",  # Ray Train's report of the ranks that never arrived
)

# Triage reads every line of every file once and also wants kernel lines, counted-only
# noise and a few rare wordings; each extra literal is one more pass over the input.
PREFILTER_LITERALS: tuple[str, ...] = (
    *LIVE_LITERALS,
    "kill",
    "onnection",
    "NVRM",
    "endezvous",
    "*** SIG",
    "] Failing at address",  # OpenMPI's crash handler, where a paste kept only that line
    # TensorFlow's collective ops on members that disagree (shapes, the group's size)
    "mismatch in the collective", "Inconsistent output shapes", "has group_size",
    "doesn't match expected size", "but another rank",
    "is joining a group with size",
    # MPI's truncated message and MPICH's collective whose members' sizes differ
    "buffer size is", "message sizes do not match",
    # NCCL's trace of a failed call, and its abort of a socket wait
    "socket.cc:", "socket.h:", "net_ib.cc:", "ibvwrap.cc:", "abort called",
    # its InfiniBand transport's completion error where the line lost NCCL's prefix (relayed
    # by Ray's log monitor, pasted without it)
    "Got completion",
    "failed to connect",
    # ROCm's runtime on a kernel's bad access
    "access fault by GPU",
    "Stack trace of the failed",
    "process down",
    "has inconsistent",  # DDP's model check, also when quoted without its exception type
    "missing ranks: ",  # Horovod's stall inspector, torch's flight-recorder analyser
    "Missing ranks are ",  # ... the analyser's words around torch 2.4
    # gloo's own log line on rank 0 (`[Rank 0]: Rank 2 failed to pass monitoredBarrier in
    # 1800000 ms`), which carries no error word
    "failed to pass monitoredBarrier",
    "[ready ranks: ",  # Horovod's stall inspector before 0.20
    "receive grad",  # DDP's reducer naming the rank whose parameters got no gradient
    "Killing subprocess",  # DeepSpeed's launcher listing its workers as it stops them
    # torchrun's failure table, also pasted without its header (keys padded to ten columns)
    "time      : ", "host      : ", "rank      : ", "exitcode  : ", "Root Cause (first",
    "rdzv_endpoint", "rdzv-endpoint", "master_addr", "master-addr", "MASTER_ADDR",
    "NCCL_COMM_ID", "nNodes", "ntasks-per-node",
    # the kernel's OOM killer before 5.1 (`Memory cgroup out of memory: Kill process 48213 …`),
    # the kubelet's, systemd-oomd's and earlyoom's own kills
    "Kill process", "System OOM encountered", "due to memory pressure for", "sending SIG",
    "Running collective: CollectiveFingerPrint", "RayTaskError", "marked dead", "ray::",
    "Memory on the node (IP:", "no socket interface found", "NET/Socket : no interface found",
    "nvmlDevice", "has already checked in",
    "service not known", "name resolution", "does not resolve", "servname",
    "no such host", "ENOTFOUND", "UnknownHostException", "ost not found", "ould not resolve",
    "Unable to find address for", "was aborted", "RUNNING AT", "Worker timed out after",
    "WTERMSIG",
    "peer process has unexpectedly", "Peer host:", "Call to connect returned",
    "noticed that process rank", "noticed that job rank", "Process name: ",
    "exit with status code", "MPI process (rank:",
    "PodEvicted", "Evicted", "The node was low on resource:", "was evicted", "Preempted",
    "PreemptionByScheduler", "NodeNotReady",
    "TaintManagerEviction", "died unexpectedly", "died, exit code", "exited with code",
    "double-bit ECC", "not responding, still trying", "workers are evicted", "WARN: Function: ",
    "because its worker process has died",
    "lost communication with a remote daemon", "Remote daemon:", "waiting on exit barrier",
    "kB, limit ",  # the kernel's memory-cgroup report
    # slurmstepd before it tagged its lines `error:` (`*** JOB 7 ON n1 CANCELLED AT …`, `Job 7
    # exceeded memory limit (… > …), being killed`)
    "CANCELLED AT", "exceeded memory limit",
    # a launcher's node count: a pasted command line, torchrun's config, DeepSpeed's launcher
    "nproc", "max_nodes", "group_world_size", "WORLD INFO DICT", "nnodes", "num_machines",
    "num_nodes", "--standalone",
    "worker group",  # torchrun's agent restarting its workers, and their group finishing
    "world_rank=",  # Ray Train's table of its workers' processes and their ranks
    "Setting up process group for",  # ... and each worker's own word of its rank
    "global_ranks=", "local_ranks=",  # torchrun's agent: the ranks its workers are
    "spawned with command",  # DeepSpeed's launcher: each worker's pid and local rank
    # MPI's own reports: an abort and whose it was, its error handler's call and class
    "Abort(", "MPI_ABORT was invoked", "has exited due to process", "reported by process",
    "died from signal", "Fatal error in ", "*** MPI_ERR_", "*** An error occurred in",
    "]: aborting job",  # MPICH 3's ch3 client on its own abort (`[cli_4]: aborting job:`)
    "text_generation_launcher: Shard ",  # TGI's launcher on a shard that failed or crashed
)


def is_candidate(text: str) -> bool:
    """True when a line may hold an event (the per-line form of the pre-filter)."""
    return any(literal in text for literal in PREFILTER_LITERALS)


# Field names converted to int when a regex captures them.
_INT_FIELDS = frozenset(
    {
        "seq", "last_enqueued", "last_completed", "last_started", "numel_in", "numel_out",
        "timeout_ms", "ran_ms", "pg_rank", "pid", "tid", "cuda_dev", "nranks", "nccl_rank",
        "per_node", "retcode", "status", "vendor_err", "exitcode", "local_rank", "world_rank",
        "attempt", "max_attempts",
        "coordinator",
        "xid", "caused_by", "count", "joined", "expected", "port", "peer_port", "source_rank",
        "stuck_seconds", "pending_works", "worker", "signo", "code", "timeout_seconds",
        "remaining", "reporter_rank", "peer_rank", "closed_by_local_rank", "status_alt", "rank_in_message",
        "line", "gpu", "unused_rank", "repr_rank", "mpi_rank", "actor_pid",
    }
)

PostProcess = Callable[[Fields, str], "tuple[EventKind, Level, Fields] | None"]


@dataclass(frozen=True)
class LinePattern:
    """One row: a line whose payload contains any of `needles` and matches one of `regexes`.

    Named groups become fields (ints where the name says so). `post` may refine the fields,
    change kind or level, or drop the match (return None). `all_matches` collects every
    match of the first matching regex into tuples (e.g. several `what():` on one line).
    """

    kind: EventKind
    level: Level
    needles: tuple[str, ...]
    regexes: tuple[re.Pattern[str], ...]
    post: PostProcess | None = None


def _rx(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in patterns)


def fields_from(match: re.Match[str]) -> Fields:
    out: Fields = {}
    for name, value in match.groupdict().items():
        if value is None:
            continue
        if name in _INT_FIELDS:
            try:
                out[name] = int(value)
            except ValueError:
                out[name] = value
        else:
            out[name] = value.strip()
    return out


# --- post-processors ------------------------------------------------------------------------

_SIGNALS = {1: "SIGHUP", 2: "SIGINT", 6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV",
            13: "SIGPIPE", 15: "SIGTERM", 8: "SIGFPE", 4: "SIGILL"}
_SIGNAL_WORDS = {
    "killed": "SIGKILL", "terminated": "SIGTERM", "aborted": "SIGABRT",
    "segmentation fault": "SIGSEGV", "bus error": "SIGBUS", "floating point exception": "SIGFPE",
    "floating-point exception": "SIGFPE", "illegal instruction": "SIGILL", "hangup": "SIGHUP",
    "interrupt": "SIGINT",
    # the rest of strsignal()'s words, as srun prints them (`task 0: Trace/breakpoint trap`)
    "trace/breakpoint trap": "SIGTRAP", "quit": "SIGQUIT", "bad system call": "SIGSYS",
    "cpu time limit exceeded": "SIGXCPU", "file size limit exceeded": "SIGXFSZ",
    "user defined signal 1": "SIGUSR1", "user defined signal 2": "SIGUSR2",
}


def signal_name(value: FieldValue) -> str | None:
    """`9`, `-9`, `Signals.SIGKILL`, `SIGKILL`, `Killed` → `SIGKILL` (None when unknown)."""
    if value is None:
        return None
    text = str(value).strip()
    if text.startswith("Signals."):
        text = text[len("Signals."):]
    if text.lstrip("-").isdigit():
        return _SIGNALS.get(abs(int(text)), f"signal {abs(int(text))}")
    if text.upper().startswith("SIG"):
        return text.upper()
    # (the shell's and srun's words for a signal that dumped core: `Segmentation fault (core
    # dumped)`)
    return _SIGNAL_WORDS.get(text.lower().removesuffix("(core dumped)").rstrip())


def _post_signal(fields: Fields, _payload: str) -> tuple[EventKind, Level, Fields]:
    for key in ("signal", "signo", "what"):
        name = signal_name(fields.get(key))
        if name:
            fields["signal"] = name
            break
    return EventKind.SIGNAL_KILL, Level.FATAL, fields


_HW_CUDA = ("ECC", "uncorrectable", "fallen off the bus", "NVLink", "nvlink", "Xid")
_SW_CUDA = ("device-side assert", "misaligned address", "invalid argument",
            "invalid device function",
            "no kernel image", "out of bounds", "invalid configuration")


# A CUDA error its writer recovered from: a warning (torch's `UserWarning: … CUDA error`), or
# inductor's autotuning that dropped a candidate (`Runtime error during autotuning: … Ignoring
# this choice.`)
_CUDA_RECOVERED = re.compile(r"\w*Warning: |\bWARNING\b|Ignoring this choice")


def _post_cuda(fields: Fields, payload: str) -> tuple[EventKind, Level, Fields] | None:
    if "Triton Error" in payload and _CUDA_RECOVERED.search(payload) is not None:
        return None
    message = str(fields.get("message", ""))
    if "out of memory" in message.lower() or "_STATUS_ALLOC_FAILED" in message:
        # (cuBLAS or cuDNN that could not allocate its workspace)
        return EventKind.CUDA_OOM, Level.FATAL, fields
    if any(word in message for word in _HW_CUDA):
        fields["hardware"] = True
    elif any(word in message for word in _SW_CUDA):
        fields["hardware"] = False
    return EventKind.CUDA_ERROR, Level.ERROR, fields


def _post_oom(fields: Fields, payload: str) -> tuple[EventKind, Level, Fields] | None:
    if "running low on memory" in payload:
        return None  # Ray's OutOfMemoryError: the host's memory (a HOST_OOM line)
    if "more than 1EB" in payload:
        fields["bad_size"] = True
    # torch >= 2.1 lists the GPU's processes (`Process 4242 has 15.75 GiB memory in use`);
    # when it lists one, that is the process that ran out
    users = re.findall(r"Process (\d+) has [\d.]+ ?[KMGT]i?B memory in use", payload)
    # (where the process sees itself, torch says `this process has …`: the one listed is
    # another process on that GPU)
    if len(users) == 1 and "pid" not in fields and "this process has" not in payload:
        fields["pid"] = int(users[0])
    return EventKind.CUDA_OOM, Level.FATAL, fields


def _post_gpu_fault(fields: Fields, payload: str) -> tuple[EventKind, Level, Fields]:
    if "AER:" in payload:
        # the device behind the port that reported (`… error message received from
        # 0000:5e:00.0`): a GPU's or another card's
        source = re.search(r"received(?: from)?:? ([0-9a-fA-F]{4}:[0-9a-fA-F:.]*[0-9a-fA-F])", payload)
        if source is not None:
            fields["source"] = source.group(1)
        if re.search(r"\bCorrect(?:ed|able) error\b|\bseverity=Correct(?:ed|able)\b",
                     payload) is not None:
            # a corrected PCIe error is recorded, and the link goes on
            return EventKind.GPU_FAULT, Level.INFO, {**fields, "corrected": True}
    return EventKind.GPU_FAULT, Level.FATAL, fields


_XID_SOFTWARE = frozenset({13, 31, 43})
_XID_SECONDARY = frozenset({45})
# recorded, not fatal: a high corrected-ECC rate, a row remap recorded for the next reset
_XID_INFO = frozenset({63, 92})


def _post_xid(fields: Fields, payload: str) -> tuple[EventKind, Level, Fields]:
    xid = fields.get("xid")
    pci = str(fields.get("pci", ""))
    # `0000:b7:00` in the Xid line and `0000:b7:00.0` in the driver's next line: one GPU
    fields["pci"] = re.sub(r"\.0$", "", pci.removeprefix("PCI:").rstrip(":"))
    cause = re.search(r"caused by previous Xid (\d+)", payload)
    if cause:
        fields["caused_by"] = int(cause.group(1))
    if "fallen off the bus" in payload:
        fields.setdefault("xid", 79)
        xid = 79
    if isinstance(xid, int):
        if xid in _XID_SECONDARY:
            fields["role"] = "secondary"
        elif xid in _XID_INFO:
            fields["role"] = "info"
        elif xid in _XID_SOFTWARE:
            fields["role"] = "software"
        else:
            fields["role"] = "hardware"
    # (a recorded note, not a fault: the job goes on)
    return EventKind.XID, Level.INFO if fields.get("role") == "info" else Level.FATAL, fields


_CANCEL_REASONS = {"TIME LIMIT": "time_limit", "PREEMPTION": "preemption",
                   "NODE FAILURE": "node_failure"}


def _post_slurm_cancel(fields: Fields, _payload: str) -> tuple[EventKind, Level, Fields]:
    reason = str(fields.get("reason") or "").strip()
    fields["reason"] = _CANCEL_REASONS.get(reason, reason.lower().replace(" ", "_") or "cancelled")
    if fields.get("node") is None and fields.get("node_old"):
        fields["node"] = fields.pop("node_old")
    return EventKind.SLURM_CANCEL, Level.FATAL, fields


def _post_slurm_oom(fields: Fields, payload: str) -> tuple[EventKind, Level, Fields]:
    node = re.search(r"slurmstepd-([\w.\-]+):", payload)
    if node:
        fields["node"] = node.group(1)
    return EventKind.SLURM_OOM, Level.FATAL, fields


def expand_task_list(spec: str) -> tuple[int, ...]:
    """srun task lists: `0-1,3,6` → (0, 1, 3, 6)."""
    out: list[int] = []
    for part in spec.replace(" ", "").split(","):
        if "-" in part:
            lo, _, hi = part.partition("-")
            if lo.isdigit() and hi.isdigit() and int(hi) - int(lo) < 100_000:
                out.extend(range(int(lo), int(hi) + 1))
        elif part.isdigit():
            out.append(int(part))
    return tuple(out)


def _post_task_exit(fields: Fields, _payload: str) -> tuple[EventKind, Level, Fields]:
    fields["tasks"] = expand_task_list(str(fields.pop("task_list", "")))
    status = str(fields.get("status_text", ""))
    m = re.search(r"exit code (\d+)", status)
    if m:
        fields["exitcode"] = int(m.group(1))
    elif status:
        lowered = status.lower()
        if "out of memory" in lowered:
            fields["oom"] = True
        name = signal_name(status)
        if name:
            fields["signal"] = name
    return EventKind.SLURM_TASK_EXIT, Level.FATAL, fields


_NCCL_CODES = (
    ("ncclUnhandledCudaError", "unhandled_cuda"), ("unhandled cuda error", "unhandled_cuda"),
    ("ncclSystemError", "system"), ("unhandled system error", "system"),
    ("ncclInternalError", "internal"), ("internal error - please report", "internal"),
    ("ncclInvalidArgument", "invalid_argument"), ("ncclInvalidUsage", "invalid_usage"),
    ("ncclRemoteError", "remote"), ("remote process exited or there was a network error", "remote"),
)


def _post_nccl_error(fields: Fields, payload: str) -> tuple[EventKind, Level, Fields]:
    for needle, code in _NCCL_CODES:
        if needle in payload:
            fields["nccl_code"] = code
            break
    version = re.search(r"NCCL version ([\d.]+)", payload)
    if version:
        fields["nccl_version"] = version.group(1)
    return EventKind.NCCL_ERROR, Level.ERROR, fields


_BENIGN_NCCL_WARNS = ("Failed to open libibverbs", "NET/Plugin", "Could not find: libnccl-net",
                      "No device found")


# NCCL's own refusal of a communicator the job set up wrong (bootstrap.cc, init.cc, ras.cc):
# the call fails there, so these are errors, not warnings
_NCCL_REFUSALS = ("has already checked in", "mismatch in rank count from procs",
                  "Mismatched NCCL version detected", "NCCL version mismatch with remote peer",
                  "Duplicate GPU detected")


def _post_nccl_warn(fields: Fields, payload: str) -> tuple[EventKind, Level, Fields]:
    if any(word in payload for word in _BENIGN_NCCL_WARNS):
        return EventKind.NCCL_WARN, Level.INFO, fields
    if "out of memory" in payload:
        return EventKind.CUDA_OOM, Level.FATAL, fields
    if any(word in payload for word in _NCCL_REFUSALS):
        return EventKind.NCCL_WARN, Level.ERROR, fields
    return EventKind.NCCL_WARN, Level.WARNING, fields


# IB completion status: 5 (work request flushed, IBV_WC_WR_FLUSH_ERR) is a consequence of
# another failure.
IB_FLUSHED = frozenset({5})
_SOCKET_CONSEQUENCE = ("Broken pipe", "Connection closed by remote peer",
                       "Connection reset by peer",
                       "Socket recv failed")


def net_details(fields: Fields, payload: str) -> Fields:
    """Normalise an NCCL network failure's fields (status, transport, consequence flag)."""
    status = fields.get("status")
    if status is None and isinstance(fields.get("status_alt"), int):
        status = fields["status"] = fields.pop("status_alt")
    fields.pop("status_alt", None)
    if (isinstance(status, int) and status in IB_FLUSHED) or any(
        word in payload for word in _SOCKET_CONSEQUENCE
    ):
        fields["consequence"] = True
    if fields.get("op") in ("Unknown", "Close", "Stop", "Abort"):
        # proxy.cc's service thread losing a local rank's connection (`Could not receive type
        # from localRank 3, res=3, closed=1`, then `Failed to execute operation Unknown …`: no
        # command was read) or closing it: a process going away, at teardown or after a failure
        fields["consequence"] = True
    fields["transport"] = "ib" if "NET/IB" in payload else "socket"
    return fields


# NCCL's socket connect in its own function's words, pasted without NCCL's prefix (or as a
# `Last error:` line): `socketPollConnect: connect to 22.11.219.25<47479> returned Connection
# refused, exceeded error retry count after 35 attempts` (its INFO lines while it retries are
# no failure)
_SOCKET_CONNECT_QUOTED = re.compile(r"(?:^|[\s>|\]])(?:ncclOs)?[Ss]ocket(?:Poll|Start)Connect: "
                                    r"[Cc]onnect to \S+<\d+> ")


def _post_net(fields: Fields, payload: str) -> tuple[EventKind, Level, Fields] | None:
    if " NCCL WARN " not in payload:
        if not payload.startswith(("Net : ", "NET/")) and "Net : Call to" not in payload[:80] \
                and (_SOCKET_CONNECT_QUOTED.search(payload[:120]) is None
                     or " NCCL INFO " in payload or "retrying" in payload):
            return None  # the same text as a `Last error:` line belongs to its nccl_error
        fields["quoted"] = True  # NCCL's last error, printed on a line of its own
    fields = net_details(fields, payload)
    if fields.get("op") in ("Unknown", "Close", "Stop", "Abort"):
        return EventKind.NCCL_WARN_NET, Level.WARNING, fields  # (see net_details)
    return EventKind.NCCL_WARN_NET, Level.ERROR, fields


def _post_mpi_exit(fields: Fields, payload: str) -> tuple[EventKind, Level, Fields]:
    # an MPI_Abort with errorcode 0 ends the job on purpose, after its work
    if fields.get("exitcode") == 0 and "bort" in payload:
        return EventKind.MPI_EXIT, Level.INFO, fields
    if "MPI_ABORT was invoked" in payload and fields.get("exitcode") is None:
        # Open MPI's errorcode is on a line below: the rule reads it there
        return EventKind.MPI_EXIT, Level.WARNING, fields
    return EventKind.MPI_EXIT, Level.ERROR, fields


def _post_launch_nodes(fields: Fields, payload: str) -> tuple[EventKind, Level, Fields] | None:
    nodes = launch_nodes(payload)
    if nodes is None and not names_nodes_flag(payload):
        return None
    return EventKind.LAUNCH_NODES, Level.INFO, {"nodes": nodes}


def _post_retry(fields: Fields, payload: str) -> tuple[EventKind, Level, Fields]:
    attempt, most = fields.get("attempt"), fields.get("max_attempts")
    exhausted = bool(re.search(r"Max retries exceeded|[Rr]etries exhausted|[Gg]iving up|"
                               r"[Rr]etry limit|[Nn]o more retries|"
                               # torchft's manager: `lighthouse quorum failed after 20
                               # retries.`, `should_commit failed 4 times consecutively,
                               # exceeding max_retries=3`
                               r"\bfailed after \d+ retries\b|\bexceeding max_retries=\d+",
                               payload))
    if isinstance(attempt, int) and isinstance(most, int) and most > 0 and attempt >= most:
        exhausted = True
    if fields.get("remaining") == 0:
        exhausted = True
    if "' thrown while requesting " in payload:
        # huggingface_hub's backoff quotes the request's own failure (urllib3's `Max retries
        # exceeded`) and then tries again (`Retrying in 1s [Retry 1/5].`)
        exhausted = False
    fields["exhausted"] = exhausted
    fields["context"] = retry_context(payload)
    return EventKind.RETRY, Level.ERROR if exhausted else Level.INFO, fields


_STORAGE_WORDS = ("s3", "S3", "boto", "gcs", "GCS", "blob", "http://", "https://", "huggingface",
                  "urllib3", "HTTP", "nfs", "NFS", "lustre", "Lustre", "hdfs", "fsspec", "storage",
                  "checkpoint", "Read timed out", "bucket", "object store", "Stale file handle",
                  "Input/output error", "dataset", "Dataset")
_NETWORK_WORDS = ("NCCL", "c10d", "TCPStore", "store", "socket", "Socket", "rendezvous", "gloo")


def retry_context(payload: str) -> str:
    """Is a retry or connection error about storage, the job's network, or unknown?"""
    if any(word in payload for word in _STORAGE_WORDS):
        return "storage"
    if any(word in payload for word in _NETWORK_WORDS):
        return "network"
    return "unknown"


def _post_connection(fields: Fields, payload: str) -> tuple[EventKind, Level, Fields] | None:
    if " NCCL " in payload:
        return None  # NCCL's own lines are nccl_warn_net
    fields["context"] = retry_context(payload)
    return EventKind.CONNECTION_ERROR, Level.WARNING, fields


_STORE_WENT = ("Connection reset by peer", "Broken pipe", "Connection closed by peer",
               # torch 2.4+: `Failed to recv, got 0 bytes. Connection was likely closed.`
               "Connection was likely closed")


def _post_store(fields: Fields, payload: str) -> tuple[EventKind, Level, Fields]:
    timeout = fields.pop("timeout_text", None)
    if isinstance(timeout, str):
        m = re.match(r"(\d+)(ms|s)", timeout)
        if m:
            fields["timeout_ms"] = int(m.group(1)) * (1 if m.group(2) == "ms" else 1000)
    if "timeout_seconds" in fields and isinstance(fields["timeout_seconds"], int):
        fields["timeout_ms"] = fields["timeout_seconds"] * 1000
    if "while trying to connect" in payload or "failed to connect" in payload:
        fields["phase"] = "connect"
        if re.match(r"\W*(?:\[W |\[?W\d{3,4} \d\d:)", payload):
            # c10d's client logs each connect it will retry as a warning (glog's `[W …]`,
            # `W0910 02:10:41`; c10's own `[W910 02:10:41.336141828 socket.cpp:697]`)
            return EventKind.STORE_TIMEOUT, Level.WARNING, fields
    elif "waitForInput" in payload:
        fields["phase"] = "wait"
        fields["socket_wait"] = True
    elif "Waiting in store based barrier" in payload and "timed out" not in payload:
        # Printed every 10 s while ranks join: a healthy start shows it too. Only a start
        # that never got past it (nothing after it) is a timeout.
        fields["phase"] = "barrier_wait"
    elif fields.get("op") in ("recv", "send"):
        # gloo's pair transport: a collective (or monitoredBarrier) waited for a peer, any
        # time in the job, not the startup rendezvous.
        fields["phase"] = "collective"
    elif any(w in str(fields.get("error", "")) for w in _STORE_WENT):
        # The store answered, then its connection broke (`store->get('0') got error:
        # Connection reset by peer`): the store's host went away; nothing timed out.
        fields["phase"] = "nccl_id"
        return EventKind.STORE_CONNECTION_LOST, Level.ERROR, fields
    else:
        fields["phase"] = "wait"
    return EventKind.STORE_TIMEOUT, Level.ERROR, fields


def _post_pg_status(fields: Fields, payload: str) -> tuple[EventKind, Level, Fields]:
    if "Timeout at NCCL work" in payload:
        fields["source"] = "timeout_at"
    elif "failure detected by watchdog" in payload or "detected by watchdog" in payload:
        fields["source"] = "watchdog"
    elif "signal" in payload:
        fields["source"] = "dump_signal"
    else:
        fields["source"] = "periodic"
    return EventKind.PG_STATUS, Level.ERROR, fields


def _post_fr(fields: Fields, payload: str) -> tuple[EventKind, Level, Fields]:
    if "Stack trace of the failed collective" in payload:
        fields["role"] = "dump"
        fields["stack_recorded"] = "not found" not in payload
    if "role" not in fields:
        if any(word in payload for word in _FR_INITIATOR):
            fields["role"] = "initiator"
        elif any(word in payload for word in _FR_OBSERVER) or "source_rank" in fields:
            fields["role"] = "observer"
        else:
            fields["role"] = "dump"
    return EventKind.FR_DUMP, Level.ERROR if fields["role"] != "dump" else Level.INFO, fields


_FR_INITIATOR = ("First PG on this rank to signal dumping", "First watchdog to set the dump signal",
                 "dump signal to other processes via TCPStore", "from this local rank")
_FR_OBSERVER = ("Observed flight recorder dump signal from another rank",
                "Received a global timeout from another rank", "Received a global dump signal",
                "detecting the dump signal through tcpstore", "collective timeout from  rank",
                "collective timeout from rank")


_WORKER_SIGNALS = {"killed": "killed", "terminated": "terminated", "bus error": "bus_error",
                   "segmentation fault": "segfault", "aborted": "aborted",
                   "floating point exception": "fpe"}


def _post_dataloader(fields: Fields, payload: str) -> tuple[EventKind, Level, Fields]:
    text = str(fields.get("cause_text", "")).lower() + " " + payload.lower()
    # `is killed by signal: {strsignal}`: the signal's own name, not the word "killed"
    named = re.search(r"killed by signal: ([a-z ]+)", text)
    signal = named.group(1).strip() if named else ""
    if signal in _WORKER_SIGNALS:
        cause = _WORKER_SIGNALS[signal]
    elif "bus error" in text:
        cause = "bus_error"
    elif "killed" in text:
        cause = "killed"
    elif "segmentation fault" in text:
        cause = "segfault"
    elif "caught" in text:
        cause = "exception"
    elif "floating-point" in text or "floating point" in text:
        cause = "fpe"
    elif "aborted" in text:
        cause = "aborted"
    else:
        cause = "exited"
    fields.pop("cause_text", None)
    fields["cause"] = cause
    if "shared memory" in payload or "shm" in payload:
        fields["shm"] = True
    return EventKind.DATALOADER_WORKER_DIED, Level.FATAL, fields


def _post_desync(fields: Fields, _payload: str) -> tuple[EventKind, Level, Fields]:
    culprits = fields.pop("culprit_list", None)
    if isinstance(culprits, str):
        named = sorted({int(r) for r in re.findall(r"Culprit rank (\d+);", culprits)})
        fields["ranks"] = tuple(named) if len(named) == 1 else ()
    ranks = fields.pop("rank_list", None)
    if isinstance(ranks, str):
        fields["ranks"] = tuple(int(r) for r in re.findall(r"\d+", ranks))
    ready = fields.pop("ready_list", None)
    if isinstance(ready, str):
        present = {int(r) for r in re.findall(r"\d+", ready)}
        fields["ranks"] = tuple(r for r in range(max(present)) if r not in present)
    return EventKind.DESYNC_REPORT, Level.ERROR, fields


def _post_agent_failed(fields: Fields, _payload: str) -> tuple[EventKind, Level, Fields]:
    if fields.pop("ds_exit", None):
        fields["launcher"] = "deepspeed"
    code = fields.get("exitcode")
    if isinstance(code, int) and code < 0:
        fields["signal"] = signal_name(code)
    return EventKind.AGENT_WORKER_FAILED, Level.FATAL, fields


def _post_heartbeat(fields: Fields, payload: str) -> tuple[EventKind, Level, Fields]:
    if "Terminating the process" in payload or "will finally kill" in payload:
        fields["terminating"] = True
    return EventKind.HEARTBEAT_HANG, Level.FATAL, fields


# --- the table --------------------------------------------------------------------------

_INT = r"(-?\d+)"
PG_PREFIX = re.compile(
    r"\[PG (?:ID (?P<pg_id>\d+) PG GUID (?P<pg_guid>[^ (\]]*)|(?P<pg_name>[^ (\]\[]+))"
    r"(?: ?\((?P<pg_desc>[^)]*)\))? Rank (?P<pg_rank>\d+)\]"
)
WORK_RANK = re.compile(r"\[Rank (?P<pg_rank>\d+)\]")
NCCL_LINE = re.compile(
    r"(?P<host>[\w.\-]+):(?P<pid>\d+):(?P<tid>\d+) \[(?P<cuda_dev>\d+)\] "
)

PATTERNS: tuple[LinePattern, ...] = (
    LinePattern(
        EventKind.DDP_MISMATCH, Level.FATAL,
        ("has inconsistent", "did not receive grad for rank"),
        _rx(
            r"Rank (?P<reporter_rank>\d+) has (?P<count>\d+) params, while rank "
            r"(?P<peer_rank>\d+) has inconsistent (?P<expected>\d+) params",
            # DDP's reducer: "Expected to have finished reduction in the prior iteration…"
            r"Parameter(?:s| indices) which did not receive grad for rank (?P<unused_rank>\d+)",
        ),
    ),
    LinePattern(
        EventKind.CHECKPOINT_FAILED, Level.FATAL,
        ("CheckpointException ranks:",),
        _rx(r"CheckpointException ranks:dict_keys\(\[(?P<ranks>[\d, ]*)\]\)"),
    ),
    LinePattern(
        EventKind.MONITORED_BARRIER, Level.FATAL,
        ("monitoredBarrier",),
        _rx(
            r"Ranks? (?P<ranks>\d+(?:, ?\d+)*) failed to pass monitoredBarrier",
            # a non-root rank: it reached the barrier and rank 0, which alone enforces the
            # timeout, did not answer; rank 0's own report names who did not arrive
            r"(?:Rank (?P<reporter_rank>\d+) successfully reached monitoredBarrier, but )?"
            r"received errors while waiting for send/recv from rank (?P<coordinator>\d+)",
        ),
    ),
    LinePattern(
        EventKind.COLLECTIVE_MISMATCH, Level.FATAL,
        ("Detected mismatch between collectives", "Mismatched collective detected",
         "message truncated : receiving", "Shape mismatch in the collective instance",
         "bytes received but buffer size is", "message sizes do not match across processes",
         "collective mismatch error",
         "Inconsistent output shapes", "has group_size", "is joining a group with size",
         "doesn't match expected size", "but another rank", "op.preamble.length <= op.nbytes"),
        _rx(
            # gloo's TCP pair got another size than its op expects (`… pair.cc:456]
            # op.preamble.length <= op.nbytes. 1536 vs 1024. Received data size doesn't match
            # expected size. Is there a distributed collective mismatch in your code?`)
            r"(?P<message>Received data size doesn't match expected size\b.*)",
            # the same check as upstream gloo prints it, bare (`[enforce fail at
            # ../third_party/gloo/gloo/transport/tcp/pair.cc:446] op.preamble.length <=
            # op.nbytes. 4096 vs 2048`): the peer sent more than this rank's buffer holds
            r"(?P<message>\[enforce fail at [^\]]*\] op\.preamble\.length <= op\.nbytes\. "
            r"\d+ vs \d+.*)",
            # Horovod's coordinator on ranks that asked for one tensor differently (`Mismatched
            # ALLREDUCE tensor shapes: One rank sent a tensor of shape [4], but another rank
            # sent …`, root ranks, data types, operations, reduction ops)
            r"(?P<message>Mismatched [\w /-]{3,60}: One rank .{0,200}?, but another rank .*)",
            r"(?P<message>Detected mismatch between collectives on ranks.*)",
            # TensorFlow's collective ops: the members of one collective brought different
            # shapes, or disagree on the group's size
            r"(?P<message>Shape mismatch in the collective instance \d+\..*)",
            r"(?P<message>Inconsistent output shapes, got \[[\d, ]*\], but expected is "
            r"\[[\d, ]*\].*)",
            r"(?P<message>Collective Op\b.{0,120}? has group_size \d+ and group_key ?\d+ but "
            r"that group has size \d+.*)",
            r"(?P<message>Device \S+ is joining a group with size ?\d+, but that group has size "
            r"\d+.*)",
            r"(?P<message>Mismatched collective detected.*?around rank (?P<peer_rank>\d+).*)",
            # NCCL's socket transport (net_socket.cc): the peer sent another size than this
            # rank expects, "a mismatch in collective sizes"
            # (before NCCL 2.5 with no peer: `NET/Socket : message truncated : receiving 696320
            # bytes instead of 32768`)
            r"(?P<message>NET/Socket : (?:peer (?P<peer>[\w.:%\-]+)(?:<\d+>)? )?message truncated : "
            r"receiving \d+ bytes instead of \d+.*)",
            # its IB transport's own check (net_ib.cc): `NET/IB : req 0/1 tag 7 peer
            # 10.0.0.14<44512> collective mismatch error, local size 2097152 remote size 1048576`
            r"(?P<message>NET/IB : req \S+ tag \S+ peer (?P<peer>[\w.:%\-]+)(?:<\d+>)? collective "
            r"mismatch error, local size \d+ remote size \d+.*)",
            # MPI's MPI_ERR_TRUNCATE (MPICH and Microsoft MPI: `Message from rank 3 and tag 1
            # truncated; 1020000 bytes received but buffer size is 48`) and MPICH's collectives
            # (`message sizes do not match across processes in the collective routine`)
            r"(?P<message>Message from rank \d+ and tag \d+ truncated; \d+ bytes received but "
            r"buffer size is \d+.*)",
            r"(?P<message>message sizes do not match across processes in the collective "
            r"routine.*)",
        ),
    ),
    LinePattern(
        EventKind.STORAGE_WRITE, Level.FATAL,
        ("PytorchStreamWriter failed", "No space left on device", "Disk quota exceeded",
         "StorageFull", "EXT4-fs error", "I/O error", "Filesystem has been shut down",
         "not responding, still trying", " error, dev "),
        _rx(
            r"(?P<message>PytorchStreamWriter failed writing file.*|"
            r"\[Errno 28\] No space left on device.*|\[Errno 122\] Disk quota exceeded.*|"
            r"No space left on device.*|Disk quota exceeded.*)",
            # the kernel's word on a file system under the job: ext4, XFS, the block layer,
            # an NFS server gone quiet
            r"(?P<message>EXT4-fs error \(device (?P<device>[\w\-]+)\).*)",
            r"(?P<message>XFS \((?P<device>[\w\-]+)\): (?:log I/O error|metadata I/O error|"
            r"Filesystem has been shut down).*)",
            r"(?P<message>blk_update_request: I/O error, dev (?P<device>\w+).*)",
            # ... in its words since 4.18 (`critical medium error, dev sdb, sector 7340…`) and
            # the page cache's (`Buffer I/O error on dev sdb1, logical block …`)
            r"(?P<message>(?:I/O|critical (?:medium|target|nexus|space allocation)|"
            r"recoverable transport|timeout|protection) error, dev (?P<device>\w+), sector .*)",
            r"(?P<message>Buffer I/O error on dev (?P<device>\w+), logical block .*)",
            r"(?P<message>nfs: server (?P<server>[\w.\-]+) not responding, still trying)",
        ),
    ),
    LinePattern(
        EventKind.GPU_FAULT, Level.FATAL,
        ("Unable to determine the device handle", "AER:", "fallen off the bus", "The NVIDIA GPU"),
        _rx(
            r"The NVIDIA GPU (?P<pci>[0-9a-fA-F]{4}:[0-9a-fA-F:.]+)\s*$",
            r"Unable to determine the device handle for (?i:gpu) ?(?P<pci>[0-9a-fA-F:.]+): "
            r"(?P<message>.*)",
            # the root port reports the device it received the error from
            # (5.x: `AER: Uncorrected (Non-Fatal) error received: 0000:41:00.0`; 6.x: `AER:
            # Uncorrectable (Fatal) error message received from 0000:41:00.0`, `Multiple …`)
            r"pcieport [0-9a-fA-F:.]+: AER: (?P<message>(?:Multiple )?(?:Uncorrect(?:ed|able)|"
            r"Correct(?:ed|able))(?: \([\w-]+\))? error (?:message )?received(?: from)?:? "
            r"(?P<pci>[0-9a-fA-F]{4}:[0-9a-fA-F:.]*[0-9a-fA-F]).*)",
            r"pcieport (?P<pci>[0-9a-fA-F:.]+): AER: (?P<message>.*)",
            r"(?P<message>fallen off the bus.*)",
        ),
        post=_post_gpu_fault,
    ),
    LinePattern(
        # `ray.exceptions.RayTaskError(RuntimeError): ray::WorkerDict.save() (pid=21050,
        # ip=…)`: the worker process whose error the lines below show (read in triage only).
        # An actor's constructor that raised: `ActorDiedError: The actor died because of an
        # error raised in its creation task, ray::group:Worker.__init__() (pid=…, ip=…, …,
        # repr=Worker[rank=3])`; a worker group's repr states the worker's rank.
        EventKind.RAY_TASK_ERROR, Level.INFO,
        ("RayTaskError", "error raised in its creation task", "ray::"),
        _rx(r"(?:(?:RayTaskError(?:\((?P<exc>\w+)\))?:|error raised in its creation task,) |^)"
            r"ray::(?P<task>[\w.<>:\-]+)\(\) \(pid=(?P<pid>\d+), ip=(?P<ip>[^,)\s]+)"
            r"(?:[^)]*?repr=\w+\[rank=(?P<repr_rank>\d+)\])?"),
    ),
    LinePattern(
        # torchrun's agent on the rendezvous it completed (`Rendezvous complete for workers.
        # Result:`, then a field a line): its workers' local ranks, and the global ranks they
        # are, in the same order (read in triage only)
        EventKind.RDZV_RANKS, Level.INFO,
        ("local_ranks=", "global_ranks="),
        # (torch 2.5+ logs the block through its glog-style handler, which heads every line:
        # `I1210 18:28:01.790000 1 site-packages/torch/distributed/elastic/agent/server/
        # api.py:525]   global_ranks=[4, 5, 6, 7]`)
        _rx(r"^(?:[IWEF]\d{4} [\d:.]+ +\d+ \S+:\d+\])?\s*(?P<which>local_ranks|global_ranks)="
            r"\[(?P<ranks>\d+(?:, \d+)*)\]\s*$"),
    ),
    LinePattern(
        # DeepSpeed's launcher as it starts each worker (launch.py: `process 23458 spawned
        # with command: ['/usr/bin/python3', '-u', 'train.py', '--local_rank=2', …]`): that
        # worker's own command, so its pid and local rank (read in triage only)
        EventKind.WORKER_SPAWNED, Level.INFO,
        ("spawned with command",),
        _rx(r"\bprocess (?P<pid>\d+) spawned with command: \[.*?['\"]--local_rank=(?P<local_rank>\d+)['\"]"),
    ),
    LinePattern(
        # Ray Train's table of the worker group it started: `Started distributed worker
        # processes:`, then a row per worker, `- (node_id=…, ip=10.0.1.5, pid=30390)
        # world_rank=2, local_rank=2, node_rank=0` (read in triage only)
        EventKind.RAY_WORKER_RANK, Level.INFO,
        ("world_rank=", "Setting up process group for"),
        _rx(r"\bip=(?P<ip>[^,)\s]+), pid=(?P<pid>\d+)\) world_rank=(?P<world_rank>\d+), "
            r"local_rank=(?P<local_rank>\d+)",
            # each worker's own line as it joins (ray/train/torch/config.py: `(RayTrainWorker
            # pid=48213, ip=10.0.0.4) Setting up process group for: env:// [rank=1,
            # world_size=2]`)
            # (the actor's pid and host are its prefix's)
            r"^Setting up process group for: \S+ \[rank=(?P<world_rank>\d+), world_size=\d+\]"),
    ),
    LinePattern(
        # NCCL's socket connect prints this once per 1,000 refused tries (about a second);
        # after 20,000 it gives up with a WARN (read in triage only). NCCL 2.19 and later
        # name the peer and count the tries: `socketPollConnect: connect to 10.0.0.5<52333>
        # returned Connection refused, retrying (18/34) after sleep for 1800 msec`.
        EventKind.NCCL_CONNECT_RETRY, Level.INFO,
        # (NCCL 2.27 renamed the function `ncclOsSocketPollConnect`)
        ("Call to connect returned", "ocketPollConnect: connect"),
        _rx(r"NCCL INFO Call to connect returned (?P<error>[^,]+), retrying",
            r"NCCL INFO (?:ncclOs)?[Ss]ocketPollConnect: connect "
            r"(?:to (?P<peer>[^\s<]+)<(?P<peer_port>\d+)> )?"
            r"returned (?P<error>[^,]+), retrying"),
    ),
    LinePattern(
        # NCCL INFO traces a failed call back up its callers, one `file:line -> code` line
        # each (read in triage only). The lines from its socket and verbs code tell where a
        # call failed: `misc/socket.cc:567 -> 2` is a socket system call that failed (code 2,
        # ncclSystemError); code 6 is a peer that went away, 3 NCCL's own internal error.
        # Its abort of a socket wait (`Socket progress: abort called`, 2.12-2.13) is kept too:
        # the trace after it is the abort's, not a failed call's.
        EventKind.NCCL_NET_CALL_FAILED, Level.INFO,
        ("socket.cc:", "socket.h:", "net_ib.cc:", "ibvwrap.cc:", "abort called"),
        _rx(r"NCCL INFO (?P<source>(?:\S*/)?(?:socket|net_socket|net_ib|ibvwrap)\.(?:cc|h)):\d+"
            r" -> (?P<code>\d+)(?: \([^)]*\))?(?: \[[^\]]*\])?\s*$",
            r"NCCL INFO (?P<abort>Socket progress: abort called)"),
    ),
    LinePattern(
        # Open MPI's orterun help texts (read in triage only): `mpirun noticed that process
        # rank 3 with PID 0 on node n2 exited on signal 9 (Killed).`, and for an exit status
        # `The first process to do so was:` … `  Process name: [[41237,1],5]`.
        EventKind.MPI_EXIT, Level.ERROR,
        ("noticed that process rank", "noticed that job rank", "Process name: ",
         "exit with status code", "died unexpectedly", "terminated with signal", "died, exit code", "exited with code", "was aborted",
         "RUNNING AT", "Abort(", "MPI_ABORT was invoked", "has exited due to process rank",
         "reported by process", "died from signal", "text_generation_launcher: Shard ",
         "]: aborting job"),
        # (Open MPI 1.2-1.3 said `job rank`; one era's build printed `OID` for `PID`)
        _rx(r"noticed that (?:process|job) rank (?P<mpi_rank>\d+) with [PO]ID (?P<pid>\d+) on node "
            r"(?P<node>[\w.\-]+) exited on(?: signal (?P<signo>\d+)(?: \((?P<signal_text>[^)]+)\))?)?",
            r"Process name: \[\[\d+,\d+\],(?P<mpi_rank>\d+)\]",
            # PRRTE (Open MPI 5) names a process `[prterun-host-11843@1,3]`
            r"Process name: \[[\w.\-]+@\d+,(?P<mpi_rank>\d+)\]",
            # a process's own MPI_Abort: MPICH and Intel MPI (`Abort(3) on node 3 (rank 3 in
            # comm 0): application called MPI_Abort(MPI_COMM_WORLD, 3) - process 3`), Cray
            # MPICH (`- Abort(-1) (rank 0 in comm 0): …`), Open MPI (`MPI_ABORT was invoked on
            # rank 3 in communicator MPI_COMM_WORLD with errorcode 3`); comm 0 is the world
            r"Abort\((?P<exitcode>-?\d+)\)(?: on node \d+)? \(rank (?P<mpi_rank>\d+) in comm 0\)",
            # (MPICH's `on node N` is the process's rank in MPI_COMM_WORLD, whatever
            # communicator it aborted on: NWChem's `Abort(-1) on node 0 (rank 0 in comm 496):
            # application called MPI_Abort(comm=0x84000001, -1) - process 0`)
            r"Abort\((?P<exitcode>-?\d+)\) on node (?P<mpi_rank>\d+) \(rank \d+ in comm \d+\)",
            r"application called MPI_Abort\(MPI_COMM_WORLD, (?P<exitcode>-?\d+)\) - process "
            r"(?P<mpi_rank>\d+)",
            r"MPI_ABORT was invoked on rank (?P<mpi_rank>\d+) in communicator MPI_COMM_WORLD"
            r"(?: with errorcode (?P<exitcode>-?\d+))?",
            # Open MPI 5's report of the process that ended the job (`prterun has exited due to
            # process rank 3 with PID 11807 on node cn-0107 calling "abort"` / `exiting`)
            r"has exited due to process rank (?P<mpi_rank>\d+) with PID (?P<pid>\d+) on node "
            r"(?P<node>[\w.\-]*\w)",
            # MVAPICH2's spawner on the process it lost (`[gpu-n3:mpispawn_1][child_handler] MPI
            # process (rank: 3, pid: 118822) terminated with signal 11 -> abort job`)
            r"MPI process \(rank: (?P<mpi_rank>\d+), pid: (?P<pid>\d+)\) terminated with signal "
            r"(?P<signo>\d+)",
            # MPICH 3's ch3 client on its own abort, above its error stack (`[cli_4]: aborting
            # job:`, then `Fatal error in PMPI_Bcast: Invalid root, error stack:`)
            r"\[cli_(?P<mpi_rank>\d+)\]: aborting job\b",
            # Open MPI's error handler: `*** reported by process [847773697,2]`
            r"\*\*\* reported by process \[\d+,(?P<mpi_rank>\d+)\]",
            # HPE PALS' mpiexec: `x4117c3s3b0n0: rank 6 died from signal 9`
            r"(?P<node>[\w.\-]+): rank (?P<mpi_rank>\d+) died from signal (?P<signo>(?!15\b)\d+)",
            # horovodrun's gloo launcher: the rank (static) or `host[local_rank]` (elastic)
            r"^\s*Process name: (?:(?P<process_name>[\w.\-]+\[\d+\])|(?P<mpi_rank>\d+))\s*$",
            # vLLM's executors: `Worker proc VllmWorker-3 died unexpectedly`, `Worker
            # VllmWorkerProcess pid 12345 died, exit code: -9`, `RayWorkerProc rank=[3] died
            # unexpectedly`; Kubeflow's `Pod: ns.worker-2 exited with code 137`
            r"Worker proc (?P<process_name>[\w\-]+) died unexpectedly",
            r"Worker \w+ pid (?P<pid>\d+) died, exit code: (?P<exitcode>-?\d+)",
            r"RayWorkerProc rank=\[(?P<mpi_rank>\d+)\] died unexpectedly",
            r"Pod: (?P<process_name>[\w.\-]+) exited with code (?P<exitcode>[1-9]\d*)",
            # paddle.distributed.launch: `ABORT!!! Out of all 4 trainers, the trainer process
            # with rank=[3] was aborted.` (several failed ranks are not one first failure)
            r"the trainer process with rank=\[(?P<mpi_rank>\d+)\] was aborted",
            # text-generation-inference's launcher on its shard (launcher/src/main.rs: `Shard
            # 1 failed to start`, `Shard 0 crashed`): the shard's rank (RANK of its process)
            r"\btext_generation_launcher: Shard (?P<mpi_rank>\d+) (?P<tgi_shard>failed to start|"
            r"crashed)\s*$",
            # MPICH's Hydra: `=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES` and
            # `=   PID 9665 RUNNING AT node1` (its exit code on the next line); MPICH 4
            # names the rank too (`=   RANK 3 PID 220871 RUNNING AT cn-0412`)
            r"^=\s+(?:RANK (?P<mpi_rank>\d+) )?PID (?P<pid>\d+) RUNNING AT (?P<node>[\w.\-]*\w)",
            # and its static run: `Process 0 exit with status code 137.`
            r"^Process (?:(?P<mpi_rank>\d+)|(?P<process_name>[\w.\-]+\[\d+\])) exit with "
            r"status code (?P<exitcode>\d+)\."),
        post=_post_mpi_exit,
    ),
    LinePattern(
        # MPI's error handler naming the failed call and its error class: MPICH and Intel MPI
        # (`Fatal error in PMPI_Bcast: Invalid root, error stack:`), Open MPI (`*** An error
        # occurred in MPI_Bcast`, then `*** MPI_ERR_TRUNCATE: message truncated`)
        EventKind.MPI_ERROR, Level.ERROR,
        ("Fatal error in ", "*** MPI_ERR_", "*** An error occurred in MPI_"),
        _rx(r"Fatal error in (?P<mpi_call>\w+): (?P<mpi_error>[A-Z][\w ]+?), error stack",
            r"\*\*\* (?P<mpi_error>MPI_ERR_\w+): (?P<message>.*)",
            r"\*\*\* An error occurred in (?P<mpi_call>MPI_\w+)"),
    ),
    LinePattern(
        # A pod of the job evicted from outside (read in triage only): Volcano's job controller
        # `Task:worker, Event:PodEvicted`, `kubectl describe`'s `Reason: Evicted`, an
        # operator's `pod train-worker-3 was evicted`.
        EventKind.POD_EVICTED, Level.FATAL,
        ("PodEvicted", "Evicted", "was evicted", "Preempted", "PreemptionByScheduler",
         "NodeNotReady", "TaintManagerEviction", "workers are evicted",
         "The node was low on resource:"),
        _rx(r"Task:(?P<pod>[\w.\-]+), Event:PodEvicted",
            r"[Pp]od (?P<pod>[\w.\-/]+) was evicted",
            r"^\s*Reason:\s+Evicted\b",
            # `kubectl get events` rows: `Warning  Evicted  pod/w-1  The node was low on …`
            r"\b(?P<what>Evicted|Preempted|TaintManagerEviction)\s+pod/(?P<pod>[\w.\-]+)",
            r"(?P<what>PreemptionByScheduler)",
            r"Node (?P<node>[\w.\-]+) status is now: (?P<what>NodeNotReady)",
            # Kubeflow's MPIJob status: `message: 1/8 workers are evicted`, `MPIJobEvicted`
            r"(?P<what>MPIJobEvicted)", r"\d+/\d+ workers are (?P<what>evicted)",
            # the kubelet's own message of an eviction, in a pod's status (an event's row
            # names the pod first, above): `The node was low on resource: ephemeral-storage.`
            # (not a row of an events table, `Warning  Evicted  2h41m  kubelet  The node …`,
            # whose pod the controller may have created again)
            r"^(?!.*\bEvicted\s).*?\bThe node was low on resource: (?P<what>[\w.\-]+)\."),
    ),
    LinePattern(
        # torchrun's agent, its workers done, waited for the other nodes' agents in vain
        # (read in triage only): `Error waiting on exit barrier. Elapsed: 300.05 seconds`.
        EventKind.EXIT_BARRIER, Level.ERROR,
        ("waiting on exit barrier",),
        _rx(r"Error waiting on exit barrier\. Elapsed: (?P<elapsed>[\d.]+) seconds",
            r"Error waiting on exit barrier"),
    ),
    LinePattern(
        # Open MPI's help text when a peer vanished, its `Peer host:` row a few lines below
        # (read in triage only): `An MPI communication peer process has unexpectedly
        # disconnected.` … `  Peer host:  node17`.
        EventKind.MPI_PEER_LOST, Level.WARNING,
        ("peer process has unexpectedly", "Peer host:", "lost communication with a remote daemon",
         "Remote daemon:"),
        _rx(r"An MPI communication peer process has unexpectedly disconnected",
            r"^\s*Peer host:\s+(?P<peer_host>[\w.\-]*\w)",
            # ORTE (PRTE since Open MPI 5) lost a node's daemon: `Remote daemon:
            # [[55312,0],3] on node gpu-node-4`, PRTE's `[prterun-…@0,5] on node gpu-a-006`
            r"(?P<daemon>[OP]RTE has lost communication with a remote daemon)",
            r"^\s*Remote daemon\s*:\s+\S+ on node (?P<peer_host>[\w.\-]*\w)"),
    ),
    LinePattern(
        # TORCH_DISTRIBUTED_DEBUG=DETAIL: ProcessGroupWrapper logs each rank's collective
        # before running it (read in triage only).
        EventKind.COLLECTIVE_FINGERPRINT, Level.INFO,
        ("Running collective: CollectiveFingerPrint",),
        _rx(
            r"Running collective: CollectiveFingerPrint\((?:SequenceNumber=(?P<seq>\d+), )?"
            r"OpType=(?P<op>\w+)(?:, TensorShape=(?P<shape>\[[^\]]*\]))?"
            r"(?:, TensorDtypes=(?P<dtype>\w+))?",
        ),
    ),
    LinePattern(
        # torchrun's arguments and its elastic config, torch.distributed.launch's master:
        # which endpoint every rank was told to reach (read in triage only).
        EventKind.LAUNCH_ENDPOINT, Level.INFO,
        ("rdzv_endpoint", "rdzv-endpoint", "master_addr", "master-addr", "MASTER_ADDR"),
        _rx(
            # `--rdzv_endpoint=10.0.0.1:29400`, `rdzv_endpoint    : node1` (a host has a digit
            # or a dot: `master_addr, master_port` in code is no endpoint)
            r"rdzv[_-]endpoint['\"]?(?:\s*[=:]\s*|\s+)['\"]?"
            r"(?P<host>[\w\-]*[\d.][\w.\-]*(?<=\w)|localhost|\[[0-9a-fA-F:.]+(?:%[\w.\-]+)?\])"
            r"(?::(?P<port>\d+))?",
            r"(?i:master[_-]addr)['\"]?(?:\s*[=:]\s*|\s+)['\"]?"
            r"(?P<host>[\w\-]*[\d.][\w.\-]*(?<=\w)|localhost)",
        ),
    ),
    LinePattern(
        # NCCL bootstrapping through the root the environment gave it (`NCCL INFO NCCL_COMM_ID
        # set by environment to trainer-0.svc:29700`): the endpoint every rank was told, in
        # fields of its own, apart from the host NCCL's prefix names (read in triage only)
        EventKind.LAUNCH_ENDPOINT, Level.INFO,
        ("NCCL_COMM_ID",),
        # (and where the job's script set it: `export NCCL_COMM_ID=gpu-head-0:29700`)
        _rx(r"NCCL_COMM_ID(?: set by environment to |=)['\"]?(?P<root>[\w.\-]*[\w]|"
            r"\[[0-9a-fA-F:.]+(?:%[\w.\-]+)?\])(?::(?P<root_port>\d+))?"),
    ),
    LinePattern(
        # how many tasks srun starts on each node, from the batch script or its own command
        # line (`#SBATCH --ntasks-per-node=4`, `srun --ntasks-per-node 8 python train.py`):
        # with two or more and no per-node launcher, srun started the ranks (read in triage only)
        EventKind.SRUN_TASKS, Level.INFO,
        ("ntasks-per-node",),
        _rx(r"--ntasks-per-node[= ](?P<per_node>\d+)\b"),
    ),
    LinePattern(
        # how many nodes the job ran (read in triage only): on one node a local rank is the
        # global rank
        EventKind.LAUNCH_NODES, Level.INFO,
        ("nproc", "max_nodes", "group_world_size", "WORLD INFO DICT", "nnodes", "num_machines",
         "num_nodes", "--standalone"),
        _rx(r"(?P<line>.+)"),
        post=_post_launch_nodes,
    ),
    LinePattern(
        EventKind.ACTOR_DIED, Level.FATAL,
        ("actor died unexpectedly", "A worker died or was killed", "because its owner has died",
         "missed too many heartbeats", "because its node has died", "node was terminated",
         "because its worker process has died"),
        _rx(
            r"(?P<message>Owner's node has crashed)",
            r"(?P<message>(?:The )?node with node id:? ?\w+ (?:and address: (?P<ip>[\d.]+) )?"
            r".*?has been marked dead because the detector has missed too many heartbeats.*)",
            r"(?P<message>The actor died because its node has died.*|"
            r"The actor's node was terminated.*)",
            r"Worker IP address: (?P<ip>[\d.]+) .*?Worker PID: (?P<pid>\d+)",
            r"(?P<message>The actor died unexpectedly.*)",
            r"(?P<message>The actor is dead because its worker process has died.*)",
        ),
    ),
    LinePattern(
        EventKind.WATCHDOG_TIMEOUT, Level.ERROR,
        ("Watchdog caught collective operation timeout", "timed out in blocking wait",
         "timed out in call to wait()",
         # torch 1.x with NCCL_BLOCKING_WAIT: `work.wait()` raises the same report
         "Caught collective operation timeout"),
        _rx(
            # the sizes and times are optional: a paste cut at its width still says which
            # collective timed out
            r"WorkNCCL\((?:SeqNum=(?P<seq>\d+), )?OpType=(?P<op>\w+)(?:"
            r"(?:, TensorShape=\[[^\]]*\])?"
            r"(?:, NumelIn=(?P<numel_in>\d+), NumelOut=(?P<numel_out>\d+))?"
            r", Timeout\(ms\)=(?P<timeout_ms>\d+)\)?(?: ran for (?P<ran_ms>\d+) milliseconds)?)?",
            # a paste wrapped by hand after the headline: the timeout is said, its work is not
            r"Watchdog caught collective operation timeout:?\s*$",
        ),
        post=lambda f, p: (
            EventKind.WATCHDOG_TIMEOUT, Level.ERROR,
            {**f, "blocking_wait": "blocking wait" in p or "call to wait()" in p
             or "Watchdog caught" not in p},
        ),
    ),
    LinePattern(
        EventKind.PG_STATUS, Level.ERROR,
        ("ast enqueued",),
        _rx(
            r"(?:Timeout at NCCL work|detected by watchdog at work(?: sequence id)?): ?"
            r"(?P<seq>-?\d+)",
            r"ast enqueued",
        ),
        post=_post_pg_status,
    ),
    LinePattern(
        EventKind.NCCL_TEARDOWN, Level.FATAL,
        ("Some NCCL operations have failed", "taking the entire process down"),
        _rx(r"(?P<part>Some NCCL operations have failed|taking the entire process down)"),
    ),
    LinePattern(
        EventKind.WATCHDOG_TERMINATED, Level.FATAL,
        ("watchdog thread terminated with exception",),
        _rx(r"(?:NCCL|Process group) watchdog thread terminated with exception: ?(?P<cause>.*)"),
    ),
    LinePattern(
        EventKind.HEARTBEAT_HANG, Level.FATAL,
        ("Heartbeat monitor timed out", "watchdog got stuck for", "monitor thread timeout",
         "detects no heartbeat", "due to ProcessGroupNCCL watchdog hang",
         "detected no heartbeat of its watchdog", "would have killed this job",
         "would have terminated the process"),
        _rx(
            r"got stuck for (?P<stuck_seconds>\d+) seconds",
            r"workMetaList_\.size\(\) ?= ?(?P<pending_works>\d+)",
            r"(?P<what>Heartbeat monitor timed out|monitor thread timeout|detects no heartbeat|"
            r"watchdog hang|no heartbeat of its watchdog|would have (?:killed|terminated))",
        ),
        post=_post_heartbeat,
    ),
    LinePattern(
        EventKind.FR_DUMP, Level.ERROR,
        ("dump signal", "signal dumping", "timeout signal from this local rank",
         "Stack trace of the failed collective", "global timeout from another rank",
         "First watchdog to set the dump signal", "flight recorder dump signal",
         "flight-recorder dump signal", "preparing to dump debug info", "dumping nccl trace",
         "Finished flight recorder", "debug info to", "Flight Recorder trace",
         "flight recorder dumps to finish"),
        _rx(
            r"collective timeout from\s+rank (?P<source_rank>\d+)",
            r"global dump signal from rank (?P<source_rank>\d+)",
            r"(?:dumping nccl trace to|debug info to) (?P<path>\S+)",
            r"(?:)",
        ),
        post=_post_fr,
    ),
    LinePattern(
        EventKind.REMOTE_ERROR, Level.ERROR,
        ("remote error detected from rank",),
        _rx(r"remote error detected from rank: ?(?P<source_rank>\d+)"),
    ),
    LinePattern(
        EventKind.DESYNC_REPORT, Level.ERROR,
        ("lagging ranks", "joined but didn't finish", "didn't join collective",
         "Timeout at collective:", "missing ranks: ", "not reaching the collective",
         "[ready ranks: ", "error msg: Culprit rank", "Missing ranks are "),
        _rx(
            # torch's flight-recorder analyser (`torchfrtrace`) on a collective whose ranks
            # disagree: `error msg: Culprit rank 2; Error type: COLLECTIVE_TYPE_MISMATCH, …`
            # (it compares each rank with the first: several culprits mean the first rank is
            # the odd one, or no one is; one culprit is named)
            r"error msg: (?P<culprit_list>Culprit rank \d+;.*)",
            r"ranks \[(?P<rank_list>[\d, ]*)\] are the lagging ranks",
            r"\[(?P<rank_list>[\d, ]*)\] joined but didn't finish collective #(?P<seq>\d+)",
            r"\[(?P<rank_list>[\d, ]*)\] finished collective #\d+, but didn't join collective "
            r"#(?P<seq>\d+)",
            r"\[(?P<rank_list>\d+)\] Timeout at collective: (?P<op>\w+), #(?P<seq>\d+)",
            # Horovod's stall inspector and torch's flight-recorder analyser: the ranks that
            # never submitted the operation the others wait in.
            r"missing ranks: [\[{]?(?P<rank_list>\d+(?:, ?\d+)*)[\]}]?",
            # (the analyser around torch 2.4: `Not all ranks joining collective for group 0:
            # default_pg collective nccl:_allgather_base  Missing ranks are {3}`)
            r"Missing ranks are \{(?P<rank_list>\d+(?:, ?\d+)*)\}",
            # Horovod before 0.20 lists the ranks that did submit: a rank below the highest
            # of them that is not among them exists and never submitted
            r"\[ready ranks: (?P<ready_list>\d+(?:, ?\d+)*)\]",
            # Ray Train's BroadcastCollectiveTimeoutError, on the line after its message
            r"ranks are not reaching the collective operation: \[(?P<rank_list>[\d, ]+)\]",
        ),
        post=_post_desync,
    ),
    LinePattern(
        EventKind.NCCL_INIT, Level.INFO,
        ("- Init START", "- Init COMPLETE", " nNodes "),
        _rx(
            r"comm (?P<comm>0x[0-9a-fA-F]+) rank (?P<nccl_rank>\d+) nranks (?P<nranks>\d+)"
            r" cudaDev (?P<cuda_dev>\d+)(?: nvmlDev \d+)?(?: busId (?P<bus_id>[0-9a-fA-F]+))?"
            r"(?: commId (?P<comm_id>0x[0-9a-fA-F]+))?.*- Init (?P<phase>START|COMPLETE)",
            # the same communicator's ranks and nodes, printed between the two (NCCL 2.19 and
            # later: `comm 0x55d1… rank 9 nRanks 16 nNodes 2 localRanks 8 localRank 1 MNNVL 0`)
            r"comm (?P<comm>0x[0-9a-fA-F]+) rank (?P<nccl_rank>\d+) nRanks (?P<nranks>\d+) "
            r"nNodes \d+ localRanks \d+ localRank \d+",
        ),
    ),
    LinePattern(
        EventKind.NCCL_WARN_NET, Level.ERROR,
        ("NET/IB", "NET/OFI", "Call to ", "Connect to ", "connect to ",
         "Connection closed by remote peer",
         "Failed to execute operation", "Socket recv failed", "socketProgress",
         "Socket creation failed"),
        _rx(
            # IPv6 link-local peers carry their interface: `fe80::…%ib0<53249>`; a paste
            # may mask the address (`peer [PRIVATE_IP] with error 12`)
            r"Got completion from peer (?P<peer>[\w.:%\-]+|\[[\w.:\- ]+\])(?:<(?P<peer_port>\d+)>)? with "
            r"(?:error (?P<status>\d+)|status=(?:\w+\()?(?P<status_alt>\d+)\)?)"
            r"(?:.*?vendor[ _]err[ =](?P<vendor_err>\d+))?(?:.*?\((?P<direction>Send|Recv)\b)?",
            r"Got completion with error (?P<status>\d+).*?vendor err (?P<vendor_err>\d+)",
            # the AWS/HPE libfabric plugin: `NET/OFI Request 0x7f… completed with error. RC:
            # 113. Error: 2 (UNDELIVERABLE).` (libfabric's provider error, no peer named; its
            # text may hold parentheses of its own: `4126 (Unresponsive receiver (reachable by
            # EFA device but handshake failed))`; older plugins print strerror's text alone)
            r"NET/OFI (?:Request \S+(?: \(\w+\))?(?: seq \d+)?|Remote write) completed with error[.:] "
            r"(?:RC|err): (?P<retcode>\d+)[.,] (?:[Ff]lags: \d+[.,] )?"
            r"(?:Error: |prov_errno: )(?P<error>\d+ \((?:[^()]|\([^()]*\))*\)|\d+, strerror: [^,]+|[^.]+)",
            r"Call to (?P<op>recv|send|connect|accept) (?:from|to) (?P<peer>[\w.:%\-]+)"
            r"<(?P<peer_port>\d+)> failed ?: ?(?P<error>.+)",
            # older NCCL's bootstrap gave up connecting: no peer in the line
            r"Call to (?P<op>connect) timeout ?: ?(?P<error>.+)",
            # include/socket.h before 2.12: `Call to connect failed : %s` (no peer either)
            r"Call to (?P<op>connect|accept) failed ?: ?(?P<error>.+)",
            # the host's own socket or verbs call failed: `Net : Socket creation failed : %s`,
            # ibvwrap.c's `Call to ibv_modify_qp failed with error %s`, and before NCCL 2.9
            # `Call to ibv_create_qp failed` with no reason
            r"(?P<op>Socket) creation failed ?: ?(?P<error>.+)",
            # NCCL 2.27's ibv_modify_qp after its retries: `Call to ibv_modify_qp failed with 110
            # Connection timed out, on dev mlx5_3:1, curr state INIT, next state RTR, …, remote
            # GID ::ffff:10.0.0.2` (the remote GID is N/A on InfiniBand)
            r"Call to (?P<op>ibv_\w+) failed with \d+ (?P<error>[^,]+), on dev (?P<device>\w+):\d+,"
            r"(?:.*?remote GID (?P<peer>(?!N/A)[\w.:]+))?",
            r"Call to (?P<op>ibv_\w+) failed(?: with error (?P<error>.+))?",
            # socketStartConnect / socketPollConnect / include/socket.h's connect failures.
            r"[Cc]onnect to (?P<peer>[\w.:%\-]+)<(?P<peer_port>\d+)> "
            r"(?:failed(?: with error)? ?:? ?|returned )(?P<error>.+)",
            r"(?P<error>Connection closed by remote peer) (?P<peer>[\w.:%\-]+)<(?P<peer_port>\d+)>",
            r"Failed to execute operation (?P<op>\w+) from rank (?P<peer_rank>\d+), "
            r"retcode (?P<retcode>\d+)",
            r"(?P<error>Socket recv failed.*)",
            r"socketProgress\w*: (?P<error>.*)",
        ),
        post=_post_net,
    ),
    LinePattern(
        EventKind.NCCL_PEER_CLOSED, Level.INFO,
        ("Connection closed by localRank",),
        _rx(r"Connection closed by localRank (?P<closed_by_local_rank>\d+)"),
    ),
    LinePattern(
        EventKind.NCCL_ERROR, Level.ERROR,
        ("NCCL error", "ncclSystemError", "ncclRemoteError", "ncclInternalError",
         "ncclUnhandledCudaError", "ncclInvalidUsage", "ncclInvalidArgument",
         "raised the following async exception", "found async exception",
         "NCCL communicator encountered error", "NCCL communicator was aborted",
         "remote process exited or there was a network error", "NCCL operation "),
        _rx(
            r"NCCL error in: (?P<location>[^,]+), (?P<message>.*)",
            # XLA's (JAX, TensorFlow) wording: `NCCL operation ncclCommInitRank(&comm, …)
            # failed: unhandled system error`
            r"NCCL operation (?P<op>nccl\w+)\(.*?\) failed: (?P<message>.*)",
            r"NCCL communicator was aborted on rank (?P<rank_in_message>\d+)\."
            r"(?:\s*Original reason for failure was: (?P<message>.*))?",
            r"(?:raised the following async exception|found async exception when checking for "
            r"NCCL errors|encountered error set by ProcessGroupNCCL): ?(?P<message>.*)",
            r"(?P<message>ncc[lL]\w+Error: .*)",
            r"(?P<message>.*)",
        ),
        post=_post_nccl_error,
    ),
    LinePattern(
        EventKind.NCCL_WARN, Level.WARNING,
        (" NCCL WARN ", "no socket interface found", "NET/Socket : no interface found",
         "WARN: Function: "),
        _rx(r" NCCL WARN (?P<message>.*)",
            # the AWS OFI plugin's own warnings before it used NCCL's logger
            r"^WARN: Function: \w+ Line: \d+: (?P<message>NET/OFI .*)",
            # the same WARN quoted as an NCCL error's `Last error:` on a line of its own
            r"^(?P<message>Bootstrap : no socket interface found|"
            r"NET/Socket : no interface found)"),
        post=_post_nccl_warn,
    ),
    LinePattern(
        EventKind.STORE_TIMEOUT, Level.ERROR,
        ("wait timeout after", "Wait timeout after", "Wait timeout for key", "Socket Timeout",
         "client socket has timed out", "waitForInput",
         "failed to connect to", "waiting for clients", "store based barrier",
         "store basedbarrier",
         "ncclUniqueId", "Timeout waiting for key", "timed out (try=",
         "operation to complete", "server socket on"),
        _rx(
            r"wait timeout after (?P<timeout_ms>\d+)ms(?:, keys: (?P<keys>.*))?",
            # gloo's stores and Horovod's HTTP store: `Wait timeout for key(s): 0`, later
            # `Wait timeout after 30 seconds for key(s): 0`
            r"Wait timeout (?:after (?P<timeout_seconds>\d+) seconds )?for key\(s\): "
            r"(?P<keys>.*)",
            r"client socket has timed out after (?P<timeout_text>\d+(?:ms|s)) while trying to "
            r"connect to \((?P<host>[^,]+), (?P<port>\d+)\)",
            r"client socket has failed to connect to any network address of "
            r"\((?P<host>[^,()\s]+), (?P<port>\d+)",
            # an IPv4-mapped IPv6 address: `[::ffff:10.0.0.1]:29500` is 10.0.0.1
            r"client socket has failed to connect to \[(?:::ffff:)?(?P<host>[^\]\s]+)\]:"
            r"(?P<port>\d+)",
            r"client socket has failed to connect to \[?(?P<host>[^\]\s]+?)\]?:(?P<port>\d+)",
            r"Timed out after (?P<timeout_seconds>\d+) seconds waiting for clients\. "
            r"(?P<joined>\d+)/(?P<expected>\d+) clients joined",
            r"store based ?barrier on rank:? (?P<rank_in_message>\d+).*?world_size=(?P<expected>\d+)"
            r", (?:worker_count|num_workers_joined)=(?P<joined>\d+)",
            r"Waiting in store based barrier to initialize process group for rank: "
            r"(?P<rank_in_message>\d+).*?world_size=(?P<expected>\d+), "
            r"(?:worker_count|num_workers_joined)=(?P<joined>\d+)",
            # The c10d socket to the store waited for the other agents' answer (rendezvous).
            r"waitForInput: socket .*? timed out after (?P<timeout_ms>\d+)ms",
            r"\[(?P<rank_in_message>\d+)\] is setting up NCCL communicator and retr\w+ "
            r"ncclUniqueId from \[0\].*?got error: (?P<error>.*)",
            r"TCP client failed to connect/validate to host (?P<host>[^\s:]+):(?P<port>\d+) - "
            r"timed out \(try=(?P<attempt>\d+), timeout=(?P<timeout_ms>\d+)ms",
            r"Timed out waiting (?P<timeout_ms>\d+)ms for (?P<op>recv|send) operation",
            r"(?P<error>Socket Timeout|Timeout waiting for key.*|server socket on .*timed out.*)",
        ),
        post=_post_store,
    ),
    LinePattern(
        EventKind.STORE_CONNECTION_LOST, Level.ERROR,
        ("got 0 bytes", "Connection was likely closed"),
        _rx(r"(?P<error>[Ff]ailed to recv, got 0 bytes.*)"),
    ),
    LinePattern(
        EventKind.RENDEZVOUS_ERROR, Level.ERROR,
        ("Rendezvous", "keep-alive heartbeat to the rendezvous", "removed from the rendezvous"),
        _rx(
            r"(?P<exc>Rendezvous\w*Error|RendezvousClosedError)(?::? (?P<message>.*))?",
            r"(?P<message>has failed to send a keep-alive heartbeat to the rendezvous.*)",
            r"(?P<message>have been removed from the rendezvous.*)",
        ),
    ),
    LinePattern(
        EventKind.AGENT_WORKER_FAILED, Level.FATAL,
        ("failed (exitcode", "[ERROR] failed", "exits with return code"),
        _rx(
            r"\bfailed \(exitcode: (?P<exitcode>-?\d+)\)(?: local_rank: (?P<local_rank>\d+))?"
            r"(?: \(pid: (?P<pid>\d+)\))?(?: of binary: (?P<binary>\S+))?",
            r"multiprocessing\.api:? \[ERROR\] failed\b",
            # DeepSpeed's launcher: `[…, '--local_rank=3', …] exits with return code = -9`
            # (its sigkill_handler prints the *last-started* worker's command, whichever failed)
            r"--local_rank=(?P<local_rank>\d+)'.*\] (?P<ds_exit>exits) with return code = "
            r"(?P<exitcode>-?\d+)",
        ),
        post=_post_agent_failed,
    ),
    LinePattern(
        # torchelastic's agent (api.py): `[default] Worker group FAILED. 2/3 attempts left;
        # will restart worker group`
        EventKind.AGENT_RESTART, Level.INFO,
        ("will restart worker group",),
        _rx(r"Worker group FAILED\. (?P<left>\d+)/(?P<attempts>\d+) attempts left; will restart "
            r"worker group"),
    ),
    LinePattern(
        # and once its workers all exited 0: `[default] worker group successfully finished.`,
        # `Local worker group finished (WorkerState.SUCCEEDED)`
        EventKind.AGENT_SUCCEEDED, Level.INFO,
        ("worker group successfully finished", "WorkerState.SUCCEEDED"),
        _rx(r"worker group successfully finished",
            r"Local worker group finished \(WorkerState\.SUCCEEDED\)"),
    ),
    LinePattern(
        EventKind.AGENT_SIGTERM, Level.WARNING,
        ("closing signal", "Unable to shutdown process", "Killing subprocess"),
        _rx(
            r"Sending process (?P<pid>\d+) closing signal (?P<signal>\w+)",
            r"sigkill_handler\] Killing subprocess (?P<pid>\d+)",  # DeepSpeed's launcher
            r"Unable to shutdown process (?P<pid>\d+) via (?P<signal>\S+?),",
        ),
    ),
    LinePattern(
        EventKind.AGENT_DEATH_SIGNAL, Level.FATAL,
        ("death signal, shutting down workers", "SignalException: Process",
         "Received SIGTERM", "process received SIG", "Stop signal received"),
        _rx(
            r"Received (?:Signals\.)?(?P<signal>\w+) death signal",
            # Ray Tune's driver: `Stop signal received (e.g. via SIGINT/Ctrl+C), ending Ray
            # Tune run.` (the signal itself is not named)
            r"(?P<signal>Stop signal) received \(e\.g\. via SIGINT/Ctrl\+C\), ending Ray Tune run",
            r"Process (?P<pid>\d+) got signal: (?P<signal>\w+)",
            # Lightning's signal connector: `[rank: 0] Received SIGTERM: 15`
            r"Received (?P<signal>SIGTERM): \d+",
            # DeepSpeed's launcher: `Main process received SIGTERM, exiting`
            r"Main process received (?P<signal>SIG\w+), exiting",
            # TGI's launcher (launcher/src/main.rs): `Received SIGTERM, terminating`
            r"text_generation_launcher: Received (?P<signal>SIG\w+), terminating",
        ),
        post=lambda f, p: (
            EventKind.AGENT_DEATH_SIGNAL, Level.FATAL,
            {**f, "signal": signal_name(f.get("signal")) or f.get("signal")},
        ),
    ),
    LinePattern(
        EventKind.SIGNAL_KILL, Level.FATAL,
        ("received by PID", "Killed", "Segmentation fault", "Bus error", "Aborted",
         "Illegal instruction", "Floating point exception"),
        _rx(
            r"Signal (?P<signo>\d+) \((?P<signal>SIG\w+)\) received by PID (?P<pid>\d+)",
            r"^\s*(?P<what>Killed|Segmentation fault|Bus error|Aborted|Illegal instruction|"
            r"Floating point exception)(?: \(core dumped\))?\s*$",
            r"line \d+: +(?P<pid>\d+) (?P<what>Killed|Segmentation fault|Bus error|Aborted|"
            r"Illegal instruction|Floating point exception)\b",
        ),
        post=_post_signal,
    ),
    LinePattern(
        EventKind.NATIVE_CRASH, Level.FATAL,
        ("Caught signal", "*** SIG", "] Signal: ", "] Failing at address"),
        _rx(
            # UCX's handler names its process, the pid padded to five: `[host:87   :0:87]
            # Caught signal 7 (…`
            r"^\[(?P<host>[\w.\-]+):(?P<pid>\d+) *:\d+:\d+\] Caught signal (?P<signo>\d+) "
            r"\((?P<signal>[^:)]+)",
            r"Caught signal (?P<signo>\d+) \((?P<signal>[^:)]+)",
            r"\*\*\* (?P<signal>SIG\w+) received at time",
            # OpenMPI's handler: `[host:00121] Signal: Bus error (7)`, then `Failing at
            # address: 0x…` (the line a paste may keep alone: only a fatal fault prints it)
            r"^\[(?P<host>[\w.\-]+):(?P<pid>\d+)\] Signal: (?P<signal>[A-Za-z][\w ]*?) "
            r"\((?P<signo>\d+)\)",
            r"^\[(?P<host>[\w.\-]+):(?P<pid>\d+)\] Failing at address: (?P<address>\S+)",
        ),
    ),
    LinePattern(
        EventKind.CUDA_OOM, Level.FATAL,
        ("CUDA out of memory", "OutOfMemoryError"),
        _rx(
            r"Tried to allocate (?P<requested>[\d.]+ ?[KMGTE]i?B)"
            r"(?:.*?GPU (?P<gpu>\d+)(?:[;,]? ?has a total capacit?y of "
            r"(?P<capacity>[\d.]+ ?[KMGT]i?B)"
            r" of which (?P<free>[\d.]+ ?[KMGT]i?B) is free|; (?P<capacity_old>[\d.]+ ?[KMGT]i?B)"
            r" total capacity))?",
            r"(?P<message>CUDA out of memory.*|OutOfMemoryError.*)",
        ),
        post=_post_oom,
    ),
    LinePattern(
        EventKind.CUDA_ERROR, Level.ERROR,
        ("CUDA error", "cuda runtime error", "Cuda failure", "CUDA driver error",
         "THCudaCheck FAIL", "_STATUS_EXECUTION_FAILED", "nvmlDevice", "double-bit ECC",
         "HIP error", "Error [CUDA]", "Error [HIP]", "Memory access fault by GPU",
         "failed to peer with device", "aborting with error : HSA_STATUS_ERROR_",
         "implicit initialization on GPU:", "CUDA error(", "_STATUS_ALLOC_FAILED",
         "CUDA runtime error in "),
        _rx(
            # torch on ROCm says HIP where it says CUDA on NVIDIA's GPUs
            r"(?:CUDA|HIP) (?:driver )?error: (?P<message>.*)",
            # Triton's launcher (`RuntimeError: Triton Error [CUDA]: misaligned address`)
            # (raised; inductor's autotuning logs and drops a failing candidate)
            r"\w+Error: Triton Error \[(?:CUDA|HIP)\]: (?P<message>.*)",
            # ROCm's runtime when a kernel touched memory it may not (`Memory access fault by
            # GPU node-2 (Agent handle: …) on address 0x…. Reason: Page not present …`)
            r"(?P<message>Memory access fault by GPU [\w\-]+.*)",
            # ... and its queue's callback on a kernel's fault (rocdevice.cpp: `Callback: Queue
            # 0x… aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: … code:
            # 0x29`); a queue out of resources is not the GPU's fault
            r"Callback: Queue \S+ aborting with error : "
            r"(?P<message>HSA_STATUS_ERROR_(?!OUT_OF_RESOURCES)\w+.*)",
            r"cuda runtime error \((?P<code>\d+)\) : (?P<message>.*?)(?: at \S+)?$",
            r"Cuda failure '?(?P<message>[^']*)'?",
            # TensorRT-LLM's check() on a CUDA runtime call (cudaUtils.h: `[TensorRT-LLM][ERROR]
            # CUDA runtime error in cudaStreamSynchronize(mStream->get()): an illegal memory
            # access was encountered (/src/…/cudaStream.h:94)`); out of memory is an OOM's
            r"CUDA runtime error in (?:::)?[\w:]*\w\(.*?\): (?P<message>.+?)(?: \(\S+:\d+\))?$",
            # NCCL's P2P transport (p2p.cc): cudaDeviceEnablePeerAccess failed, with its code
            # and text (`failed to peer with device 0(=100000): 217 peer access is not …`)
            r"failed to peer with device \d+\(=\w+\): (?P<code>\d+) (?P<message>.+)",
            # torch < 1.0's THC check: `THCudaCheck FAIL file=… line=195 error=77 : an illegal …`
            r"THCudaCheck FAIL file=\S+ line=\d+ error=(?P<code>\d+) : (?P<message>.*)",
            # a cuDNN or cuBLAS kernel that failed on the GPU (not a bad argument)
            r"(?P<message>CU(?:DNN|BLAS)_STATUS_EXECUTION_FAILED)",
            # ... or could not allocate its workspace (an out-of-memory, read as one above)
            r"(?P<message>CU(?:DNN|BLAS)_STATUS_ALLOC_FAILED)",
            # TensorFlow's GPU device could not bring up the CUDA runtime on a GPU
            # (gpu_device.cc: `CUDA runtime implicit initialization on GPU:0 failed. Status:
            # all CUDA-capable devices are busy or unavailable`); out of memory is an OOM's
            r"CUDA runtime implicit initialization on GPU:(?P<gpu>\d+) failed\. "
            r"Status: (?P<message>(?!out of memory).+)",
            # Paddle's enforce on a CUDA call (`ExternalError: CUDA error(700), an illegal memory
            # access was encountered.`)
            r"CUDA error\((?P<code>\d+)\), (?P<message>.+)",
            # NCCL's NVML wrapper could not reach the GPU: `nvmlDeviceGetHandleByPciBusId()
            # failed: Not Found`
            r"(?P<message>nvmlDevice\w+\(\) failed: .+)",
            # DCGM's health check: `Detected 2 volatile double-bit ECC error(s) in GPU 3.`
            r"(?P<message>Detected \d+ volatile double-bit ECC error\(s\) in GPU (?P<gpu>\d+))",
        ),
        post=_post_cuda,
    ),
    LinePattern(
        EventKind.XID, Level.FATAL,
        ("NVRM",),
        _rx(
            r"Xid \((?P<pci>PCI:[0-9a-fA-F:.]+)\): (?P<xid>\d+)"
            r"(?:, pid=(?P<pid>\d+|'?<unknown>'?))?"
            r"(?:, name=(?P<process>[^,]+))?,? ?(?P<message>.*)",
            r"GPU (?:at )?(?P<pci>[0-9a-fA-F]{4}:[0-9a-fA-F:.]+).*?"
            r"(?P<message>has fallen off the bus.*|RmInitAdapter failed.*)",
        ),
        post=_post_xid,
    ),
    LinePattern(
        EventKind.HOST_OOM, Level.FATAL,
        ("Out of memory: Killed process", "oom-kill:", "Memory cgroup out of memory",
         "invoked oom-killer", "Out of memory: Kill process", "running low on memory",
         "killed due to memory pressure", "Memory on the node (IP:", "OOMKilled",
         "kB, limit ", "System OOM encountered", "due to memory pressure for", "sending SIG"),
        _rx(
            # the kubelet's node event (`SystemOOM  node/gpu-17  System OOM encountered, victim
            # process: python, pid: 88231`)
            r"System OOM encountered, victim process: (?P<process>[^,]+), pid: (?P<pid>\d+)",
            # systemd-oomd (`Killed /system.slice/train.service due to memory pressure for …`)
            r"Killed (?P<process>/\S+) due to memory pressure for\b",
            # earlyoom, once memory is at its limits (`sending SIGTERM to process 31337 uid
            # 1000 "python": badness 870, VmRSS 61234 MiB`, later versions `oom_score 712`)
            r"\bsending SIG(?:TERM|KILL) to process (?P<pid>\d+) uid \d+ \"(?P<process>[^\"]*)\": "
            r"(?:badness|oom_score)",
            r"Killed process (?P<pid>\d+) \((?P<process>[^)]*)\)",
            # kernels before 5.1: "Out of memory: Kill process 123 (python) score 9 or ..."
            r"Kill process (?P<pid>\d+) \((?P<process>[^)]*)\)",
            # Ray's memory monitor (host memory, not the GPU's)
            r"(?P<process>[Ww]orkers?) .*?killed due to memory pressure.*?(?:IP: (?P<ip>[\d.]+))?",
            # (its worker's record names the node first: `Worker IP address: 10.0.0.7 Worker
            # port: … Worker PID: 9021 … Task was killed due to the node running low on memory`)
            r"(?:Worker IP address: (?P<ip>[\d.]+).*?)?(?:Worker PID: (?P<pid>\d+).*?)?"
            r"(?P<process>[Tt]ask) was killed due to the node running low on memory",
            r"(?P<process>worker\(s\)) were killed due to the node running low on memory",
            # its next line: `Memory on the node (IP: 10.0.0.7, ID: …) where the task (actor
            # ID: …, name=…, pid=4242, memory used=56.57GB) was running was …`
            r"Memory on the node \(IP: (?P<ip>[\d.]+).*? where the (?P<process>task|actor)"
            r"\b.*?pid=(?P<pid>\d+)",
            r"oom-kill:.*?task=(?P<process>[^,]+),pid=(?P<pid>\d+)",
            # (bounded: an unbounded \S+ is quadratic on a long run of non-blanks)
            r"(?<!\S)(?P<process>\S{1,64}) invoked oom-killer",
            # the kernel's memory-cgroup report when it kills: usage at the limit
            r"memory(?:\+swap)?: usage (?P<usage_kb>\d+)kB, limit (?P=usage_kb)kB",
            # a container the kernel's cgroup OOM killer ended: `kubectl get pods`' STATUS
            # column, `kubectl describe`'s `Reason:  OOMKilled`
            r"^(?P<pod>[\w.\-]+)\s+\d+/\d+\s+OOMKilled\b",
            # and the pod's status as YAML or JSON: `reason: OOMKilled`
            r"^\s*\"?[Rr]eason\"?:\s+\"?(?P<process>OOMKilled)\b",
        ),
    ),
    LinePattern(
        EventKind.SLURM_OOM, Level.FATAL,
        ("oom-kill event", "oom_kill event", "exceeded memory limit"),
        _rx(
            r"Detected (?P<count>\d+) oom[-_]kill event(?:s|\(s\))? in (?:StepId=|step )?"
            r"(?P<step>[\w.]+?)\.?(?: |$)",
            r"StepId=(?P<step>[\w.]+) exceeded memory limit",
            r"[Ss]tep (?P<step>[\w.]+) exceeded memory limit",
            # slurmstepd's job accounting when it kills (`Job 7518 exceeded memory limit
            # (626359956 > 512000000), being killed`); its `Exceeded step memory limit at some
            # point` is printed on jobs that end well too (page cache counts) and is no kill
            r"\bJob (?P<job>\d+) exceeded memory limit \(\d+ > \d+\), being killed",
        ),
        post=_post_slurm_oom,
    ),
    LinePattern(
        EventKind.SLURM_CANCEL, Level.FATAL,
        ("CANCELLED AT",),
        _rx(
            r"\*\*\* (?P<what>JOB|STEP) (?P<job>[\w.]+) (?:ON (?P<node>\S+) )?CANCELLED AT "
            r"(?P<time>\S+)(?: DUE [Tt][Oo] (?P<reason>[A-Z][A-Za-z ]*?)(?:,[^*]*?)?)?"
            r"(?: on (?P<node_old>\S+))? \*\*\*"
        ),
        post=_post_slurm_cancel,
    ),
    LinePattern(
        EventKind.SLURM_TASK_EXIT, Level.FATAL,
        ("srun: error:",),
        _rx(
            r"srun: error: (?P<node>[\w.\-]+): tasks? (?P<task_list>[\d,\- ]+): "
            r"(?P<status_text>.+)",
            r"srun: error: (?P<status_text>Node failure) on (?P<node>[\w.\-]*\w)",
            # the step never started there: a credential, a node down, a prolog that failed
            r"srun: error: (?P<status_text>Task launch for \S+ failed on node "
            r"(?P<node>[\w.\-]+): .+)",
        ),
        post=_post_task_exit,
    ),
    LinePattern(
        EventKind.DATALOADER_WORKER_DIED, Level.FATAL,
        ("DataLoader worker", "encountered in worker", "Pin memory thread exited"),
        _rx(
            r"DataLoader worker \(pid (?P<pid>\d+)\) is killed by signal: (?P<cause_text>[^.]+)",
            r"DataLoader worker \(pid\(?s?\)? ?(?P<pids>\d[\d, ]*)\) exited unexpectedly"
            r"(?: with exit code (?P<exitcode>-?\d+))?",
            r"Unexpected (?P<cause_text>bus error|segmentation fault|floating-point exception) "
            r"encountered in worker",
            r"Caught (?P<exc>\w+) in DataLoader worker process (?P<worker>\d+)",
            r"(?P<cause_text>Pin memory thread exited unexpectedly)",
        ),
        post=_post_dataloader,
    ),
    LinePattern(
        EventKind.DATALOADER_TIMEOUT, Level.ERROR,
        ("DataLoader timed out", "Worker timed out after"),
        # (the timeout as the job gave it: `DataLoader(timeout=5.0)` prints `5.0 seconds`)
        _rx(r"DataLoader timed out after (?P<timeout_seconds>\d+(?:\.\d+)?) seconds",
            # MXNet gluon's DataLoader: `Worker timed out after 120 seconds. This might be …`
            r"^Worker timed out after (?P<timeout_seconds>\d+) seconds"),
    ),
    LinePattern(
        EventKind.RETRY, Level.INFO,
        ("etry", "etries"),
        _rx(
            r"\[Retry (?P<attempt>\d+)/(?P<max_attempts>\d+)\]",
            r"[Rr]etr(?:y|ying|ies)(?: attempt)?:? #?\(?(?P<attempt>\d+) ?(?:/|of) ?"
            r"(?P<max_attempts>\d+)",
            r"[Aa]ttempt:? #?(?P<attempt>\d+) ?(?:/|of) ?(?P<max_attempts>\d+)",
            r"retrying \(try=(?P<attempt>\d+)",
            r"Retrying \(Retry\(total=(?P<remaining>\d+)",
            r"(?P<what>Max retries exceeded|[Rr]etries exhausted|[Rr]etry limit|"
            r"[Nn]o more retries|failed after \d+ retries\b|exceeding max_retries=\d+)",
        ),
        post=_post_retry,
    ),
    LinePattern(
        # The master/rendezvous host name does not resolve (a pod not up yet, a typo): the
        # endpoint could not be reached.
        EventKind.STORE_TIMEOUT, Level.ERROR,
        ("Name or service not known", "Temporary failure in name resolution",
         "Name does not resolve", "nodename nor servname"),
        _rx(
            r"can't resolve '(?P<host>[\w.\-]+)': (?P<error>Name does not resolve)",
            # c10d's socket: `The IPv4 network addresses of (trainer-0.svc, 29500) cannot be
            # retrieved (gai error: -2 - Name or service not known).`
            r"network addresses of \((?P<host>[\w.\-]+), (?P<port>\d+)\) cannot be retrieved "
            r"\(gai error: -?\d+ - (?P<error>[^)]+)\)",
            # ... and its socket on a name that does not resolve (socket.cpp: `The client
            # socket cannot be initialized to connect to [trainer-0.svc]:23456 (errno: -2 -
            # Name or service not known).`)
            r"cannot be initialized to connect to \[(?P<host>[\w.\-]+)\]:(?P<port>\d+) "
            r"\(errno: -?\d+ - (?P<error>[^)]+)\)",
            # ssh: `Could not resolve hostname NAME: Name or service not known`
            # (NCCL's `error encountered when getting address info : …` names no host)
            r"(?:getaddrinfo|resolve(?: hostname)?|host|address(?! info\b))\W+"
            r"(?P<host>[A-Za-z][\w.\-]*[\w])"
            r"\W.*?"
            r"(?P<error>Name or service not known|Temporary failure in name resolution|"
            r"nodename nor servname provided)",
            r"(?P<error>Name or service not known|Temporary failure in name resolution|"
            r"nodename nor servname provided)",
        ),
        # (c10d looks a host up for IPv6 and for IPv4: an IPv6 lookup that failed alone is
        # its routine warning where the host has only an IPv4 address; the IPv4 one is not)
        post=lambda f, p: (EventKind.STORE_TIMEOUT,
                           Level.WARNING if "IPv6 network addresses of" in p else Level.ERROR,
                           {**f, "phase": "connect", "unresolved": True}),
    ),
    LinePattern(
        # The same, in other clients' words, each naming the host: Go's resolver (`dial tcp:
        # lookup registry.internal on 10.96.0.10:53: no such host`), Node's (`getaddrinfo
        # ENOTFOUND registry.corp`), Java's (`java.net.UnknownHostException: spark-master-0`),
        # and a launcher's own (`host not found: X`, `Could not resolve the hostname 'X'`).
        EventKind.STORE_TIMEOUT, Level.ERROR,
        ("no such host", "ENOTFOUND", "UnknownHostException", "ost not found",
         "ould not resolve"),
        _rx(
            r"lookup (?P<host>[A-Za-z][\w.\-]*\w)(?: on \S+)?: (?P<error>no such host)",
            r"(?P<error>getaddrinfo ENOTFOUND) (?P<host>[A-Za-z][\w.\-]*\w)",
            r"(?P<error>UnknownHostException): (?P<host>[A-Za-z][\w.\-]*\w)",
            r"(?P<error>[Hh]ost not found):? ['\"]?(?P<host>[A-Za-z][\w.\-]*\w)",
            r"(?P<error>[Cc]ould not resolve (?:the )?host(?:name)?):? ['\"]?"
            r"(?P<host>[A-Za-z][\w.\-]*\w)",
        ),
        post=lambda f, p: (EventKind.STORE_TIMEOUT, Level.ERROR,
                           {**f, "phase": "connect", "unresolved": True}),
    ),
    LinePattern(
        # gloo's TCP device could not resolve the name it was given to listen on (the host's
        # own name when GLOO_SOCKET_IFNAME is unset): `Unable to find address for: dgx-1.ai`
        EventKind.STORE_TIMEOUT, Level.ERROR,
        ("Unable to find address for",),
        _rx(r"(?P<error>Unable to find address for):? (?P<host>[\w.\-]*\w)"),
        post=lambda f, p: (EventKind.STORE_TIMEOUT, Level.ERROR,
                           {**f, "phase": "connect", "unresolved": True, "own_address": True}),
    ),
    LinePattern(
        EventKind.CONNECTION_ERROR, Level.WARNING,
        ("Connection reset by peer", "ConnectionResetError", "Broken pipe", "BrokenPipeError",
         "Connection refused", "ConnectionRefusedError", "Connection timed out",
         "No route to host", "Network is unreachable", "Connection aborted"),
        _rx(
            r"(?P<error>Connection reset by peer|ConnectionResetError|Broken pipe|BrokenPipeError|"
            r"Connection refused|ConnectionRefusedError|Connection timed out|No route to host|"
            r"Network is unreachable|Connection aborted)"
            r"(?:.*?(?P<peer>\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}))?",
        ),
        post=_post_connection,
    ),
)


def first_match(pattern: LinePattern, payload: str) -> re.Match[str] | None:
    for regex in pattern.regexes:
        m = regex.search(payload)
        if m is not None:
            return m
    return None


# Per-process-group counters: every era's wording (`last enqueued NCCL work: 5`,
# `last enqueued work: 5`, `Last enqueued NCCL work: 5`).
COUNTER = re.compile(r"[Ll]ast (enqueued|started|completed)(?: NCCL)? work: (-?\d+)")


def pg_fields(payload: str) -> Fields:
    """The `[PG … Rank N]` / `[Rank N]` prefix fields of a ProcessGroupNCCL message."""
    if "Rank " not in payload:
        return {}
    m = PG_PREFIX.search(payload)
    if m is not None:
        out = fields_from(m)
        if "pg_guid" in out or "pg_id" in out:
            guid = str(out.get("pg_guid", ""))
            out["pg"] = guid if guid else f"id{out.get('pg_id')}"
        elif "pg_name" in out:
            out["pg"] = str(out["pg_name"])
        return out
    m = WORK_RANK.search(payload)
    return fields_from(m) if m is not None else {}


def counter_fields(payload: str) -> Fields:
    out: Fields = {}
    for name, value in COUNTER.findall(payload):
        out[f"last_{name}"] = int(value)
    return out


def classify_payload(payload: str) -> list[tuple[EventKind, Level, Fields]]:
    """Every event one payload line holds (no state; blocks are the extractor's business)."""
    found: list[tuple[EventKind, Level, Fields]] = []
    kinds: set[EventKind] = set()
    for pattern in PATTERNS:
        for needle in pattern.needles:
            if needle in payload:
                break
        else:
            continue
        m = first_match(pattern, payload)
        if m is None:
            continue
        fields = fields_from(m)
        if pattern.post is not None:
            refined = pattern.post(fields, payload)
            if refined is None:
                continue
            kind, level, fields = refined
        else:
            kind, level = pattern.kind, pattern.level
        if kind in _PG_KINDS:
            fields = {**pg_fields(payload), **fields}
        if kind is EventKind.PG_STATUS or (kind is EventKind.FR_DUMP and "ast enqueued" in payload):
            counters = counter_fields(payload)
            if kind is EventKind.PG_STATUS and not counters:
                continue
            fields.update(counters)
        if kind in kinds or (kind is EventKind.NCCL_WARN and EventKind.NCCL_WARN_NET in kinds):
            continue  # one event per kind per line; a network WARN is not also a plain WARN
        kinds.add(kind)
        found.append((kind, level, fields))
    return found


_PG_KINDS = frozenset(
    {EventKind.WATCHDOG_TIMEOUT, EventKind.PG_STATUS, EventKind.NCCL_TEARDOWN,
     EventKind.WATCHDOG_TERMINATED, EventKind.HEARTBEAT_HANG, EventKind.FR_DUMP,
     EventKind.REMOTE_ERROR, EventKind.NCCL_ERROR}
)

# Megatron, DeepSpeed, HF Trainer, Lightning/NeMo tqdm, plain tqdm and other step counters.
PROGRESS_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("megatron", re.compile(r"iteration\s+(?P<step>\d+)/\s*(?P<total>\d+)\s*\|")),
    ("nemo", re.compile(r"Training epoch \d+, iteration (?P<step>\d+)/(?P<total>\d+)")),
    ("deepspeed", re.compile(r"\bstep=(?P<step>\d+), skipped=\d+")),
    ("hf_trainer", re.compile(r"\{'loss': [-\d.e]+|\{'eval_loss'|\{'train_runtime'")),
    ("epoch", re.compile(r"Train Epoch: (?P<epoch>\d+) \[(?P<step>\d+)/(?P<total>\d+)")),
    ("tqdm", re.compile(
        r"(?P<step>\d+)/(?P<total>\d+|\?) \[(?P<elapsed>[\d:]+)<(?P<eta>[\d:?]+)"
    )),
    ("tracking", re.compile(r"accelerate\.tracking\]")),
    # Keras's bar (`1563/1563 [==============================] - 95s 58ms/step - loss: 1.40`,
    # `412/1563 [======>.......] - ETA: 1:02 - loss: 1.52`)
    ("keras", re.compile(r"(?P<step>\d+)/(?P<total>\d+) \[[=>.]+\] - (?:ETA: |\d+m?s )")),
    # fairseq's logger (`| INFO | train_inner | epoch 004:    700 / 1500 loss=3.998, …`)
    ("fairseq", re.compile(r"\| train_inner \| epoch (?P<epoch>\d+):\s+(?P<step>\d+) / "
                           r"(?P<total>\d+) ")),
)


def progress_fields(payload: str) -> Fields | None:
    """A progress line's fields (framework, step, total, description), or None."""
    if not any(mark in payload for mark in _PROGRESS_MARKS):
        return None
    for framework, regex in PROGRESS_PATTERNS:
        m = regex.search(payload)
        if m is not None:
            out: Fields = {"framework": framework}
            for name, value in m.groupdict().items():
                if value is None or not value.strip():
                    continue
                out[name] = int(value) if value.isdigit() else value.strip()
            if framework == "tqdm":
                _tqdm_head(payload[: m.start()], out)
            return out
    return None


# What precedes a tqdm counter: `Description:  45%|█████     | `.
_TQDM_HEAD = re.compile(r"(?:(?P<pct>\d+)%\|[^|]*\|\s*)?$")


def _tqdm_head(head: str, out: Fields) -> None:
    m = _TQDM_HEAD.search(head)
    if m is None:
        return
    if m["pct"] is not None:
        out["pct"] = int(m["pct"])
    desc = head[: m.start()].strip().rstrip(":").strip()
    if desc and "|" not in desc and "[" not in desc:
        out["desc"] = desc


_PROGRESS_MARKS = ("iteration", "step=", "{'", "Train Epoch", "/", "accelerate.tracking")

# Where a Python frame lives tells what the process was doing.
DATA_FRAME_MARKS = ("dataset", "Dataset", "dataloader", "DataLoader", "data_utils", "/data/",
                    "__getitem__", "torch/utils/data", "tokeniz", "preprocess", "datasets/",
                    "torch.load", "load_dataset", "_next_data", "collate")
CHECKPOINT_FRAME_MARKS = ("checkpoint", "save_model", "save_pretrained", "torch.save", "save(",
                          "_save", "consolidat", "safetensors", "distributed/checkpoint")
DATA_PHASE_WORDS = ("dataset", "Dataset", "data split", "tokeniz", "Tokeniz", "preprocess",
                    "Preprocess", "Map", "Filter", "Loading data", "Generating", "Creating",
                    "shards", "Downloading", "Resolving data files")
CHECKPOINT_PHASE_WORDS = ("checkpoint", "Checkpoint", "Saving", "saving model", "save_model",
                          "Consolidat")

__all__ = [
    "CHECKPOINT_FRAME_MARKS",
    "CHECKPOINT_PHASE_WORDS",
    "DATA_FRAME_MARKS",
    "DATA_PHASE_WORDS",
    "LIVE_LITERALS",
    "NCCL_LINE",
    "PATTERNS",
    "PREFILTER_LITERALS",
    "EventKind",
    "FieldValue",
    "Fields",
    "Level",
    "LinePattern",
    "Mapping",
    "classify_payload",
    "is_candidate",
    "progress_fields",
    "signal_name",
]
