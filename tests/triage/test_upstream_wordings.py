"""Wordings the upstream projects print (their format strings, across versions) that triage
must read: each line here is built from the format string in the named source, not taken from
a corpus, so these checks stand apart from the scored corpora."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.model import Category
from monitor.parse.log_events import EventExtractor, EventKind
from monitor.triage.analysis import diagnose
from monitor.triage.reader import read_inputs
from tests.triage.texts import triage_texts


def _kinds(line: str) -> list[tuple[EventKind, object]]:
    extractor = EventExtractor(bare_exceptions=True)
    events = extractor.feed(line, 1) + extractor.flush()
    return [(e.kind, e.rank) for e in events]


def test_a_sub_group_rank_is_not_the_global_rank() -> None:
    """ProcessGroupNCCL's logPrefix: `[PG ID 2 PG GUID 5(tp) Rank 1]` is a rank in that group."""
    sub = ("[PG ID 2 PG GUID 5(tp) Rank 1] Watchdog caught collective operation timeout: "
           "WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
           "ran for 600010 milliseconds before timing out.")
    default = sub.replace("PG ID 2 PG GUID 5(tp)", "PG ID 0 PG GUID 0(default_pg)")
    assert _kinds(sub) == [(EventKind.WATCHDOG_TIMEOUT, None)]
    assert _kinds(default) == [(EventKind.WATCHDOG_TIMEOUT, 1)]


def test_ray_memory_monitor_kills_are_host_oom_not_cuda(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on "
        "memory.\nMemory on the node (IP: 10.0.0.7, ID: 4f2a) where the task was running was "
        "31.2GB / 32.0GB (0.97), which exceeds the memory usage threshold of 0.95.\n"))
    assert diagnosis.category is Category.OOM
    assert not diagnosis.events.get("cuda_oom")


def test_ray_node_marked_dead_is_infrastructure(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "The node with node id: 8289f87b and address: 10.0.0.9 and node name: 10.0.0.9 has "
        "been marked dead because the detector has missed too many heartbeats from it.\n"))
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert any("10.0.0.9" in c for c in diagnosis.culprits)


def test_a_rendezvous_timeout_is_an_init_timeout_not_the_jobs_bug(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", '
        "line 1100, in next_rendezvous\n"
        "    self._op_executor.run(join_op, deadline, self._get_deadline)\n"
        "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError\n"))
    assert diagnosis.category is Category.INIT_TIMEOUT


def test_a_launchers_calledprocesserror_with_a_signal_is_a_kill_not_software(
        tmp_path: Path) -> None:
    """accelerate's simple launcher: the command carries no --local_rank."""
    diagnosis = triage_texts(tmp_path, (
        "Traceback (most recent call last):\n"
        '  File "/usr/bin/accelerate", line 8, in <module>\n'
        "    sys.exit(main())\n"
        "subprocess.CalledProcessError: Command '['/usr/bin/python', 'train.py']' died with "
        "<Signals.SIGKILL: 9>.\n"))
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, ())


def test_mp_spawn_wrapper_gives_way_to_the_workers_own_error(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 90, in <module>\n'
        "    mp.spawn(main, nprocs=4)\n"
        "torch.multiprocessing.spawn.ProcessRaisedException: \n\n"
        "-- Process 2 terminated with the following error:\n"
        "Traceback (most recent call last):\n"
        '  File "/data/loader.py", line 12, in __getitem__\n'
        "    return open(self.paths[i], 'rb').read()\n"
        "OSError: [Errno 5] Input/output error\n"))
    assert diagnosis.category is Category.STORAGE_IO


def test_ddp_model_check_names_the_rank_every_report_shares(tmp_path: Path) -> None:
    """verify_params_across_processes: the odd rank reports rank 0, the others report it."""
    odd_first = ("RuntimeError: DDP expects same model across all ranks, but Rank 3 has 12 "
                 "params, while rank 0 has inconsistent 10 params.\n")
    others = "".join(
        f"RuntimeError: DDP expects same model across all ranks, but Rank {r} has 10 params, "
        "while rank 3 has inconsistent 12 params.\n" for r in (0, 1, 2))
    diagnosis = triage_texts(tmp_path, odd_first + others)
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.SOFTWARE, (3,))


def test_old_blocking_wait_and_gloo_pair_closure_are_symptoms(tmp_path: Path) -> None:
    for message in ("Work NCCL(SeqNum=5, OpType=ALLREDUCE) timed out in call to wait().",
                    "[../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] "
                    "Application timeout caused pair closure"):
        diagnosis = triage_texts(tmp_path, f"[rank1]: RuntimeError: {message}\n")
        assert diagnosis.category is not Category.SOFTWARE, message
        assert diagnosis.culprit_ranks == (), message


def test_monitored_barrier_from_a_rank_that_arrived_names_rank_0_as_coordinator_only() -> None:
    # ProcessGroupGloo::monitoredBarrier enforces its timeout on rank 0 alone, "so that other
    # ranks aren't timed out first ... without reporting which rank timed out": rank 0 is the
    # one that did not answer, not the one that did not arrive
    line = ("RuntimeError: Rank 1 successfully reached monitoredBarrier, but received errors "
            "while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.")
    extractor = EventExtractor(bare_exceptions=True)
    events = extractor.feed(line, 1) + extractor.flush()
    (barrier,) = [e for e in events if e.kind is EventKind.MONITORED_BARRIER]
    assert barrier.fields["coordinator"] == 0 and "ranks" not in barrier.fields


def test_newer_wordings_of_store_barriers_slurm_cancels_and_nccl_connects() -> None:
    store = ("Timed out initializing process group in store based barrier on rank 3, for key: "
             "store_based_barrier_key:1 (world_size=8, num_workers_joined=7, timeout=0:30:00)")
    cancel = "slurmstepd: error: *** JOB 812 ON gpu07 CANCELLED AT 2025-06-01T10:00:00 DUE to " \
             "SIGNAL Terminated ***"
    connect = "gpu07:123:456 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: connect to " \
              "10.0.0.5<45678> failed : Connection refused"
    (kind, fields) = next((e.kind, e.fields) for e in EventExtractor().feed(store, 1))
    assert kind is EventKind.STORE_TIMEOUT and fields["joined"] == 7
    assert any(e.kind is EventKind.SLURM_CANCEL for e in EventExtractor().feed(cancel, 1))
    (net,) = [e for e in EventExtractor().feed(connect, 1) if e.kind is EventKind.NCCL_WARN_NET]
    assert (net.fields["peer"], net.fields["peer_port"]) == ("10.0.0.5", 45678)


def test_the_rank_absent_from_a_store_barrier_is_named(tmp_path: Path) -> None:
    lines = "".join(
        f"INFO:root:Waiting in store based barrier to initialize process group for rank: {r}, "
        "key: store_based_barrier_key:1 (world_size=4, worker_count=3, timeout=0:30:00)\n"
        for r in (0, 1, 3))
    diagnosis = triage_texts(tmp_path, lines)
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.INIT_TIMEOUT, (2,))
    one_rank = triage_texts(tmp_path, lines.splitlines(keepends=True)[0] * 3)
    assert one_rank.culprit_ranks == ()  # one rank's own log: the others were just not shown


def _fingerprint(rank: int, seq: int, shape: str) -> str:
    return (f"[I ProcessGroupWrapper.cpp:562] [Rank {rank}] Running collective: "
            f"CollectiveFingerPrint(SequenceNumber={seq}, OpType=BROADCAST, "
            f"TensorShape=[{shape}], TensorDtypes=Long, TensorDeviceTypes=TensorOptions())\n")


def test_the_rank_behind_the_others_fingerprints_is_the_desync(tmp_path: Path) -> None:
    behind = _fingerprint(1, 3, "1") + _fingerprint(0, 4, "73") + _fingerprint(2, 4, "73")
    diagnosis = triage_texts(tmp_path, behind)
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.COLLECTIVE_DESYNC, (1,))
    ahead = _fingerprint(1, 5, "1") + _fingerprint(0, 4, "73") + _fingerprint(2, 4, "73")
    assert triage_texts(tmp_path, ahead).category is not Category.COLLECTIVE_DESYNC


def test_a_failure_table_cut_before_its_root_cause_names_the_host(tmp_path: Path) -> None:
    entries = "".join(
        f"[{i}]:\n  time      : 2023-08-11_17:21:54\n  host      : node-b\n"
        f"  rank      : {8 + i} (local_rank: {i})\n  exitcode  : -9 (pid: {100 + i})\n"
        f"  error_file: <N/A>\n  traceback : Signal 9 (SIGKILL) received by PID {100 + i}\n"
        for i in range(1, 4))
    diagnosis = triage_texts(tmp_path, entries)
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, ())
    assert any("node-b" in c for c in diagnosis.culprits)


def test_one_signal_in_several_ranks_names_none_of_them(tmp_path: Path) -> None:
    text = "".join(f"[1,{r}]<stderr>:[host:0012{r}] *** Process received signal ***\n"
                   f"[1,{r}]<stderr>:[host:0012{r}] Signal: Bus error (7)\n" for r in range(3))
    diagnosis = triage_texts(tmp_path, text)
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, ())


def test_a_failed_srun_task_launch_names_the_node(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, "srun: error: Task launch for 36.0 failed on node cn131: "
                                  "Job credential expired\n")
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert any("cn131" in c for c in diagnosis.culprits)


def test_an_error_inside_a_ray_task_names_its_pid(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "ray.exceptions.RayTaskError(RuntimeError): ray::Worker.save() (pid=4242, "
        "ip=10.0.0.3, actor_id=ab12)\n"
        '  File "/usr/lib/python3/torch/serialization.py", line 1266, in _save\n'
        "RuntimeError: [enforce fail at inline_container.cc:857] . PytorchStreamWriter failed "
        "writing file data/3: file write failed\n"))
    assert diagnosis.category is Category.STORAGE_IO
    assert any("4242" in c for c in diagnosis.culprits)


def test_a_cut_traceback_or_failed_nccl_socket_is_not_a_clean_log(tmp_path: Path) -> None:
    socket = "gpu1:15:91 [3] include/socket.h 398 NCCL WARN Call to recv failed : Connection " \
             "reset by peer.\n"
    assert triage_texts(tmp_path, socket).category is Category.UNDETERMINED
    healthy = "gpu1:15:91 [3] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
    assert triage_texts(tmp_path, healthy).category is Category.NONE


def test_a_launch_endpoint_comes_from_arguments_not_from_code() -> None:
    code = "    store = TCPStore(master_addr, master_port, world_size, start_daemon)"
    args = "[INFO] run: Running torch.distributed.run with args: ['run.py', " \
           "'--rdzv_endpoint=10.28.1.16:29400', 'main.py']"
    assert not [e for e in EventExtractor().feed(code, 1)
                if e.kind is EventKind.LAUNCH_ENDPOINT]
    (given,) = [e for e in EventExtractor().feed(args, 1) if e.kind is EventKind.LAUNCH_ENDPOINT]
    assert (given.fields["host"], given.fields["port"]) == ("10.28.1.16", 29400)


def test_a_truncated_socket_message_is_a_collective_size_mismatch(tmp_path: Path) -> None:
    """net_socket.cc: the peer sent another size than this rank expects."""
    diagnosis = triage_texts(tmp_path, (
        "gpu1:11:22 [0] transport/net_socket.cc:512 NCCL WARN NET/Socket : peer "
        "10.0.0.2<4312> message truncated : receiving 1048576 bytes instead of 65536. If you "
        "believe your socket network is in healthy state, there may be a mismatch in "
        "collective sizes or environment settings (e.g. NCCL_PROTO, NCCL_ALGO) between ranks\n"))
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.COLLECTIVE_DESYNC, ())


def test_the_abort_reason_is_read_after_two_spaces() -> None:
    line = ("NCCL communicator was aborted on rank 3.  Original reason for failure was: NCCL "
            "error: unhandled system error")
    (event,) = [e for e in EventExtractor().feed(line, 1) if e.kind is EventKind.NCCL_ERROR]
    assert str(event.fields["message"]).startswith("NCCL error: unhandled system error")


def test_a_transport_that_could_not_connect_names_the_peer(tmp_path: Path) -> None:
    """gloo's tcp/pair.cc: `connect [%s]:%d: %s` raised as the exception of new_group."""
    diagnosis = triage_texts(tmp_path, (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 14, in <module>\n'
        '    group = dist.new_group(ranks=ranks, backend="gloo")\n'
        "RuntimeError: [third_party/gloo/gloo/transport/tcp/pair.cc:799] connect "
        "[10.1.2.3]:13195: Connection refused\n"))
    assert diagnosis.category is Category.NETWORK
    assert any("10.1.2.3:13195" in c for c in diagnosis.culprits)


def test_a_rendezvous_lost_mid_run_is_not_an_unreachable_endpoint(tmp_path: Path) -> None:
    """dynamic_rendezvous.py's keep-alive warning: the store's host went away after the
    start; the agent that says so is not the fault, and the cause is not in its log."""
    line = ("WARNING:torch.distributed.elastic.rendezvous.dynamic_rendezvous:The node "
            "'node7_4242_0' has failed to send a keep-alive heartbeat to the rendezvous "
            "'job1' due to an error of type RendezvousConnectionError.\n")
    diagnosis = triage_texts(tmp_path, line * 3)
    assert diagnosis.category is Category.UNDETERMINED
    assert diagnosis.culprits == ()


def test_an_nccl_system_error_without_its_reason_is_not_the_jobs_bug(tmp_path: Path) -> None:
    """ProcessGroupNCCL: `NCCL error in: %s:%d, unhandled system error, NCCL version %s`."""
    diagnosis = triage_texts(tmp_path, (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 235, in <module>\n'
        "    model = DistributedDataParallel(model, device_ids=[args.local_rank])\n"
        "RuntimeError: NCCL error in: ../torch/lib/c10d/ProcessGroupNCCL.cpp:272, unhandled "
        "system error, NCCL version 2.4.8\n"))
    assert diagnosis.category is Category.UNDETERMINED
    assert diagnosis.culprit_ranks == ()


def test_the_rank_whose_nccl_unique_id_never_came_is_named(tmp_path: Path) -> None:
    """ProcessGroupNCCL::broadcastUniqueNCCLID: the waiting rank names the root it asks."""
    message = ("torch.distributed.DistBackendError: [{r}] is setting up NCCL communicator and "
               "retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but "
               "store->get('0') got error: wait timeout after 1800000ms, keys: "
               "//worker/attempt_0/{pg}/0//cuda//0\n")
    default = triage_texts(tmp_path / "default", "[rank5]: " + message.format(r=5, pg="default_pg"))
    assert default.category is Category.INIT_TIMEOUT
    assert default.culprit_ranks == (0,)
    # In a sub-group, [0] is that group's first rank: not a global rank to name.
    sub = triage_texts(tmp_path / "sub", "[rank5]: " + message.format(r=1, pg="1"))
    assert sub.category is Category.INIT_TIMEOUT
    assert sub.culprit_ranks == ()


def test_a_ray_actor_that_died_in_its_constructor_is_named(tmp_path: Path) -> None:
    """ray/exceptions.py ActorDiedError: `The actor died because of an error raised in its
    creation task, {task} (pid=…, ip=…, actor_id=…, repr=…)`; the traceback was cut."""
    diagnosis = triage_texts(tmp_path, (
        "ray.exceptions.ActorDiedError: The actor died because of an error raised in its "
        "creation task, ray::policy-0:PolicyWorker.__init__() (pid=4242, ip=10.0.0.5, "
        "actor_id=8562bae6, repr=PolicyWorker[rank=3])\n"
        '  File "worker.py", line 86, in __init__\n'
        "    self.model = build(cfg)\n"))
    assert diagnosis.category is Category.UNDETERMINED
    assert diagnosis.culprit_ranks == (3,)
    assert any("pid 4242 on 10.0.0.5" in c for c in diagnosis.culprits)


def test_a_ray_tasks_cuda_oom_names_the_task_and_its_rank(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "ray.exceptions.RayTaskError(OutOfMemoryError): ray::PolicyWorker.get_logprobs() "
        "(pid=777, ip=10.0.0.6, actor_id=d58, repr=PolicyWorker[rank=1])\n"
        '  File "worker.py", line 653, in get_logprobs\n'
        "    logits = self.model(batch)\n"))
    assert diagnosis.category is Category.OOM
    assert diagnosis.culprit_ranks == (1,)
    assert any("pid 777" in c for c in diagnosis.culprits)


def test_an_mpi_peer_that_disconnected_is_where_to_look(tmp_path: Path) -> None:
    """Open MPI help-mpi-btl-tcp / pml: the peer host row of the disconnection text."""
    diagnosis = triage_texts(tmp_path, (
        "--------------------------------------------------------------------------\n"
        "An MPI communication peer process has unexpectedly disconnected.  This\n"
        "usually indicates a failure in the peer process (e.g., a crash or\n"
        "otherwise exiting without calling MPI_FINALIZE first).\n\n"
        "  Local host: node3\n  Local PID:  7720\n  Peer host:  node9\n"
        "--------------------------------------------------------------------------\n"))
    assert diagnosis.category is Category.UNDETERMINED
    assert any("node9" in c for c in diagnosis.culprits)


def test_nccl_connect_refused_until_the_log_ends_is_a_network_fault(tmp_path: Path) -> None:
    """NCCL socket.cc: one INFO line per 1,000 refused tries; recovered retries are followed
    by the job's progress."""
    retry = "node1:16:63 [0] NCCL INFO Call to connect returned Connection refused, retrying\n"
    stuck = triage_texts(tmp_path / "stuck", retry * 5)
    assert stuck.category is Category.NETWORK
    assert stuck.culprit_ranks == ()
    recovered = triage_texts(tmp_path / "recovered", retry * 5 + "".join(
        f"Epoch 1:  {i}%|#   | {i}/100 [00:{i:02d}<01:00,  1.2it/s]\n" for i in range(1, 4)))
    assert recovered.category is Category.NONE


def test_ray_node_marked_dead_in_the_older_wording_names_its_ip(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "WARNING worker.py:1462 -- The node with node id: 8f205b and ip: 10.0.0.103 has been "
        "marked dead because the detector has missed too many heartbeats from it.\n"))
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert any("10.0.0.103" in c for c in diagnosis.culprits)


def test_mpirun_names_the_rank_that_died_or_exited_first(tmp_path: Path) -> None:
    """orterun's help texts: `%s noticed that process rank %lu with PID %lu on node %s exited
    on signal %d (%s).` and `The first process to do so was:` … `Process name: %s`."""
    signal = triage_texts(tmp_path / "signal", (
        "--------------------------------------------------------------------------\n"
        "mpirun noticed that process rank 3 with PID 0 on node gpu-node-2 exited on signal 9 "
        "(Killed).\n"
        "--------------------------------------------------------------------------\n"))
    assert (signal.category, signal.culprit_ranks) == (Category.UNDETERMINED, (3,))
    assert any("gpu-node-2" in c for c in signal.culprits)
    status = triage_texts(tmp_path / "status", (
        "mpirun detected that one or more processes exited with non-zero status, thus causing\n"
        "the job to be terminated. The first process to do so was:\n\n"
        "  Process name: [[41237,1],5]\n  Exit code:    1\n"))
    assert (status.category, status.culprit_ranks) == (Category.UNDETERMINED, (5,))


def test_srun_names_the_task_that_stopped_by_itself_not_the_terminated_ones(
        tmp_path: Path) -> None:
    """srun/launch.c: `%s: %s %s: Exited with exit code %d` and `%s: %s %s: %s` (strsignal);
    a task id is a rank only when srun started the ranks (four tasks a node here)."""
    diagnosis = triage_texts(tmp_path, (
        "srun: error: gpu-node-12: task 5: Exited with exit code 1\n"
        "srun: launch/slurm: _step_signal: Terminating StepId=771234.0\n"
        "srun: error: gpu-node-11: tasks 0-3: Terminated\n"
        "srun: error: gpu-node-12: tasks 4,6-7: Terminated\n"))
    assert diagnosis.category is Category.UNDETERMINED
    assert diagnosis.culprit_ranks == (5,)
    assert diagnosis.culprits == ("rank 5 (srun task 5 on gpu-node-12)",)


def test_a_plain_slurm_cancel_is_a_stop_from_outside_unless_a_task_failed_first(
        tmp_path: Path) -> None:
    """slurmstepd req.c (<= 23.02): `*** %s ON %s CANCELLED AT %s ***`, also `DUE TO JOB
    REQUEUE`; 23.02 prints the plain banner after a failed task too."""
    banner = ("slurmstepd: error: *** JOB 884213 ON node17 CANCELLED AT "
              "2023-06-14T09:12:44{reason} ***\n")
    for reason in ("", " DUE TO JOB REQUEUE"):
        diagnosis = triage_texts(tmp_path / f"cancel{len(reason)}", "[rank0]: step 1200 loss 2.3\n"
                            + banner.format(reason=reason))
        assert diagnosis.category is Category.INFRASTRUCTURE
    failed = triage_texts(tmp_path / "failed", "srun: error: node17: task 5: Exited with exit code 1\n"
                     + banner.format(reason=""))
    assert failed.category is Category.UNDETERMINED
    assert failed.culprits == ("task 5 on node17",)


def test_lightning_and_deepspeed_say_sigterm_in_their_own_words(tmp_path: Path) -> None:
    """Lightning's signal connector: `Received SIGTERM: {signum}`; DeepSpeed's launch.py:
    `Main process received {sig}, exiting`."""
    lightning = triage_texts(tmp_path / "pl", "Epoch 7:  63%|#   | 630/1000\n"
                        "[rank: 0] Received SIGTERM: 15\n[rank: 1] Received SIGTERM: 15\n")
    assert lightning.category is Category.INFRASTRUCTURE
    deepspeed = triage_texts(tmp_path / "ds", (
        "[2024-06-11 10:41:22,181] [INFO] [launch.py:319:sigkill_handler] Killing subprocess "
        "224517\n[2024-06-11 10:41:22,182] [INFO] [launch.py:328:sigkill_handler] Main process "
        "received SIGTERM, exiting\n"))
    assert deepspeed.category is Category.INFRASTRUCTURE


def test_a_dataloader_worker_signal_is_read_by_its_name(tmp_path: Path) -> None:
    """DataLoader.cpp: `DataLoader worker (pid %d) is killed by signal: %s` (strsignal): a
    worker stopped with SIGTERM at teardown is not the one the OOM killer took."""
    diagnosis = triage_texts(tmp_path, (
        "slurmstepd: error: Detected 1 oom_kill event in StepId=771234.0. Some of the step "
        "tasks have been OOM Killed.\n"
        "[rank0]: RuntimeError: DataLoader worker (pid 30112) is killed by signal: "
        "Terminated. \n"))
    assert diagnosis.category is Category.OOM
    assert diagnosis.culprit_ranks == ()


def test_an_exception_in_dataset_code_is_the_jobs_own_bug(tmp_path: Path) -> None:
    """torch/_utils.py ExceptionWrapper: `Caught {exc} in DataLoader worker process {id}`."""
    diagnosis = triage_texts(tmp_path, (
        "[rank3]: Traceback (most recent call last):\n"
        '[rank3]:   File "/workspace/train.py", line 180, in main\n'
        "[rank3]:     for step, batch in enumerate(loader):\n"
        "[rank3]: ValueError: Caught ValueError in DataLoader worker process 2.\n"
        "[rank3]: Original Traceback (most recent call last):\n"
        '[rank3]:   File "/workspace/data.py", line 77, in __getitem__\n'
        '[rank3]:     raise ValueError(f"bad sample length {n}")\n'
        "[rank3]: ValueError: bad sample length 0\n"))
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.SOFTWARE, (3,))


def test_exits_without_a_cause_are_not_the_jobs_bug(tmp_path: Path) -> None:
    """spawn.py `process %d terminated with exit code %d` and Ray's WorkerCrashedError: a
    process ended and the line does not say why."""
    spawn = triage_texts(tmp_path / "spawn", (
        "Traceback (most recent call last):\n"
        '  File "main.py", line 120, in <module>\n'
        "    mp.spawn(worker, nprocs=8, args=(cfg,))\n"
        "torch.multiprocessing.spawn.ProcessExitedException: process 4 terminated with exit "
        "code 1\n"))
    assert spawn.category is Category.UNDETERMINED
    ray = triage_texts(tmp_path / "ray", (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 88, in <module>\n'
        "    ray.get(refs)\n"
        "ray.exceptions.WorkerCrashedError: The worker died unexpectedly while executing this "
        "task. Check python-core-worker-*.log files for more information.\n"))
    assert ray.category is Category.UNDETERMINED


def test_a_short_write_in_torch_save_is_storage(tmp_path: Path) -> None:
    """inline_container.cc ostream_write_func: `unexpected pos %d vs %d`."""
    diagnosis = triage_texts(tmp_path, (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/workspace/train.py", line 230, in save_checkpoint\n'
        "[rank0]:     torch.save(state, path)\n"
        "[rank0]: RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos "
        "13154342208 vs 13154342096\n"))
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.STORAGE_IO, (0,))


def test_kernel_gpu_exceptions_name_the_gpu_and_one_gpu_is_counted_once(
        tmp_path: Path) -> None:
    """NVRM `Xid (PCI:%s): %d, pid=%d, name=%s, %s`: 13/31/43 are a program's illegal
    access; 79's `0000:b7:00` and the driver's `0000:b7:00.0` are one GPU."""
    mmu = triage_texts(tmp_path / "xid31", (
        "[Tue Jun 11 10:41:20 2024] NVRM: Xid (PCI:0000:3b:00): 31, pid=224518, name=python, "
        "Ch 00000008, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ "
        "0x7f12_34560000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n"))
    assert mmu.category is Category.GPU_CUDA
    assert any("0000:3b:00" in c and "224518" in c for c in mmu.culprits)
    bus = triage_texts(tmp_path / "xid79", (
        "NVRM: Xid (PCI:0000:b7:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off "
        "the bus.\nNVRM: GPU 0000:b7:00.0: GPU has fallen off the bus.\n"))
    assert bus.category is Category.GPU_CUDA
    assert len([c for c in bus.culprits if "0000:b7:00" in c]) == 1


def test_two_ranks_on_one_gpu_is_a_launch_bug(tmp_path: Path) -> None:
    """NCCL init.cc: `Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx`."""
    diagnosis = triage_texts(tmp_path, (
        "[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/"
        "c10d/ProcessGroupNCCL.cpp:1970, invalid usage (run with NCCL_DEBUG=WARN for details), "
        "NCCL version 2.20.5\n"
        "[rank1]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
        "[rank1]: Last error:\n"
        "[rank1]: Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1b000\n"))
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.SOFTWARE, ())
    assert any("1b000" in c for c in diagnosis.culprits)


def test_an_infiniband_async_event_is_the_cause_of_the_flushed_completions(
        tmp_path: Path) -> None:
    """net_ib.cc: `NET/IB : %s:%d Got async event : %s` (2.21), `async fatal event: %s`."""
    for i, event in enumerate(("Got async event : port error",
                               "async fatal event: local catastrophic error")):
        diagnosis = triage_texts(tmp_path / str(i), (
            f"gpu-node-7:2145901:2146400 [3] transport/net_ib.cc:101 NCCL WARN NET/IB : "
            f"mlx5_3:1 {event}\n"
            "gpu-node-7:2145901:2146320 [3] transport/net_ib.cc:1909 NCCL WARN NET/IB : Got "
            "completion from peer 10.10.3.21<46211> with status=5 opcode=0 len=0 vendor err 249 "
            "(Recv)\n"))
        assert diagnosis.category is Category.NETWORK
        assert any("mlx5_3" in c for c in diagnosis.culprits)


def test_ray_trains_timeouts_name_the_ranks_that_never_came(tmp_path: Path) -> None:
    """ray/train/v2/_internal/exceptions.py: BroadcastCollectiveTimeoutError lists `The
    following ranks are not reaching the collective operation: [..]`; a worker group that
    never started is an init timeout."""
    broadcast = triage_texts(tmp_path / "bc", (
        "Traceback (most recent call last):\n"
        '  File "/home/ray/train.py", line 88, in <module>\n'
        "    result = trainer.fit()\n"
        "ray.train.v2._internal.exceptions.BroadcastCollectiveTimeoutError: The checkpoint "
        "broadcast timed out after 1800.2 seconds.\n"
        "The following ranks are not reaching the collective operation: [3]\n"))
    assert (broadcast.category, broadcast.culprit_ranks) == (Category.COLLECTIVE_DESYNC, (3,))
    startup = triage_texts(tmp_path / "start", (
        "ray.train.v2._internal.exceptions.WorkerGroupStartupTimeoutError: The worker group "
        "startup timed out after 30.0 seconds waiting for 16 workers.\n"))
    assert startup.category is Category.INIT_TIMEOUT


def test_nccls_own_socket_and_verbs_failures_are_the_hosts_network(tmp_path: Path) -> None:
    """include/socket.h `Net : Socket creation failed : %s`, `Call to connect failed : %s`
    (before 2.12), ibvwrap.c `Call to ibv_modify_qp failed with error %s`; NCCL <= 2.3 wrote
    its lines without "NCCL" before the level. The reporting rank is one end of the link."""
    lines = (
        "[1,4]<stdout>:gpu7:4105:4372 [0] include/socket.h:318 NCCL WARN Net : Socket creation "
        "failed : Address family not supported by protocol\n",
        "gpu9:285594:285607 [0] include/socket.h:361 WARN Call to connect failed : Connection "
        "timed out\n",
        "(LLMRayActor pid=1112, ip=10.0.5.7) w0:1112:13532 [0] ibvwrap.c:160 NCCL WARN Call to "
        "ibv_modify_qp failed with error Connection timed out\n",
    )
    for i, (line, host) in enumerate(zip(lines, ("gpu7", "gpu9", "10.0.5.7"), strict=True)):
        diagnosis = triage_texts(tmp_path / str(i), line)
        assert diagnosis.category is Category.NETWORK, line
        assert diagnosis.culprit_ranks == ()
        assert any(host in c for c in diagnosis.culprits)


def test_an_old_nccl_reset_by_peer_is_a_consequence(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, "node5:2123:2230 [3] include/socket.h:194 WARN Call to recv "
                        "failed : Connection reset by peer\n")
    assert diagnosis.category is Category.UNDETERMINED


def test_nccls_failed_device_allocation_is_an_oom_on_the_host_named(tmp_path: Path) -> None:
    """alloc.h: `Failed to CUDA calloc async %ld bytes` as the `Last error:` of an NCCL
    error, in a pdsh-prefixed DeepSpeed log."""
    diagnosis = triage_texts(tmp_path, (
        "10.1.1.51: RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, internal error, "
        "NCCL version 2.14.3\n"
        "10.1.1.51: ncclInternalError: Internal check failed.\n"
        "10.1.1.51: Last error:\n"
        "10.1.1.51: Failed to CUDA calloc async 1920 bytes\n"))
    assert diagnosis.category is Category.OOM
    assert any("10.1.1.51" in c for c in diagnosis.culprits)


def test_a_pod_eviction_is_a_stop_from_outside(tmp_path: Path) -> None:
    """Volcano's job controller: `Try to handle request <…, Task:%s, Event:PodEvicted, …>`."""
    diagnosis = triage_texts(tmp_path, (
        "I0128 08:13:50.578876       1 job_controller.go:305] Try to handle request <Queue: , "
        "Job: default/train-job, Task:train-worker, Event:PodEvicted, ExitCode:0, Action:, "
        "JobVersion: 0>\n"))
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert diagnosis.culprits == ("pod train-worker",)


def test_mp_spawn_before_torch_1_6_raised_a_bare_exception(tmp_path: Path) -> None:
    """spawn.py (torch < 1.6): `raise Exception("process %d terminated with signal %s")`."""
    diagnosis = triage_texts(tmp_path, (
        '  File "/opt/torch/multiprocessing/spawn.py", line 107, in join\n'
        "    (error_index, name)\n"
        "Exception: process 1 terminated with signal SIGSEGV\n"))
    assert diagnosis.category is Category.UNDETERMINED
    assert diagnosis.culprits == ("process 1",)


def test_old_cuda_checks_and_cudnn_execution_failures_are_gpu_errors(tmp_path: Path) -> None:
    """THC's `THCudaCheck FAIL file=%s line=%i error=%i : %s` and cuDNN's
    `CUDNN_STATUS_EXECUTION_FAILED` raised as `CuDNN error: …`."""
    thc = triage_texts(tmp_path / "thc", "THCudaCheck FAIL file=/pytorch/torch/lib/THD/base/"
                  "data_channels/DataChannelNccl.cpp line=195 error=77 : an illegal memory access "
                  "was encountered\n")
    assert thc.category is Category.GPU_CUDA
    cudnn = triage_texts(tmp_path / "cudnn", (
        "Traceback (most recent call last):\n"
        '  File "rnn.py", line 288, in forward\n'
        "    dropout_ts)\n"
        "RuntimeError: CuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n"))
    assert cudnn.category is Category.GPU_CUDA


def test_mpirun_timestamp_output_is_an_envelope() -> None:
    """mpirun --timestamp-output: `2019-06-02T16:13:44.884Z: [1,12]<stdout>:…`."""
    assert _kinds("2019-06-02T16:13:44.884Z: [1,12]<stdout>:RuntimeError: boom") == [
        (EventKind.PYTHON_TRACEBACK, 12)]


def test_open_mpi_losing_a_nodes_daemon_is_infrastructure(tmp_path: Path) -> None:
    """orte help-errmgr-base.txt [node-died]: `ORTE has lost communication with a remote
    daemon.` … `Remote daemon: %s on node %s`."""
    diagnosis = triage_texts(tmp_path, (
        "ORTE has lost communication with a remote daemon.\n\n"
        "  HNP daemon   : [[55312,0],0] on node gpu-node-1\n"
        "  Remote daemon: [[55312,0],3] on node gpu-node-4\n\n"
        "This is usually due to either a failure of the TCP network\n"))
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert diagnosis.culprits == ("node gpu-node-4",)


def test_an_agent_stuck_at_the_exit_barrier_is_not_a_clean_run(tmp_path: Path) -> None:
    """elastic agent api.py _exit_barrier: `Error waiting on exit barrier. Elapsed: %s seconds`."""
    diagnosis = triage_texts(tmp_path, (
        "[2024-06-11 10:41:22,181] torch.distributed.elastic.agent.server.api: [ERROR] Error "
        "waiting on exit barrier. Elapsed: 300.0561726093292 seconds\n"))
    assert diagnosis.category is Category.UNDETERMINED
    assert any("exit barrier" in f for f in diagnosis.findings)


def test_open_mpis_crash_handler_pid_is_matched_to_mpiruns_rank(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "[gpu-node-1:48213] *** Process received signal ***\n"
        "[gpu-node-1:48213] Signal: Segmentation fault (11)\n"
        "mpirun noticed that process rank 2 with PID 48213 on node gpu-node-1 exited on signal "
        "11 (Segmentation fault).\n"))
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, (2,))


def test_a_host_whose_network_nccl_cannot_set_up_is_named(tmp_path: Path) -> None:
    """bootstrap.cc `Bootstrap : no socket interface found` (quoted as the `Last error:`) and
    the AWS OFI plugin's `NET/OFI Couldn't open AV`."""
    bootstrap = triage_texts(tmp_path / "bootstrap", (
        "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:2897, invalid usage (run with "
        "NCCL_DEBUG=WARN for details), NCCL version 2.27.3\n\n"
        "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n\n"
        "Last error:\n\nBootstrap : no socket interface found\n"))
    assert bootstrap.category is Category.NETWORK
    ofi = triage_texts(tmp_path / "ofi", (
        "[1,23]<stdout>:ip-10-0-45-165:8716:9558 [7] create_nccl_ofi_component:459 NCCL WARN "
        "NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument\n"))
    assert (ofi.category, ofi.culprit_ranks) == (Category.NETWORK, ())
    assert any("ip-10-0-45-165" in c for c in ofi.culprits)


def test_an_ipv4_mapped_store_address_is_read_whole(tmp_path: Path) -> None:
    """socket.cpp: `The client socket has failed to connect to [%s]:%d (errno: %d - %s).`"""
    diagnosis = triage_texts(tmp_path, (
        "[W socket.cpp:697] [c10d] The client socket has failed to connect to "
        "[::ffff:10.4.9.143]:47389 (errno: 110 - Connection timed out).\n") * 3)
    assert diagnosis.category is Category.NETWORK
    assert any("10.4.9.143:47389" in c for c in diagnosis.culprits)


@pytest.mark.parametrize("severity", ["[W socket.cpp:697]", "[W910 02:10:41.336141828 socket.cpp:697]"])
def test_a_store_connect_the_client_retries_is_passed_once_another_node_trains(
        tmp_path: Path, severity: str) -> None:
    """c10's warning for each connect it will try again (glog's `[W …]` and c10's own
    `[W910 02:10:41.336141828 …]`, month and day unpadded), from a node that started before the
    store's host was up: no error after it, and the first node trains on."""
    late = "".join(f"{severity} [c10d] The client socket has failed to connect to "
                   "[gpu-node-01]:29500 (errno: 111 - Connection refused).\n" for _ in range(3))
    steps = "".join(f"[rank0]: step {s} | loss 3.{s} | tokens/s 412,331\n"
                    for s in range(100, 400, 100))
    diagnosis = triage_texts(tmp_path, steps, late + "[rank8]: using device cuda:0\n")
    assert diagnosis.category is Category.NONE, diagnosis.summary
    alone = triage_texts(tmp_path / "alone", late)  # no node trains: the store was never reached
    assert alone.category is Category.NETWORK


def test_horovods_gloo_launcher_names_its_first_failed_process(tmp_path: Path) -> None:
    """horovod/runner/gloo_run.py: `Horovod detected that one or more processes exited with
    non-zero status, thus causing the job to be terminated. The first process to do so was:
    \\nProcess name: {name}\\nExit code: {code}`, name = `host[local_rank]` (elastic)."""
    diagnosis = triage_texts(tmp_path, (
        "Traceback (most recent call last):\n"
        '  File "/opt/horovod/runner/gloo_run.py", line 318, in launch_gloo_elastic\n'
        "    .format(name=name, code=exit_code))\n"
        "RuntimeError: Horovod detected that one or more processes exited with non-zero "
        "status, thus causing the job to be terminated. The first process to do so was:\n"
        "Process name: worker-1[0]\nExit code: 137\n"))
    assert diagnosis.category is Category.UNDETERMINED
    assert diagnosis.culprits == ("worker-1[0]",)


def test_a_file_named_for_a_rank_that_holds_other_ranks_does_not_make_the_world(
        tmp_path: Path) -> None:
    """`…rank0-missing….log` with ranks 1-3's lines is not rank 0's log: no world of one."""
    lines = "".join(
        f"[E ProcessGroupNCCL.cpp:475] [Rank {r}] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=1, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran "
        "for 1800584 milliseconds before timing out.\n" for r in (1, 2, 3))
    path = tmp_path / "job-rank0-missing.log"
    path.write_text(lines, encoding="utf-8")
    scans, problems, _ = read_inputs([str(path)])
    diagnosis = diagnose(scans, problems)
    assert diagnosis.culprit_ranks == ()


def test_a_culprit_says_where_it_ran(tmp_path: Path) -> None:
    """NCCL's `host:pid:tid [dev]` head, a Ray actor's prefix, and the one process torch >= 2.1
    lists on the GPU that ran out (`Process %d has %s memory in use`)."""
    nccl = triage_texts(tmp_path / "nccl", "[rank1]:node155:3054646:3054700 [1] transport/nvls.cc:246 "
                   "NCCL WARN Cuda failure 3 'initialization error'\n")
    assert nccl.culprits == ("rank 1 (node155:3054646)",)
    ray = triage_texts(tmp_path / "ray", "(WorkerDict pid=838798, ip=10.1.0.27) RuntimeError: CUDA "
                  "error: an illegal memory access was encountered\n")
    assert any("10.1.0.27:838798" in c for c in ray.culprits)
    oom = triage_texts(tmp_path / "oom", (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 112.00 MiB. GPU 2 has a "
        "total capacity of 15.78 GiB of which 27.19 MiB is free. Process 307065 has 15.75 GiB "
        "memory in use.\n"))
    assert oom.category is Category.OOM
    assert any("307065" in c for c in oom.culprits)


def test_horovods_gloo_tags_and_exit_lines_name_the_rank(tmp_path: Path) -> None:
    """horovodrun's gloo launcher tags lines `[rank]<stderr>:` and reports `Process %s exit
    with status code %d.`"""
    assert _kinds("[1]<stderr>:RuntimeError: boom") == [(EventKind.PYTHON_TRACEBACK, 1)]
    diagnosis = triage_texts(tmp_path, "Process 0 exit with status code 137.\n")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, (0,))


def test_ddps_unused_parameters_by_name_name_the_rank(tmp_path: Path) -> None:
    """reducer.cpp with TORCH_DISTRIBUTED_DEBUG: `Parameters which did not receive grad for
    rank %d: %s` (without it: `Parameter indices which …`)."""
    diagnosis = triage_texts(tmp_path, (
        "RuntimeError: Expected to have finished reduction in the prior iteration before "
        "starting a new one.\n"
        "Parameters which did not receive grad for rank 4: model.22.cv4.2.2.bias, "
        "model.22.cv4.2.2.weight\n"))
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.SOFTWARE, (4,))


def test_a_signal_the_launcher_passes_on_is_a_stop_from_outside(tmp_path: Path) -> None:
    """elastic multiprocessing api.py: `Sending process %s closing signal %s`; torchrun sends
    SIGTERM when a worker fails, and passes on any other signal it was sent."""
    line = ("WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {pid} closing "
            "signal {sig}\n")
    hup = triage_texts(tmp_path / "hup", line.format(pid=102241, sig="SIGHUP")
                  + line.format(pid=102242, sig="SIGHUP"))
    assert hup.category is Category.INFRASTRUCTURE
    term = triage_texts(tmp_path / "term", line.format(pid=102241, sig="SIGTERM"))
    assert term.category is not Category.INFRASTRUCTURE


def test_nccls_unexplained_cuda_failure_names_the_rank_whose_gpu_failed(
        tmp_path: Path) -> None:
    """`ncclCommInitRank failed: unhandled cuda error` with no `Cuda failure` line: the rank's
    own GPU call failed (ncclUnhandledCudaError: "a call to a CUDA function failed"); which
    call and why is not shown."""
    diagnosis = triage_texts(tmp_path, (
        "[1]<stderr>:    mpi_lib.horovod_torch_wait_and_clear(handle)\n"
        "[1]<stderr>:RuntimeError: ncclCommInitRank failed: unhandled cuda error (run with "
        "NCCL_DEBUG=INFO for details)\n"))
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.GPU_CUDA, (1,))
    assert "with no reason shown" in diagnosis.summary


def test_nvml_failures_and_ranks_started_twice(tmp_path: Path) -> None:
    """nvmlwrap.cc `%s() failed: %s` is a GPU fault of the rank; bootstrap.cc `Bootstrap Root :
    rank %d of %d ranks has already checked in` is a launch bug naming the rank."""
    nvml = triage_texts(tmp_path / "nvml", (
        "host1:6896:7103 [1] NCCL INFO ncclCommInitRank comm 0xf1486b0 rank 1 nranks 8 cudaDev 1 "
        "nvmlDev 1 busId 8a000 commId 0xc92 - Init START\n"
        "host1:6896:7103 [1] misc/nvmlwrap.cc:187 NCCL WARN nvmlDeviceGetHandleByPciBusId() "
        "failed: Not Found\n"))
    assert (nvml.category, nvml.culprit_ranks) == (Category.GPU_CUDA, (1,))
    twice = triage_texts(tmp_path / "twice", "hpc-25-14:18569:18835 [0] bootstrap.cc:131 NCCL WARN "
                    "Bootstrap Root : rank 1 of 8 ranks has already checked in\n")
    assert (twice.category, twice.culprit_ranks) == (Category.SOFTWARE, (1,))


def test_torch_1_11_misspelt_the_unique_id_wait(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "RuntimeError: [1] is setting up NCCL communicator and retreiving ncclUniqueId from [0] "
        "via c10d key-value store by key '0', but store->get('0') got error: Timeout waiting "
        "for key: default_pg/0/0 after 1800000 ms\n"))
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.INIT_TIMEOUT, (0,))


def test_recorded_not_fatal_xids_do_not_outrank_the_jobs_error(tmp_path: Path) -> None:
    """Xid 92 (high single-bit ECC rate) and 63 (row remap recorded) do not stop a job; the
    old driver's `GPU at %s has fallen off the bus` names the GPU, not "a"."""
    diagnosis = triage_texts(tmp_path / "xid92", (
        "NVRM: Xid (PCI:0000:18:00): 92, pid='<unknown>', name=<unknown>, High single-bit ECC "
        "error rate\n"
        "[rank3]: Traceback (most recent call last):\n"
        '[rank3]:   File "train.py", line 88, in step\n'
        "[rank3]:     ids = batch['input_ids']\n"
        "[rank3]: KeyError: 'input_ids'\n"))
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.SOFTWARE, (3,))
    bus = triage_texts(tmp_path / "bus", "NVRM: GPU at 0000:3b:00.0 has fallen off the bus.\n")
    assert bus.category is Category.GPU_CUDA
    assert any("0000:3b:00" in c for c in bus.culprits)


def test_kubernetes_says_oom_eviction_preemption_and_node_loss(tmp_path: Path) -> None:
    """containerd's `OOMKilled` in `kubectl get pods`; kubelet eviction and kube-scheduler
    preemption events; the node lifecycle controller's `status is now: NodeNotReady`."""
    oom = triage_texts(tmp_path / "oom", (
        "NAME                 READY   STATUS      RESTARTS      AGE\n"
        "llama-ft-worker-2    0/1     OOMKilled   0             95m\n"))
    assert oom.category is Category.OOM
    assert any("llama-ft-worker-2" in c for c in oom.culprits)
    events = "LAST SEEN   TYPE      REASON      OBJECT                      MESSAGE\n"
    for what, line in (
            ("evicted", "3m12s       Warning   Evicted     pod/w-1       The node was low on "
                        "resource: memory.\n"),
            ("preempted", "41s         Normal    Preempted   pod/w-1       Preempted by "
                          "prod/inference-7b on node gpu-node-04\n")):
        diagnosis = triage_texts(tmp_path / what, events + line)
        assert diagnosis.category is Category.INFRASTRUCTURE
        assert diagnosis.culprits == ("pod w-1",)
    node = triage_texts(tmp_path / "node", events + "6m          Normal    NodeNotReady    "
                   "node/gpu-node-12    Node gpu-node-12 status is now: NodeNotReady\n")
    assert (node.category, node.culprits) == (Category.INFRASTRUCTURE, ("node gpu-node-12",))


def test_vllm_and_kubeflow_name_the_worker_that_died(tmp_path: Path) -> None:
    """vLLM's `Worker proc %s died unexpectedly` (its EngineDeadError after it is a
    consequence), `RayWorkerProc rank=%s died unexpectedly`; Kubeflow's `Pod: %v.%v exited
    with code %v`."""
    v1 = triage_texts(tmp_path / "v1", (
        "(EngineCore_DP0 pid=265) ERROR 02-27 10:31:24 [multiproc_executor.py:231] Worker proc "
        "VllmWorker-3 died unexpectedly, shutting down executor.\n"
        "(EngineCore_DP0 pid=265) vllm.v1.engine.exceptions.EngineDeadError: EngineCore "
        "encountered an issue. See stack trace (above) for the root cause.\n"))
    assert (v1.category, v1.culprits) == (Category.UNDETERMINED, ("VllmWorker-3",))
    ray = triage_texts(tmp_path / "ray", "ERROR 04-03 11:20:41 [ray_executor_v2.py:464] "
                  "RayWorkerProc rank=[3] died unexpectedly, shutting down executor.\n")
    assert (ray.category, ray.culprit_ranks) == (Category.UNDETERMINED, (3,))
    pod = triage_texts(tmp_path / "pod", "  Warning  ExitedWithCode  5m  pytorchjob-controller  Pod: "
                  "ml-train.llama-ft-worker-4 exited with code 1\n")
    assert (pod.category, pod.culprits) == (Category.UNDETERMINED,
                                            ("ml-train.llama-ft-worker-4",))


def test_the_kernels_storage_failures_name_the_node(tmp_path: Path) -> None:
    """fs/xfs `Filesystem has been shut down due to log error`, fs/ext4 `EXT4-fs error
    (device %s)`, sunrpc `nfs: server %s not responding, still trying`, beside a rank that
    waited: the node and its device, not the waiting rank."""
    diagnosis = triage_texts(tmp_path, (
        "[rank4]:[E529 18:35:12.331203442 ProcessGroupNCCL.cpp:632] [Rank 4] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=9012, OpType=BROADCAST, NumelIn=1, "
        "NumelOut=1, Timeout(ms)=1800000) ran for 1800095 milliseconds before timing out.\n"
        "May 29 18:05:44 gpu-node-02 kernel: XFS (md0): log I/O error -5\n"
        "May 29 18:05:44 gpu-node-02 kernel: XFS (md0): Filesystem has been shut down due to "
        "log error (0x2).\n"))
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.STORAGE_IO, ())
    assert diagnosis.culprits == ("node gpu-node-02 (device md0)",)
    nfs = triage_texts(tmp_path / "nfs", "nfs: server filer01 not responding, still trying\n")
    assert nfs.category is Category.STORAGE_IO


def test_megatrons_nan_assert_and_dcgms_ecc_report_name_where(tmp_path: Path) -> None:
    """Megatron's `Rank {rank}: found NaN in local grad norm …` and DCGM's `Detected %d
    volatile double-bit ECC error(s) in GPU %u.`"""
    nan = triage_texts(tmp_path / "nan", "AssertionError: Rank 13: found NaN in local grad norm in "
                  "backward pass before data-parallel communication collective. Device: 5, "
                  "node: gpu-node-07\n")
    assert (nan.category, nan.culprit_ranks) == (Category.SOFTWARE, (13,))
    dcgm = triage_texts(tmp_path / "dcgm", "|    -> Memory system | Failure |\n"
                   "| Detected 2 volatile double-bit ECC error(s) in GPU 3.    |\n")
    assert (dcgm.category, dcgm.culprits) == (Category.GPU_CUDA, ("GPU 3",))


def test_nccls_shared_memory_that_cannot_grow_is_the_nodes_shm(tmp_path: Path) -> None:
    """include/shm.h: `Call to posix_fallocate failed : %s`, `Error while creating shared
    memory segment %s (size %d)`: /dev/shm too small (as for DataLoader bus errors)."""
    diagnosis = triage_texts(tmp_path, (
        "gpu2:2143:2561 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space "
        "left on device\n"
        "gpu2:2143:2561 [1] include/shm.h:48 NCCL WARN Error while creating shared memory "
        "segment nccl-shm-recv-1462-1-2-3 (size 9637888)\n"))
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert any("gpu2" in c for c in diagnosis.culprits)


def test_more_wordings_of_waits_deaths_and_evictions(tmp_path: Path) -> None:
    """The elastic error file's `"message": "RendezvousTimeoutError: "`, Ray's `The actor is
    dead because its worker process has died`, Kubeflow MPIJob's `1/8 workers are evicted`, and
    the AWS OFI plugin's own `WARN: Function: … NET/OFI Couldn't open AV`."""
    rdzv = triage_texts(tmp_path / "rdzv", 'ERROR:torch.distributed.elastic.multiprocessing.errors.'
                   'error_handler:{\n    "message": "RendezvousTimeoutError: ",\n}\n')
    assert rdzv.category is Category.INIT_TIMEOUT
    ray = triage_texts(tmp_path / "ray", "The actor is dead because its worker process has died. "
                  "Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits "
                  "with a connection error code 2. End of file.\n")
    assert ray.category is Category.UNDETERMINED
    mpijob = triage_texts(tmp_path / "mpijob", "  - message: 1/8 workers are evicted\n"
                     "    reason: MPIJobEvicted\n    type: Failed\n")
    assert mpijob.category is Category.INFRASTRUCTURE
    ofi = triage_texts(tmp_path / "ofi", "WARN: Function: create_nccl_ofi_component Line: 459: "
                  "NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument\n")
    assert ofi.category is Category.NETWORK


_TRACEBACK = ('Traceback (most recent call last):\n  File "/home/user/job/train.py", line 10, '
              'in <module>\n    main()\n')


@pytest.mark.parametrize(("exception", "endpoint"), [
    ("requests.exceptions.ProxyError: HTTPSConnectionPool(host='hub.internal', port=443): Max "
     "retries exceeded with url: /api/models (Caused by ProxyError('Cannot connect to proxy.', "
     "OSError('Tunnel connection failed: 407 Proxy Authentication Required')))",
     "hub.internal:443"),
    # botocore's EndpointConnectionError: `Could not connect to the endpoint URL: "{endpoint_url}"`
    ('botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL: '
     '"https://s3.us-east-1.amazonaws.com/bucket/ckpt"', ""),
    # transformers' hub download that found no cached copy
    ("OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find "
     "it in the cached files and it looks like gpt2 is not the path to a directory containing a "
     "file named config.json.", ""),
])
def test_an_endpoint_the_jobs_client_could_not_reach_is_the_network(
        tmp_path: Path, exception: str, endpoint: str) -> None:
    """An exception whose type or client's words say an endpoint was not reached (urllib3,
    requests, botocore, the hub's downloads) is the network's, with no rank blamed: neither
    the job's bug nor its disk."""
    diagnosis = triage_texts(tmp_path, f"[rank3]: {_TRACEBACK.replace(chr(10), chr(10) + '[rank3]: ')}"
                             f"{exception}\n")
    assert diagnosis.category is Category.NETWORK
    assert diagnosis.culprit_ranks == ()
    if endpoint:  # the link to it, or the proxy on the way
        assert len(diagnosis.culprits) == 1 and endpoint in diagnosis.culprits[0]


def test_a_read_that_timed_out_is_a_wait_not_an_unreachable_endpoint(tmp_path: Path) -> None:
    """urllib3's `%s: Read timed out. (read timeout=%s)` under requests: the endpoint took the
    connection and did not answer in time. Why it was slow is not in the lines (the policy's
    unreachable endpoints are refusals, missing routes and names, and connects that timed
    out), so neither the network nor the job's code is named."""
    diagnosis = triage_texts(
        tmp_path, f"[rank3]: {_TRACEBACK.replace(chr(10), chr(10) + '[rank3]: ')}"
        "requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='huggingface.co', port=443): "
        "Read timed out. (read timeout=10)\n")
    assert diagnosis.category is Category.UNDETERMINED
    assert diagnosis.culprit_ranks == ()


@pytest.mark.parametrize(("exception", "category"), [
    # an HTTP server that closed the connection, and a socket read that ran out: a peer's
    # story or a wait, not the job's bug
    ("http.client.RemoteDisconnected: Remote end closed connection without response",
     Category.UNDETERMINED),
    ("requests.exceptions.ChunkedEncodingError: (\"Connection broken: InvalidChunkLength(got "
     "length b'', 0 bytes read)\", InvalidChunkLength(got length b'', 0 bytes read))",
     Category.UNDETERMINED),
    ("socket.timeout: timed out", Category.UNDETERMINED),
    # OSError is the disk's only for an errno a disk gives
    ("OSError: [Errno 39] Directory not empty: 'out/tmp-checkpoint-50' -> 'out/checkpoint-50'",
     Category.SOFTWARE),
    ("OSError: [Errno 24] Too many open files", Category.SOFTWARE),
    ("OSError: [Errno 5] Input/output error: '/mnt/lustre/run/ckpt'", Category.STORAGE_IO),
    ("OSError: [Errno 122] Disk quota exceeded", Category.STORAGE_IO),
    ("PermissionError: [Errno 13] Permission denied: '/checkpoints/model.pt'",
     Category.STORAGE_IO),
])
def test_an_exceptions_type_and_errno_say_whose_it_is(
        tmp_path: Path, exception: str, category: Category) -> None:
    diagnosis = triage_texts(tmp_path, f"{_TRACEBACK}{exception}\n")
    assert diagnosis.category is category


def test_native_aborts_in_other_runtimes_words_are_failures(tmp_path: Path) -> None:
    """libc++'s `terminating with uncaught exception of type %s: %s` (macOS, clang builds),
    the `!!!!!!! Segfault encountered !!!!!!!` banner of the native signal handler vLLM, SGLang
    and TensorRT-LLM install, and TensorFlow's FATAL (`F` after the time) all end a process:
    no log with one is "no failure found", and none names a cause."""
    libcxx = "libc++abi: terminating with uncaught exception of type gloo::EnforceNotMet: " \
             "[enforce fail at gloo/transport/uv/pair.cc:248] op.nread == op.preamble.nbytes. \n"
    assert _kinds(libcxx) == [(EventKind.CPP_EXCEPTION, None)]
    for text in (libcxx,
                 "INFO 10-31 07:39:11 [p2p_nccl_engine.py:51] set_p2p_nccl_context\n"
                 "!!!!!!! Segfault encountered !!!!!!!\n"
                 '  File "<unknown>", line 0, in cuMemCreate\n',
                 "2019-05-19 15:08:13.136034: F tensorflow/core/common_runtime/gpu/"
                 "gpu_event_mgr.cc:273] Unexpected Event status: 1\n"):
        diagnosis = triage_texts(tmp_path / str(abs(hash(text))), text)
        assert diagnosis.category is Category.UNDETERMINED, text
        assert diagnosis.culprits == ()


def test_a_watchdog_headline_wrapped_by_hand_is_still_a_timeout(tmp_path: Path) -> None:
    """A paste wrapped after `Watchdog caught collective operation timeout:` keeps the
    headline on a line of its own: the timeout is read, the work it names is not."""
    assert _kinds("[Rank 4] Watchdog caught collective operation timeout:") == [
        (EventKind.WATCHDOG_TIMEOUT, 4)]
    diagnosis = triage_texts(tmp_path, (
        "[Rank 4] Watchdog caught collective operation timeout:\n"
        "WorkNCCL(SeqNum=27732, OpType=_REDUCE_SCATTER_BASE,\n"
        "         NumelIn=215585536, NumelOut=26948192, Timeout(ms)=1800000)\n"
        "         ran for 1800003 milliseconds before timing out.\n"))
    assert diagnosis.category is Category.UNDETERMINED
    assert diagnosis.events.get("watchdog_timeout") == 1


@pytest.mark.parametrize("line", [
    # the kubelet's graceful node shutdown (its pod status message)
    "Pod was terminated in response to imminent node shutdown.",
    # kube-scheduler's preemption event, a Job past its activeDeadlineSeconds, an eviction's
    # node condition
    "Normal   Preempting  pod/train-worker-1  Preempted by default/urgent-job on node gpu-7",
    "Warning  DeadlineExceeded  job/train  Job was active longer than specified deadline",
    "Message: The node had condition: [DiskPressure].",
])
def test_a_platforms_own_words_for_stopping_the_job_are_infrastructure(
        tmp_path: Path, line: str) -> None:
    diagnosis = triage_texts(tmp_path, f"step 120 loss 2.31\n{line}\n")
    assert diagnosis.category is Category.INFRASTRUCTURE


def test_a_spot_handler_that_starts_is_no_interruption(tmp_path: Path) -> None:
    """EC2's `Spot Instance Interruption Warning` and GCE's `compute.instances.preempted` are
    also the words a handler polls for and a set-up command filters on: alone they are no
    stop; on a line that failed for its own reasons they name the platform's."""
    diagnosis = triage_texts(tmp_path / "healthy", (
        "INFO spot interruption handler installed\n"
        "watching the metadata server for a spot interruption notice every 5 s\n"
        "+ aws events put-rule --event-pattern '{\"detail-type\":[\"EC2 Spot Instance "
        "Interruption Warning\"]}'\n"
        "+ gcloud compute operations list --filter=operationType=compute.instances.preempted\n"
        "step 120 loss 2.31\n"))
    assert diagnosis.category is Category.NONE
    failed = triage_texts(tmp_path / "failed", (
        "step 120 loss 2.31\nERROR: worker lost: EC2 Spot Instance Interruption Warning for "
        "instance i-0abc123\n"))
    assert failed.category is Category.INFRASTRUCTURE


def test_the_tail_of_ddps_unused_parameter_error_is_the_jobs_bug(tmp_path: Path) -> None:
    """reducer.cpp's error ends `… to print out information about which particular parameters
    did not receive gradient on this rank as part of this error`: a paste that kept only that
    line still shows DDP's unused-parameter error, though the line says INFO; its healthy
    warning (`… but did not find any unused parameters in the forward pass`) is no failure."""
    tail = (" In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either "
            "INFO or DETAIL to print out information about which particular parameters did not "
            "receive gradient on this rank as part of this error\n")
    assert triage_texts(tmp_path / "tail", tail).category is Category.SOFTWARE
    warning = ("[W reducer.cpp:1346] Warning: find_unused_parameters=True was specified in DDP "
               "constructor, but did not find any unused parameters in the forward pass. This "
               "flag results in an extra traversal of the autograd graph every iteration, which "
               "can adversely affect performance. (function operator())\n")
    assert triage_texts(tmp_path / "warning", warning).category is Category.NONE


def test_a_file_opened_for_writing_in_a_missing_directory_is_storage(tmp_path: Path) -> None:
    """`open(path, "w")` (its mode on a continuation line too) or pyarrow's `OSFile(path,
    "wb")` failing with FileNotFoundError: the parent directory is not there, the policy's
    storage failure. The same error from a read stays the job's bug."""
    write = triage_texts(tmp_path / "write", (
        'Traceback (most recent call last):\n'
        '  File "multiproc.py", line 16, in <module>\n'
        '    stdout = open("logs/{}_GPU_{}.log".format(job_id, i),\n'
        '    "w")\n'
        "FileNotFoundError: [Errno 2] No such file or directory: 'logs/run_GPU_1.log'\n"))
    assert write.category is Category.STORAGE_IO
    read = triage_texts(tmp_path / "read", (
        'Traceback (most recent call last):\n'
        '  File "train.py", line 40, in <module>\n'
        '    with open(args.labels, "r") as f:\n'
        "FileNotFoundError: [Errno 2] No such file or directory: 'data/labels.json'\n"))
    assert read.category is Category.SOFTWARE


def test_nccls_warning_alone_that_its_segment_failed_is_the_nodes_shm(tmp_path: Path) -> None:
    """include/shm.h's `Error while creating shared memory segment %s (size %zu)` and the
    return codes NCCL passed up, with no NCCL error line after them."""
    diagnosis = triage_texts(tmp_path, (
        "box:71145:71167 [0] include/shm.h:48 NCCL WARN Error while creating shared memory "
        "segment nccl-shm-recv-37615efd-0-1-0 (size 9637888)\n"
        "box:71145:71167 [0] NCCL INFO transport/shm.cc:101 -> 2\n"
        "box:71145:71167 [0] NCCL INFO transport.cc:30 -> 2\n"
        "box:71145:71167 [0] NCCL INFO init.cc:767 -> 2\n"))
    assert diagnosis.category is Category.INFRASTRUCTURE


def test_an_out_of_memory_message_below_an_empty_exception_line_is_oom(tmp_path: Path) -> None:
    """Paddle's `Error Message Summary:` prints `ResourceExhaustedError: ` and, after a blank
    line, `Out of memory error on GPU 0. Cannot allocate …` (cuda_allocator.cc)."""
    diagnosis = triage_texts(tmp_path, (
        "Error Message Summary:\n----------------------\nResourceExhaustedError: \n\n"
        "Out of memory error on GPU 0. Cannot allocate 172.000000MB memory on GPU 0, "
        "23.486572GB memory has been allocated and available memory is only 167.062500MB.\n"))
    assert diagnosis.category is Category.OOM


@pytest.mark.parametrize("message", [
    # datasets' Dataset.map with num_proc, concurrent.futures' BrokenProcessPool
    "RuntimeError: One of the subprocesses has abruptly died during map operation.To debug "
    "the error, disable multiprocessing.",
    "concurrent.futures.process.BrokenProcessPool: A process in the process pool was "
    "terminated abruptly while the future was running or pending.",
])
def test_a_worker_that_died_under_an_exception_is_no_bug_of_the_job(
        tmp_path: Path, message: str) -> None:
    """The exception only reports that another process died; its cause is not in it."""
    diagnosis = triage_texts(tmp_path, f"{_TRACEBACK}{message}\n")
    assert diagnosis.category is Category.UNDETERMINED


@pytest.mark.parametrize("line", [
    # MPICH's and MS-MPI's MPI_ERR_TRUNCATE text, MPICH's collective size check
    "Message from rank 3 and tag 1 truncated; 1020000 bytes received but buffer size is 48",
    "MPIR_CRAY_Bcast_Tree(183)...: message sizes do not match across processes in the "
    "collective routine: Received -32766 but expected 20992",
])
def test_mpis_own_size_mismatch_is_a_desync(tmp_path: Path, line: str) -> None:
    diagnosis = triage_texts(tmp_path, f"MPI_Waitany, MPI error 782: Message truncated\n{line}\n")
    assert diagnosis.category is Category.COLLECTIVE_DESYNC
    assert diagnosis.culprit_ranks == ()


def test_a_cpp_exception_whose_message_goes_on_to_a_cuda_failure_is_the_gpu(
        tmp_path: Path) -> None:
    """Marian's gpuAssert: `what():` names the assert, the next line the CUDA error."""
    diagnosis = triage_texts(tmp_path, (
        "terminate called after throwing an instance of 'util::Exception'\n"
        "  what():  marian-dev/src/kernels/cuda_helpers.h:13 in void gpuAssert(cudaError_t, "
        "const char*, int, bool) threw util::Exception.\n"
        "GPUassert: an illegal memory access was encountered marian-dev/src/tensors/tensor.cu "
        "25\nAborted (core dumped)\n"))
    assert diagnosis.category is Category.GPU_CUDA


def test_a_workers_own_error_above_the_launchers_exit_report_is_why_it_exited(
        tmp_path: Path) -> None:
    """torchrun's agent reports `failed (exitcode: 1) local_rank: 0`; above it, in the same
    file, the only failing line is the tail of DDP's unused-parameter error (its exception line
    cut): the exit is that error's. Failing lines of two families leave the exit unexplained."""
    agent = ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) "
             "local_rank: 0 (pid: 14910) of binary: /opt/conda/bin/python\n")
    ddp_tail = (" In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to "
                "either INFO or DETAIL to print out information about which particular "
                "parameters did not receive gradient on this rank as part of this error\n")
    one = triage_texts(tmp_path / "one", ddp_tail + agent)
    assert one.category is Category.SOFTWARE
    assert any("local_rank 0" in c for c in one.culprits)
    two = triage_texts(tmp_path / "two", ddp_tail + "OSError: [Errno 28] No space left on "
                       "device: '/ckpt/step_100.pt'\n" + agent)
    assert two.category is not Category.SOFTWARE


@pytest.mark.parametrize(("exception", "category"), [
    # a listening socket another process holds (Rust's io::Error under a Python binding, and
    # Python's own errno)
    ("RuntimeError: Address already in use (os error 98)", Category.NETWORK),
    ("OSError: [Errno 98] Address already in use", Category.NETWORK),
    # AWS Neuron's runtime (nrt) could not allocate a tensor on a NeuronCore
    ('RuntimeError: nrt_tensor_allocate status=4 message="Allocation Failure"', Category.OOM),
])
def test_more_runtimes_words_in_an_exception(
        tmp_path: Path, exception: str, category: Category) -> None:
    assert triage_texts(tmp_path, f"{_TRACEBACK}{exception}\n").category is category


def test_ascends_driver_error_reason_is_the_devices(tmp_path: Path) -> None:
    """CANN's runtime prints `rtGetDevMsg execute failed, reason=[driver error:internal
    error][FUNC:…]` when its device driver failed a call; Java's healthy `GC (Allocation
    Failure)` is no device at all."""
    diagnosis = triage_texts(tmp_path / "ascend", (
        "        stream setup failed, retCode=0x7020010.[FUNC:SyncGetDevMsg][FILE:api_impl.cc]\n"
        "        rtGetDevMsg execute failed, reason=[driver error:internal error]"
        "[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]\n"))
    assert diagnosis.category is Category.GPU_CUDA
    gc = triage_texts(tmp_path / "gc", "[GC (Allocation Failure) [PSYoungGen: 65536K->10742K"
                                       "(76288K)] 65536K->10750K(251392K), 0.0132 secs]\n")
    assert gc.category is Category.NONE


# JAX's client (xla/pjrt/distributed/client.h) and coordination service
# (coordination_service.cc): the fatal line a surviving task prints, the list of tasks, and
# the barrier's report with its late tasks
_JAX_FATAL = ("F0926 17:26:32.075587  157988 client.h:77] Terminating process because the JAX "
              "distributed service detected fatal errors. This most likely indicates that "
              "another task died; see the other task logs for more details. Disable Python "
              "buffering, i.e. `python -u`, to be sure to see all the previous output. "
              "absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending "
              "heartbeats):\n/job:jax_worker/replica:0/task:3\nThe tasks have crashed. Check the "
              "task logs for an earlier error, or scheduler events (e.g. preemption, eviction) "
              "to debug further.\n\nRPC: /tensorflow.CoordinationService/PollForError\n")


def _barrier(barrier_id: str, late: str) -> str:
    return ("jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Id: "
            f"{barrier_id}. This usually happens because a task triggered the barrier too "
            "early or too slowly. Please look at the task logs (both timed out and first task) "
            "to debug further.\n# of tasks that reached the barrier: 7/8.\nThe first task at "
            f"the barrier: /job:jax_worker/replica:0/task:0. Some timed out task names:\n{late}\n")


def test_the_tasks_the_coordination_service_lists_as_unhealthy_are_named(tmp_path: Path) -> None:
    """The reporters are not the story: the task whose heartbeats stopped is, its cause unshown
    (the heading cut off by the reader's line limit, the list under it still read)."""
    steps = "".join(f"I0926 17:25:{s:02d}.1 157988 train.py:201] step {s} loss=1.99\n"
                    for s in range(10, 20))
    diagnosis = triage_texts(tmp_path, steps + _JAX_FATAL)
    assert diagnosis.category is Category.UNDETERMINED
    assert diagnosis.culprits == ("/job:jax_worker/replica:0/task:3",)
    assert diagnosis.culprit_ranks == ()


def test_tensorflows_heartbeat_timeout_names_its_task(tmp_path: Path) -> None:
    line = ("2024-02-14 06:51:32.019821: E tensorflow/core/distributed_runtime/coordination/"
            "coordination_service.cc:512] Task /job:worker/replica:0/task:2 heartbeat timeout. "
            "This indicates that the remote task has failed, got preempted, or crashed "
            "unexpectedly.\n")
    diagnosis = triage_texts(tmp_path, line)
    assert diagnosis.culprits == ("/job:worker/replica:0/task:2",)


@pytest.mark.parametrize(("barrier_id", "category"), [
    ("PjRT_Client_Connect", Category.INIT_TIMEOUT),
    ("[Init]Wait_for_all_tasks_to_register::0", Category.INIT_TIMEOUT),
    ("0_async_write_complete.0.1", Category.UNDETERMINED),  # a checkpoint's barrier, mid-run
])
def test_a_barriers_late_tasks_are_named_not_its_first(
        tmp_path: Path, barrier_id: str, category: Category) -> None:
    diagnosis = triage_texts(tmp_path, _barrier(barrier_id, "/job:jax_worker/replica:0/task:5"))
    assert diagnosis.category is category
    assert diagnosis.culprits == ("/job:jax_worker/replica:0/task:5",)


def test_a_failure_shown_before_the_list_keeps_its_category(tmp_path: Path) -> None:
    """An out-of-memory line above the list: the one task listed is the one that ran out."""
    oom = ("[task 3] jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory "
           "while trying to allocate 17179869184 bytes.\n")
    diagnosis = triage_texts(tmp_path, oom + _JAX_FATAL)
    assert diagnosis.category is Category.OOM
    assert "/job:jax_worker/replica:0/task:3" in diagnosis.culprits
