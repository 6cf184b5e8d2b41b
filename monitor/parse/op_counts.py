"""Operation counts in the job's log lines (pure): how far a communicator got, as its ranks print it.

Two live sources, both optional and off by default in the job:

* NCCL with `NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL` prints one line per operation, from
  `ncclEnqueueCheck` (enqueue.cc), every release from 2.4 to 2.30:
  `host:pid:tid [cudaDev] NCCL INFO AllReduce: opCount 1a sendbuff 0x… recvbuff 0x… count 64
  datatype 7 op 0 root 0 comm 0x7f0c741162f0 [nranks=2] stream 0x…`. `opCount` is the
  communicator's operation counter in hexadecimal; `comm` is the communicator's address in that
  process (so a communicator is named by host, pid and address); `[cudaDev]` is the GPU, never a
  rank. RCCL appends `task N globalrank R`, a real rank. Send and Recv lines carry the counter
  too; RAS counts collectives only, so they are marked `collective=False`.
* PyTorch's watchdog, in builds whose glog has `LOG_EVERY_MS` (not the official wheels, which
  print SeqNum only in failure lines), every 30 s with `TORCH_CPP_LOG_LEVEL=INFO`:
  `[PG ID 0 PG GUID 0(default_pg) Rank 3] NCCL Work update periodically: last enqueued NCCL work:
  812, last completed NCCL work: 811.` The count is the process group's last enqueued SeqNum.

A rank is taken only from what names one: torch's `[rankN]:` prefix or RCCL's `globalrank`.
Watchdog timeout lines (`WorkNCCL(SeqNum=…)`) are failure evidence, not pace, and are left to
the log-event patterns. `- Init START` / `- Init COMPLETE` lines mark a communicator being created:
a gap that spans one is initialisation, not the job's pace (`is_comm_init`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Collectives RAS counts (ras_model.OPS spelling as NCCL prints it in COLL lines).
COLLECTIVES = frozenset({"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"})

_NCCL = re.compile(
    r"(?:(?P<host>[^\s:\[\]]+):(?P<pid>\d+):\d+ \[\d+\] )?NCCL INFO (?P<op>\w+): "
    r"opCount (?P<count>[0-9a-fA-F]+) .*?comm (?P<comm>0x[0-9a-fA-F]+|\(nil\))"
    r"(?: \[nranks=(?P<nranks>\d+)[^\]]*\])?(?:.*? globalrank (?P<grank>\d+))?"
)
_TORCH = re.compile(
    r"\[(?:PG (?P<pg>.*?) )?Rank (?P<pgrank>\d+)\] ?NCCL Work update periodically: "
    r"last enqueued NCCL work: (?P<enq>-?\d+), last completed NCCL work: (?P<comp>-?\d+)"
)
_RANK_PREFIX = re.compile(r"\[rank(\d+)\]:")


@dataclass(frozen=True, slots=True)
class OpCount:
    source: str  # "nccl" (a COLL line's opCount) or "torch" (a process group's SeqNum)
    comm: str  # communicator identity, unique on this node: "host:pid/0x…" or "rank3/PG …"
    op: str  # "AllReduce", "Send", …; "" for torch's periodic line
    count: int
    nranks: int | None  # communicator size, when the line says it
    rank: int | None  # global rank, only when the line names one
    collective: bool  # False for point-to-point operations (RAS does not count them)


def _prefix_rank(line: str, end: int) -> int | None:
    found = _RANK_PREFIX.search(line, 0, end)
    return int(found.group(1)) if found else None


def match_op_count(line: str) -> OpCount | None:
    """The operation count a line reports, or None (most lines cost two substring checks)."""
    if "opCount " in line:
        found = _NCCL.search(line)
        if found is None:
            return None
        op = found.group("op")
        host, pid = found.group("host"), found.group("pid")
        where = f"{host}:{pid}/" if host else ""
        grank = found.group("grank")
        rank = int(grank) if grank is not None else _prefix_rank(line, found.start())
        nranks = found.group("nranks")
        return OpCount(
            "nccl", where + found.group("comm"), op, int(found.group("count"), 16),
            int(nranks) if nranks else None, rank, op in COLLECTIVES,
        )  # fmt: skip
    if "Work update periodically" in line:
        found = _TORCH.search(line)
        if found is None:
            return None
        rank = _prefix_rank(line, found.start())
        pg = found.group("pg") or "?"
        owner = f"rank{rank}" if rank is not None else f"pgrank{found.group('pgrank')}"
        return OpCount("torch", f"{owner}/PG {pg}", "", int(found.group("enq")), None, rank, True)
    return None


def is_comm_init(line: str) -> bool:
    """NCCL creating a communicator (`… commId 0x… - Init START` or `- Init COMPLETE`)."""
    return "- Init " in line and ("- Init START" in line or "- Init COMPLETE" in line)
