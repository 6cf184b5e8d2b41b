"""A local rank is a global rank only on a job of one node, and only when the logs say so;
srun's task ids are ranks only when srun shows it started the ranks itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.model import Category
from monitor.parse.launch_shape import launch_nodes
from monitor.triage.analysis import diagnose
from monitor.triage.reader import (
    declared_ranks,
    has_line_tag,
    has_rank_labels,
    has_task_labels,
    read_inputs,
)
from tests.triage.texts import triage_texts

CORPUS = Path(__file__).resolve().parent.parent / "data" / "corpus_public"


@pytest.mark.parametrize(("line", "nodes"), [
    ("root@host:~/llama# torchrun --nproc_per_node 1 example_chat_completion.py --ckpt_dir x", 1),
    ("python -m torch.distributed.launch --nproc_per_node=8 train.py --cfg a.yaml", 1),
    ("torchrun --standalone --nproc-per-node=4 train.py", 1),
    ("torchrun --nnodes=1 --nproc_per_node=8 train.py", 1),
    ("torchrun --nnodes 1:1 --nproc_per_node=8 train.py", 1),
    ("  max_nodes        : 1", 1),
    ("  group_world_size=1", 1),
    ("[INFO] [launch.py:151:main] nnodes=1, num_local_procs=8, node_rank=0", 1),
    ("[INFO] [runner.py:555:main] WORLD INFO DICT: {'localhost': [0, 1, 2, 3]}", 1),
    ("torchrun --nnodes=2 --nproc_per_node=8 --node_rank=0 train.py", 2),
    ("[INFO] WORLD INFO DICT: {'node-1': [0, 1], 'node-2': [0, 1]}", 2),
    ("  max_nodes        : 4", 4),
    ("accelerate launch --num_machines 2 --num_processes 16 train.py", 2),
    # a count the line does not spell out is unknown, never one node
    ("torchrun --nnodes=$NNODES --nproc_per_node=8 train.py", None),
    ("torchrun --nnodes 1:4 --nproc_per_node=8 train.py", 4),
    ("python -m torch.distributed.launch --nproc_per_node=4 --node_rank=1 train.py", None),
    ("accelerate launch --num_processes 8 train.py", None),  # its config file decides
    ("nproc = os.cpu_count()", None),
])
def test_the_node_count_a_launcher_line_states(line: str, nodes: int | None) -> None:
    assert launch_nodes(line) == nodes


def test_a_single_node_launch_makes_the_failed_local_rank_the_rank() -> None:
    scans, problems, _ = read_inputs([str(CORPUS / "llama-799-torchrun-sigsegv.log")])
    diagnosis = diagnose(scans, problems)
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, (0,))
    assert any("82397" in c for c in diagnosis.culprits)
    assert any("ran on one node" in f for f in diagnosis.findings)


_FAILED = ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -11) "
           "local_rank: 3 (pid: 82397) of binary: /usr/bin/python3\n")


def test_without_the_launchers_word_a_local_rank_stays_local(tmp_path: Path) -> None:
    for command in ("", "torchrun --nnodes=2 --nproc_per_node 4 train.py\n",
                    "torchrun --nnodes=$N --nproc_per_node 4 train.py\n"):
        diagnosis = triage_texts(tmp_path / str(len(command)), command + _FAILED)
        assert diagnosis.culprit_ranks == (), command
        assert any("local_rank 3" in c for c in diagnosis.culprits), command
    single = triage_texts(tmp_path / "one", "torchrun --nproc_per_node 4 train.py\n" + _FAILED)
    assert single.culprit_ranks == (3,)


def test_lines_from_two_hosts_are_two_nodes_whatever_the_command_said(tmp_path: Path) -> None:
    two_hosts = "".join(
        f"{host}:{pid}:{pid} [0] NCCL INFO comm 0x55d0 rank {rank} nranks 8 cudaDev 0 busId "
        "1000 commId 0x1 - Init COMPLETE\n" for host, pid, rank in (("node-a", 812, 0),
                                                                    ("node-b", 913, 4)))
    diagnosis = triage_texts(tmp_path, "torchrun --nproc_per_node 4 train.py\n" + two_hosts
                             + _FAILED)
    assert diagnosis.culprit_ranks == ()
    one_host = two_hosts.replace("node-b", "node-a")
    assert triage_texts(tmp_path / "one", "torchrun --nproc_per_node 4 train.py\n" + one_host
                        + _FAILED).culprit_ranks == (3,)


def test_srun_that_ran_several_tasks_on_a_node_started_the_ranks_so_its_task_is_a_rank(
        ) -> None:
    """`tasks 3,7: Killed` on one node: srun started a process per rank, not a launcher per
    node, so task 5 is SLURM_PROCID 5, the job's rank 5."""
    head = (CORPUS / "srun-deit-102-task5-exit1.log").read_bytes()
    assert not has_line_tag(head)  # `srun: ` is the program's name, not a host to strip
    scans, problems, _ = read_inputs([str(CORPUS / "srun-deit-102-task5-exit1.log")])
    diagnosis = diagnose(scans, problems)
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, (5,))
    assert diagnosis.culprits == ("rank 5 (srun task 5 on learnfair0824)",)


_SRUN_FIRST = "srun: error: gpu-node-12: task 1: Exited with exit code 1\n"


@pytest.mark.parametrize("others", [
    # one task per node: each may be a per-node launcher (torchrun under srun)
    "srun: error: gpu-node-11: task 0: Terminated\n",
    # several tasks on a node, but a per-node launcher speaks: tasks are its copies
    "srun: error: gpu-node-11: tasks 0,2: Terminated\n"
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
    "train.py FAILED\n"
    "Root Cause (first observed failure):\n[0]:\n  time      : 2024-05-01_12:00:00\n"
    "  host      : gpu-node-12\n  rank      : 9 (local_rank: 1)\n  exitcode  : 1 (pid: 4242)\n",
    "srun: error: gpu-node-11: tasks 0,2: Terminated\n"
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 "
    "(pid: 4242) of binary: /usr/bin/python3\n",
])
def test_srun_tasks_stay_tasks_unless_srun_started_the_ranks(tmp_path: Path, others: str
                                                             ) -> None:
    diagnosis = triage_texts(tmp_path, _SRUN_FIRST + others)
    assert 1 not in diagnosis.culprit_ranks
    assert not any(c.startswith("rank 1 (srun") for c in diagnosis.culprits)
    # the same first failure, with srun's word that it ran two tasks on one node
    ranks = triage_texts(tmp_path / "ranks", _SRUN_FIRST
                         + "srun: error: gpu-node-11: tasks 0,2: Terminated\n")
    assert ranks.culprit_ranks == (1,)


def test_srun_label_prefixes_are_task_ids_not_hosts() -> None:
    path = CORPUS / "weathergen-1572-cuda-init-error.log"
    assert has_task_labels(path.read_bytes())
    assert not has_task_labels(b"12:00:01 started\n12:00:02 step 1\n12:00:03 step 2\n")
    scans, problems, _ = read_inputs([str(path)])
    diagnosis = diagnose(scans, problems)
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.GPU_CUDA, ())
    assert diagnosis.culprits == ("task 0",)


@pytest.mark.parametrize(("start", "ranks"), [
    (b"RANK=9 LOCAL_RANK=1 WORLD_SIZE=16\nstep 1\n", {9}),
    # SkyPilot's tag names the node's rank, not the process's
    (b"(worker1, rank=1, pid=4888, ip=10.60.0.4) world_size=16 global_rank=9\n", {9}),
    (b"(worker1, rank=1, pid=4888, ip=10.60.0.4) initialising with world_size=16\n", set()),
])
def test_the_rank_a_files_first_lines_declare(start: bytes, ranks: set[int]) -> None:
    assert declared_ranks(start) == ranks


def test_mpiexec_rank_labels_are_told_from_a_viewers_line_numbers() -> None:
    """MPICH's `mpiexec -l` tags repeat and go back; a viewer's numbers count up by one."""
    labelled = (b"[0] rank 0/8 on node03\n[1] rank 1/8 on node03\n[4] rank 4/8 on node04\n"
                b"[0] epoch 0 batch 100 loss 1.9181\n[3] Traceback (most recent call last):\n"
                b"[3] ZeroDivisionError: division by zero\n")
    numbered = b"".join(b"[%d] step %d loss 0.5\n" % (n, n) for n in range(1780, 1790))
    device_tags = b"".join(b"[10] NCCL INFO transport.cc:%d -> 1\n" % n for n in range(30, 36))
    assert has_rank_labels(labelled)
    assert not has_rank_labels(numbered)
    assert not has_rank_labels(device_tags)
