"""The job of the third round: a small DDP job like gpu-lab's train_nccl.py (every rank claims
its own NCCL host id, so four ranks share one GPU and talk over sockets on loopback), with the
faults whose logs triage reads after the fact.

env: RW_FAULT = none | op_desync | raise | oom | kill | exit_early | hang | device_assert |
     cpu_tensor | segv | init_late | barrier_skip | subgroup_skip | nan | gpu_hang | dl_kill |
     dl_error | ckpt_full | slow_ckpt | p2p_mismatch | node_kill | abort | exit_code | nan_loss | rank_ifname |
     rank_no_gpu | dtype_desync | bcast_src | unused_param | sigterm | wrong_device |
     destroy_pg | world_mismatch | dl_timeout | gather_object | group_order | model_mismatch |
     master_port | ckpt_dir | scatter_size | thread_exc | ctrl_c ;
     RW_FAULT_RANK (2) ;
     RW_FAULT_RANKS (the ranks that take the other path in op_desync: RW_FAULT_RANK alone) ;
     RW_FAULT_AFTER_S (20) ; RW_FAULT_STEP (the fault at this step on every rank, in place of
     the time each rank's own clock reads) ; RW_NCCL_TIMEOUT_S (40) ; RW_MARK (fault's start) ;
     RW_DEBUG_BASE_PORT (opt in to torch's debug servers on BASE + LOCAL_RANK) ;
     RW_BACKEND (nccl; gloo runs the same job on the CPU, to try this script without a GPU) ;
     RW_SHARED_HOSTID=1 (every rank keeps the machine's host id: NCCL sees four ranks on one GPU) ;
     RW_PAIRS=1 (two 2-rank groups, [0, 1] and [2, 3], each running an AllReduce every step) ;
     RW_LOADER=1 (batches from a DataLoader with two worker processes, as most jobs read them)
"""

import datetime
import json
import os
import resource
import signal
import stat
import sys
import time

import torch
import torch.distributed as dist

RANK = int(os.environ["RANK"])
LOCAL_RANK = int(os.environ["LOCAL_RANK"])
BACKEND = os.environ.get("RW_BACKEND", "nccl")
if BACKEND == "nccl" and os.environ.get("RW_SHARED_HOSTID") != "1":
    os.environ["NCCL_HOSTID"] = f"rwhost{RANK}"  # one "host" per rank: NCCL's duplicate-GPU check passes
FAULT = os.environ.get("RW_FAULT", "none")
FAULT_RANK = int(os.environ.get("RW_FAULT_RANK", "2"))
FAULT_RANKS = {int(r) for r in os.environ.get("RW_FAULT_RANKS", str(FAULT_RANK)).split(",")}
AFTER = float(os.environ.get("RW_FAULT_AFTER_S", "20"))
FAULT_STEP = int(os.environ.get("RW_FAULT_STEP", "0"))
MARK = os.environ.get("RW_MARK")
T0 = time.time()


def mark(event: str) -> None:
    if MARK:
        with open(MARK, "a") as f:
            f.write(json.dumps({"event": event, "t": time.time(), "pid": os.getpid(), "rank": RANK}) + "\n")


_servers = []


def _parent(pid: int) -> int | None:
    """A process's parent, from /proc (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


class Batches(torch.utils.data.Dataset):
    """Random samples; with the dl_error fault, the faulty rank's sample at the fault step
    fails to decode, as a truncated image does."""

    def __len__(self) -> int:
        return 10**7

    def __getitem__(self, index: int) -> torch.Tensor:
        if FAULT == "dl_timeout" and RANK == FAULT_RANK and index >= 64 * (FAULT_STEP - 1):
            mark("dl_timeout_begins")
            time.sleep(3600)  # a sample that takes far longer than the loader's timeout
        if FAULT == "dl_error" and RANK == FAULT_RANK and index >= 64 * (FAULT_STEP - 1):
            mark("dl_error_begins")
            raise OSError("image file is truncated (17 bytes not processed)")
        return torch.randn(256)


class TwoHeads(torch.nn.Module):
    """The job's model with a second head that a step may leave out (the unused_param fault)."""

    def __init__(self) -> None:
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.ReLU())
        self.head = torch.nn.Linear(1024, 1)
        self.aux = torch.nn.Linear(1024, 1)

    def forward(self, x: torch.Tensor, skip_aux: bool = False) -> torch.Tensor:
        h = self.body(x)
        return self.head(h) if skip_aux else self.head(h) + self.aux(h)


def start_debug_server(base: int) -> None:
    port = base + LOCAL_RANK
    try:
        from torch.distributed.debug import start_debug_server as start

        start(worker_port=port)
        how = "start_debug_server"
    except (ImportError, RuntimeError, OSError) as exc:  # rank 0's frontend needs tabulate and jinja2
        from torch._C._distributed_c10d import _WorkerServer

        _servers.append(_WorkerServer("::", port))
        how = f"_WorkerServer ({type(exc).__name__}: {exc})"
    print(f"rank {RANK} debug server on {port} via {how}", flush=True)


def main() -> None:
    if FAULT == "rank_ifname" and RANK == FAULT_RANK:  # one rank set up with an interface it lacks
        mark("rank_ifname_begins")
        os.environ["NCCL_SOCKET_IFNAME"] = "ib9"
    if FAULT == "rank_no_gpu" and RANK == FAULT_RANK:  # one rank started without its GPU
        mark("rank_no_gpu_begins")
        os.environ["CUDA_VISIBLE_DEVICES"] = ""
    device = torch.device("cuda", 0) if BACKEND == "nccl" else torch.device("cpu")
    if BACKEND == "nccl":
        torch.cuda.set_device(0)
    if FAULT == "world_mismatch" and RANK == FAULT_RANK:  # one rank told another world size
        mark("world_mismatch_begins")
        os.environ["WORLD_SIZE"] = str(int(os.environ["WORLD_SIZE"]) - 1)
    if FAULT == "master_port" and RANK == FAULT_RANK:  # one rank pointed at a port no store listens on
        mark("master_port_begins")
        os.environ["MASTER_PORT"] = str(int(os.environ["MASTER_PORT"]) + 7)
    timeout = datetime.timedelta(seconds=float(os.environ.get("RW_NCCL_TIMEOUT_S", "40")))
    if FAULT == "init_late" and RANK == FAULT_RANK:
        mark("init_late_begins")
        time.sleep(float(os.environ.get("RW_INIT_DELAY_S", "600")))  # a rank that never joins in time
    dist.init_process_group(BACKEND, timeout=timeout)
    if os.environ.get("RW_DEBUG_BASE_PORT"):
        start_debug_server(int(os.environ["RW_DEBUG_BASE_PORT"]))
    world = dist.get_world_size()
    if FAULT == "unused_param":
        net = TwoHeads().to(device)
    else:
        hidden = 1024
        if FAULT == "model_mismatch" and RANK == FAULT_RANK:  # one rank builds another width
            mark("model_mismatch_begins")
            hidden = 1000
        net = torch.nn.Sequential(torch.nn.Linear(256, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1)).to(device)
    model = torch.nn.parallel.DistributedDataParallel(net, device_ids=[0] if BACKEND == "nccl" else None)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    pair = None
    if os.environ.get("RW_PAIRS") == "1":  # every rank creates both groups, in the same order
        groups = [dist.new_group([0, 1]), dist.new_group([2, 3])]
        pair = groups[RANK // 2]
    if RANK == 0:
        nccl = torch.cuda.nccl.version() if BACKEND == "nccl" else None
        print(f"nccl version {nccl} torch {torch.__version__} world {world}", flush=True)
    desynced = False
    step = 0
    started = time.time()
    batches = None
    if os.environ.get("RW_LOADER") == "1":
        loader = torch.utils.data.DataLoader(Batches(), batch_size=64, num_workers=2,
                                             timeout=float(os.environ.get("RW_LOADER_TIMEOUT_S", "0")))
        batches = iter(loader)
    while True:
        step += 1
        late = step >= FAULT_STEP if FAULT_STEP else time.time() - T0 > AFTER
        if late and RANK == FAULT_RANK and FAULT == "raise":
            mark("raise_begins")
            raise ValueError(f"label 1043 out of range [0, 1000) in batch of step {step}")
        if late and RANK == FAULT_RANK and FAULT == "oom":
            mark("oom_begins")
            torch.empty(1 << 40, dtype=torch.uint8, device=device)  # 1 TiB: more than any one GPU holds
        if late and RANK == FAULT_RANK and FAULT == "kill":
            mark("kill_begins")
            os.kill(os.getpid(), signal.SIGKILL)
        if late and RANK == FAULT_RANK and FAULT == "hang":
            mark("hang_begins")
            while True:  # stuck in user code, outside any collective
                time.sleep(1)
        if late and RANK == FAULT_RANK and FAULT == "device_assert":
            mark("device_assert_begins")
            labels = torch.tensor([7], device=device)
            torch.zeros(5, device=device)[labels].sum().item()  # an index past the end, on the GPU
        if late and RANK == FAULT_RANK and FAULT == "cpu_tensor":
            mark("cpu_tensor_begins")
            dist.all_reduce(torch.ones(16))  # a CPU tensor handed to the GPU's process group
        if late and RANK == FAULT_RANK and FAULT == "exit_early":
            mark("exit_early_begins")
            print(f"rank {RANK}: data exhausted after {step} steps, leaving", flush=True)
            sys.exit(0)  # the others go on into the next AllReduce, which never completes
        if late and FAULT == "op_desync" and not desynced:
            desynced = True
            mark("op_desync_begins")
            t = torch.ones(4096, device=device)
            if RANK in FAULT_RANKS:  # these ranks gather where the others reduce: same sequence number, other op
                dist.all_gather_into_tensor(torch.empty(4096 * world, device=device), t)
            else:
                dist.all_reduce(t)
        if late and RANK == FAULT_RANK and FAULT == "gpu_hang":
            mark("gpu_hang_begins")
            torch.cuda._sleep(2**62)  # a kernel that never ends; the host goes on to the next AllReduce
        if late and RANK == FAULT_RANK and FAULT == "segv":
            mark("segv_begins")
            os.kill(os.getpid(), signal.SIGSEGV)
        once = late and step == (FAULT_STEP or step)  # these faults happen at the fault step alone
        if once and FAULT == "barrier_skip":
            if RANK == FAULT_RANK:  # this rank skips the barrier the others enter
                mark("barrier_skip_begins")
            else:
                dist.barrier()
        if pair is not None:
            if once and FAULT == "subgroup_skip" and RANK == FAULT_RANK:  # skips its pair's AllReduce once
                mark("subgroup_skip_begins")
            else:
                dist.all_reduce(torch.ones(1024, device=device), group=pair)
        if once and FAULT == "nan":  # one rank brings NaN into a collective every rank runs
            if RANK == FAULT_RANK:
                mark("nan_begins")
            dist.all_reduce(torch.full((16,), float("nan") if RANK == FAULT_RANK else 1.0, device=device))
        if once and FAULT == "dl_kill" and RANK == FAULT_RANK and batches is not None:
            mark("dl_kill_begins")
            os.kill(batches._workers[0].pid, signal.SIGKILL)  # as the kernel's OOM killer would
        if once and FAULT == "ckpt_full" and RANK == FAULT_RANK:
            mark("ckpt_full_begins")
            target = "/dev/full"  # a device that is always full (ENOSPC on every write)
            if not stat.S_ISCHR(os.stat(target).st_mode):  # a sandbox's stand-in: cap file sizes
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # so a write past it fails, EFBIG
                resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))
                target = f"ckpt_rank{RANK}.pt"
            print(f"rank {RANK}: saving checkpoint to {target} at step {step}", flush=True)
            torch.save(model.state_dict(), target)
        if once and FAULT == "slow_ckpt" and RANK == FAULT_RANK:
            mark("slow_ckpt_begins")
            print(f"Saving checkpoint to checkpoints/step_{step:06d}.pt", flush=True)
            time.sleep(float(os.environ.get("RW_CKPT_S", "300")))  # a file system that stalls
        if once and FAULT == "p2p_mismatch":
            t = torch.ones(1024, device=device)
            if RANK == 0:
                mark("p2p_mismatch_begins")
                dist.send(t, dst=1)
            elif RANK == 1:
                dist.recv(t, src=2)  # rank 2 sends nothing: rank 0's send is the one to match
        if once and FAULT == "node_kill" and RANK == FAULT_RANK:
            mark("node_kill_begins")
            agent = os.getppid()  # the whole "node": its torchrun agent, then every rank it runs
            ranks = [int(d) for d in os.listdir("/proc") if d.isdigit() and _parent(int(d)) == agent]
            for pid in [agent, *sorted(ranks, key=lambda p: p == os.getpid())]:
                os.kill(pid, signal.SIGKILL)
        if once and FAULT == "abort" and RANK == FAULT_RANK:
            mark("abort_begins")
            os.abort()  # as a failed C++ check does
        if once and FAULT == "exit_code" and RANK == FAULT_RANK:
            mark("exit_code_begins")
            sys.exit(3)  # a job's own exit with a code and no traceback
        if once and FAULT == "nan_loss" and RANK == FAULT_RANK:
            mark("nan_loss_begins")
            with torch.no_grad():
                net[0].weight[0, 0] = float("nan")  # a weight gone bad on one rank
        if once and FAULT == "dtype_desync":  # one rank reduces half-precision where the others reduce float
            t = torch.ones(4096, device=device, dtype=torch.float16 if RANK == FAULT_RANK else torch.float32)
            if RANK == FAULT_RANK:
                mark("dtype_desync_begins")
            dist.all_reduce(t)
        if once and FAULT == "bcast_src":  # one rank broadcasts from itself, the others from rank 0
            if RANK == FAULT_RANK:
                mark("bcast_src_begins")
            dist.broadcast(torch.ones(4096, device=device), src=FAULT_RANK if RANK == FAULT_RANK else 0)
        if once and FAULT == "gather_object":  # one rank's object cannot be pickled
            if RANK == FAULT_RANK:
                mark("gather_object_begins")
            gathered: list = [None] * world
            dist.all_gather_object(gathered, (lambda: step) if RANK == FAULT_RANK else {"step": step})  # noqa: B023 (never called: it is there not to pickle)
        if once and FAULT == "group_order":  # one rank creates the same two groups in the other order
            if RANK == FAULT_RANK:
                mark("group_order_begins")
                second, first = dist.new_group([2, 3]), dist.new_group([0, 1])
            else:
                first, second = dist.new_group([0, 1]), dist.new_group([2, 3])
            dist.all_reduce(torch.ones(1024, device=device), group=first if RANK < 2 else second)
        if once and FAULT == "scatter_size":  # one rank hands reduce_scatter an output of another size
            if RANK == FAULT_RANK:
                mark("scatter_size_begins")
            out = torch.empty(1024 if RANK == FAULT_RANK else 1000, device=device)
            dist.reduce_scatter_tensor(out, torch.ones(1000 * world, device=device))
        if once and FAULT == "thread_exc" and RANK == FAULT_RANK:  # a helper thread fails; training goes on
            import threading

            def upload(at: int = step) -> None:
                raise ConnectionError(f"metrics upload failed at step {at}: endpoint closed the connection")

            mark("thread_exc_begins")
            threading.Thread(target=upload, name="metrics-uploader").start()
        if once and FAULT == "ctrl_c" and RANK == FAULT_RANK:  # someone presses Ctrl-C at the launcher
            mark("ctrl_c_begins")
            os.kill(os.getppid(), signal.SIGINT)
        if once and FAULT == "ckpt_dir" and RANK == FAULT_RANK:  # a save to a folder never made
            mark("ckpt_dir_begins")
            print(f"rank {RANK}: saving checkpoint to checkpoints-run7/step_{step}.pt", flush=True)
            torch.save(model.state_dict(), f"checkpoints-run7/step_{step}.pt")
        if once and FAULT == "destroy_pg" and RANK == FAULT_RANK:
            mark("destroy_pg_begins")
            dist.destroy_process_group()  # one rank tears its process group down mid-run
        if once and FAULT == "sigterm" and RANK == FAULT_RANK:
            mark("sigterm_begins")
            os.kill(os.getpid(), signal.SIGTERM)  # one rank stopped from outside
        x = next(batches).to(device) if batches is not None else torch.randn(64, 256, device=device)
        if once and FAULT == "wrong_device" and RANK == FAULT_RANK:
            mark("wrong_device_begins")
            x = x.cpu()  # a batch left on the host by this rank's own code
        if FAULT == "unused_param":
            skip = late and RANK == FAULT_RANK  # from the fault on, this rank's steps leave a head out
            if skip and step == (FAULT_STEP or step):
                mark("unused_param_begins")
            loss = model(x, skip_aux=skip).pow(2).mean()
        else:
            loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        lv = loss.item()  # the host waits for the GPU here
        if FAULT == "nan_loss" and lv != lv:
            raise FloatingPointError(f"Loss is NaN at step {step}, stopping training")
        time.sleep(0.05)
        if step % 10 == 0 and RANK == 0:
            now = time.time()
            print(f" iteration {step:8d}/ 1000000 | elapsed time per iteration (ms): {(now - started) * 100:.1f}"
                  f" | lm loss: {lv:.6E} |", flush=True)
            started = now


if __name__ == "__main__":
    main()
