"""A real gloo job for the flight-recorder tests: `FR_SKIP_RANK` skips one all-reduce.

Run under torchrun with TORCH_FR_BUFFER_SIZE set (torch 2.13 then records gloo collectives)
and FR_DUMP_PREFIX set. The other ranks wait in the all-reduce until the gloo timeout
(FR_TIMEOUT_SECONDS) and, on that error, write their flight-recorder dump to
FR_DUMP_PREFIX + rank: gloo does not dump on a timeout by itself (NCCL's watchdog does), so
the job does it, as a job would in an exception handler. The skipping rank dumps too, after
the others have given up. FR_DUMP_FORMAT=json writes the JSON form; FR_DUMP_STACKS=0 leaves
the stacks out (the committed fixtures: stacks hold this machine's paths).
"""

from __future__ import annotations

import datetime
import os
import time

import torch
import torch.distributed as dist
from torch._C._distributed_c10d import (  # type: ignore[attr-defined]
    _dump_fr_trace,
    _dump_fr_trace_json,
)


def dump_name(rank: int) -> str:
    suffix = ".json" if os.environ.get("FR_DUMP_FORMAT") == "json" else ""
    return f"{os.environ['FR_DUMP_PREFIX']}{rank}{suffix}"


def write_dump(rank: int) -> None:
    if os.environ.get("FR_DUMP_FORMAT") == "json":
        data = _dump_fr_trace_json()
    else:
        data = _dump_fr_trace(includeStackTraces=os.environ.get("FR_DUMP_STACKS", "1") == "1")
    with open(dump_name(rank) + ".part", "wb") as handle:
        handle.write(data)
    os.replace(dump_name(rank) + ".part", dump_name(rank))


def main() -> None:
    timeout = float(os.environ.get("FR_TIMEOUT_SECONDS", "3"))
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=timeout))
    rank = dist.get_rank()
    skip = int(os.environ.get("FR_SKIP_RANK", "1"))
    t = torch.ones(256)
    for _step in range(3):
        dist.all_reduce(t)
    dist.broadcast(t, 0)
    print(f"rank {rank}: step 3 done", flush=True)
    if rank == skip:
        print(f"rank {rank}: skipping the all-reduce", flush=True)
        time.sleep(timeout + 2)
    else:
        try:
            dist.all_reduce(t)
        except RuntimeError as exc:
            print(f"rank {rank}: all_reduce failed: {exc}", flush=True)
    write_dump(rank)
    # Stay until every rank has written its dump: the first rank to exit makes torchrun stop
    # the others. Then leave without running the failed process group's destructors.
    deadline = time.monotonic() + timeout + 20
    world = dist.get_world_size()
    while time.monotonic() < deadline and not all(
            os.path.exists(dump_name(r)) for r in range(world)):
        time.sleep(0.1)
    print(f"rank {rank}: dump written", flush=True)
    os._exit(0)


if __name__ == "__main__":
    main()
