"""The emulated NCCL training job: real ranks (torch CPU, gloo) with NCCL's outside behaviour.

Run by torchrun (`torchrun --nproc_per_node N tests/emulated_nccl/train.py`) or by
`launch_noteardown.py`; configured by `RW_EMU_*` variables (see config.py). Each step: a batch
from a DataLoader, a small forward/backward, the gradient all-reduce(s), an optimizer update.

Mode `nccl`: collectives are launched asynchronously onto a stream and the host waits later in
`synchronize` (cuda_shim), as a CUDA host does; mode `gloo`: the host blocks in the collective.
Every rank publishes its launched / issued / completed counts (shared.py) for the RAS endpoint.
"""

from __future__ import annotations

import _thread
import ctypes
import datetime
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, get_worker_info

from tests.emulated_nccl.config import JobConfig
from tests.emulated_nccl.cuda_shim.torch import cuda
from tests.emulated_nccl.shared import (
    COMM_FINALIZE,
    COMM_INIT,
    COMM_NONE,
    COMM_RUNNING,
    CountsSlot,
    FaultRecord,
    RankInfo,
    write_fault,
    write_rank_info,
)
from tests.emulated_nccl.vendor_comm import Engine

FEATURES = 64
REMOTE_PROCESS_ERROR = 6  # ncclRemoteError: what NCCL flags when a peer's connection breaks


def record_fault(cfg: JobConfig, rank: int, step: int, launched: int) -> None:
    write_fault(
        Path(cfg.dir),
        FaultRecord(cfg.fault, rank, os.getpid(), step, time.time(), time.monotonic(), launched),
    )


class Shards(Dataset[torch.Tensor]):
    def __init__(self, cfg: JobConfig, rank: int) -> None:
        self.cfg = cfg
        self.rank = rank

    def __len__(self) -> int:
        return 10**9

    def __getitem__(self, index: int) -> torch.Tensor:
        cfg = self.cfg
        if (
            cfg.fault == "dl_stall"
            and self.rank == cfg.fault_rank
            and index >= (cfg.fault_step - 1) * cfg.batch_size
            and (get_worker_info() is None or get_worker_info().id == 0)  # type: ignore[union-attr]
        ):
            record_fault(cfg, self.rank, index // cfg.batch_size + 1, -1)
            never = _thread.allocate_lock()
            never.acquire()
            never.acquire()  # a read that never returns
        return torch.randn(FEATURES, generator=torch.Generator().manual_seed(index))


class Collectives:
    """The job's collectives, counted the way NCCL's RAS counts them."""

    def __init__(self, cfg: JobConfig, slot: CountsSlot, rank: int, world: int) -> None:
        self.cfg = cfg
        self.slot = slot
        self.rank = rank
        self.stream = cuda.Stream(self._completed, self._peer_failed)
        self.stream.raise_on_peer_failure = cfg.peer_failure == "raise"
        self.hidden: list[Any] = []
        self.network_down = False
        self.world = world
        self.local_rank = int(os.environ.get("LOCAL_RANK", rank))
        self.host = socket.gethostname().split(".")[0]
        if cfg.fault == "network_hang" and cfg.mode == "gloo":
            # Two world-sized groups: at the hang, even ranks reduce on one and odd ranks on the
            # other, so every rank blocks inside a real all_reduce that can never complete.
            self.hidden = [dist.new_group(list(range(world))) for _ in range(2)]

    def _completed(self, n: int) -> None:
        self.slot.bump(completed=n)

    def _peer_failed(self) -> None:
        self.slot.set_state(async_error=REMOTE_PROCESS_ERROR)

    def _op_line(self, op: str, tensor: torch.Tensor) -> None:
        """NCCL's COLL line for a launched collective; opCount is the communicator's count
        before this one, in hexadecimal, as enqueue.cc prints it."""
        if self.cfg.op_lines != "nccl":
            return
        count = self.slot.launched - 1
        print(
            f"{self.host}:{os.getpid()}:{threading.get_native_id()} [{self.local_rank}] NCCL "
            f"INFO {op}: opCount {count:x} sendbuff 0x{tensor.data_ptr():x} recvbuff "
            f"0x{tensor.data_ptr():x} count {tensor.numel()} datatype 7 op 0 root 0 comm "
            f"0x{id(self):x} [nranks={self.world}] stream 0x{id(self.stream):x}",
            flush=True,
        )

    def broadcast(self, tensor: torch.Tensor) -> None:
        self.slot.bump(broadcast=1, issued=1)
        self._op_line("Broadcast", tensor)
        dist.broadcast(tensor, 0)
        self.slot.bump(completed=1)

    def barrier(self) -> None:
        """NCCL counts a barrier as a one-element AllReduce; the host blocks in it."""
        self.slot.bump(allreduce=1, issued=1)
        self._op_line("AllReduce", torch.zeros(1))
        dist.barrier()
        self.slot.bump(completed=1)

    def all_reduce(self, tensor: torch.Tensor) -> None:
        if self.network_down:
            self._all_reduce_never_completes(tensor)
            return
        if self.cfg.mode == "gloo":
            self.slot.bump(allreduce=1, issued=1)
            self._op_line("AllReduce", tensor)
            dist.all_reduce(tensor)
            self.slot.bump(completed=1)
            return
        self.slot.bump(issued=1)
        if self.stream.hung:
            return  # the launch sits behind the hung kernel: NCCL never counts it
        self.slot.bump(allreduce=1)
        self._op_line("AllReduce", tensor)
        self.stream.launch(dist.all_reduce(tensor, async_op=True))

    def _all_reduce_never_completes(self, tensor: torch.Tensor) -> None:
        """network_hang: launched like on every other rank; it never ends."""
        self.slot.bump(allreduce=1, issued=1)
        if self.cfg.mode == "gloo":
            dist.all_reduce(tensor, group=self.hidden[self.rank % 2])
            return
        self.stream.launch(None)
        self.stream.hang()


def user_code_deadlock(style: str) -> None:
    """Stuck in the user's own code, outside any collective."""
    if style == "lock":
        lock = _thread.allocate_lock()
        lock.acquire()
        lock.acquire()  # a Python deadlock: the lock is already held
    while True:
        if style == "sleep":
            time.sleep(1)


def train_step(
    cfg: JobConfig, model: torch.nn.Module, batch: torch.Tensor, comm: Collectives
) -> float:
    loss = model(batch).pow(2).mean()
    model.zero_grad()
    loss.backward()
    flat = torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])
    for _ in range(cfg.ops_per_step):
        comm.all_reduce(flat)
    if cfg.step_seconds:
        time.sleep(cfg.step_seconds)  # the rest of the step (host work while kernels run)
    if cfg.mode == "nccl":
        if cfg.host_wait == "synchronize":
            cuda.synchronize(comm.stream)
        elif cfg.host_wait == "vendor":
            Engine.wait_for_peers(comm.stream)
        else:  # `loss.item()`: the host waits in a C call made right here
            pending = comm.stream.take()
            if comm.stream.hung:
                comm.stream.hung_kernel.acquire()
            try:
                for work in pending:
                    work.wait()
            except RuntimeError as error:
                comm.stream.peer_failed(error)
                comm.stream.hung_kernel.acquire()
            comm.stream.finished()
    with torch.no_grad():
        offset = 0
        for p in model.parameters():
            n = p.numel()
            p.sub_(0.01 * flat[offset : offset + n].view_as(p) / dist.get_world_size())
            offset += n
    return float(loss.detach())


def save_checkpoint(cfg: JobConfig, step: int) -> None:
    """Rank 0 writes a checkpoint file continuously for `checkpoint_seconds`."""
    path = Path(cfg.dir) / f"checkpoint-{step}.pt"
    chunk = os.urandom(256 * 1024)
    deadline = time.monotonic() + cfg.checkpoint_seconds
    with path.open("wb") as fh:
        while time.monotonic() < deadline:
            fh.write(chunk)
            fh.flush()
            time.sleep(0.02)
    path.unlink(missing_ok=True)


def validate(model: torch.nn.Module, seconds: float) -> float:
    total = 0.0
    deadline = time.monotonic() + seconds
    with torch.no_grad():
        while time.monotonic() < deadline:
            total += float(model(torch.randn(64, FEATURES)).mean())
            time.sleep(0.01)
    return total


def log_progress(cfg: JobConfig, rank: int, step: int, loss: float, elapsed_ms: float) -> None:
    if cfg.progress == "none" or step % cfg.log_every:
        return
    total = cfg.steps or 1000000
    if cfg.progress == "megatron" and rank == 0:
        print(
            f" iteration {step:8d}/{total:8d} | consumed samples: {step * cfg.batch_size:12d} | "
            f"elapsed time per iteration (ms): {elapsed_ms:.1f} | lm loss: {loss:.6E} |",
            flush=True,
        )
    elif cfg.progress == "plain":
        print(f"[rank{rank}] step {step}/{total} loss {loss:.4f}", flush=True)


def main() -> int:
    cfg = JobConfig.from_env(os.environ)
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    local_rank = int(os.environ.get("LOCAL_RANK", rank))
    directory = Path(cfg.dir)
    slot = CountsSlot(directory, rank)
    write_rank_info(
        directory, RankInfo(rank, os.getpid(), cfg.ras_host, local_rank, world, local_rank)
    )
    print(f"rank {rank} pid {os.getpid()} starting", flush=True)
    if cfg.fault == "oom" and rank == cfg.fault_rank:
        enter_memory_cgroup(directory, cfg.oom_limit_bytes)
    # Workers are forked before the process group starts its threads: a fork taken while
    # another thread holds a lock can leave the worker blocked forever (a hang of its own).
    loader = DataLoader(
        Shards(cfg, rank), batch_size=cfg.batch_size, num_workers=cfg.workers,
        persistent_workers=cfg.workers > 0,
    )  # fmt: skip
    batches = iter(loader)
    slot.set_state(COMM_INIT)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=cfg.pg_timeout_seconds))
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(FEATURES, 128), torch.nn.ReLU(), torch.nn.Linear(128, 1)
    )
    comm = Collectives(cfg, slot, rank, world)
    slot.set_state(COMM_RUNNING)
    for p in model.parameters():  # as DDP does at construction
        comm.broadcast(p.data)
    if cfg.startup_delay_seconds:
        time.sleep(cfg.startup_delay_seconds)  # loading the model, compiling...
    step = 0
    while not cfg.steps or step < cfg.steps:
        step += 1
        started = time.monotonic()
        if step == cfg.fault_step:
            inject(cfg, rank, step, comm)
        batch = next(batches)
        loss = train_step(cfg, model, batch, comm)
        log_progress(cfg, rank, step, loss, (time.monotonic() - started) * 1000)
        if cfg.checkpoint_every and step % cfg.checkpoint_every == 0:
            if rank == 0:
                print(f"saving checkpoint at iteration {step:8d} to {cfg.dir}", flush=True)
                save_checkpoint(cfg, step)
                print(
                    f"  successfully saved checkpoint from iteration {step:8d} to {cfg.dir}",
                    flush=True,
                )
            comm.barrier()
        if cfg.eval_every and step % cfg.eval_every == 0:
            if rank == 0:
                print(f"Running validation at iteration {step}", flush=True)
            if cfg.eval_ranks == "all" or rank == 0:
                validate(model, cfg.eval_seconds)
            comm.barrier()
    print(f"rank {rank} training finished after {step} steps", flush=True)
    slot.set_state(COMM_FINALIZE)
    dist.destroy_process_group()
    slot.set_state(COMM_NONE)
    return 0


def inject(cfg: JobConfig, rank: int, step: int, comm: Collectives) -> None:
    fault = cfg.fault
    if fault == "network_hang":
        record_fault(cfg, rank, step, comm.slot.launched)
        comm.network_down = True  # this step's all-reduce is launched everywhere, never ends
        return
    if rank != cfg.fault_rank or fault in ("none", "dl_stall"):
        return
    record_fault(cfg, rank, step, comm.slot.launched)
    if fault == "user_deadlock":
        user_code_deadlock(cfg.deadlock)
    elif fault == "kernel_hang":
        comm.stream.hang()  # the step goes on; its launches never reach the stream
    elif fault in ("dead_reaped", "dead_unreaped"):
        os.kill(os.getpid(), signal.SIGKILL)
    elif fault == "sigstop":
        os.kill(os.getpid(), signal.SIGSTOP)
    elif fault == "segfault":
        ctypes.string_at(0)  # a real SIGSEGV, as a bad native extension gives
    elif fault == "exit_error":
        raise RuntimeError(f"injected failure at step {step}: loss is NaN")
    elif fault == "oom":
        hoard = []
        while True:  # until the kernel's OOM killer ends this rank (its cgroup's limit)
            chunk = bytearray(64 << 20)
            chunk[::4096] = b"x" * len(chunk[::4096])
            hoard.append(chunk)


def enter_memory_cgroup(directory: Path, limit_bytes: int) -> None:
    """Move this rank into a memory cgroup of its own with a limit, as a job's cgroup under
    SLURM has: an OOM kill there is a real one, by the kernel. Needs a writable cgroup tree."""
    own = Path(f"/proc/{os.getpid()}/cgroup").read_text().splitlines()
    v1 = next((line.split(":", 2)[2] for line in own if ":memory:" in line), None)
    if v1 is not None:
        group = Path("/sys/fs/cgroup/memory") / v1.lstrip("/") / f"rw-emu-{os.getpid()}"
        group.mkdir()
        (group / "memory.limit_in_bytes").write_text(str(limit_bytes))
    else:
        v2 = next(line.split(":", 2)[2] for line in own if line.startswith("0::"))
        group = Path("/sys/fs/cgroup") / v2.lstrip("/") / f"rw-emu-{os.getpid()}"
        group.mkdir()
        (group / "memory.max").write_text(str(limit_bytes))
        (group / "memory.swap.max").write_text("0")
    (group / "cgroup.procs").write_text(str(os.getpid()))
    (directory / "oom-cgroup").write_text(str(group))


if __name__ == "__main__":
    sys.exit(main())
