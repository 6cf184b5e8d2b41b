"""The simulated job behind `rankwatch demo`: two ranks, each fed by a data worker process.

No GPU, no torch. Each rank takes batches from its worker and prints `[rankN]: step K`. After
`--stall-after` seconds rank 1's worker hangs inside `__getitem__` (as a real DataLoader worker
stuck on a dead NFS mount would), so rank 1 waits for data forever while rank 0 carries on.
Every process ends cleanly at `--duration`.

With `--progress-dir`, each rank keeps `rank<N>` there up to date with its pid and step count: the
demo's SIMULATED NCCL RAS endpoint reads them to report what NCCL would for this job.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import queue
import subprocess
import sys
import time
from pathlib import Path


class SlowDataset:
    def __init__(self, stall_at: float | None) -> None:
        self.stall_at = stall_at

    def __getitem__(self, index: int) -> list[float]:
        if self.stall_at is not None and time.monotonic() >= self.stall_at:
            time.sleep(3600)  # the stall: a read that never returns
        time.sleep(0.05)
        return [float(index)] * 8


def worker_loop(batches: mp.Queue, stall_at: float | None, deadline: float) -> None:  # type: ignore[type-arg]
    dataset = SlowDataset(stall_at)
    index = 0
    while time.monotonic() < deadline:
        batches.put(dataset[index])
        index += 1


def write_progress(directory: Path | None, rank: int, step: int) -> None:
    """`<pid> <steps>`, replaced atomically so a reader never sees half a file."""
    if directory is None:
        return
    partial = directory / f".rank{rank}.tmp"
    partial.write_text(f"{os.getpid()} {step}\n", encoding="ascii")
    os.replace(partial, directory / f"rank{rank}")


def rank_main(
    rank: int, stall_after: float, duration: float, progress_dir: Path | None = None
) -> int:
    start = time.monotonic()
    deadline = start + duration
    stall_at = start + stall_after if rank == 1 else None
    batches: mp.Queue = mp.Queue(maxsize=4)  # type: ignore[type-arg]
    worker = mp.Process(target=worker_loop, args=(batches, stall_at, deadline), daemon=True)
    worker.start()
    step = 0
    write_progress(progress_dir, rank, step)
    while time.monotonic() < deadline:
        try:
            batch = batches.get(timeout=0.5)
        except queue.Empty:
            continue
        busy_until = time.monotonic() + 0.15  # "compute"
        total = 0.0
        while time.monotonic() < busy_until:
            total += sum(batch)
        step += 1
        print(f"[rank{rank}]: step {step} loss {1.0 / step:.4f}", flush=True)
        write_progress(progress_dir, rank, step)
    worker.terminate()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stall-after", type=float, default=8.0)
    parser.add_argument("--duration", type=float, default=45.0)
    parser.add_argument(
        "--progress-dir", type=Path, default=None, help="keep rank<N> files with pid and step"
    )
    parser.add_argument("--rank", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.rank is not None:
        return rank_main(args.rank, args.stall_after, args.duration, args.progress_dir)
    progress = ["--progress-dir", str(args.progress_dir)] if args.progress_dir else []
    print(
        f"demo job: 2 ranks, rank 1's data worker stalls after {args.stall_after:.0f} s", flush=True
    )
    ranks = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "monitor.demo.job",
                "--rank",
                str(rank),
                "--stall-after",
                str(args.stall_after),
                "--duration",
                str(args.duration),
                *progress,
            ],
            env={**os.environ, "RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": "2"},
        )
        for rank in range(2)
    ]
    return max(p.wait() for p in ranks)


if __name__ == "__main__":
    sys.exit(main())
