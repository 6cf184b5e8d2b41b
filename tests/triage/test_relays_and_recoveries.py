"""A failure another line explains, and a failure the job got past: the kill for memory an
exception only relays, NCCL's own abort of a rank, srun's one task that failed alone, c10d's
routine IPv6 lookup warning, a connect a retry then made."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.model import Category
from monitor.parse.log_events import EventExtractor, EventKind, Level
from monitor.triage.analysis import Diagnosis
from tests.triage.texts import triage_named, triage_probe


def _triage(tmp_path: Path, **files: str) -> Diagnosis:
    """Each text in a file named after its keyword (`driver=` → `driver.log`)."""
    return triage_named(tmp_path, {f"{name}.log": text for name, text in files.items()})


def test_an_exception_under_a_workers_kill_for_memory_is_that_kill(tmp_path: Path) -> None:
    diagnosis = _triage(tmp_path, driver=(
        "23/11/14 09:02:16 INFO XGBoostSpark: start training on 16 workers\n"
        "23/11/14 09:47:32 ERROR YarnScheduler: Lost executor 5 on dn-22.corp.local: Container "
        "killed by YARN for exceeding memory limits.  33.2 GB of 32 GB physical memory used.\n"
        "23/11/14 09:47:33 ERROR RabitTracker: Uncaught exception thrown by worker:\n"
        "java.lang.InterruptedException\n"
        "23/11/14 09:47:38 ERROR XGBoostSpark: the job was aborted due to \n"
        "ml.dmlc.xgboost4j.java.XGBoostError: XGBoostModel training failed\n"
        "\tat ml.dmlc.xgboost4j.scala.spark.XGBoost$.trainDistributed(XGBoost.scala:620)\n"))
    assert diagnosis.category is Category.OOM, diagnosis.summary
    assert any("executor 5" in c for c in diagnosis.culprits), diagnosis.culprits


_WATCHDOG_ABORT = (
    "[rank0]:[E718 03:12:57.411287 ProcessGroupNCCL.cpp:1316] [PG 0 Rank 0] Process group "
    "watchdog thread terminated with exception: NCCL error: remote process exited or there was "
    "a network error, NCCL version 2.18.3\n"
    "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting "
    "prematurely.\n"
    "[2023-07-18 03:12:58,620] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending "
    "process 3021 closing signal SIGTERM\n"
    "[2023-07-18 03:12:59,902] torch.distributed.elastic.multiprocessing.api: [ERROR] failed "
    "(exitcode: -6) local_rank: 0 (pid: 3020) of binary: /opt/conda/bin/python\n")


def test_a_rank_nccls_watchdog_aborted_is_not_the_culprit(tmp_path: Path) -> None:
    """Its watchdog thread ended on a peer's loss and aborted it: SIGABRT is the consequence."""
    diagnosis = _triage(tmp_path, node0=_WATCHDOG_ABORT + (
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
        "============================================================\n"
        "pretrain.py FAILED\n"
        "------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n[0]:\n"
        "  time      : 2023-07-18_03:12:58\n  host      : train-node-0\n"
        "  rank      : 0 (local_rank: 0)\n  exitcode  : -6 (pid: 3020)\n"
        "  error_file: <N/A>\n  traceback : Signal 6 (SIGABRT) received by PID 3020\n"),
        # the peer's node, whose journal says it was powered off
        node2=("Jul 18 03:11:58 train-node-2 python[3304]: [rank16] step  9390 heartbeat ok\n"
               "Jul 18 03:12:40 train-node-2 systemd-logind[812]: Power key pressed.\n"
               "Jul 18 03:12:40 train-node-2 systemd-logind[812]: Powering Off...\n"))
    assert diagnosis.culprit_ranks == (), diagnosis.summary
    assert not any("3020" in c for c in diagnosis.culprits), diagnosis.culprits


def test_the_one_srun_task_that_exited_on_its_own_wrote_the_unlabelled_traceback(
        tmp_path: Path) -> None:
    diagnosis = _triage(tmp_path, slurm=(
        "[rank 2] running validation\n"
        "Traceback (most recent call last):\n"
        '  File "/home/user/seg/metrics.py", line 41, in compute_miou\n'
        "    iou = inter / union\n"
        "ZeroDivisionError: division by zero\n"
        "srun: error: gpu-node-06: task 2: Exited with exit code 1\n"
        "slurmstepd: error: *** JOB 402117 ON gpu-node-05 CANCELLED AT 2024-06-03T07:00:18 DUE "
        "TO TIME LIMIT ***\n"
        "srun: error: gpu-node-05: tasks 0-1: Terminated\n"
        "srun: error: gpu-node-06: task 3: Terminated\n"))
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.SOFTWARE, (2,)), (
        diagnosis.summary)


def test_two_tasks_that_exited_on_their_own_leave_the_traceback_unlabelled(
        tmp_path: Path) -> None:
    diagnosis = _triage(tmp_path, slurm=(
        "Traceback (most recent call last):\n"
        '  File "/home/user/train.py", line 9, in <module>\n'
        "ZeroDivisionError: division by zero\n"
        "srun: error: gpu-node-06: task 2: Exited with exit code 1\n"
        "srun: error: gpu-node-05: task 1: Exited with exit code 1\n"
        "srun: error: gpu-node-05: tasks 0,3: Terminated\n"))
    assert diagnosis.culprit_ranks == (), diagnosis.summary


def _levels(line: str) -> list[Level]:
    extractor = EventExtractor()
    events = [*extractor.feed(line, 1), *extractor.flush()]
    return [e.level for e in events if e.kind is EventKind.STORE_TIMEOUT]


def test_c10ds_ipv6_lookup_alone_is_a_warning_and_its_ipv4_one_an_error() -> None:
    said = ("[W1129 00:50:03.084009120 socket.cpp:764] [c10d] The {} network addresses of "
            "(pytorch-job-master-0, 29414) cannot be retrieved (gai error: -2 - Name or service "
            "not known).")
    assert _levels(said.format("IPv6")) == [Level.WARNING]
    assert _levels(said.format("IPv4")) == [Level.ERROR]


_FETCH_FAILED = (
    "23/08/15 02:11:07 ERROR RetryingBlockFetcher: Exception while beginning fetch of 3 "
    "outstanding blocks \n"
    "java.io.IOException: Failed to connect to ip-10-0-3-52.ec2.internal/10.0.3.52:7337\n"
    "\tat org.apache.spark.network.client.TransportClientFactory.createClient("
    "TransportClientFactory.java:288)\n"
    "23/08/15 02:11:07 INFO RetryingBlockFetcher: Retrying fetch (1/3) for 3 outstanding blocks "
    "after 5000 ms\n")


def test_a_connect_a_retry_then_made_is_not_the_failure(tmp_path: Path) -> None:
    made = _triage(tmp_path, executor=_FETCH_FAILED + (
        "23/08/15 02:11:12 INFO TransportClientFactory: Successfully created connection to "
        "ip-10-0-3-52.ec2.internal/10.0.3.52:7337 after 2 ms (0 ms spent in bootstraps)\n"
        "23/08/15 02:11:14 INFO Executor: Finished task 14.0 in stage 3.0 (TID 212).\n"))
    assert made.category is Category.NONE, made.summary


def test_a_connect_made_to_another_host_does_not_answer_the_failed_one(tmp_path: Path) -> None:
    other = _triage(tmp_path, executor=_FETCH_FAILED + (
        "23/08/15 02:11:12 INFO TransportClientFactory: Successfully created connection to "
        "ip-10-0-3-18.ec2.internal/10.0.3.18:7337 after 2 ms (0 ms spent in bootstraps)\n"))
    assert other.category is Category.NETWORK, other.summary


def test_the_hub_named_in_a_chained_cause_above_the_last_exception(tmp_path: Path) -> None:
    """Python prints a chain's causes first: the pool of the hub it could not reach is above."""
    diagnosis = _triage(tmp_path, console=(
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/opt/conda/lib/python3.11/ssl.py", line 1321, in do_handshake\n'
        "[rank0]: ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate "
        "verify failed: self-signed certificate in certificate chain (_ssl.c:1006)\n"
        "[rank0]: \n"
        "[rank0]: During handling of the above exception, another exception occurred:\n"
        "[rank0]: \n"
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/opt/conda/lib/python3.11/site-packages/requests/adapters.py", line 517, '
        "in send\n"
        "[rank0]: requests.exceptions.SSLError: (MaxRetryError(\"HTTPSConnectionPool("
        "host='huggingface.co', port=443): Max retries exceeded with url: /bert-base-uncased/"
        "resolve/main/tokenizer_config.json\"))\n"
        "[rank0]: \n"
        "[rank0]: The above exception was the direct cause of the following exception:\n"
        "[rank0]: \n"
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/home/user/finetune.py", line 40, in <module>\n'
        "[rank0]: OSError: We couldn't connect to 'https://huggingface.co' to load this file, "
        "couldn't find it in the cached files and it looks like bert-base-uncased is not the "
        "path to a directory containing a file named tokenizer_config.json.\n"))
    assert diagnosis.category is Category.NETWORK, diagnosis.summary
    assert any("huggingface.co:443" in c for c in diagnosis.culprits), diagnosis.culprits


def test_a_connect_to_a_node_the_file_said_was_lost_is_that_nodes_loss(tmp_path: Path) -> None:
    diagnosis = _triage(tmp_path, driver=(
        "23/08/14 11:02:41 ERROR YarnScheduler: Lost executor 12 on ip-10-0-5-17.ec2.internal: "
        "Container marked as failed: container_1692000101234_0007_01_000013 on host: "
        "ip-10-0-5-17.ec2.internal. Exit status: -100. Diagnostics: Container released on a "
        "*lost* node\n"
        "23/08/14 11:02:55 INFO DAGScheduler: Submitting ResultStage 5\n"
        "org.apache.spark.shuffle.FetchFailedException: Failed to connect to "
        "ip-10-0-5-17.ec2.internal/10.0.5.17:7337\n"
        "\tat org.apache.spark.storage.ShuffleBlockFetcherIterator.throwFetchFailedException("
        "ShuffleBlockFetcherIterator.scala:1232)\n"))
    assert diagnosis.category is Category.INFRASTRUCTURE, diagnosis.summary
    assert any("ip-10-0-5-17" in c for c in diagnosis.culprits), diagnosis.culprits


def test_sparks_aborted_job_is_its_executors_lost_node(tmp_path: Path) -> None:
    """`Job aborted due to stage failure` relays a task's failure; the executor's loss above
    it, in the resource manager's words, is the story."""
    diagnosis = _triage(tmp_path, driver=(
        "24/03/05 14:21:09 WARN YarnAllocator: Container marked as failed: "
        "container_e07_1709600000000_0311_01_000004 on host: dn-gpu-07.corp.local. Exit status: "
        "-100. Diagnostics: Container released on a *lost* node.\n"
        "24/03/05 14:21:09 ERROR YarnScheduler: Lost executor 3 on dn-gpu-07.corp.local: "
        "Container marked as failed: container_e07_1709600000000_0311_01_000004 on host: "
        "dn-gpu-07.corp.local. Exit status: -100. Diagnostics: Container released on a *lost* "
        "node.\n"
        "Traceback (most recent call last):\n"
        '  File "/home/user/jobs/train.py", line 88, in <module>\n'
        "py4j.protocol.Py4JJavaError: An error occurred while calling "
        "z:org.apache.spark.api.python.PythonRDD.collectAndServe.\n"
        ": org.apache.spark.SparkException: Job aborted due to stage failure: Could not recover "
        "from a failed barrier ResultStage. Most recent failure reason: Stage failed because "
        "barrier task ResultTask(2, 2) finished unsuccessfully.\n"))
    assert diagnosis.category is Category.INFRASTRUCTURE, diagnosis.summary
    assert any("dn-gpu-07.corp.local" in c for c in diagnosis.culprits), diagnosis.culprits


_IDLE_REMOVED = (
    "Training completed after 10 iterations at 2024-03-27 10:48:14. Total running time: 47min\n"
    "(autoscaler +53m10s) Removing 2 nodes of type gpu-worker (idle).\n"
    "2024-03-27 10:53:46,552\tWARNING worker.py:2058 -- The node with node id: 3f5a7c9e1b3d and "
    "address: 172.31.14.88 and node name: 172.31.14.88 has been marked dead because the "
    "detector has missed too many heartbeats from it. This can happen when a \t(1) raylet "
    "crashes unexpectedly (OOM, etc.)\n")


def test_a_ray_node_its_autoscaler_just_removed_is_not_lost(tmp_path: Path) -> None:
    assert _triage(tmp_path, driver=_IDLE_REMOVED).category is Category.NONE


def test_a_ray_node_marked_dead_with_no_removal_before_it_is_lost(tmp_path: Path) -> None:
    lost = _triage(tmp_path, driver=_IDLE_REMOVED.replace(
        "(autoscaler +53m10s) Removing 2 nodes of type gpu-worker (idle).\n", ""))
    assert lost.category is Category.INFRASTRUCTURE, lost.summary


_SKIPPED_UPLOAD = (
    "Epoch 0: 100%|##########| 8/8 [00:00<00:00, 64.07it/s, train_loss=0.0305]\n"
    "2025-03-14 01:28:59,144 WARNING uploader: rank 0: sample upload skipped\n"
    "Traceback (most recent call last):\n"
    '  File "/home/user/proj/train.py", line 19, in on_train_epoch_end\n'
    "    import boto3\n"
    "ModuleNotFoundError: No module named 'boto3'\n"
    "Epoch 1: 100%|##########| 8/8 [00:00<00:00, 150.68it/s, train_loss=0.0417]\n"
    "`Trainer.fit` stopped: `max_epochs=2` reached.\n")


def test_an_exception_the_program_logged_as_skipped_is_not_the_failure(tmp_path: Path) -> None:
    assert _triage(tmp_path, fit=_SKIPPED_UPLOAD).category is Category.NONE


def test_an_exception_logged_as_skipped_then_raised_again_is_the_failure(tmp_path: Path) -> None:
    """A re-raise fails again below the record: Python's own report, with no record above."""
    again = _SKIPPED_UPLOAD.replace("`Trainer.fit` stopped: `max_epochs=2` reached.\n", (
        "Traceback (most recent call last):\n"
        '  File "/home/user/proj/train.py", line 40, in <module>\n'
        "    trainer.fit(model)\n"
        "ModuleNotFoundError: No module named 'boto3'\n"))
    assert _triage(tmp_path, fit=again).category is Category.SOFTWARE


def _deepspeed(exits: str) -> str:
    spawned = "".join(
        f"[2025-04-01 22:05:17,61{r}] [INFO] [launch.py:256:main] process 5531{r} spawned with "
        f"command: ['/home/user/venv/bin/python', '-u', 'train.py', '--local_rank={r}']\n"
        for r in range(2))
    return spawned + (
        "[rank 1] BLEU computation failed, reporting NaN for this eval:\n"
        "[rank 1] Traceback (most recent call last):\n"
        '[rank 1]   File "/home/user/proj/eval_hooks.py", line 47, in run_eval\n'
        "[rank 1] TypeError: BLEU: Each element of `hyps` should be a string.\n") + exits


def test_every_worker_deepspeed_started_exited_cleanly(tmp_path: Path) -> None:
    done = _triage(tmp_path, ds=_deepspeed(
        "[2025-04-01 23:19:02,448] [INFO] [launch.py:351:main] Process 55311 exits successfully.\n"
        "[2025-04-01 23:19:04,451] [INFO] [launch.py:351:main] Process 55310 exits successfully.\n"))
    assert done.category is Category.NONE, done.summary


def test_one_worker_deepspeed_started_did_not_exit_cleanly(tmp_path: Path) -> None:
    one = _triage(tmp_path, ds=_deepspeed(
        "[2025-04-01 23:19:02,448] [INFO] [launch.py:351:main] Process 55311 exits successfully.\n"))
    assert one.category is not Category.NONE, one.summary


def test_every_process_raising_alike_names_none_the_launcher_noticed_first(
        tmp_path: Path) -> None:
    """Both failed of their own (the table says so); the root cause is the first it noticed."""
    raised = ("Traceback (most recent call last):\n"
              '  File "/home/user/proj/pretrain.py", line 3, in <module>\n'
              "ModuleNotFoundError: No module named 'flash_attn'\n")
    diagnosis = _triage(tmp_path, stderr=raised * 2 + (
        "E0314 01:22:52.176000 19719 torch/distributed/elastic/multiprocessing/api.py:1002] failed "
        "(exitcode: 1) local_rank: 1 (pid: 19739) of binary: /home/user/venv/bin/python\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
        "============================================================\n"
        "pretrain.py FAILED\n"
        "------------------------------------------------------------\n"
        "Failures:\n[1]:\n  time      : 2025-03-14_01:22:52\n  host      : a100-04\n"
        "  rank      : 0 (local_rank: 0)\n  exitcode  : 1 (pid: 19738)\n"
        "  error_file: <N/A>\n"
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
        "------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n[0]:\n  time      : 2025-03-14_01:22:52\n"
        "  host      : a100-04\n  rank      : 1 (local_rank: 1)\n"
        "  exitcode  : 1 (pid: 19739) \n  error_file: <N/A>\n"
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
        "============================================================\n"))
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.SOFTWARE, ()), (
        diagnosis.summary)


def test_a_caught_exception_logged_early_in_a_long_log_is_passed_over(tmp_path: Path) -> None:
    """The record above it is read as the line is parsed, not from the file's last lines."""
    caught = ("[0]<stderr>:apex FusedAdam unavailable, falling back to torch.optim.AdamW:\n"
              "[0]<stderr>:Traceback (most recent call last):\n"
              '[0]<stderr>:  File "/home/user/proj/train_hvd.py", line 58, in build_optimizer\n'
              "[0]<stderr>:    from apex.optimizers import FusedAdam\n"
              "[0]<stderr>:ModuleNotFoundError: No module named 'apex'\n")
    steps = "".join(f"[0]<stdout>:epoch {n} rank 0 train_loss {1 / (n + 1):.4f}\n"
                    for n in range(300))
    assert _triage(tmp_path, run=caught + steps).category is Category.NONE


def test_the_record_above_an_exception_is_a_field_of_its_traceback() -> None:
    extractor = EventExtractor()
    lines = ["2025-03-14 01:28:59,146 WARNING uploader: rank 1: sample upload skipped",
             "Traceback (most recent call last):",
             '  File "/home/user/proj/train.py", line 19, in on_train_epoch_end',
             "ModuleNotFoundError: No module named 'boto3'"]
    events = []
    for number, line in enumerate(lines, 1):
        events += extractor.feed(line, number, prev=lines[number - 2] if number > 1 else None)
    events += extractor.flush()
    (traceback,) = [e for e in events if e.kind is EventKind.PYTHON_TRACEBACK]
    assert "sample upload skipped" in str(traceback.fields["logged_under"])
    # a plain line above (the last output before a crash) is no such record
    plain = EventExtractor()
    plain.feed("step 5 loss 2.31", 1)
    events = plain.feed("Traceback (most recent call last):", 2, prev="step 5 loss 2.31")
    events += plain.feed("ValueError: bad", 3) + plain.flush()
    assert all("logged_under" not in e.fields for e in events)


@pytest.mark.parametrize(("probe", "ranks", "never"), [
    ("rv_double_free_then_others_watchdogs", (2,), ""),  # others' watchdogs excuse no rank
    ("rv_logged_then_reraised_twice", (1,), ""),  # two copies of one traceback, one process
    ("rv_another_jobs_pod_evicted", (), "etl-cron"),  # another job's pod in the event table
    ("rv_spark_oom_rerun_then_keyerror", (), "executor"),  # a kill its task was run again after
    ("rv_connected_to_a_longer_address", (), ""),  # 10.0.3.51 is not 10.0.3.5
])
def test_a_new_rule_does_not_reach_past_its_case(probe: str, ranks: tuple[int, ...],
                                                   never: str) -> None:
    """A review's cases: failed jobs a rule of this round first blamed or cleared wrongly."""
    diagnosis = triage_probe(probe)
    assert diagnosis.culprit_ranks == ranks, diagnosis.summary
    assert diagnosis.category is not Category.NONE, diagnosis.summary
    assert not never or not any(never in c for c in diagnosis.culprits), diagnosis.culprits


_DESCRIBED = (
    "$ kubectl -n ml describe pod eval-mmlu-7b-kx2vq\n"
    "Name:             eval-mmlu-7b-kx2vq\n"
    "Namespace:        ml\n"
    "Node:             gpu-pool-b-8r2mn/10.128.1.44\n"
    "Containers:\n"
    "  eval:\n"
    "    State:          Terminated\n"
    "      Reason:       Completed\n"
    "      Exit Code:    0\n"
    "    Last State:     Terminated\n"
    "      Reason:       OOMKilled\n"
    "      Exit Code:    137\n"
    "    Restart Count:  1\n")


def test_a_container_that_completed_after_an_oom_kill_is_done(tmp_path: Path) -> None:
    assert _triage(tmp_path, pod=_DESCRIBED).category is Category.NONE


def test_a_container_running_again_after_an_oom_kill_keeps_it(tmp_path: Path) -> None:
    """Running again is not done: its job may have failed for it."""
    running = _DESCRIBED.replace("Terminated\n      Reason:       Completed\n      Exit Code:    0\n",
                                 "Running\n", 1)
    assert _triage(tmp_path, pod=running).category is Category.OOM


def test_lightnings_batch_size_finder_trying_smaller_sizes_is_no_failure(tmp_path: Path) -> None:
    assert _triage(tmp_path, fit=(
        "Batch size 128 succeeded, trying batch size 256\n"
        "Batch size 256 failed, trying batch size 192\n"
        "Batch size 192 failed, trying batch size 160\n"
        "Finished batch size finder, will continue with full run using batch size 160\n"
        "Epoch 29: 100%|##########| 7536/7536 [41:12<00:00,  3.05it/s, train_loss=1.021]\n"
        "`Trainer.fit` stopped: `max_epochs=30` reached.\n")).category is Category.NONE


def test_the_dataloader_worker_a_memory_limit_took_is_named(tmp_path: Path) -> None:
    diagnosis = _triage(tmp_path, slurm=(
        "Traceback (most recent call last):\n"
        '  File "/home/user/venv/lib/python3.11/site-packages/torch/utils/data/_utils/'
        'signal_handling.py", line 67, in handler\n'
        "    _error_if_any_worker_fails()\n"
        "RuntimeError: DataLoader worker (pid 73122) is killed by signal: Killed. \n"
        "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=731905.batch cgroup. Some of "
        "your processes may have been killed by the cgroup out-of-memory handler.\n"))
    assert diagnosis.category is Category.OOM, diagnosis.summary
    assert any("73122" in c for c in diagnosis.culprits), diagnosis.culprits
