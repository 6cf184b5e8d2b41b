"""Real log-line formats (torch 2.x, NCCL, SLURM, torchrun) for building synthetic logs.

Templates follow the message formats of the log-pattern reference; only the values vary.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

BASE = dt.datetime(2025, 3, 4, 10, 0, 0)


def glog_time(at: dt.datetime) -> str:
    """c10 logging's `MMDD hh:mm:ss.nnnnnnnnn` (month not zero-padded, as torch prints it)."""
    return f"{at.month}{at.day:02d} {at:%H:%M:%S}.{at.microsecond:06d}000"


def pg_prefix(pg: int, rank: int) -> str:
    desc = "(default_pg)" if pg == 0 else ""
    return f"[PG ID {pg} PG GUID {pg}{desc} Rank {rank}]"


def watchdog_timeout(rank: int, seq: int, at: dt.datetime, *, op: str = "ALLREDUCE",
                     numel: int = 4096, timeout_ms: int = 600000, ran_ms: int | None = None) -> str:
    ran = ran_ms if ran_ms is not None else timeout_ms + 71
    return (f"[rank{rank}]:[E{glog_time(at)} ProcessGroupNCCL.cpp:632] [Rank {rank}] Watchdog "
            f"caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, "
            f"NumelIn={numel}, NumelOut={numel}, Timeout(ms)={timeout_ms}) ran for {ran} "
            "milliseconds before timing out.")


def failure_detected(rank: int, seq: int, enqueued: int, completed: int, at: dt.datetime,
                     pg: int = 0) -> str:
    return (f"[rank{rank}]:[E{glog_time(at)} ProcessGroupNCCL.cpp:2271] {pg_prefix(pg, rank)}  "
            f"failure detected by watchdog at work sequence id: {seq} PG status: last enqueued "
            f"work: {enqueued}, last completed work: {completed}")


def dump_signal_observed(rank: int, source: int, enqueued: int, completed: int,
                         at: dt.datetime) -> list[str]:
    """What a rank whose own watchdog did not fire prints when another rank signals dumping."""
    return [
        f"[rank{rank}]:[E{glog_time(at)} ProcessGroupNCCL.cpp:1705] {pg_prefix(0, rank)} "
        "Observed flight recorder dump signal from another rank via TCPStore.",
        f"[rank{rank}]:[E{glog_time(at)} ProcessGroupNCCL.cpp:1746] {pg_prefix(0, rank)} "
        f"Received a dump signal due to a collective timeout from  rank {source} and we will "
        f"try our best to dump the debug info. Last enqueued NCCL work: {enqueued}, last "
        f"completed NCCL work: {completed}.This is most likely caused by incorrect usages of "
        "collectives, e.g., wrong sizes used across ranks, the order of collectives is not "
        "same for all ranks or the scheduled collective, for some reason, didn't run.",
    ]


def first_to_signal(rank: int, at: dt.datetime, pg: int = 0) -> str:
    return (f"[rank{rank}]:[E{glog_time(at)} ProcessGroupNCCL.cpp:2103] {pg_prefix(pg, rank)} "
            "First PG on this rank to signal dumping.")


def teardown(rank: int, at: dt.datetime) -> list[str]:
    return [
        f"[rank{rank}]:[E{glog_time(at)} ProcessGroupNCCL.cpp:684] [Rank {rank}] Some NCCL "
        "operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, "
        "subsequent GPU operations might run on corrupted/incomplete data.",
        f"[rank{rank}]:[E{glog_time(at)} ProcessGroupNCCL.cpp:698] [Rank {rank}] To avoid data "
        "inconsistency, we are taking the entire process down.",
    ]


def nccl_info(host: str, pid: int, dev: int, text: str) -> str:
    return f"{host}:{pid}:{pid + 17} [{dev}] NCCL INFO {text}"


def nccl_init(host: str, pid: int, rank: int, nranks: int, phase: str = "COMPLETE") -> str:
    return nccl_info(host, pid, rank % 8,
                     f"ncclCommInitRank comm 0x55{rank:04x}aa rank {rank} nranks {nranks} "
                     f"cudaDev {rank % 8} nvmlDev {rank % 8} busId {rank % 8 + 1}0000 "
                     f"commId 0xb886029f29f1a815 - Init {phase}")


def tqdm_bar(step: int, total: int, desc: str = "") -> str:
    pct = 100 * step // total
    prefix = f"{desc}: " if desc else ""
    return f"{prefix}{pct:3d}%|#####     | {step}/{total} [01:{step % 60:02d}<02:00,  2.00it/s]"


def megatron_iteration(it: int) -> str:
    return (f" iteration {it:8d}/  250000 | consumed samples: {it * 1024:12d} | elapsed time per "
            "iteration (ms): 86545.2 | learning rate: 9.150E-06 | global batch size:  1024 | "
            "lm loss: 2.504220E+00 | loss scale: 1.0 | grad norm: 0.231 | number of skipped "
            "iterations:   0 | number of nan iterations:   0 |")


def cuda_oom(gpu: int) -> str:
    return (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {gpu} "
            "has a total capacity of 79.10 GiB of which 1.06 GiB is free. Including non-PyTorch "
            "memory, this process has 78.03 GiB memory in use.")


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
