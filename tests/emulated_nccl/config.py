"""The emulated job's knobs: environment variables `RW_EMU_*`, read by every rank.

They are not `RANKWATCH_*` on purpose: the daemon rejects unknown settings in that namespace,
and the job's environment is also rankwatch's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

FAULTS = (
    "none",
    "user_deadlock",  # rank K blocks in user code outside any collective; peers wait in it
    "kernel_hang",  # rank K's "kernel" never ends: later launches never reach its stream
    "dead_reaped",  # rank K SIGKILLed; the launcher reaps it (torchrun also tears down)
    "dead_unreaped",  # rank K SIGKILLed; its parent never reaps it: a zombie stays
    "sigstop",  # rank K stops itself with SIGSTOP
    "network_hang",  # every rank launches the same collective; none completes
    "dl_stall",  # a DataLoader worker of rank K blocks forever in __getitem__
    "segfault",  # rank K dies of a real SIGSEGV (a bad native extension)
    "exit_error",  # rank K raises an exception: a traceback, exit 1
    "oom",  # rank K runs in a memory cgroup with a limit and allocates until the OOM killer
)
MODES = ("nccl", "gloo")
PROGRESS_STYLES = ("megatron", "plain", "none")
DEADLOCK_STYLES = ("lock", "spin", "sleep")
HOST_WAITS = ("synchronize", "item", "vendor")  # vendor: tests/emulated_nccl/vendor_comm.py
EVAL_RANKS = ("rank0", "all")
PEER_FAILURE = ("hang", "raise")
OP_LINES = ("none", "nccl")
PREFIX = "RW_EMU_"


@dataclass(frozen=True)
class JobConfig:
    """Everything a rank needs besides RANK / WORLD_SIZE / LOCAL_RANK."""

    dir: str = ""
    mode: str = field(default="nccl", metadata={"choices": MODES})
    fault: str = field(default="none", metadata={"choices": FAULTS})
    fault_rank: int = 1
    fault_step: int = 20  # the fault begins at the start of this step (1-based)
    steps: int = 0  # exit cleanly after this many steps; 0 runs until stopped
    step_seconds: float = 0.1  # extra host time per step (forward/backward stand-in)
    ops_per_step: int = 1  # gradient all-reduces per step (the job's pace in operations)
    log_every: int = 1
    progress: str = field(default="megatron", metadata={"choices": PROGRESS_STYLES})
    startup_delay_seconds: float = 0.0  # after init, before the first step (model load)
    checkpoint_every: int = 0  # steps; 0: never
    checkpoint_seconds: float = 0.0  # rank 0 writes the checkpoint this long
    eval_every: int = 0  # steps; 0: never
    eval_seconds: float = 0.0
    eval_ranks: str = field(default="rank0", metadata={"choices": EVAL_RANKS})
    workers: int = 1  # DataLoader workers per rank
    batch_size: int = 8
    deadlock: str = field(default="lock", metadata={"choices": DEADLOCK_STYLES})
    host_wait: str = field(default="synchronize", metadata={"choices": HOST_WAITS})
    peer_failure: str = field(default="hang", metadata={"choices": PEER_FAILURE})
    # `nccl`: every rank prints an NCCL COLL line per collective it launches, with its real
    # count as opCount (what NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL prints).
    op_lines: str = field(default="none", metadata={"choices": OP_LINES})
    ras_host: str = "127.0.0.1"  # the node address RAS reports (NCCL names nodes by IP)
    pg_timeout_seconds: float = 1800.0
    oom_limit_bytes: int = 1 << 30  # fault "oom": the limit of the rank's own memory cgroup

    def validate(self) -> None:
        problems = []
        for f in dataclasses.fields(self):
            choices = f.metadata.get("choices")
            if choices and getattr(self, f.name) not in choices:
                problems.append(
                    f"{PREFIX}{f.name.upper()}={getattr(self, f.name)!r}: one of {choices}"
                )
        if self.fault == "kernel_hang" and self.mode != "nccl":
            problems.append("kernel_hang needs mode nccl (a host that launches and waits later)")
        if self.fault_step < 1:
            problems.append("fault_step counts from 1")
        if problems:
            raise ValueError("; ".join(problems))

    def to_env(self) -> dict[str, str]:
        out = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[PREFIX + f.name.upper()] = str(value)
        return out

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> JobConfig:
        kwargs: dict[str, object] = {}
        for f in dataclasses.fields(cls):
            raw = env.get(PREFIX + f.name.upper())
            if raw is None:
                continue
            default = getattr(cls(), f.name)
            kwargs[f.name] = type(default)(raw)
        config = cls(**kwargs)  # type: ignore[arg-type]
        config.validate()
        return config
