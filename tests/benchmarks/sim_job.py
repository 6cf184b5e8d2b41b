"""A simulated job for the overhead benchmark: N ranks with M worker processes each."""

import multiprocessing as mp
import os
import subprocess
import sys
import time


def worker(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(0.05)


def rank(rank_id: int, workers: int, seconds: float) -> None:
    procs = [mp.Process(target=worker, args=(seconds,)) for _ in range(workers)]
    for p in procs:
        p.start()
    end = time.monotonic() + seconds
    step = 0
    while time.monotonic() < end:
        step += 1
        print(f"[rank{rank_id}]: step {step}", flush=True)
        time.sleep(0.5)
    for p in procs:
        p.join()


if __name__ == "__main__":
    ranks, workers, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    if len(sys.argv) > 4:
        rank(int(sys.argv[4]), workers, seconds)
        sys.exit(0)
    children = [
        subprocess.Popen(
            [sys.executable, __file__, str(ranks), str(workers), str(seconds), str(r)],
            env={**os.environ, "RANK": str(r), "LOCAL_RANK": str(r)},
        )
        for r in range(ranks)
    ]
    sys.exit(max(c.wait() for c in children))
