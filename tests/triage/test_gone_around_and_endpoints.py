"""A job that went around what failed (a restart the launcher did not announce, a pod that
completed after its events' errors, a shell's exit status of 0), the kernel's lines read as
the kernel's, and the endpoint a client names in its own words."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.model import Category
from monitor.triage.rules.base import TRAINING_DONE
from tests.triage.texts import triage_texts

BANNER = ("W1129 03:48:05.793000 12567 torch/distributed/run.py:874] "
          "*****************************************\n")
STEPS = "".join(f"[default0]:[2026-11-29 03:48:1{n}] step {n}/6 loss=0.3 lr=0.1\n"
                for n in (1, 2, 3))
KILLED = ("E1129 03:48:17.218000 12567 torch/distributed/elastic/multiprocessing/api.py:1002] "
          "failed (exitcode: -9) local_rank: 1 (pid: 12593) of binary: /opt/conda/bin/python\n")
AGAIN = "".join(f"[default0]:[2026-11-29 03:48:3{n}] step {n}/6 loss=0.2 lr=0.1\n"
                for n in range(1, 7))
FINISHED = "[default0]:[2026-11-29 03:48:31] training finished, saving final checkpoint\n"


def test_a_restart_the_launcher_did_not_announce_then_finished_is_no_failure(
        tmp_path: Path) -> None:
    # torchrun restarts its group with no line of its own at its default log level: the step
    # count starting over, then the loop's word that it finished, show the new attempt
    diagnosis = triage_texts(tmp_path, BANNER + STEPS + KILLED + AGAIN + FINISHED)
    assert diagnosis.category is Category.NONE, diagnosis.findings


def test_steps_starting_over_without_finishing_are_no_recovery(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, BANNER + STEPS + KILLED + AGAIN)
    assert diagnosis.category is Category.UNDETERMINED
    assert diagnosis.culprits == ("local_rank 1 (pid 12593)",)


DESCRIBED = """$ kubectl describe pod bert-ft-worker-0 -n nlp
Name:             bert-ft-worker-0
Namespace:        nlp
Node:             a10g-pool-7m1q/10.20.3.41
Status:           Succeeded
Containers:
  pytorch:
    State:          Terminated
      Reason:       Completed
      Exit Code:    0
    Restart Count:  0
Events:
  Type     Reason     Age   From     Message
  ----     ------     ----  ----     -------
  Warning  Failed     69m   kubelet  Failed to pull image "registry.internal/nlp/bert-ft:3.1.0": rpc error: code = Unknown desc = failed to pull and unpack image: dial tcp 10.20.0.5:443: i/o timeout
  Warning  Failed     69m   kubelet  Error: ErrImagePull
  Normal   Pulled     66m   kubelet  Successfully pulled image "registry.internal/nlp/bert-ft:3.1.0"
"""


@pytest.mark.parametrize(("state", "category"), [
    ("Terminated\n      Reason:       Completed\n      Exit Code:    0", Category.NONE),
    ("Running", Category.NETWORK),
])
def test_the_events_of_a_pod_that_completed_are_its_past(tmp_path: Path, state: str,
                                                          category: Category) -> None:
    text = DESCRIBED.replace("Terminated\n      Reason:       Completed\n      Exit Code:    0",
                             state)
    assert triage_texts(tmp_path, text).category is category


def test_a_kernel_line_under_dmesg_is_no_python_exception(tmp_path: Path) -> None:
    line = ("[ 1843.308145] LustreError: 11-0: scratch-OST0004-osc-ffff8d2b3c4e1000: operation "
            "ost_write to node 10.10.1.14@o2ib failed: rc = -107\n")
    diagnosis = triage_texts(tmp_path, line)
    assert diagnosis.category is not Category.SOFTWARE
    assert not any("raised LustreError" in f for f in diagnosis.findings), diagnosis.findings


HUB = """\
'[Errno -2] Name or service not known' thrown while requesting HEAD http://hf-mirror.corp.internal:8080/org/model/resolve/main/config.json
Retrying in 1s [Retry 1/5].
'[Errno -2] Name or service not known' thrown while requesting HEAD http://hf-mirror.corp.internal:8080/org/model/resolve/main/config.json
[rank0]: httpx.ConnectError: [Errno -2] Name or service not known
"""
REDIS = """\
Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/redis/connection.py", line 1581, in _connect
    for res in socket.getaddrinfo(
socket.gaierror: [Errno -2] Name or service not known

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/redis/connection.py", line 1077, in connect_check_health
    raise ConnectionError(self._error_message(e))
redis.exceptions.ConnectionError: Error -2 connecting to redis-master.infra.svc:6379. Name or service not known.
"""
STS = """\
Traceback (most recent call last):
  File "/opt/conda/lib/python3.11/site-packages/botocore/httpsession.py", line 493, in send
    raise EndpointConnectionError(endpoint_url=request.url, error=e)
botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL: "https://sts.us-east-1.amazonaws.com/"
"""
WANDB = """\
Traceback (most recent call last):
  File "/home/user/llm-train/sft.py", line 3, in <module>
    run = wandb.init(project="llm-sft")
wandb.errors.errors.CommError: Timed out while retrying: Post "http://wandb.mlplatform.internal:8080/graphql": dial tcp: lookup wandb.mlplatform.internal on 10.96.0.10:53: no such host
"""


@pytest.mark.parametrize(("text", "endpoint"), [
    (HUB, "hf-mirror.corp.internal:8080"),  # the hub's retry names the URL it requested
    (REDIS, "redis-master.infra.svc:6379"),  # the chained cause's client names it
    (STS, "sts.us-east-1.amazonaws.com"),
    (WANDB, "wandb.mlplatform.internal:8080"),  # Go's request, not its resolver's address
])
def test_a_client_that_could_not_reach_its_service_names_it(tmp_path: Path, text: str,
                                                             endpoint: str) -> None:
    diagnosis = triage_texts(tmp_path, text)
    assert diagnosis.category is Category.NETWORK, diagnosis.findings
    assert any(endpoint in c for c in diagnosis.culprits), diagnosis.culprits
    assert not any("10.96.0.10" in c for c in diagnosis.culprits)


@pytest.mark.parametrize(("line", "host"), [
    # Go's resolver with no URL of its own (an image pull, an operator)
    ("E1129 04:02:44.101 kuberuntime_image.go:53] failed to pull: dial tcp: lookup "
     "registry.internal on 10.96.0.10:53: no such host", "registry.internal"),
    ("Error: getaddrinfo ENOTFOUND registry.internal.corp", "registry.internal.corp"),
    ("Caused by: java.net.UnknownHostException: spark-master-0.spark-headless",
     "spark-master-0.spark-headless"),
    ("ValueError: host not found: trainer-master-0.trainer-svc", "trainer-master-0.trainer-svc"),
    ("RuntimeError: Could not resolve the hostname 'trainer-0.svc' for the rendezvous",
     "trainer-0.svc"),
])
def test_a_name_that_does_not_resolve_is_named_in_any_clients_words(
        tmp_path: Path, line: str, host: str) -> None:
    diagnosis = triage_texts(tmp_path, f"starting job 8812\n{line}\n")
    assert diagnosis.category is Category.NETWORK, diagnosis.findings
    assert any(f"{host} (it does not resolve)" in c for c in diagnosis.culprits), (
        diagnosis.culprits)
    assert not any("10.96.0.10" in c for c in diagnosis.culprits)


CALLBACK = "".join(
    f"Epoch {n}: 100%|##########| 782/782 [03:1{n % 10}<00:00, 4.0{n % 10}it/s, "
    f"train_loss=1.{90 - n}0]\n" for n in range(0, 8)) + """\
wandb: Network error (ConnectionError), entering retry loop.
2025-05-12 10:41:27,903 - callbacks.sample_logger - ERROR - failed to upload sample predictions for epoch 7, continuing
Traceback (most recent call last):
  File "/home/user/proj/callbacks/sample_logger.py", line 61, in on_validation_epoch_end
    trainer.logger.experiment.log({"samples": table}, commit=False)
requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.wandb.ai', port=443): Max retries exceeded with url: /graphql (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f2c>: Failed to establish a new connection: [Errno 101] Network is unreachable'))
Epoch 8: 100%|##########| 782/782 [03:18<00:00, 4.08it/s, train_loss=1.420]
wandb: Network error resolved after 0:01:12.402311, resuming normal operation.
Epoch 9: 100%|##########| 782/782 [03:19<00:00, 4.09it/s, train_loss=1.360]
`Trainer.fit` stopped: `max_epochs=10` reached.
"""


def test_a_callbacks_traceback_the_epochs_went_on_past_is_no_failure(tmp_path: Path) -> None:
    # Lightning's bars number the epochs; a client's `resuming normal operation` is no restart
    assert triage_texts(tmp_path, CALLBACK).category is Category.NONE
    cut = CALLBACK.split("Epoch 8:")[0]
    assert triage_texts(tmp_path / "cut", cut).category is Category.NETWORK


FALLBACK = """\
[rank0] loading config for acme-research/tiny-bert-base
Could not reach the Hub ([Errno -2] Name or service not known). Using cached commit hash for 'acme-research/tiny-bert-base'.
Could not reach the Hub ([Errno -2] Name or service not known). Using cached commit hash for 'acme-research/tiny-bert-base'.
[rank0] step 2/8 loss 6.8703
[rank0] step 4/8 loss 6.8459
[rank0] step 6/8 loss 6.8315
training finished, saving to /home/user/ckpt/final
"""


def test_each_ranks_same_setup_failure_the_job_trained_past_is_no_failure(
        tmp_path: Path) -> None:
    # two ranks' same line, one under the other: the steps after the last of them count
    assert triage_texts(tmp_path, FALLBACK).category is Category.NONE


RETRIED = """\
$ torchrun --nproc-per-node=2 push.py
[rank0]: urllib.error.URLError: <urlopen error [Errno 111] Connection refused>
E1129 03:52:51.422000 15389 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: 0 (pid: 15441) of binary: /home/user/venv/bin/python
[rank0] step 1/6 loss=2.2500
[rank0] step 6/6 loss=1.3286
[rank0] done
"""


@pytest.mark.parametrize(("between", "status", "succeeded"), [
    ("", "0", True),  # the launcher exited 0: its restart went on to succeed
    ("", "1", False),
    ("$ ls /home/user/ckpt\nfinal\n", "0", False),  # the 0 is ls's
])
def test_a_shells_exit_status_of_zero_after_the_launcher_is_its_success(
        tmp_path: Path, between: str, status: str, succeeded: bool) -> None:
    text = RETRIED + between + f"$ echo $?\n{status}\n"
    assert (triage_texts(tmp_path, text).category is Category.NONE) is succeeded


def test_horovods_shutdown_relays_another_ranks_exception(tmp_path: Path) -> None:
    ranks = "".join(f"""\
[1,{r}]<stderr>:Traceback (most recent call last):
[1,{r}]<stderr>:  File "/home/user/proj/train_keras_hvd.py", line 188, in <module>
[1,{r}]<stderr>:    model.fit(train_ds, epochs=40)
[1,{r}]<stderr>:tensorflow.python.framework.errors_impl.UnknownError: Graph execution error:
[1,{r}]<stderr>:
[1,{r}]<stderr>:Horovod has been shut down. This was caused by an exception on one of the ranks or an attempt to allreduce, allgather or broadcast a tensor after one of the ranks finished execution.
""" for r in (3,))
    diagnosis = triage_texts(tmp_path, ranks)
    assert diagnosis.culprit_ranks == ()
    assert diagnosis.category is not Category.SOFTWARE


def test_the_one_url_in_a_refused_clients_frames_is_its_endpoint(tmp_path: Path) -> None:
    frames = """\
[rank1]: Traceback (most recent call last):
[rank1]:   File "/home/user/proj/train_e.py", line 8, in fetch_shard
[rank1]:     return urllib.request.urlopen(f"http://10.0.7.21:18080/shard/{step}", timeout=5).read()
[rank1]:   File "/opt/conda/lib/python3.11/urllib/request.py", line 1351, in do_open
[rank1]:     raise URLError(err)
[rank1]: urllib.error.URLError: <urlopen error [Errno 111] Connection refused>
"""
    diagnosis = triage_texts(tmp_path, frames)
    assert diagnosis.category is Category.NETWORK
    assert diagnosis.culprits == ("the link to 10.0.7.21:18080",)
    two = frames.replace('[rank1]:   File "/opt/conda', '[rank1]:     # mirror https://mirror.corp:8443/\n[rank1]:   File "/opt/conda')
    assert triage_texts(tmp_path / "two", two).culprits == ()


@pytest.mark.parametrize("command", [
    "$ torchrun --nproc-per-node=2 push.py 2>&1 | tee run.log",  # the status is tee's
    "$ kubectl logs -f push-worker-0",  # a viewer's status: 0 whatever it showed
    "$ torchrun --nproc-per-node=2 push.py; ls",  # a list's status is its last command's
])
def test_a_status_not_the_launchers_own_is_no_success(tmp_path: Path, command: str) -> None:
    text = RETRIED.replace("$ torchrun --nproc-per-node=2 push.py", command) + "$ echo $?\n0\n"
    assert triage_texts(tmp_path, text).category is not Category.NONE


def test_ray_trains_report_of_an_iteration_is_not_the_end_of_training() -> None:
    assert TRAINING_DONE.search("Training finished iteration 12 at 2024-05-01 10:00:00") is None
    assert TRAINING_DONE.search("training finished, saving final checkpoint") is not None


def test_the_events_table_ends_where_its_rows_do(tmp_path: Path) -> None:
    # kubectl prints no blank line after the table: the next command's output is not in it
    after = ("ml-ops@bastion:~$ ssh gpu-node-2 dmesg -T | grep -i oom\n"
             "[Tue Aug  6 10:12:01 2024] Memory cgroup out of memory: Killed process 51873 "
             "(python) total-vm:81234567kB, anon-rss:60123456kB, file-rss:0kB, shmem-rss:0kB\n")
    assert triage_texts(tmp_path, DESCRIBED + after).category is Category.OOM


SPARK = """\
23/06/12 08:41:07 INFO DAGScheduler: Submitting 16 missing tasks from ShuffleMapStage 3 (MapPartitionsRDD[14] at repartition at NativeMethodAccessorImpl.java:0)
23/06/12 08:44:52 ERROR YarnScheduler: Lost executor 5 on ip-10-0-7-44.ec2.internal: Container killed by YARN for exceeding physical memory limits. 11.1 GB of 11 GB physical memory used.
23/06/12 08:44:52 WARN TaskSetManager: Lost task 9.0 in stage 3.0 (TID 41) (ip-10-0-7-44.ec2.internal executor 5): ExecutorLostFailure (executor 5 exited caused by one of the running tasks) Reason: Container killed by YARN for exceeding physical memory limits.
23/06/12 08:44:52 INFO TaskSetManager: Starting task 9.1 in stage 3.0 (TID 47) (ip-10-0-7-51.ec2.internal, executor 8, partition 9, PROCESS_LOCAL, 4472 bytes)
23/06/12 08:45:44 INFO TaskSetManager: Finished task 9.1 in stage 3.0 (TID 47) in 52113 ms on ip-10-0-7-51.ec2.internal (executor 8) (16/16)
23/06/12 08:45:44 INFO DAGScheduler: ShuffleMapStage 3 (repartition at NativeMethodAccessorImpl.java:0) finished in 277.104 s
"""


def test_a_lost_executor_whose_tasks_spark_ran_again_is_no_failure(tmp_path: Path) -> None:
    assert triage_texts(tmp_path, SPARK).category is Category.NONE
    again_lost = SPARK.replace("Finished task 9.1", "Finished task 8.1")
    assert triage_texts(tmp_path / "lost", again_lost).category is Category.OOM


def test_a_node_failure_names_the_node_open_mpi_lost(tmp_path: Path) -> None:
    text = """\
[2024-07-17 02:18:43] iteration      500/  300000 | lm loss: 5.702513E+00
--------------------------------------------------------------------------
ORTE has lost communication with a remote daemon.

  HNP daemon   : [[16919,0],0] on node node1009
  Remote daemon: [[16919,0],4] on node node1017

This is usually due to either a failure of the TCP network
connection to the node, or possibly an internal failure of
the daemon itself. We cannot recover from this failure, and
therefore will terminate the job.
--------------------------------------------------------------------------
slurmstepd: error: *** JOB 31580279 ON node1009 CANCELLED AT 2024-07-17T02:19:52 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***
"""
    diagnosis = triage_texts(tmp_path, text)
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert diagnosis.culprits == ("node node1017",)


def test_tensorflows_iterator_finalized_at_exit_is_no_failure(tmp_path: Path) -> None:
    text = """\
Epoch 3/3
70/70 [==============================] - 3s 41ms/step - loss: 2.1208 - accuracy: 0.5103
2023-01-18 07:02:36.882193: W tensorflow/core/kernels/data/generator_dataset_op.cc:108] Error occurred when finalizing GeneratorDataset iterator: FAILED_PRECONDITION: Python interpreter state is not initialized. The process may be terminated.
\t [[{{node PyFunc}}]]
"""
    assert triage_texts(tmp_path, text).category is Category.NONE
