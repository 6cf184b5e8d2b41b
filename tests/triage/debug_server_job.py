"""A real gloo job that opts in to torch's per-rank debug worker server (torch 2.13), for the
torch_debug source test. Rank `DBG_SKIP_RANK` skips the fourth all-reduce and sleeps; the
others wait in it. Each rank's worker server listens on DBG_WORKER_BASE + local rank.

DBG_FULL=1 uses the documented one-line opt-in, `start_debug_server(...)` (its rank-0 frontend
needs tabulate and jinja2); by default only the worker servers are started, directly.
"""

from __future__ import annotations

import datetime
import os
import pathlib
import time

import torch
import torch.distributed as dist


def main() -> None:
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=120))
    rank = dist.get_rank()
    port = int(os.environ["DBG_WORKER_BASE"]) + int(os.environ["LOCAL_RANK"])
    if os.environ.get("DBG_FULL") == "1":
        from torch.distributed.debug import start_debug_server

        start_debug_server(port=int(os.environ["DBG_FRONTEND_PORT"]), worker_port=port)
    else:
        from torch._C._distributed_c10d import _WorkerServer

        server = _WorkerServer("::", port)  # noqa: F841 - keeps the server alive
    t = torch.ones(16)
    for _ in range(3):
        dist.all_reduce(t)
    # the pid, so the test can stop this worker (torchrun starts each in its own session)
    pathlib.Path(os.environ["DBG_READY_DIR"], f"rank{rank}").write_text(str(os.getpid()))
    if rank == int(os.environ.get("DBG_SKIP_RANK", "1")):
        time.sleep(600)  # skips the collective the others wait in
    else:
        dist.all_reduce(t)
    os._exit(0)


if __name__ == "__main__":
    main()
