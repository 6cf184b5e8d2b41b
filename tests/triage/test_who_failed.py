"""Which process, task, pod or node failed, as launchers and orchestrators say it: srun's word
for a task that dumped core, a process that stopped because another failed, DeepSpeed's
launcher on one of several nodes, a pod described as stopped under its node, and Open MPI's
count of repeated help messages (no failure of its own)."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.model import Category
from monitor.parse.log_patterns import signal_name
from tests.triage.texts import triage_texts


@pytest.mark.parametrize("said,name", [
    ("Segmentation fault (core dumped)", "SIGSEGV"),
    ("Aborted (core dumped)", "SIGABRT"),
    ("Bus error (core dumped)", "SIGBUS"),
    ("Killed", "SIGKILL"),
    ("Trace/breakpoint trap (core dumped)", "SIGTRAP"),
    ("Exited with exit code 1", None),
])
def test_a_signal_that_dumped_core_is_named_as_the_signal(said: str, name: str | None) -> None:
    assert signal_name(said) == name


SRUN_STEPS = "".join(f"{task}: step 90100 | loss 1.7732\n" for task in range(8))


def test_srun_names_the_task_that_dumped_core_first(tmp_path: Path) -> None:
    d = triage_texts(tmp_path, SRUN_STEPS + (
        "srun: error: gpu-07: task 6: Segmentation fault (core dumped)\n"
        "srun: launch/slurm: _step_signal: Terminating StepId=55102.0\n"
        "slurmstepd: error: *** STEP 55102.0 ON gpu-06 CANCELLED AT 2024-10-25T22:40:18 ***\n"
        "srun: error: gpu-06: tasks 0-3: Terminated\n"
        "srun: error: gpu-07: tasks 4-5,7: Terminated\n"))
    assert (d.category, d.culprit_ranks) == (Category.UNDETERMINED, (6,))
    assert any("gpu-07" in c for c in d.culprits)


def test_a_task_that_aborted_on_its_own_check_is_read_by_that_check(tmp_path: Path) -> None:
    """A process that aborts itself on a failed CHECK: the CHECK is the story, not srun's
    report that the task aborted."""
    check = ("F tensorflow/core/framework/tensor_shape.cc:45] Check failed: NDIMS == dims() "
             "(2 vs. 3)Asking for tensor of 2 dimensions from a tensor of 3 dimensions\n")
    d = triage_texts(tmp_path, (
        "Epoch 1/20\n"
        f"2024-03-02 11:42:01.772431: {check}"
        f"2024-03-02 11:42:01.772519: {check}"
        "srun: error: tf-node-02: task 1: Aborted (core dumped)\n"
        "srun: error: tf-node-01: task 0: Aborted (core dumped)\n"))
    assert (d.category, d.culprit_ranks) == (Category.SOFTWARE, ())


def test_a_task_that_aborted_on_its_own_labelled_check_is_named_with_it(tmp_path: Path) -> None:
    d = triage_texts(tmp_path, SRUN_STEPS + (
        "1: F0302 11:42:01.772431 4412 tensor_shape.cc:45] Check failed: NDIMS == dims() "
        "(2 vs. 3)\n"
        "srun: error: tf-node-02: task 1: Aborted (core dumped)\n"
        "srun: error: tf-node-01: tasks 0,2-7: Terminated\n"))
    assert d.category is Category.SOFTWARE
    assert any("task 1" in c for c in d.culprits), d.culprits


@pytest.mark.parametrize("why", ["another task died", "the coordinator task died"])
def test_tasks_that_stopped_because_another_died_are_no_culprits(tmp_path: Path,
                                                                 why: str) -> None:
    fatal = ("client.h:77] Terminating process because the JAX distributed service detected "
             f"fatal errors. This most likely indicates that {why}; see the other "
             "task logs for more details.\n")
    d = triage_texts(tmp_path, (
        "1: I0929 17:42:31.100210 1044529 train.py:188] step 310 loss=3.0121\n"
        "2: I0929 17:42:31.100877 1044611 train.py:188] step 310 loss=3.0121\n"
        f"1: F0929 17:42:48.594200 1044529 {fatal}"
        f"2: F0929 17:42:48.601740 1044611 {fatal}"
        "srun: error: a3-node-02: tasks 1-2: Aborted (core dumped)\n"
        "srun: error: a3-node-01: task 0: Killed\n"))
    assert (d.category, d.culprit_ranks, d.culprits) == (Category.UNDETERMINED, (), ())
    assert any("another process failed" in f for f in d.findings)


def test_another_tasks_unlabelled_words_do_not_clear_the_task_that_was_killed(
        tmp_path: Path) -> None:
    """Only a task's own labelled lines say it stopped because another died: an unlabelled
    line may be any task's."""
    d = triage_texts(tmp_path, (
        "F0929 17:42:48.594200 1044529 client.h:77] Terminating process because the "
        "coordinator detected missing heartbeats. This most likely indicates that another task "
        "died; see the other task logs for more details.\n"
        "srun: error: a3-node-04: task 3: Killed\n"
        "srun: error: a3-node-02: tasks 1-2: Aborted (core dumped)\n"))
    assert any("task 3" in c for c in d.culprits), d.culprits


DEEPSPEED_EXIT = (
    "worker-3: [2024-11-13 03:12:44,118] [INFO] [launch.py:315:sigkill_handler] "
    "Killing subprocess 38110\n"
    "worker-3: [2024-11-13 03:12:44,121] [INFO] [launch.py:315:sigkill_handler] "
    "Killing subprocess 38111\n"
    "worker-3: [2024-11-13 03:12:44,871] [ERROR] [launch.py:321:sigkill_handler] "
    "['/usr/bin/python', '-u', 'train.py', '--local_rank=1', '--deepspeed'] exits with "
    "return code = -9\n"
    "pdsh@worker-0: worker-3: ssh exited with exit code 247\n")


def test_deepspeeds_launcher_on_one_of_several_nodes_names_that_node(tmp_path: Path) -> None:
    """Its line shows the last-started worker's command, so no process is named; the node
    pdsh tagged the line with is."""
    d = triage_texts(tmp_path, (
        "worker-0: [2024-11-13 03:12:30,118] [INFO] [logging.py:96:log_dist] [Rank 0] "
        "step=3100, skipped=0\n" + DEEPSPEED_EXIT))
    assert (d.category, d.culprit_ranks) == (Category.UNDETERMINED, ())
    assert d.culprits == ("a worker on node worker-3",)


def test_deepspeeds_launchers_on_two_nodes_reporting_name_neither(tmp_path: Path) -> None:
    d = triage_texts(tmp_path, DEEPSPEED_EXIT + (
        "worker-1: [2024-11-13 03:12:45,002] [INFO] [launch.py:315:sigkill_handler] "
        "Killing subprocess 40101\n"
        "worker-1: [2024-11-13 03:12:45,871] [ERROR] [launch.py:321:sigkill_handler] "
        "['/usr/bin/python', '-u', 'train.py', '--local_rank=1', '--deepspeed'] exits with "
        "return code = -6\n"))
    assert d.category is Category.UNDETERMINED and d.culprits == ()


def test_after_a_watchdog_on_every_rank_the_first_node_to_report_is_not_named(
        tmp_path: Path) -> None:
    watchdog = ("[rank{r}]:[E1112 09:49:11.100000 77300 ProcessGroupNCCL.cpp:607] [Rank {r}] "
                "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=40417, "
                "OpType=ALLREDUCE, NumelIn=2097152, NumelOut=2097152, Timeout(ms)=1800000) "
                "ran for 1800083 milliseconds before timing out.\n")
    d = triage_texts(tmp_path, (
        "".join(f"worker-{r // 2}: " + watchdog.format(r=r) for r in range(8))
        + DEEPSPEED_EXIT))
    assert not any("worker-3" in c for c in d.culprits)


def test_a_described_pod_stopped_under_its_node_is_named_with_the_node(tmp_path: Path) -> None:
    d = triage_texts(tmp_path, (
        "$ kubectl get pods -n cv -o wide | grep vit-huge\n"
        "vit-huge-master-0   1/1   Running      0     5h3m   10.4.0.12   gpu-node-02   <none>\n"
        "vit-huge-worker-4   0/1   Terminated   0     5h3m   10.4.1.77   gpu-node-12   <none>\n"
        "$ kubectl describe pod vit-huge-worker-4 -n cv | head -9\n"
        "Name:             vit-huge-worker-4\n"
        "Namespace:        cv\n"
        "Node:             gpu-node-12/10.4.1.12\n"
        "Status:           Failed\n"
        "Reason:           Terminated\n"
        "Message:          Pod was terminated in response to imminent node shutdown.\n"
        "IP:               10.4.1.77\n"))
    assert d.category is Category.INFRASTRUCTURE
    assert d.culprits == ("pod vit-huge-worker-4 on node gpu-node-12",)


def test_open_mpis_count_of_repeated_help_messages_is_no_failure(tmp_path: Path) -> None:
    d = triage_texts(tmp_path, (
        "[1,0]<stdout>:Epoch 1/5 - loss 2.913 - 10412 img/s\n"
        "[gpu-node-01:41822] 15 more processes have sent help message "
        "help-mpi-btl-openib.txt / error in device init\n"
        "[gpu-node-01:41822] Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all "
        "help / error messages\n"
        "[1,0]<stdout>:Epoch 2/5 - loss 2.104 - 10455 img/s\n"))
    assert d.category is Category.NONE and d.culprits == ()


def test_an_exception_that_says_where_memory_ran_out_names_that_place(tmp_path: Path) -> None:
    """Spark's relayed loss of an executor that YARN killed for its memory: the executor, not
    the driver that raised it."""
    d = triage_texts(tmp_path, (
        "Traceback (most recent call last):\n"
        '  File "train_xgb.py", line 88, in <module>\n'
        "    model = estimator.fit(train_df)\n"
        "py4j.protocol.Py4JJavaError: An error occurred while calling o312.fit.\n"
        ": org.apache.spark.SparkException: Job aborted due to stage failure: Task 7 in stage "
        "4.0 failed 4 times, most recent failure: Lost task 7.3 in stage 4.0 (TID 211, "
        "wn-07.cluster, executor 3): ExecutorLostFailure (executor 3 exited caused by one of "
        "the running tasks) Reason: Container killed by YARN for exceeding memory limits. "
        "10.4 GB of 10 GB physical memory used.\n"))
    assert (d.category, d.culprit_ranks) == (Category.OOM, ())
    assert any(c.startswith("executor 3") for c in d.culprits), d.culprits


def test_spark_3s_wording_names_the_executor_not_its_address(tmp_path: Path) -> None:
    d = triage_texts(tmp_path, (
        "py4j.protocol.Py4JJavaError: An error occurred while calling o88.fit.\n"
        ": org.apache.spark.SparkException: Job aborted due to stage failure: Task 7 in stage "
        "4.0 failed 4 times, most recent failure: Lost task 7.3 in stage 4.0 (TID 211) "
        "(10.2.3.4 executor 7): ExecutorLostFailure (executor 7 exited caused by one of the "
        "running tasks) Reason: Container killed by YARN for exceeding physical memory "
        "limits. 11.2 GB of 11 GB physical memory used.\n"))
    assert (d.category, d.culprits) == (Category.OOM, ("executor 7",))


@pytest.mark.parametrize("call", ["o97.fit", "z:org.apache.spark.api.python.PythonRDD.collectAndServe"])
def test_py4js_heading_is_read_with_the_java_exception_under_it(tmp_path: Path,
                                                                call: str) -> None:
    d = triage_texts(tmp_path, (
        "Traceback (most recent call last):\n"
        '  File "train_lgbm.py", line 41, in <module>\n'
        "    model = LightGBMClassifier(labelCol='label').fit(train)\n"
        f"py4j.protocol.Py4JJavaError: An error occurred while calling {call}.\n"
        ": java.net.ConnectException: Connection refused (Connection refused)\n"
        "\tat java.net.PlainSocketImpl.socketConnect(Native Method)\n"))
    assert (d.category, d.culprit_ranks) == (Category.NETWORK, ())
