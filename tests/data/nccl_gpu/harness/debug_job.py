"""gpu-lab's train_nccl.py with torch's debug servers opted in: each rank starts its worker
server on 29700 + LOCAL_RANK right after init_process_group (start_debug_server where this
torch has it, else the worker server alone). Run from gpu-lab's folder, in place of
train_nccl.py."""

import os
import runpy
import sys

import torch.distributed as dist

_init = dist.init_process_group
_keep = []


def init(*args, **kwargs):
    _init(*args, **kwargs)
    port = 29700 + int(os.environ["LOCAL_RANK"])
    try:
        from torch.distributed.debug import start_debug_server

        start_debug_server(worker_port=port)
        how = "start_debug_server"
    except (ImportError, RuntimeError, OSError) as exc:  # older torch, or no frontend packages
        from torch._C._distributed_c10d import _WorkerServer

        _keep.append(_WorkerServer("::", port))
        how = f"_WorkerServer ({type(exc).__name__}: {exc})"
    print(f"rank {os.environ['RANK']} debug server on {port} via {how}", flush=True)


if __name__ == "__main__":
    dist.init_process_group = init
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "train_nccl.py")
    sys.argv = [script]
    runpy.run_path(script, run_name="__main__")
