"""The pod or node a file's scheduler or orchestrator output is about, and the culprit it
gives a finding that names none of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.model import Category
from monitor.triage.analysis import Diagnosis, diagnose
from monitor.triage.reader import read_inputs
from monitor.triage.subjects import placed_pods, pod_nodes, stated_subjects

DESCRIBE = """\
$ kubectl -n ml describe pod bert-worker-5
Name:             bert-worker-5
Namespace:        ml
Priority:         0
Node:             gke-train-a100-pool-7c1e-z7zz/10.128.0.42
Start Time:       Sun, 12 May 2024 08:11:02 +0000
Status:           Running
"""
PODGC = """Status:           Failed
Conditions:
  Type               Status
  DisruptionTarget   True
Condition DisruptionTarget: reason DeletionByPodGC, message "PodGC: node no longer exists"
"""

MANIFEST = """\
apiVersion: v1
kind: Pod
metadata:
  creationTimestamp: "2024-03-12T08:00:00Z"
  labels:
    name: not-the-pod
  name: trainer-worker-3
  namespace: ml
spec:
  nodeName: gke-train-pool-1-a2c4
"""

LSF = """\
Job <mt_big> was submitted from host <login01> by user <gina> in cluster <hpc1> at Mon Jul  8
Job was executed on host(s) <8*gpu-h100-12>, in queue <gpu>, as user <gina> in cluster <hpc1>
TERM_LOAD: job killed after load exceeds threshold.
"""


@pytest.mark.parametrize(("text", "subjects"), [
    (DESCRIBE, ("pod bert-worker-5 on node gke-train-a100-pool-7c1e-z7zz",)),
    (MANIFEST, ("pod trainer-worker-3 on node gke-train-pool-1-a2c4",)),
    ("$ kubectl get pod llama-ft-worker-6 -o wide\n", ("pod llama-ft-worker-6",)),
    (LSF, ("node gpu-h100-12",)),
    ("Exec host:  gpu-2-17/11\n", ("node gpu-2-17",)),
    ("    exec_host = gpu-2-17/0*8\n", ("node gpu-2-17",)),
    ("   BatchHost=gpu-a-117\n", ("node gpu-a-117",)),
    # the same fields under a paste's or a shipper's prefix, with CRLF line ends
    ("> Exec host:  gpu-2-17/11\r\n", ("node gpu-2-17",)),
    ("2024-05-12T09:52:03Z Name:   w-5\r\n2024-05-12T09:52:03Z Namespace:  ml\r\n"
     "2024-05-12T09:52:03Z Node:   gpu-7/10.0.0.7\r\n", ("pod w-5 on node gpu-7",)),
    # a described job (no Node line) is no pod; `get pods` lists many; two pods or two hosts
    # are about no one of them
    ("Name:         llama-ft\nNamespace:    ml\nKind:         PyTorchJob\n", ()),
    ("$ kubectl get pods -o wide\nNAME  READY  STATUS\nw-0   0/1    Error\n", ()),
    ("$ kubectl get pod w-1\n$ kubectl describe pod w-2\n", ()),
    ("Job was executed on host(s) <4*gpu-1>, <4*gpu-2>, in queue <gpu>\n", ()),
    ("   BatchHost=gpu-a-117\nExec host:  gpu-2-17/11\n", ()),
    ("step 100 loss 2.31\n", ()),
])
def test_the_subject_a_file_states(text: str, subjects: tuple[str, ...]) -> None:
    assert stated_subjects(text.encode()) == subjects


def _diagnosis(tmp_path: Path, files: dict[str, str]) -> Diagnosis:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    scans, problems, _ = read_inputs([str(tmp_path / name) for name in files])
    return diagnose(scans, problems)


def test_a_stop_from_outside_names_the_described_pod_and_its_node(tmp_path: Path) -> None:
    diagnosis = _diagnosis(tmp_path, {"describe.txt": DESCRIBE.replace(
        "Status:           Running\n", PODGC)})
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert diagnosis.culprits == ("pod bert-worker-5 on node gke-train-a100-pool-7c1e-z7zz",)
    assert diagnosis.culprit_ranks == ()


def test_an_lsf_kill_names_the_execution_host(tmp_path: Path) -> None:
    diagnosis = _diagnosis(tmp_path, {"lsf.out": LSF})
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert diagnosis.culprits == ("node gpu-h100-12",)


def test_a_finding_that_names_its_own_culprit_keeps_it(tmp_path: Path) -> None:
    """A rank's own error names that rank; the subject of another file adds nothing."""
    diagnosis = _diagnosis(tmp_path, {
        "rank3.log": "[rank3]: Traceback (most recent call last):\n"
                     "[rank3]:   File \"train.py\", line 9, in <module>\n"
                     "[rank3]: KeyError: 'schema'\n",
        "describe.txt": DESCRIBE,
    })
    assert diagnosis.category is Category.SOFTWARE
    assert diagnosis.culprit_ranks == (3,)
    assert not any("bert-worker-5" in c for c in diagnosis.culprits)


def test_files_about_two_different_pods_name_neither(tmp_path: Path) -> None:
    gone = DESCRIBE.replace("Status:           Running\n", PODGC)
    diagnosis = _diagnosis(tmp_path, {
        "a.txt": gone,
        "b.txt": gone.replace("bert-worker-5", "bert-worker-6").replace("7c1e-z7zz",
                                                                        "7c1e-q2k8"),
    })
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert not any("bert-worker" in c for c in diagnosis.culprits)


WIDE = """$ kubectl get pods -n llm -o wide
NAME                 READY   STATUS              RESTARTS      AGE   IP            NODE          NOMINATED NODE
llama-ft-master-0    1/1     Running             0             31m   10.244.7.21   gpu-a100-11   <none>
llama-ft-worker-0    0/1     RunContainerError   6 (2m ago)    31m   10.244.9.4    gpu-a100-14   <none>
llama-ft-worker-1    0/1     Pending             0             31m   <none>        <none>        <none>
"""


def test_the_wide_listing_and_the_schedulers_binding_place_each_pod_on_its_node() -> None:
    text = WIDE + "  Normal  Scheduled  3m  default-scheduler  Successfully assigned llm/bert-w-2 to gpu-7\n"
    assert pod_nodes(text.encode()) == {"llama-ft-master-0": "gpu-a100-11",
                                        "llama-ft-worker-0": "gpu-a100-14", "bert-w-2": "gpu-7"}


def test_a_pod_placed_on_two_nodes_is_placed_on_neither() -> None:
    text = ("Successfully assigned ml/w-0 to gpu-1\n"
            "Successfully assigned ml/w-0 to gpu-2\n")
    assert pod_nodes(text.encode()) == {}


def test_a_culprit_pod_gets_its_node_once() -> None:
    nodes = {"w-0": "gpu-14"}
    assert placed_pods("pod w-0", nodes) == "pod w-0 on node gpu-14"
    assert placed_pods("pod w-0 on node gpu-14", nodes) == "pod w-0 on node gpu-14"
    assert placed_pods("pod w-1", nodes) == "pod w-1"


def test_a_pod_the_container_runtime_could_not_start_is_named_with_its_node(tmp_path: Path) -> None:
    events = (WIDE + "$ kubectl describe pod llama-ft-worker-0 -n llm\nEvents:\n"
              "  Warning  Failed  27m (x7 over 31m)  kubelet  Error: failed to create containerd "
              "task: failed to create shim task: context deadline exceeded: unknown\n")
    diagnosis = _diagnosis(tmp_path, {"k8s.txt": events})
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert any("gpu-a100-14" in c for c in diagnosis.culprits), diagnosis.culprits


DRAIN = """$ kubectl drain gpu-node-c03 --ignore-daemonsets --delete-emptydir-data
node/gpu-node-c03 cordoned
Warning: ignoring DaemonSet-managed Pods: kube-system/kube-proxy-7hs9d
evicting pod ml/t5-xl-worker-1
pod/t5-xl-worker-1 evicted
node/gpu-node-c03 drained
evicting pod ml/t5-xl-worker-9
"""


def test_a_drain_places_the_pods_it_evicted_on_the_node_it_drained() -> None:
    assert pod_nodes(DRAIN.encode()) == {"t5-xl-worker-1": "gpu-node-c03"}
    assert pod_nodes(DRAIN.replace("node/gpu-node-c03 cordoned",
                                   'node "gpu-node-c03" cordoned').encode()) == {
        "t5-xl-worker-1": "gpu-node-c03"}


TERMINATED = """\
[2024-09-11 08:18:44,201] torch.distributed.run: [WARNING] *****************************************
[rank16]: | epoch 003 | 3800 / 4096 batches | lr 1.00e-04 | ms/batch 712.87 | loss  1.56
[2024-09-11 14:20:06,114] torch.distributed.elastic.agent.server.api: [WARNING] Received 15 death signal, shutting down workers
[2024-09-11 14:20:06,115] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 61 closing signal SIGTERM
torch.distributed.elastic.multiprocessing.api.SignalException: Process 1 got signal: 15
"""


RUNNING = """$ kubectl get pods -n ml -o wide
NAME             READY   STATUS    RESTARTS   AGE    IP            NODE           NOMINATED NODE
t5-xl-master-0   1/1     Running   0          6h2m   10.244.11.5   gpu-node-c01   <none>
t5-xl-worker-1   1/1     Running   0          6h2m   10.244.13.7   gpu-node-c03   <none>
"""


@pytest.mark.parametrize("listing", [DRAIN, RUNNING])
def test_a_stop_in_a_pods_own_log_names_that_pod_and_its_node(tmp_path: Path,
                                                               listing: str) -> None:
    # the launcher's SIGTERM names no pod; its file, saved by `kubectl logs`, does
    diagnosis = _diagnosis(tmp_path, {"ops.txt": listing, "t5-xl-worker-1.log": TERMINATED})
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert diagnosis.culprits == ("pod t5-xl-worker-1 on node gpu-node-c03",)


def test_a_file_named_after_no_listed_pod_names_no_pod(tmp_path: Path) -> None:
    diagnosis = _diagnosis(tmp_path, {"ops.txt": DRAIN, "t5-xl-worker-2.log": TERMINATED})
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert not any("pod" in c for c in diagnosis.culprits), diagnosis.culprits


@pytest.mark.parametrize("ops", [
    # `kubectl drain A B` cordons both, then evicts node by node: no eviction says whose
    DRAIN.replace("node/gpu-node-c03 cordoned\n", "node/gpu-node-c02 cordoned\nnode/gpu-node-c03 cordoned\n"),
    # nodes cordoned before, then one drained (`already cordoned`)
    "node/gpu-node-c02 cordoned\nnode/gpu-node-c03 cordoned\n" + DRAIN.replace(
        "node/gpu-node-c03 cordoned", "node/gpu-node-c03 already cordoned"),
])
def test_evictions_while_two_nodes_are_cordoned_place_no_pod(ops: str) -> None:
    assert "t5-xl-worker-1" not in pod_nodes(ops.encode())
