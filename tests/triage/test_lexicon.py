"""The failure-family lexicon: what triage makes of failing lines no pattern knows.

The lines are built from the words each stack's own messages use (errno strings, the kernel's
memory-cgroup report, CUDA's and NCCL's failure texts, launchers' give-up messages), in
wrappers no pattern was written for, so these checks stand apart from the scored corpora."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.model import Category
from monitor.triage.analysis import diagnose
from monitor.triage.lexicon import Family, looks_failed, places, read_line, self_named_rank
from monitor.triage.reader import read_inputs
from tests.triage.texts import triage_texts


@pytest.mark.parametrize("line,family", [
    # a job that stops itself over a non-finite loss; a loss scaler that can go no lower
    ("Loss is nan, stopping training", Family.SOFTWARE),
    ("Non-finite loss detected, aborting", Family.SOFTWARE),
    ("Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting "
     "run.", Family.SOFTWARE),
    # the node's memory failing under a process
    ("[Mon Mar  2 10:14:05 2026] Memory failure: 0x3f12a: Sending SIGBUS to python:48214 due to "
     "hardware memory corruption", Family.INFRASTRUCTURE),
    ("acme.trainer: ERROR: shard write aborted: [Errno 28] No space left on device", Family.STORAGE),
    ("FATAL fabric_io: could not persist state: Disk quota exceeded", Family.STORAGE),
    ("worker-3 | error: allocator gave up: out of memory (wanted 3 GiB)", Family.OOM),
    ("memory+swap: usage 1048576kB, limit 1048576kB, failcnt 12", Family.OOM),
    ("[trainer] fatal: kernel launch failed: CUDA error: an illegal memory access was "
     "encountered", Family.GPU),
    ("[trainer] step failed: NVML: Unknown Error while reading GPU 3", Family.GPU),
    ("pod trainer-7 Evicted: The node was low on resource: ephemeral-storage.", Family.INFRASTRUCTURE),
    ("[agent] ERROR: transport to 10.2.0.14:4791 failed: No route to host", Family.NETWORK),
    ("Exception: Timed out waiting for workers to join. Check the network.", Family.INIT_TIMEOUT),
    ("ImportError: libfoo.so.3: cannot open shared object file: No such file or directory",
     Family.ENVIRONMENT),
    ("ERROR trainer: loss is NaN at step 1200 on rank 5", Family.SOFTWARE),
    ("ERROR: relay to 10.0.0.2 failed: Connection reset by peer", Family.PEER_LOST),
    ("launcher: worker 2 failed: exited with code -9 (Killed)", Family.KILLED),
    ("ERROR: something went wrong", Family.FAILED),
    # a line that fails although it ends in "no error" (the errno gloo had: none)
    ("[E130 18:11:34.707 ProcessGroupGloo.cpp:143] Gloo connectFullMesh failed with "
     "[gloo/transport/tcp/pair.cc:144] no error", Family.NETWORK),
    # the network in more stacks' own words: gRPC, Java, UCX, urllib3, Windows sockets
    ("E0501 12:00:01 grpc: failed to connect: DNS resolution failed for trainer-0:2222",
     Family.NETWORK),
    ("ERROR worker: java.net.UnknownHostException: spark-master-0", Family.NETWORK),
    ("[n1:42:0] ucp_worker.c:437 UCX ERROR Error Endpoint timeout was not handled for ep "
     "0x1bd", Family.NETWORK),
    ("ERROR rpc: call failed: UCS_ERR_UNREACHABLE", Family.NETWORK),
    ("requests.exceptions.ConnectionError: HTTPSConnectionPool(host='hub.example', port=443): "
     "Max retries exceeded with url: /m (Caused by NewConnectionError('<urllib3.connection."
     "HTTPSConnection>: Failed to establish a new connection: [Errno 111]'))", Family.NETWORK),
    ("ERROR: send to 10.0.0.7 failed: A socket operation was attempted to an unreachable "
     "host (host unreachable)", Family.NETWORK),
    # Open MPI ends the job, and says when the job called it out of order
    ("*** Your MPI job will now abort.", Family.FAILED),
    ("MPI_ABORT was invoked on rank 3 in communicator MPI_COMM_WORLD with errorcode 1",
     Family.FAILED),
    ("*** The MPI_Comm_rank() function was called before MPI_INIT was invoked.",
     Family.SOFTWARE),
    # schedulers' and clouds' own accounts of a job ended from outside or over its memory
    ("   JobState=BOOT_FAIL Reason=NodeDown Dependency=(null)", Family.INFRASTRUCTURE),
    ("   JobState=TIMEOUT Reason=TimeLimit Dependency=(null)", Family.INFRASTRUCTURE),
    ("77120        llama70b-+     gpu-f-[01-04]   14:02:51  NODE_FAIL      0:0",
     Family.INFRASTRUCTURE),
    ("Tue Nov  5 02:40:36: Completed <exit>; TERM_RC_RECLAIM: job killed and requeued when an "
     "LSF resource connector execution host is reclaimed by EGO;", Family.INFRASTRUCTURE),
    ("x3102c0s19b0n0       state-unknown,down node down: communication closed",
     Family.INFRASTRUCTURE),
    ("  Ready   False   Mon, 04 Nov 2024 11:02:41 +0000   KubeletNotReady   PLEG is not healthy: "
     "pleg was last seen active 13m28.5s ago; threshold is 3m0s", Family.INFRASTRUCTURE),
    ('    "Description": "The instance is running on degraded hardware",',
     Family.INFRASTRUCTURE),
    ("Container [pid=4733,containerID=container_1_0001_01_000002] is running beyond physical "
     "memory limits. Current usage: 2.1 GB of 2 GB physical memory used; Killing container.",
     Family.OOM),
    ("ERROR 2024-11-05T20:07:44.0Z The replica workerpool1-2 ran out-of-memory and exited with "
     "a non-zero status of 9(SIGKILL).", Family.OOM),
    ("Run failed with error code INTERRUPTED_BY_NO_CAPACITY. Check CLI and server logs for more "
     "details.", Family.INFRASTRUCTURE),
    # the CUDA and HIP runtimes' error names in a code's own check macro
    ("HIP error hipErrorOutOfMemory at line 118 in file /opt/src/mha_fwd_kernel.cpp", Family.OOM),
    ("CUDA error cudaErrorMemoryAllocation at train.cu:33", Family.OOM),
    ("CUDA error cudaErrorIllegalAddress at kernels.cu:120", Family.GPU),
    # a process's own handler on the signal that ended it
    ("[0]PETSC ERROR: Caught signal number 11 SEGV: Segmentation Violation, probably memory "
     "access out of range", Family.KILLED),
])
def test_a_failing_line_reads_as_its_family(line: str, family: Family) -> None:
    reading = read_line(line)
    assert reading is not None
    assert reading.family is family


@pytest.mark.parametrize("line", [
    "epoch 3 done, error_rate=0.013, loss 1.22",
    "train loss 0.41, eval loss 0.53, stopping early",
    "Epoch 00012: early stopping",
    "node7:4242:4300 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: "
    "cannot open shared object file: No such file or directory",
    "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.7<0>",
    # NCCL's probe for InfiniBand on a host without it: it goes on over sockets
    "gpu7:1379562:1379562 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]",
    "WARNING: checkpoint upload failed, will retry in 5 s",
    "I1119 12:51:12.512 trainer.cc:80] no errors in the last 1000 steps",
    "validation of shard 7 finished: no errors",
    "upload finished, error_count=0, failed uploads: none",
    "   JobState=COMPLETED Reason=None Dependency=(null)",
    "  Ready   True   Mon, 04 Nov 2024 11:02:41 +0000   KubeletReady   kubelet is posting ready "
    "status",
])
def test_lines_that_mention_failure_without_being_one_are_not_read(line: str) -> None:
    assert read_line(line) is None


def test_where_a_line_says_it_happened() -> None:
    line = ("ERROR pid=4242 NET/IB : mlx5_2:1 got completion from peer 10.1.2.3<36245> with "
            "error 12, node gpu-node-17")
    assert places(line) == ("4242", "mlx5_2", "10.1.2.3:36245", "gpu-node-17")
    assert self_named_rank("Unexpected result nan on rank 3 at iteration 7") == 3
    assert self_named_rank("Rank 12, node n1, device 4: gradient check failed") == 12
    assert self_named_rank("ranks 1 and 2 disagree") is None
    assert self_named_rank("[3]PETSC ERROR: Out of memory. This could be due to allocating") == 3
    assert looks_failed("worker preempted") is False
    assert looks_failed("Caught SIGHUP: this job is preempted.") is True


@pytest.mark.parametrize(("line", "where"), [
    # syslog's host field, whatever the line's program
    ("Jan 30 10:33:08 gpu-node-17 kernel: NVRM: Xid (PCI:0000:3b:00): 79", ("gpu-node-17",)),
    ("2024-05-01T12:00:00 gpu-node-3 systemd-logind[812]: Power key pressed.", ("gpu-node-3",)),
    # a level word where syslog's host would stand is no host
    ("2024-05-01 12:00:00 ERROR train[12]: boom", ()),
    # the far end by name: Open MPI's peer, ssh's unresolved host, an RPC agent's destination
    ("[a][[5,1],0][btl_tcp_endpoint.c:857] peer: melchior Unable to connect",
     ("melchior",)),
    ("ssh: Could not resolve hostname worker-5.job: Name or service not known",
     ("worker-5.job",)),
    ("RPC agent for Test0 encountered error when sending outgoing request #0 to Test1: "
     "ECONNREFUSED", ("Test1",)),
    ("NCCL WARN peer access is not supported between these two devices", ()),
    # an address, or its port, that ends a sentence is still named whole
    ("Unable to connect to GCS at 127.0.0.1:6379. Check that the GCS started",
     ("127.0.0.1:6379",)),
    ("connected from a different address 192.168.101.0. This is not supported",
     ("192.168.101.0",)),
    # a version number is no address
    ("NCCL version 2.18.5+cuda12.2", ()),
])
def test_the_hosts_a_line_names(line: str, where: tuple[str, ...]) -> None:
    assert places(line) == where


def test_an_unknown_stacks_storage_failure_names_the_rank_that_wrote(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "[rank2]: acme.ckpt ERROR: shard 2 write aborted: [Errno 28] No space left on device\n"
        "[rank0]: acme.comm ERROR: peer 2 failed: Connection reset by peer\n"))
    assert diagnosis.category is Category.STORAGE_IO
    assert diagnosis.culprit_ranks == (2,)


def test_a_network_failure_never_blames_the_rank_that_reported_it(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "[rank1]: fabric ERROR: connect to 10.0.0.9:7000 failed: No route to host\n"))
    assert diagnosis.category is Category.NETWORK
    assert diagnosis.culprit_ranks == ()
    assert any("10.0.0.9:7000" in c for c in diagnosis.culprits)


def test_a_failure_without_a_cause_is_undetermined_not_healthy(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, "step 10\nstep 11\nERROR: trainer stopped unexpectedly\n")
    assert diagnosis.category is Category.UNDETERMINED
    assert diagnosis.culprit_ranks == ()


def test_a_healthy_log_stays_healthy(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "epoch 1 error_rate=0.2\nNCCL INFO NET/IB : Using [0]mlx5_0:1/IB\n"
        "WARNING: upload failed, will retry\ntraining finished\n"))
    assert diagnosis.category is Category.NONE


def test_the_kernel_cgroup_report_makes_a_sigkill_an_oom(tmp_path: Path) -> None:
    """mem_cgroup_print_oom_meminfo's usage line at its limit is the kernel's own OOM kill."""
    diagnosis = triage_texts(tmp_path, (
        "worker 2 terminated with signal SIGKILL\n"
        "memory: usage 4194304kB, limit 4194304kB, failcnt 881\n"))
    assert diagnosis.category is Category.OOM


def test_horovods_ready_ranks_name_the_ranks_that_never_submitted(tmp_path: Path) -> None:
    """Horovod < 0.20's stall inspector lists the ranks that did submit; a rank below the
    highest of them that is missing exists and never submitted. Ranks above it may not exist,
    so none is named."""
    diagnosis = triage_texts(tmp_path, (
        "WARNING: One or more tensors were submitted to be reduced, gathered or broadcasted by "
        "subset of ranks and are waiting for remainder of ranks for more than 60 seconds.\n"
        "Stalled ops:\n"
        "allreduce.fc.weight [ready ranks: 0, 3, 2],\n"
        "allreduce.fc.bias [ready ranks: 0, 2, 3]\n"))
    assert diagnosis.category is Category.COLLECTIVE_DESYNC
    assert diagnosis.culprit_ranks == (1,)


def test_ncclss_cuda_reason_makes_an_unhandled_cuda_error_the_gpus(tmp_path: Path) -> None:
    """transport/p2p.cc's WARN names the CUDA call that failed before the 'unhandled cuda
    error' that carries it up."""
    diagnosis = triage_texts(tmp_path, (
        "host-a:1200:1300 [1] transport/p2p.cc:238 NCCL WARN failed to open CUDA IPC handle : "
        "217 peer access is not supported between these two devices\n"
        "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:784, unhandled cuda error, NCCL "
        "version 2.7.8\n"))
    assert diagnosis.category is Category.GPU_CUDA
    assert any("host-a:1200" in c for c in diagnosis.culprits)


def test_the_raylets_oom_line_names_its_node(tmp_path: Path) -> None:
    """node_manager.cc's periodic report of workers it killed for memory pressure."""
    diagnosis = triage_texts(tmp_path, (
        "(raylet) node_manager.cc:3084: 2 Workers (tasks / actors) killed due to memory "
        "pressure (OOM), 0 Workers crashed due to other reasons at node (ID: 9f3c, IP: "
        "10.4.0.12) over the last time period.\n"))
    assert diagnosis.category is Category.OOM
    assert any("10.4.0.12" in c for c in diagnosis.culprits)


def test_a_failure_told_over_several_lines_is_placed_by_the_line_that_names_where(
        tmp_path: Path) -> None:
    """A failure that takes two lines (a driver's report: what failed, then on which device)
    is placed by its second line when the first names nothing."""
    diagnosis = triage_texts(tmp_path, (
        "[   38.77] NVRM: adapter bring-up failed! (0x25:0x65:1457)\n"
        "[   38.78] NVRM: adapter init failed for device bearing minor number 3\n"))
    assert diagnosis.category is Category.GPU_CUDA
    assert any("minor number 3" in c for c in diagnosis.culprits), diagnosis.culprits


def test_a_memory_monitors_kill_is_out_of_memory() -> None:
    """YARN's container limit and Dask's nanny budget, in their own words."""
    for line in ("18/05/16 00:46:24 WARN YarnAllocator: Container killed by YARN for exceeding "
                 "memory limits. 8.3 GB of 8 GB physical memory used.",
                 "distributed.nanny - WARNING - Worker exceeded 95% memory budget.  Restarting"):
        reading = read_line(line)
        assert reading is not None and reading.family is Family.OOM, line
    killed = read_line("Worker process 22204 was killed by unknown signal")
    assert killed is not None and killed.family is Family.KILLED


def test_libfabrics_completion_error_is_the_network_toward_the_named_peer_host() -> None:
    line = ("libfabric:451707:1708520807::efa:cq:efa_rdm_txe_handle_error():737<warn> err: 5, "
            "message: Invalid address My EFA addr: fi_addr_efa://[fe80::13:c2ff:fe6f:f03d]:0:1 "
            "My host id: i-0db7083f3fcbebb65 Peer EFA addr: fi_addr_efa://[fe80::b8:aff:fe44:425]"
            ":0:9 Peer host id: i-0ce6d3d57139f053c (7)")
    reading = read_line(line)
    assert reading is not None and reading.family is Family.NETWORK
    assert "i-0ce6d3d57139f053c" in reading.where
    assert read_line(line.replace("_handle_error():737<warn> err: 5,", "_poll():737<info>")) is None


def test_the_one_pod_a_listing_shows_in_error_is_named(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "# kubectl get pytorchjob -n kubeflow\nNAME         STATE    AGE\n"
        "pytorchjob   Failed   12m\n\n# kubectl get pod -n kubeflow | grep pytorch\n"
        "pytorchjob-master-0   1/1     Running   0          12m\n"
        "pytorchjob-worker-0   0/1     Error     0          12m\n"))
    assert diagnosis.category is Category.UNDETERMINED, diagnosis.summary
    assert diagnosis.culprits == ("pod pytorchjob-worker-0",)


def test_a_supervisor_that_stopped_for_lack_of_heartbeats_is_a_failure(tmp_path: Path) -> None:
    # Sample Factory's runner: a component went silent and training was stopped
    diagnosis = triage_texts(tmp_path, (
        "[2023-09-18 21:35:46,519][196071] No heartbeat for components :InferenceWorker_p0-w0 "
        "(337 seconds)\n[2023-09-18 21:35:46,519][196071] Stopping training due to lack of "
        "heartbeats from <class 'sample_factory.algo.sampling.inference_worker.InferenceWorker'>\n"))
    assert diagnosis.category is Category.UNDETERMINED, diagnosis.summary


def test_a_preemption_by_hand_and_a_collectives_shape_mismatch_are_failures() -> None:
    preempted = read_line("'canceledFor': 'This job or session has been manually preempted by "
                          "michaelw.',")
    assert preempted is not None and preempted.family is Family.INFRASTRUCTURE
    shape = read_line("Collective ops is aborted by: Shape mismatch in the collective instance "
                      "100. Op at device /job:localhost/replica:0/task:0/device:GPU:2 expected "
                      "shape [28678440] but another member in the group expected shape [391]")
    assert shape is not None and shape.family is Family.SOFTWARE


def test_a_glog_check_is_read_after_every_other_family_of_its_line() -> None:
    check = read_line("F1207 10:43:16.922251 3493939 rpc_server.cpp:134] Check failed: "
                      "kv_.emplace(k, v).second")
    assert check is not None and check.family is Family.SOFTWARE
    reset = read_line("F0308 17:17:08.399897 46342 SocketChannel.cpp:54] Check failed: len >= 0 "
                      " peer=10.89.199.23: Connection reset by peer [104]")
    assert reset is not None and reset.family is Family.PEER_LOST


def test_a_task_named_in_full_is_not_named_again_by_its_tail() -> None:
    assert places("Additional GRPC error information from remote target "
                  "/job:ps/replica:0/task:0:") == ("/job:ps/replica:0/task:0",)


def test_an_address_the_host_does_not_have_is_the_network() -> None:
    reading = read_line("socket.cc:540 NCCL WARN Net : Call to bind failed : Cannot assign "
                        "requested address")
    assert reading is not None and reading.family is Family.NETWORK


@pytest.mark.parametrize("line", [
    "Auto batch size: batch 64 would exceed the memory limit, trying 32",
    "Port 29500: Address already in use; using port 29501",
    "[2025-11-20 08:14:04,892 I 18591 18625] (raylet) file_system_monitor.cc:116: /tmp/ray is "
    "over 95% full, available space: 0 GB",
    "GCP: termination notice service polled, nothing to report",
    "Transport retry count set to 7",
])
def test_healthy_lines_that_mention_the_new_words_are_no_failure(line: str) -> None:
    assert read_line(line) is None


@pytest.mark.parametrize("line,family", [
    ("Gradient checkpointing failed for module Block; continuing", Family.FAILED),
    ("wandb: ERROR artifact save failed: 403 Forbidden", Family.FAILED),
    ("ERROR: failed to save checkpoint to /ckpt/step_100", Family.STORAGE),
    ("[2025-11-20 08:14:04,892 E 18591 18625] (raylet) file_system_monitor.cc:116: /tmp/ray is "
     "over 95% full, available space: 0 GB", Family.STORAGE),
])
def test_a_checkpoint_or_disk_failure_is_the_storage_only_in_words_that_say_so(
        line: str, family: Family) -> None:
    reading = read_line(line)
    assert reading is not None and reading.family is family


@pytest.mark.parametrize("line", [
    "[2024-05-01 10:00:01,001 E 42 42] core_worker_process.cc:216: The core worker has already "
    "been shutdown. This happens when the language frontend accesses the Ray's worker after it "
    "is shutdown.",
    "[W socket.cpp:663] [c10d] The client socket has failed to connect to [localhost]:29500 "
    "(errno: 99 - Cannot assign requested address).",
    "slurmstepd: error: Exceeded step memory limit at some point.",
])
def test_routine_lines_of_ray_torch_and_slurm_are_no_failure(line: str) -> None:
    assert read_line(line) is None


def test_the_servers_failed_bind_and_the_monitors_current_wordings_still_read() -> None:
    bind = read_line("[W socket.cpp:436] [c10d] The server socket has failed to bind to "
                     "0.0.0.0:12211 (errno: 98 - Address already in use).")
    assert bind is not None and bind.family is Family.NETWORK
    for line in ("distributed.nanny - WARNING - Worker tcp://127.0.0.1:36823 (pid=1234) exceeded "
                 "95% memory budget. Restarting...",
                 "Container killed by YARN for exceeding physical memory limits. 9.1 GB of 9 GB "
                 "physical memory used."):
        reading = read_line(line)
        assert reading is not None and reading.family is Family.OOM, line


def test_enomem_from_the_nic_stack_is_the_network_and_guesses_are_no_cause() -> None:
    """The verbs and libfabric stacks' ENOMEM is the NIC's resources, not the host's memory;
    a message's list of possible reasons is no evidence for any of them."""
    nic = read_line("libfabric:17778:1732779731::efa:cq:efa_cq_open():92<warn> Unable to create "
                    "extended CQ: Cannot allocate memory")
    assert nic is not None and nic.family is Family.NETWORK
    host = read_line("ERROR: worker 3 failed to allocate its batch: Cannot allocate memory")
    assert host is not None and host.family is Family.OOM
    guess = read_line("(raylet) Raylet is terminated. Termination is unexpected. Possible reasons "
                      "include: (1) SIGKILL by the user or system OOM killer, (2) Invalid memory")
    assert guess is not None and guess.family is Family.FAILED
    told = read_line("ERROR: worker killed: the system OOM killer chose pid 4121")
    assert told is not None and told.family is Family.OOM


def test_open_mpis_failed_tcp_connection_names_the_remote_host_not_the_local_one(
        tmp_path: Path) -> None:
    text = ("------------------------------------------------------------\n"
            "A process or daemon was unable to complete a TCP connection\n"
            "to another process:\n"
            "  Local host:    gpu-node-11\n"
            "  Remote host:   gpu-node-27\n"
            "This is usually caused by a firewall on the remote host.\n")
    diagnosis = triage_texts(tmp_path, text)
    assert diagnosis.category is Category.NETWORK
    assert diagnosis.culprits == ("the link to gpu-node-27",)
    assert places("slurmstepd: error: task 2 failed on host gpu-node-11") == ("gpu-node-11",)


def test_a_kernels_device_assertion_a_lost_ray_node_and_a_failed_exec_are_read() -> None:
    assert_line = ("../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [22,0,0], "
                   "thread: [64,0,0] Assertion `index < sizes[i] && \"index out of bounds\"` "
                   "failed.")
    reading = read_line(assert_line)
    assert reading is not None and reading.family is Family.GPU
    host_assert = read_line("train.py:92: AssertionError: index out of bounds failed.")
    assert host_assert is not None and host_assert.family is Family.SOFTWARE
    node = read_line("W1008 10:13:07.990080 452 452 gcs_actor_manager.cc:800] Actor is failed "
                     "2ab78bd103000000 on worker fada8da402dfd2f16d559a2f6c61278c4615cb6b at node "
                     "3ddf99132c312ccc8af79c66f826b2dc622d5ee4, need_reschedule = 1")
    assert node is not None and node.family is Family.INFRASTRUCTURE
    assert node.where == ("3ddf99132c312ccc8af79c66f826b2dc622d5ee4",)
    assert read_line("W1008 10:13:07.990022 452 452 gcs_actor_manager.cc:731] Node "
                     "3ddf99132c312ccc8af79c66f826b2dc622d5ee4 failed, reconstructing actors.") is None
    execve = read_line("slurmstepd: error: execve(): torchrun: No such file or directory")
    assert execve is not None and execve.family is Family.INFRASTRUCTURE
    assert read_line("I1008 10:13:07.989955 452 452 gcs_node_manager.cc:389] Removing node, "
                     "node id = 3ddf99132c312ccc8af79c66f826b2dc622d5ee4") is None


@pytest.mark.parametrize("line,family", [
    ("python3: malloc.c:2379: sysmalloc: Assertion `(old_top == initial_top (av) && old_size "
     "== 0)' failed.", Family.SOFTWARE),
    ("machine:rank1: Assertion failure at psm3/ptl_am/ptl.c:196: nbytes == recv_msglen",
     Family.SOFTWARE),
    ("E0619 09:11:08.579622 121 grpc_client.cc:242] proc param error:name:[fc_13.w_0@GRAD] "
     "ep:[127.0.0.1:6176] grpc error:Connect Failed", Family.NETWORK),
    ("W tensorflow/core/framework/op_kernel.cc:1192] Internal: : Unable to connect to endpoint",
     Family.NETWORK),
    ("E xla_util.cc:90] OP_REQUIRES failed at tpu_execute_op.cc:266 : RESOURCE_EXHAUSTED: "
     "Attempting to reserve 10.51G at the bottom of memory. That was not possible.", Family.OOM),
    ("luajit: File.lua:210: write error: wrote 9367499 blocks instead of 31014000 at "
     "THDiskFile.c:356", Family.STORAGE),
    ("OSError: image file is truncated (3 bytes not processed)", Family.DATA),
    ("RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central "
     "directory", Family.DATA),
])
def test_more_stacks_words_for_their_failures(line: str, family: Family) -> None:
    reading = read_line(line)
    assert reading is not None and reading.family is family


@pytest.mark.parametrize("line", [
    "INFO: connect failed attempts: 0",  # a counter
    "assert_equal(x, y) passed: Assertion `x == y' held",  # no failure said
    "Loaded 1200 images; 0 were truncated",
])
def test_lines_near_the_new_words_that_are_no_failure(line: str) -> None:
    assert read_line(line) is None


def test_a_c_assertion_names_the_rank_in_psms_prefix() -> None:
    assert self_named_rank("machine:rank1: Assertion failure at psm3/ptl_am/ptl.c:196: x") == 1
    assert self_named_rank("[1705415958.879795729] node-3:rank12.app: Reading from remote "
                           "process' memory failed") == 12
    assert self_named_rank("worker:ranking done: 3 items") is None


def test_open_mpis_own_prefix_names_the_process() -> None:
    """`[h16n18:57926] Local abort before MPI_INIT completed …`: the pid Open MPI reports."""
    reading = read_line("[h16n18:57926] Local abort before MPI_INIT completed completed "
                        "successfully, but am not able to aggregate error messages")
    assert reading is not None and "57926" in reading.where


FLUSHED = ("(model_worker/12 pid=43581, ip=10.208.16.54) NET/IB : Got completion from peer "
           "10.10.11.9<51354> with status=5 opcode=0 len=0 vendor err 249 (Recv)\n")


def test_a_flushed_ib_completion_alone_is_the_fabrics(tmp_path: Path) -> None:
    """A completion flushed under a queue pair in error, relayed by Ray without NCCL's
    prefix, with nothing else failing: a completion error is the network's, toward its peer."""
    diagnosis = triage_texts(tmp_path, (
        "(model_worker/12 pid=43581, ip=10.208.16.54) [rank12]:[E227 06:13:07.855233166 "
        "ProcessGroupNCCL.cpp:1534] [PG 0 Rank 12] Process group watchdog thread terminated "
        "with exception: NCCL error: remote process exited or there was a network error\n"
        + FLUSHED))
    assert diagnosis.category is Category.NETWORK
    assert diagnosis.culprit_ranks == ()
    assert any("10.10.11.9" in c for c in diagnosis.culprits)


def test_a_flushed_ib_completion_after_a_gpu_error_is_its_consequence(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
        + FLUSHED))
    assert diagnosis.category is Category.GPU_CUDA
    assert diagnosis.culprit_ranks == (3,)


def test_a_links_far_end_is_never_the_host_whose_journal_logged_it(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "May  1 12:00:00 gpu-node-3 python[12345]: step 10 loss 2.1\n"
        "May  1 12:00:01 gpu-node-3 python[12345]: fabric ERROR: connect to 10.0.0.9:7000 "
        "failed: No route to host\n"))
    assert diagnosis.category is Category.NETWORK
    assert any("10.0.0.9:7000" in c for c in diagnosis.culprits)
    assert not any("gpu-node-3" in c for c in diagnosis.culprits)


def test_a_line_a_workflow_engine_relayed_at_info_is_still_a_failure(tmp_path: Path) -> None:
    """Airflow logs a task's output at its own INFO: the line's words decide, not the relay's
    level."""
    relay = "[2024-05-01, 12:00:00 UTC] {subprocess.py:93} INFO - "
    diagnosis = triage_texts(tmp_path, "".join(relay + line + "\n" for line in (
        "step 10 loss 2.1", "acme.ckpt ERROR: shard 2 write aborted: [Errno 28] No space left "
        "on device")))
    assert diagnosis.category is Category.STORAGE_IO


def test_a_java_socket_address_is_named_by_its_host_with_its_address() -> None:
    line = ("[Producer clientId=producer-1] Connection to node -1 "
            "(kafka-0.kafka-headless.data.svc/10.42.7.3:9092) could not be established. "
            "Broker may not be available.")
    assert places(line) == ("kafka-0.kafka-headless.data.svc:9092 (10.42.7.3)",)
    assert read_line(f"ERROR {line}") is not None
    assert read_line(f"ERROR {line}").family is Family.NETWORK  # type: ignore[union-attr]


def test_a_resolver_timeout_names_the_host_looked_up_not_the_resolvers_socket() -> None:
    line = ('Get "https://storage.googleapis.com/storage/v1/b/x/o": dial tcp: lookup '
            "storage.googleapis.com on 169.254.169.254:53: read udp "
            "10.128.0.57:41223->169.254.169.254:53: i/o timeout")
    assert places(line) == ("storage.googleapis.com",)
    assert read_line(f"ERROR {line}").family is Family.NETWORK  # type: ignore[union-attr]


def test_a_timeout_after_a_clients_retried_connects_is_the_networks(tmp_path: Path) -> None:
    """etcd's client warned that it retries a refused dial, then gave up at its deadline."""
    log = tmp_path / "register.log"
    log.write_text(
        '{"level":"warn","msg":"retrying of unary invoker failed","error":"rpc error: code = '
        'DeadlineExceeded desc = latest balancer error: last connection error: connection '
        'error: desc = \\"transport: Error while dialing dial tcp 10.42.5.11:2379: connect: '
        'connection refused\\""}\n'
        "Error: context deadline exceeded\n")
    diagnosis = diagnose(*read_inputs([str(log)])[:2])
    assert diagnosis.category is Category.NETWORK
    assert any("10.42.5.11" in c for c in diagnosis.culprits), diagnosis.culprits


def test_a_failure_the_job_trained_past_in_its_own_file_is_no_failure(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    head = "2024-08-20 14:30:00 INFO step 42000 loss 1.8800\n"
    failed = ("24/08/20 14:30:01 INFO hdfs.DataStreamer: Exception in createBlockOutputStream\n"
              "java.net.ConnectException: Connection refused\n")
    steps = ("2024-08-20 14:31:20 INFO step 42050 loss 1.8734\n"
             "2024-08-20 14:32:02 INFO step 42100 loss 1.8702\n")
    log.write_text(head + failed + steps)
    assert diagnose(*read_inputs([str(log)])[:2]).category is Category.NONE
    # the same lines with another command's output pasted below: not the time after the error
    log.write_text(head + failed + "$ tail -2 train.log\n" + steps)
    assert diagnose(*read_inputs([str(log)])[:2]).category is not Category.NONE


def test_pings_refusal_to_send_past_the_mtu_is_the_networks() -> None:
    """`ping -M do -s 8972` on a link set up for 1500-byte frames: the link's setting."""
    reading = read_line("ping: local error: message too long, mtu=1500")
    assert reading is not None and reading.family is Family.NETWORK
