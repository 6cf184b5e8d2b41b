"""Operation counts from the job's log lines: NCCL COLL lines (opCount) and torch's periodic
SeqNum line, in the formats the releases print (NCCL enqueue.cc, RCCL, ProcessGroupNCCL)."""

from __future__ import annotations

import pytest

from monitor.parse.op_counts import OpCount, is_comm_init, match_op_count

COLL = (
    "gpu7:13135:13922 [0] NCCL INFO AllReduce: opCount 1a sendbuff 0x10048f82700 recvbuff "
    "0x10048f82800 count 64 datatype 7 op 0 root 0 comm 0x7f0c741162f0 [nranks=2] stream "
    "0x7f0c74002f00"
)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # Plain NCCL 2.x: the counter is hexadecimal, [0] is the GPU (no rank).
        (COLL, OpCount("nccl", "gpu7:13135/0x7f0c741162f0", "AllReduce", 0x1A, 2, None, True)),
        # Trailing space, a one-rank communicator, opCount 0.
        (
            "ip-10-1-2-3:30125:30125 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x7fc9c4000000 "
            "recvbuff 0x7fc9bc000000 count 33554432 datatype 7 op 0 root 0 comm 0x5631f0816b40 "
            "[nranks=1] stream 0x5631f0021140 ",
            OpCount("nccl", "ip-10-1-2-3:30125/0x5631f0816b40", "AllReduce", 0, 1, None, True),
        ),
        # Ray's actor prefix before NCCL's own; hostnames with dashes.
        (
            "(RayTrainWorker pid=615, ip=10.72.7.6) r24-worker-l4-8-fqztx:615:18953 [2] NCCL INFO "
            "AllReduce: opCount 139d sendbuff 0x78d056200000 recvbuff 0x78d056200000 count 7382228 "
            "datatype 7 op 0 root 0 comm 0x78cfda045840 [nranks=128] stream 0x78d07125e5e0",
            OpCount(
                "nccl",
                "r24-worker-l4-8-fqztx:615/0x78cfda045840",
                "AllReduce",
                0x139D,
                128,
                None,
                True,
            ),
        ),
        # FSDP/TP collectives of another type.
        (
            "hopper01:191370:191425 [1] NCCL INFO ReduceScatter: opCount e sendbuff 0x7fa917c00000 "
            "recvbuff 0x7fa921a00000 count 2097152 datatype 7 op 0 root 0 comm 0x55fca23fc0f0 "
            "[nranks=2] stream 0x55fca193e8e0",
            OpCount("nccl", "hopper01:191370/0x55fca23fc0f0", "ReduceScatter", 0xE, 2, None, True),
        ),
        # Point-to-point: counted by NCCL, not by RAS.
        (
            "ubuntu:199574:201142 [1] NCCL INFO Send: opCount d60 sendbuff 0x7f50e6f3c000 recvbuff "
            "(nil) count 2420736 datatype 7 op 0 root 0 comm 0x7f516c002e10 [nranks=2] stream "
            "0x55f1de7279a0",
            OpCount("nccl", "ubuntu:199574/0x7f516c002e10", "Send", 0xD60, 2, None, False),
        ),
        # torchrun --tee prefix is not a rank in the line; c10's [rankN]: is.
        (
            "[rank3]:" + COLL,
            OpCount("nccl", "gpu7:13135/0x7f0c741162f0", "AllReduce", 0x1A, 2, 3, True),
        ),
        # RCCL appends the task count and the global rank.
        (
            "node1:4242:4250 [5] NCCL INFO AllGather: opCount 3f sendbuff 0x7f00 recvbuff 0x7f80 "
            "count 1024 datatype 9 op 0 root 0 comm 0x5555aaaa0000 [nranks=16] stream 0x5555bbbb "
            "task 0 globalrank 13",
            OpCount("nccl", "node1:4242/0x5555aaaa0000", "AllGather", 0x3F, 16, 13, True),
        ),
        # torch's periodic line (glog builds), torch 2.5+ PG prefix, under [rankN]: and glog.
        (
            "[rank1]:[I1016 03:31:38.928019586 ProcessGroupNCCL.cpp:1984] [PG ID 0 PG GUID "
            "0(default_pg) Rank 1] NCCL Work update periodically: last enqueued NCCL work: 812, last "
            "completed NCCL work: 811.",
            OpCount("torch", "rank1/PG ID 0 PG GUID 0(default_pg)", "", 812, None, 1, True),
        ),
        # torch 2.3 PG prefix, no c10 rank prefix.
        (
            "[I ProcessGroupNCCL.cpp:1460] [PG 0 Rank 2] NCCL Work update periodically: last "
            "enqueued NCCL work: -1, last completed NCCL work: -1.",
            OpCount("torch", "pgrank2/PG 0", "", -1, None, None, True),
        ),
    ],
)
def test_operation_count_lines(line: str, expected: OpCount) -> None:
    assert match_op_count(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "gpu7:13135:13922 [0] NCCL INFO Channel 00/02 :    0   1",
        "[rank0]:[E1016 03:31:38.928 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=9141, OpType=_ALLGATHER_BASE, NumelIn=1, NumelOut=8, "
        "Timeout(ms)=600000) ran for 600081 milliseconds before timing out.",
        "[PG 1 Rank 0] Timeout at NCCL work: 7753, last enqueued NCCL work: 7755, last completed "
        "NCCL work: 7752.",
        " iteration       10/ 1000000 | consumed samples: 80 | opCount of nothing",
        "",
    ],
)
def test_other_lines_carry_no_pace(line: str) -> None:
    assert match_op_count(line) is None


def test_communicator_init_lines() -> None:
    assert is_comm_init(
        "babel-0-31:2324240:2324524 [1] NCCL INFO ncclCommInitRank comm 0x555d6dc227b0 rank 1 "
        "nranks 4 cudaDev 1 nvmlDev 1 busId 81000 commId 0xb886029f29f1a815 - Init COMPLETE"
    )
    assert is_comm_init("h:1:2 [0] NCCL INFO comm 0x5 rank 0 nranks 2 cudaDev 0 - Init START")
    assert not is_comm_init(COLL)
