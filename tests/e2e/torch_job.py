"""A small but real distributed training job for end-to-end tests (torch CPU build, gloo).

Run it under torchrun, e.g. `torchrun --standalone --nproc_per_node 2 torch_job.py --mode healthy`.
Every rank trains a small DDP-wrapped MLP (`--hidden` wide) on batches from a DataLoader with
`--workers` worker processes, printing one progress line per step. Modes:

- healthy: train `--steps` steps and exit 0.
- stall_worker: from step `--fault-step` on, the DataLoader worker 0 of rank `--fault-rank`
  blocks forever inside `__getitem__`; the other ranks then wait in DDP's gradient all-reduce.
- checkpoint_40s: at step `--fault-step`, rank 0 saves a checkpoint with `torch.save` through a
  throttled file so the save lasts `--checkpoint-seconds`; the other ranks wait in a barrier.
- init_wait: rank `--fault-rank` sleeps `--init-delay-seconds` before `init_process_group`,
  so the other ranks wait in rendezvous / the store.
- busy_user: from step `--fault-step` on, rank `--fault-rank` spins forever in a user function
  before its forward pass, so the other ranks wait in the all-reduce.

With `--pid-file`, every rank and worker appends a line `pid=... role=... rank=...` to it, so a
test can find them without guessing; the stalling worker also appends `event=stall pid=...
at=<unix time>` just before it blocks.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from typing import Any

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset, get_worker_info

FEATURES = 32


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--mode",
        default="healthy",
        choices=("healthy", "stall_worker", "checkpoint_40s", "init_wait", "busy_user"),
    )
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--hidden", type=int, default=64, help="width of the hidden layer")
    parser.add_argument("--item-seconds", type=float, default=0.005)
    parser.add_argument("--step-seconds", type=float, default=0.0, help="extra sleep per step")
    parser.add_argument("--fault-step", type=int, default=5)
    parser.add_argument("--fault-rank", type=int, default=1)
    parser.add_argument("--checkpoint-seconds", type=float, default=40.0)
    parser.add_argument("--checkpoint-dir", default="")
    parser.add_argument("--init-delay-seconds", type=float, default=30.0)
    parser.add_argument("--pid-file", default="")
    return parser.parse_args(argv)


def announce(path: str, **fields: Any) -> None:
    """Append one line describing this process (O_APPEND keeps concurrent lines whole)."""
    if not path:
        return
    line = " ".join(f"{k}={v}" for k, v in fields.items()) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


class SyntheticDataset(Dataset[tuple[torch.Tensor, torch.Tensor]]):
    def __init__(self, args: argparse.Namespace, rank: int) -> None:
        self.args = args
        self.rank = rank
        self.length = args.steps * args.batch_size * 4

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        worker = get_worker_info()
        stall_from = self.args.fault_step * self.args.batch_size
        if (
            self.args.mode == "stall_worker"
            and self.rank == self.args.fault_rank
            and worker is not None
            and worker.id == 0
            and index >= stall_from
        ):
            announce(
                self.args.pid_file, event="stall", pid=os.getpid(), rank=self.rank, at=time.time()
            )
            threading.Event().wait()  # a read that never returns
        time.sleep(self.args.item_seconds)
        generator = torch.Generator().manual_seed(index)
        features = torch.randn(FEATURES, generator=generator)
        return features, features.sum(dim=0, keepdim=True)


def worker_started(worker_id: int) -> None:
    info = get_worker_info()
    assert info is not None
    dataset = info.dataset
    assert isinstance(dataset, SyntheticDataset)
    announce(
        dataset.args.pid_file,
        pid=os.getpid(),
        role="worker",
        rank=dataset.rank,
        worker=worker_id,
        rank_pid=os.getppid(),
    )


class ThrottledFile:
    """A file object whose writes are slowed down so a checkpoint save takes a set time."""

    def __init__(self, path: str, total_bytes: int, seconds: float) -> None:
        self._file = open(path, "wb")  # noqa: SIM115 - closed in close()
        self._bytes_per_second = max(1.0, total_bytes / seconds)

    def write(self, data: bytes) -> int:
        view = memoryview(data)
        chunk = max(1, int(self._bytes_per_second / 20))
        written = 0
        while written < len(view):
            piece = view[written : written + chunk]
            self._file.write(piece)
            self._file.flush()
            written += len(piece)
            time.sleep(len(piece) / self._bytes_per_second)
        return written

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def save_checkpoint(model: nn.Module, args: argparse.Namespace, step: int) -> None:
    directory = args.checkpoint_dir or "."
    path = os.path.join(directory, f"checkpoint-{step}.pt")
    state = {"model": model.state_dict(), "ballast": torch.zeros(4_000_000)}
    total_bytes = 16_200_000
    target = ThrottledFile(path, total_bytes, args.checkpoint_seconds)
    try:
        torch.save(state, target)  # type: ignore[arg-type]
    finally:
        target.close()


def spin_in_user_code() -> None:
    total = 0
    while True:
        total += 1


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    announce(args.pid_file, pid=os.getpid(), role="rank", rank=rank)
    if args.mode == "init_wait" and rank == args.fault_rank:
        time.sleep(args.init_delay_seconds)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = DistributedDataParallel(
        nn.Sequential(nn.Linear(FEATURES, args.hidden), nn.ReLU(), nn.Linear(args.hidden, 1))
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    dataset = SyntheticDataset(args, rank)
    loader = DataLoader(
        dataset,
        batch_size=args.batch_size,
        num_workers=args.workers,
        worker_init_fn=worker_started,
        persistent_workers=args.workers > 0,
    )
    step = 0
    started = time.monotonic()
    for features, target in loader:
        if step >= args.steps:
            break
        if args.mode == "busy_user" and rank == args.fault_rank and step >= args.fault_step:
            spin_in_user_code()
        step_started = time.monotonic()
        loss = nn.functional.mse_loss(model(features), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if args.step_seconds:
            time.sleep(args.step_seconds)
        step += 1
        print(
            f"[rank{rank}] step {step}/{args.steps} loss {loss.item():.4f} "
            f"step_time {time.monotonic() - step_started:.3f}s",
            flush=True,
        )
        if args.mode == "checkpoint_40s" and step == args.fault_step:
            if rank == 0:
                save_checkpoint(model.module, args, step)
            dist.barrier()
    print(f"[rank{rank}] done {step} steps in {time.monotonic() - started:.1f}s", flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
