"""Event extraction: every event kind from its real message formats, and multi-line blocks."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from monitor.parse.log_events import EventExtractor, EventKind, LogEvent, is_candidate
from monitor.parse.log_patterns import LIVE_LITERALS, PREFILTER_LITERALS, classify_payload

K = EventKind

# (line, kind, expected fields subset). One row per message format and era.
LINES: list[tuple[str, EventKind, dict[str, object]]] = [
    ("[rank3]:[E1016 03:31:38.928019586 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught "
     "collective operation timeout: WorkNCCL(SeqNum=9141, OpType=_ALLGATHER_BASE, NumelIn=19008, "
     "NumelOut=152064, Timeout(ms)=600000) ran for 600071 milliseconds before timing out.",
     K.WATCHDOG_TIMEOUT, {"seq": 9141, "op": "_ALLGATHER_BASE", "numel_in": 19008,
                          "numel_out": 152064, "timeout_ms": 600000, "ran_ms": 600071}),
    ("[E ProcessGroupNCCL.cpp:458] [Rank 0] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=96120, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 25624887 "
     "milliseconds before timing out.",
     K.WATCHDOG_TIMEOUT, {"seq": 96120, "op": "ALLREDUCE", "ran_ms": 25624887, "pg_rank": 0}),
    ("[E ProcessGroupNCCL.cpp:414] [Rank 2] Watchdog caught collective operation timeout: "
     "WorkNCCL(OpType=BROADCAST, TensorShape=[1024, 10], Timeout(ms)=1800000) ran for 1800313 "
     "milliseconds before timing out.",
     K.WATCHDOG_TIMEOUT, {"op": "BROADCAST", "timeout_ms": 1800000}),
    ("[Rank 1] Work WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
     "Timeout(ms)=60000) timed out in blocking wait (TORCH_NCCL_BLOCKING_WAIT=1).",
     K.WATCHDOG_TIMEOUT, {"seq": 12, "blocking_wait": True}),
    ("[rank4]:[E1016 03:31:38.929234295 ProcessGroupNCCL.cpp:1709] [PG 3 Rank 4] Timeout at "
     "NCCL work: 9141, last enqueued NCCL work: 9141, last completed NCCL work: 9140.",
     K.PG_STATUS, {"seq": 9141, "last_enqueued": 9141, "last_completed": 9140, "pg": "3",
                   "source": "timeout_at"}),
    ("[rank0]:[E602 11:17:52.399340163 ProcessGroupNCCL.cpp:2268] [PG ID 1 PG GUID 1 Rank 0]  "
     "failure detected by watchdog at work sequence id: 2847 PG status: last enqueued work: "
     "2855, last completed work: 2846",
     K.PG_STATUS, {"seq": 2847, "last_enqueued": 2855, "last_completed": 2846, "pg": "1",
                   "source": "watchdog"}),
    ("[rank1]:[E ProcessGroupNCCL.cpp:1316] [PG 0 (default_pg) Rank 1] Exception (either an "
     "error or timeout) detected by watchdog at work: 5, last enqueued NCCL work: 5, last "
     "completed NCCL work: 4.",
     K.PG_STATUS, {"seq": 5, "pg": "0", "pg_desc": "default_pg"}),
    ("[rank2]:[E1016 03:31:38.929241154 ProcessGroupNCCL.cpp:621] [Rank 2] Some NCCL operations "
     "have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU "
     "operations might run on corrupted/incomplete data.",
     K.NCCL_TEARDOWN, {"part": "Some NCCL operations have failed"}),
    ("[rank2]:[E1016 03:31:38.929246900 ProcessGroupNCCL.cpp:627] [Rank 2] To avoid data "
     "inconsistency, we are taking the entire process down.",
     K.NCCL_TEARDOWN, {"part": "taking the entire process down"}),
    ("[E ProcessGroupNCCL.cpp:916] [Rank 1] NCCL watchdog thread terminated with exception: "
     "CUDA error: uncorrectable ECC error encountered",
     K.WATCHDOG_TERMINATED, {"cause": "CUDA error: uncorrectable ECC error encountered"}),
    ("[rank9]:[E0210 08:01:02.000000000 ProcessGroupNCCL.cpp:1418] [PG ID 0 PG GUID 0"
     "(default_pg) Rank 9] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making "
     "progress in monitoring enqueued collectives.",
     K.HEARTBEAT_HANG, {"stuck_seconds": 480}),
    ("[rank0]:[E ProcessGroupNCCL.cpp:1287] [PG 0 Rank 144] Heartbeat monitor timed out! "
     "Process will be terminated after dumping debug info. workMetaList_.size()=3",
     K.HEARTBEAT_HANG, {"pending_works": 3}),
    ("[rank5]:[E723 01:58:45.667329643 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg)"
     " Rank 5] Received a dump signal due to a collective timeout from  rank 2 and we will try "
     "our best to dump the debug info. Last enqueued NCCL work: 136, last completed NCCL work: "
     "136.This is most likely caused by incorrect usages of collectives",
     K.FR_DUMP, {"role": "observer", "source_rank": 2, "last_enqueued": 136}),
    ("[rank5]:[E ProcessGroupNCCL.cpp:1705] [PG ID 0 PG GUID 0(default_pg) Rank 5] Observed "
     "flight recorder dump signal from another rank via TCPStore.",
     K.FR_DUMP, {"role": "observer"}),
    ("[rank2]:[E723 01:58:45.511452851 ProcessGroupNCCL.cpp:2103] [PG ID 1 PG GUID 1 Rank 2] "
     "First PG on this rank to signal dumping.",
     K.FR_DUMP, {"role": "initiator", "pg": "1"}),
    ("[rank2]:[E ProcessGroupNCCL.cpp:670] Stack trace of the failed collective not found, "
     "potentially because FlightRecorder is disabled.",
     K.FR_DUMP, {"role": "dump", "stack_recorded": False}),
    ("[rank3]:[E ProcessGroupNCCL.cpp:1900] [PG ID 0 PG GUID 0 Rank 3] remote error detected "
     "from rank: 7",
     K.REMOTE_ERROR, {"source_rank": 7}),
    ("\t - To our best knowledge, ranks [3, 5] are the lagging ranks that caused this timeout. "
     "They never joined any collectives",
     K.DESYNC_REPORT, {"ranks": (3, 5)}),
    ("\t   - [2] joined but didn't finish collective #1234 (count from 1)",
     K.DESYNC_REPORT, {"ranks": (2,), "seq": 1234}),
    ("babel-0-31:2324239:2324522 [3] NCCL INFO ncclCommInitRank comm 0x5584021f39f0 rank 3 "
     "nranks 4 cudaDev 3 nvmlDev 3 busId e1000 commId 0xb886029f29f1a815 - Init START",
     K.NCCL_INIT, {"nccl_rank": 3, "nranks": 4, "phase": "START", "pid": 2324239}),
    ("gpu3:4012:4301 [7] net_ib.cc:1450 NCCL WARN NET/IB: Got completion from peer "
     "11.214.147.122<39138> with status=12 opcode=0 len=0 vendor err 129 (Recv) hca mlx5_2",
     K.NCCL_WARN_NET, {"peer": "11.214.147.122", "status": 12, "vendor_err": 129,
                       "direction": "Recv", "transport": "ib"}),
    ("node5:9911:9930 [0] misc/socket.cc:50 NCCL WARN socketStartConnect: Connect to "
     "10.1.2.3<4455> failed : Connection refused",
     K.NCCL_WARN_NET, {"peer": "10.1.2.3", "error": "Connection refused"}),
    # NCCL's give-up, pasted without its prefix (or as a `Last error:` line)
    ("socketPollConnect: connect to 22.11.219.25<47479> returned Connection refused, exceeded "
     "error retry count after 35 attempts",
     K.NCCL_WARN_NET, {"peer": "22.11.219.25", "peer_port": 47479, "quoted": True}),
    # Open MPI 1.x's report of a process that died, in its own era's words
    ("mpirun noticed that job rank 5 with PID 6637 on node bc01-07 exited on signal 11",
     K.MPI_EXIT, {"mpi_rank": 5, "pid": 6637, "node": "bc01-07", "signo": 11}),
    ("[gpu-n3:mpispawn_1][child_handler] MPI process (rank: 3, pid: 118822) terminated with "
     "signal 11 -> abort job",
     K.MPI_EXIT, {"mpi_rank": 3, "pid": 118822, "signo": 11}),
    ("mpirun noticed that process rank 5 with OID 6637 on node bc01-07 exited on signal 11",
     K.MPI_EXIT, {"mpi_rank": 5, "node": "bc01-07"}),
    ("node5:9911:9930 [0] init.cc:1000 NCCL WARN Cuda failure 'out of memory'",
     K.CUDA_OOM, {}),
    ("node5:9911:9930 [0] NCCL INFO [Service thread] Connection closed by localRank 3",
     K.NCCL_PEER_CLOSED, {"closed_by_local_rank": 3}),
    ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
     "NCCLUtils.hpp:275, remote process exited or there was a network error, NCCL version "
     "2.19.3",
     K.NCCL_ERROR, {"nccl_code": "remote", "nccl_version": "2.19.3"}),
    ("[rank0]:[E ProcessGroupNCCL.cpp:1500] [PG ID 0 PG GUID 0 Rank 0] Collective "
     "WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1000000) raised "
     "the following async exception: NCCL error: unhandled system error (run with "
     "NCCL_DEBUG=INFO for details), NCCL version 2.25.1",
     K.NCCL_ERROR, {"nccl_code": "system"}),
    ("torch.distributed.DistStoreError: wait timeout after 600000ms, keys: "
     "/default_pg/0//cuda//0",
     K.STORE_TIMEOUT, {"timeout_ms": 600000, "phase": "wait"}),
    ("[E socket.cpp:793] [c10d] The client socket has timed out after 60s while trying to "
     "connect to (10.0.0.1, 29500).",
     K.STORE_TIMEOUT, {"timeout_ms": 60000, "host": "10.0.0.1", "port": 29500,
                       "phase": "connect"}),
    # a name that does not resolve, in other clients' words (Go, Node, Java, a launcher's own)
    ('Get "https://registry.internal:5000/v2/": dial tcp: lookup registry.internal on '
     "10.96.0.10:53: no such host",
     K.STORE_TIMEOUT, {"host": "registry.internal", "unresolved": True}),
    ("Error: getaddrinfo ENOTFOUND registry.internal.corp",
     K.STORE_TIMEOUT, {"host": "registry.internal.corp", "unresolved": True}),
    ("Caused by: java.net.UnknownHostException: spark-master-0.spark-headless",
     K.STORE_TIMEOUT, {"host": "spark-master-0.spark-headless", "unresolved": True}),
    ("ValueError: host not found: trainer-master-0.trainer-svc",
     K.STORE_TIMEOUT, {"host": "trainer-master-0.trainer-svc", "unresolved": True}),
    ("RuntimeError: Could not resolve the hostname 'trainer-0.svc' for the rendezvous",
     K.STORE_TIMEOUT, {"host": "trainer-0.svc", "unresolved": True}),
    ("torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 7/8 "
     "clients joined.",
     K.STORE_TIMEOUT, {"joined": 7, "expected": 8}),
    ("RuntimeError: [3] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via "
     "c10d key-value store by key '0', but store->get('0') got error: Socket Timeout",
     K.STORE_TIMEOUT, {"rank_in_message": 3}),
    ("torch.distributed.DistNetworkError: Failed to recv, got 0 bytes. Connection was likely "
     "closed. Did the remote server shutdown or crash?",
     K.STORE_CONNECTION_LOST, {}),
    ("torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the "
     "C10d store has failed. See inner exception for details.",
     K.RENDEZVOUS_ERROR, {"exc": "RendezvousConnectionError"}),
    ("E0325 20:57:27.620000 2606 site-packages/torch/distributed/elastic/multiprocessing/api.py"
     ":869] failed (exitcode: -9) local_rank: 3 (pid: 2650) of binary: /usr/bin/python",
     K.AGENT_WORKER_FAILED, {"exitcode": -9, "local_rank": 3, "pid": 2650, "signal": "SIGKILL"}),
    ("W0216 13:04:08.104644 139999514572608 torch/distributed/elastic/multiprocessing/api.py:897]"
     " Sending process 3302 closing signal SIGTERM",
     K.AGENT_SIGTERM, {"pid": 3302, "signal": "SIGTERM"}),
    ("[2024-04-18 10:46:28,089] torch.distributed.elastic.agent.server.api: [WARNING] Received "
     "Signals.SIGTERM death signal, shutting down workers",
     K.AGENT_DEATH_SIGNAL, {"signal": "SIGTERM"}),
    ("W0101 00:00:00.000000 12 api.py:704] Received 1 death signal, shutting down workers",
     K.AGENT_DEATH_SIGNAL, {"signal": "SIGHUP"}),
    ("  traceback : Signal 9 (SIGKILL) received by PID 14750",
     K.SIGNAL_KILL, {"signal": "SIGKILL", "pid": 14750}),
    ("/bin/bash: line 1: 81234 Killed                  python train.py --lr 3e-4",
     K.SIGNAL_KILL, {"signal": "SIGKILL", "pid": 81234}),
    ("Segmentation fault (core dumped)",
     K.SIGNAL_KILL, {"signal": "SIGSEGV"}),
    ("[gpu7:1234 :0:1290] Caught signal 7 (Bus error: nonexistent physical address)",
     K.NATIVE_CRASH, {"signo": 7, "signal": "Bus error", "host": "gpu7", "pid": 1234}),
    ("[HOST:03599] Failing at address: (nil)",
     K.NATIVE_CRASH, {"host": "HOST", "pid": 3599, "address": "(nil)"}),
    ("RuntimeError: CUDA error: an illegal memory access was encountered",
     K.CUDA_ERROR, {"message": "an illegal memory access was encountered"}),
    ("RuntimeError: CUDA error: device-side assert triggered",
     K.CUDA_ERROR, {"hardware": False}),
    ("RuntimeError: cuda runtime error (39) : uncorrectable ECC error encountered at "
     "/pytorch/aten/src/THC/THCCachingHostAllocator.cpp:265",
     K.CUDA_ERROR, {"code": 39, "hardware": True}),
    ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; "
     "10.76 GiB total capacity; 9.71 GiB already allocated; 7.44 MiB free)",
     K.CUDA_OOM, {"requested": "20.00 MiB", "gpu": 0}),
    ("[1843.308145] NVRM: Xid (PCI:0000:44:00): 79, pid=1896, name=python, GPU has fallen off "
     "the bus.",
     K.XID, {"xid": 79, "pci": "0000:44:00", "role": "hardware"}),
    ("NVRM: Xid (PCI:0000:10:1c): 13, Graphics Exception: ESR 0x405840=0x3010000",
     K.XID, {"xid": 13, "role": "software"}),
    ("Out of memory: Killed process 81234 (python) total-vm:912345kB, anon-rss:81234kB",
     K.HOST_OOM, {"pid": 81234, "process": "python"}),
    ("slurmstepd: error: Detected 2 oom_kill events in StepId=4242.0. Some of the step tasks "
     "have been OOM Killed.",
     K.SLURM_OOM, {"count": 2, "step": "4242.0"}),
    ("slurmstepd: error: *** JOB 4242 ON gpu017 CANCELLED AT 2025-02-03T04:05:06 DUE TO TIME "
     "LIMIT ***",
     K.SLURM_CANCEL, {"job": "4242", "node": "gpu017", "reason": "time_limit"}),
    ("slurmstepd: error: *** JOB 830329 CANCELLED AT 2018-08-06T17:21:44 DUE TO TIME LIMIT on "
     "n447 ***",
     K.SLURM_CANCEL, {"job": "830329", "node": "n447", "reason": "time_limit"}),
    ("slurmstepd: error: *** STEP 4242.0 ON gpu017 CANCELLED AT 2025-02-03T04:05:06 DUE TO "
     "PREEMPTION ***",
     K.SLURM_CANCEL, {"what": "STEP", "reason": "preemption"}),
    ("srun: error: gpu017: tasks 0-1,3: Killed",
     K.SLURM_TASK_EXIT, {"tasks": (0, 1, 3), "signal": "SIGKILL", "node": "gpu017"}),
    ("srun: error: gpu017: task 5: Exited with exit code 1",
     K.SLURM_TASK_EXIT, {"tasks": (5,), "exitcode": 1}),
    ("RuntimeError: DataLoader worker (pid 81234) is killed by signal: Killed.",
     K.DATALOADER_WORKER_DIED, {"cause": "killed", "pid": 81234}),
    ("RuntimeError: DataLoader worker (pid 81234) is killed by signal: Bus error. It is "
     "possible that dataloader's workers are out of shared memory.",
     K.DATALOADER_WORKER_DIED, {"cause": "bus_error", "shm": True}),
    ("KeyError: Caught KeyError in DataLoader worker process 3.",
     K.DATALOADER_WORKER_DIED, {"cause": "exception", "exc": "KeyError", "worker": 3}),
    ("RuntimeError: DataLoader timed out after 120 seconds",
     K.DATALOADER_TIMEOUT, {"timeout_seconds": 120}),
    # (the timeout as the job gave it: a float prints with its fraction)
    ("RuntimeError: DataLoader timed out after 5.0 seconds",
     K.DATALOADER_TIMEOUT, {"timeout_seconds": "5.0"}),
    ("'(ReadTimeoutError(\"HTTPSConnectionPool(host='cdn-lfs.huggingface.co', port=443): Read "
     "timed out.\"))' thrown while requesting GET https://huggingface.co/x. Retrying in 1s "
     "[Retry 1/5].",
     K.RETRY, {"attempt": 1, "max_attempts": 5, "exhausted": False, "context": "storage"}),
    ("thrown while requesting GET https://huggingface.co/x. Retrying in 8s [Retry 5/5].",
     K.RETRY, {"attempt": 5, "exhausted": True}),
    ("W0101 00:00:00.000000 1 TCPStore.cpp:340] TCP client failed to connect/validate to host "
     "10.0.0.1:29500 - retrying (try=2, timeout=900000ms, delay=1000ms): Connection refused",
     K.RETRY, {"attempt": 2, "exhausted": False}),
    ("urllib3.exceptions.MaxRetryError: HTTPSConnectionPool(host='s3.amazonaws.com', port=443): "
     "Max retries exceeded with url: /bucket/shard-0001.tar",
     K.RETRY, {"exhausted": True, "context": "storage"}),
    ("ConnectionResetError: [Errno 104] Connection reset by peer",
     K.CONNECTION_ERROR, {"error": "ConnectionResetError"}),
    # the kernel's OOM killer before 5.1, the kubelet's, systemd-oomd's and earlyoom's kills
    ("[Tue Mar  5 02:14:07 2024] Memory cgroup out of memory: Kill process 48213 (python) "
     "score 1043 or sacrifice child", K.HOST_OOM, {"pid": 48213, "process": "python"}),
    ("default  41m  Warning  SystemOOM  node/gpu-node-17  System OOM encountered, victim "
     "process: python, pid: 88231", K.HOST_OOM, {"pid": 88231, "process": "python"}),
    ("Mar 03 10:11:12 ws-gpu-2 systemd-oomd[612]: Killed /system.slice/llm-finetune.service due "
     "to memory pressure for /system.slice being 83.31% > 50.00% for > 20s with reclaim activity",
     K.HOST_OOM, {"process": "/system.slice/llm-finetune.service"}),
    ("Dec 01 07:56:39 lab-ws-03 earlyoom[911]: sending SIGTERM to process 31337 uid 1000 "
     "\"python3\": oom_score 712, VmRSS 98214 MiB", K.HOST_OOM, {"pid": 31337}),
    # NCCL's root from the environment (its prefix's host is the writer's, kept apart), and
    # 2.19's ranks line (a pid -> rank map)
    ("trainer-7:20113:20113 [0] NCCL INFO NCCL_COMM_ID set by environment to "
     "trainer-0.ddp-svc:29700", K.LAUNCH_ENDPOINT, {"root": "trainer-0.ddp-svc",
                                                   "root_port": "29700"}),
    ("gpu-node-3:48211:48398 [1] NCCL INFO comm 0x55d1c9a0b2e0 rank 9 nRanks 16 nNodes 2 "
     "localRanks 8 localRank 1 MNNVL 0", K.NCCL_INIT, {"nccl_rank": 9, "nranks": 16}),
    # srun asked for several tasks on each node: its task ids are ranks
    ("#SBATCH --nodes=1 --ntasks-per-node=4 --gpus-per-node=4", K.SRUN_TASKS, {"per_node": 4}),
    # collectives of another size, in gloo's and Horovod's words, and the flight-recorder
    # analyser's own report
    ("  what():  [enforce fail at ../third_party/gloo/gloo/transport/tcp/pair.cc:456] "
     "op.preamble.length <= op.nbytes. 1536 vs 1024. Received data size doesn't match expected "
     "size. Is there a distributed collective mismatch in your code?", K.COLLECTIVE_MISMATCH, {}),
    ("horovod.common.exceptions.HorovodInternalError: Mismatched ALLREDUCE tensor shapes: One "
     "rank sent a tensor of shape [4, 1024], but another rank sent a tensor of shape [4, 512].",
     K.COLLECTIVE_MISMATCH, {}),
    ("error msg: Culprit rank 2; Error type: COLLECTIVE_TYPE_MISMATCH, Expected collective type: "
     "'all_reduce' does not match found collective type: 'all_gather'",
     K.DESYNC_REPORT, {"ranks": (2,)}),
    ("(TorchTrainer pid=30211) - (node_id=4f1e0c7d2b5a9e8f61c3d0a7b9e2f4c6a8d1b3e5f7a9c2d4e6f8a1b3, "
     "ip=10.0.1.5, pid=30390) world_rank=2, local_rank=2, node_rank=0",
     K.RAY_WORKER_RANK, {"ip": "10.0.1.5", "pid": 30390, "world_rank": 2}),
    ("  global_ranks=[4, 5, 6, 7]", K.RDZV_RANKS, {"which": "global_ranks", "ranks": "4, 5, 6, 7"}),
    ("The node was low on resource: ephemeral-storage. Threshold quantity: 10120387530, "
     "available: 9702960Ki.", K.POD_EVICTED, {"what": "ephemeral-storage"}),
    ("[1203311.118245] critical medium error, dev sdb, sector 734003200 op 0x0:(READ) flags "
     "0x80700 phys_seg 1 prio class 0", K.STORAGE_WRITE, {"device": "sdb"}),
    ("[1203311.119010] Buffer I/O error on dev sdb1, logical block 91750144, async page read",
     K.STORAGE_WRITE, {"device": "sdb1"}),
]


@pytest.mark.parametrize(("line", "kind", "fields"), LINES,
                         ids=[f"{k.value}-{i}" for i, (_, k, _) in enumerate(LINES)])
def test_each_format_yields_its_event(
    line: str, kind: EventKind, fields: dict[str, object]
) -> None:
    """Each real message format is recognised as its kind with the documented fields."""
    events = _feed([line])
    matching = [e for e in events if e.kind is kind]
    assert matching, f"no {kind.value} in {[e.kind.value for e in events]}"
    assert {k: matching[0].fields.get(k) for k in fields} == fields


@pytest.mark.parametrize("line", [line for line, _, _ in LINES])
def test_the_prefilter_lets_every_event_line_through(line: str) -> None:
    """The cheap pre-filter never drops a line that holds an event."""
    assert is_candidate(line)


def test_live_literals_are_a_subset_of_the_triage_prefilter() -> None:
    """Triage reads at least every line the live path reads."""
    assert set(LIVE_LITERALS) <= set(PREFILTER_LITERALS)


def test_noise_is_not_an_event() -> None:
    """NCCL INFO chatter, progress bars and training metrics produce no events."""
    noise = [
        "gpu017:12345:12390 [3] NCCL INFO Channel 05/0 : 3[3] -> 4[4] via P2P/IPC/read",
        " 45%|████▌     | 450/1000 [01:23<01:40,  5.45it/s]",
        "{'loss': 0.9225, 'grad_norm': 1.41, 'learning_rate': 6.5e-06, 'epoch': 0.03}",
        "[rank0]:[I1016 03:31:38.928019586 ProcessGroupNCCL.cpp:1001] [PG 0 Rank 0] "
        "ProcessGroupNCCL initialization options: size: 8, global rank: 0, TIMEOUT(ms): 600000",
    ]
    assert _feed(noise) == []


def test_one_line_one_event_per_kind() -> None:
    """A WARN that is a network error is not also a plain WARN, and duplicates fold."""
    kinds = [k for k, _, _ in classify_payload(
        "h:1:2 [0] net_ib.cc:1 NCCL WARN NET/IB : Got completion from peer 1.2.3.4<5> with "
        "error 12, opcode 0, len 0, vendor err 129")]
    assert kinds == [K.NCCL_WARN_NET]


def _feed(lines: Sequence[str], rank: int | None = None) -> list[LogEvent]:
    extractor = EventExtractor()
    out: list[LogEvent] = []
    prev = None
    for i, line in enumerate(lines, 1):
        out.extend(extractor.feed(line, i, rank=rank, prev=prev))
        prev = line
    out.extend(extractor.flush())
    return out


def test_python_traceback_is_one_event_with_chain_and_frames() -> None:
    """A chained traceback is one event: cause first, final exception last, frames kept."""
    lines = [
        "Traceback (most recent call last):",
        '  File "/app/data/dataset.py", line 88, in __getitem__',
        "    return self.read(idx)",
        "OSError: [Errno 5] Input/output error",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        '  File "/app/train.py", line 12, in <module>',
        "    main()",
        "RuntimeError: could not read sample 42",
        "step 1 loss 0.5",
    ]
    events = _feed(lines)
    tracebacks = [e for e in events if e.kind is K.PYTHON_TRACEBACK]
    assert len(tracebacks) == 1
    tb = tracebacks[0]
    assert (tb.line, tb.end_line) == (1, 11)
    assert tb.fields["chain"] == ("OSError", "RuntimeError")
    assert tb.fields["exc_type"] == "RuntimeError"
    assert tb.fields["in_data_code"] is True
    assert tb.fields["frames"] == ("/app/data/dataset.py:88 __getitem__",
                                   "/app/train.py:12 <module>")


def test_a_traceback_inside_a_logger_record_is_read_under_its_repeated_header() -> None:
    """vLLM's worker logs a traceback as one record whose header opens every line; another
    worker's record between is not part of it."""
    head = "(VllmWorkerProcess pid=4513) ERROR 07-24 08:12:31 multiproc_worker_utils.py:226] "
    lines = [
        head + "Exception in worker VllmWorkerProcess while processing method load_model: "
        "'type', Traceback (most recent call last):",
        head + '  File "/vllm/worker/worker.py", line 139, in load_model',
        head + "    self.model_runner.load_model()",
        head + "KeyError: 'type'",
        head,
        "(VllmWorkerProcess pid=4512) INFO 07-24 08:12:32 worker.py:12] Worker ready",
    ]
    (tb,) = [e for e in _feed(lines) if e.kind is K.PYTHON_TRACEBACK]
    assert (tb.line, tb.end_line) == (1, 5)
    assert (tb.fields["exc_type"], tb.fields["exc_message"]) == ("KeyError", "'type'")
    assert tb.fields["frames"] == ("/vllm/worker/worker.py:139 load_model",)
    assert tb.fields["actor_pid"] == 4513


def test_rank_prefixed_traceback_survives_unprefixed_blank_lines_and_interleaving() -> None:
    """torch's excepthook prefixes every line but blank ones; another rank's lines interleave.
    The traceback stays one event of its own rank."""
    lines = [
        "[rank3]: Traceback (most recent call last):",
        '[rank3]:   File "/app/train.py", line 12, in <module>',
        "[rank5]:[E1016 03:31:38.928019586 ProcessGroupNCCL.cpp:607] [Rank 5] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1,"
        " Timeout(ms)=600000) ran for 600071 milliseconds before timing out.",
        "",
        "[rank3]:     main()",
        "[rank3]: ValueError: bad config",
    ]
    events = _feed(lines)
    tb = next(e for e in events if e.kind is K.PYTHON_TRACEBACK)
    assert (tb.rank, tb.fields["exc_type"], tb.fields["exc_message"]) == (3, "ValueError",
                                                                         "bad config")
    timeout = next(e for e in events if e.kind is K.WATCHDOG_TIMEOUT)
    assert timeout.rank == 5


def test_unprefixed_traceback_takes_the_stream_rank() -> None:
    """Lines without any prefix are attributed to the rank the caller knows wrote them."""
    events = _feed(["Traceback (most recent call last):", '  File "a.py", line 1, in f',
                    "KeyError: 'x'"], rank=6)
    tb = next(e for e in events if e.kind is K.PYTHON_TRACEBACK)
    assert (tb.rank, tb.rank_origin) == (6, "stream")


def test_exception_line_after_frames_closes_a_headless_traceback() -> None:
    """An excerpt that starts mid-traceback still yields the traceback (head cut off)."""
    events = _feed(['  File "x.py", line 3, in run', "    raise KeyError(1)", "KeyError: 1"])
    tb = next(e for e in events if e.kind is K.PYTHON_TRACEBACK)
    assert (tb.fields["headless"], tb.fields["exc_type"]) == (True, "KeyError")


@pytest.mark.parametrize(("last_code", "expected"), [
    ("    assert metadata is not None", ("AssertionError", "metadata is not None")),
    ("    assert len(x) == 2, f'bad {x}'", ("AssertionError", "len(x) == 2, f'bad {x}'")),
    ("    m.assert_state(TrainingState.BACKWARD_POST)", (None, "")),  # a call: a frame below
    ("    traceback.print_stack()", (None, "")),
])
def test_a_traceback_cut_under_an_assert_statement_raised_its_assertion_error(
        last_code: str, expected: tuple[str | None, str]) -> None:
    """An `assert` statement as the innermost frame's code line of a traceback cut before its
    exception line is what raised it (Python 3.11's carets under it are no code); any other
    code line leaves the exception unknown."""
    lines = ["Traceback (most recent call last):", '  File "train.py", line 9, in <module>',
             "    main()", '  File "train.py", line 5, in main', last_code, "    ^^^^^^^^^^^",
             "[INFO] 2025-01-01 next record"]
    tb = next(e for e in _feed(lines) if e.kind is K.PYTHON_TRACEBACK)
    exc_type, statement = expected
    assert tb.fields["exc_type"] == exc_type
    assert statement in str(tb.fields["exc_message"])


def test_nccl_error_message_block_folds_its_last_error() -> None:
    """DistBackendError + ncclSystemError + `Last error:` + its text are one NCCL error event
    carrying the peer and the socket error."""
    lines = [
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
        "ProcessGroupNCCL.cpp:1333, unhandled system error (run with NCCL_DEBUG=INFO for "
        "details), NCCL version 2.18.6",
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or "
        "device error. ",
        "Last error:",
        "socketStartConnect: Connect to 192.168.19.14<52822> failed : No route to host",
    ]
    events = _feed(lines)
    assert [e.kind for e in events] == [K.NCCL_ERROR]
    fields = events[0].fields
    assert (fields["nccl_code"], fields["peer"], fields["error"]) == (
        "system", "192.168.19.14", "No route to host")


def test_faulthandler_dump_is_one_event_with_the_current_threads_frames() -> None:
    """faulthandler: signal, thread count and the faulting thread's innermost frames."""
    lines = [
        "Fatal Python error: Segmentation fault",
        "",
        "Thread 0x00007f2e93fff640 (most recent call first):",
        '  File "/usr/lib/python3.10/threading.py", line 953 in run',
        "",
        "Current thread 0x00007f2ea0870640 (most recent call first):",
        '  File "/site-packages/torch/distributed/distributed_c10d.py", line 2501 in all_reduce',
        '  File "/app/train.py", line 40 in step',
        "",
        "Extension modules: numpy.core._multiarray_umath, torch._C (total: 2)",
        "next line",
    ]
    events = _feed(lines)
    assert [e.kind for e in events] == [K.FAULTHANDLER]
    f = events[0].fields
    assert (f["signal"], f["threads"], f["in_collective"]) == ("SIGSEGV", 2, True)
    frames = f["frames"]
    assert isinstance(frames, tuple)
    assert frames[0] == "/site-packages/torch/distributed/distributed_c10d.py:2501 all_reduce"
    assert events[0].end_line == 10


def test_cpp_terminate_block_is_one_event_and_its_what_line_is_read() -> None:
    """terminate/what()/Exception raised from/frames: one C++ event, and the what() text still
    yields the watchdog timeout it reports."""
    lines = [
        "terminate called after throwing an instance of 'c10::DistBackendError'",
        "  what():  [PG ID 0 PG GUID 0(default_pg) Rank 2] Process group watchdog thread "
        "terminated with exception: [Rank 2] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
        "600004 milliseconds before timing out.",
        "Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/"
        "ProcessGroupNCCL.cpp:635 (most recent call first):",
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (0x7f in libc10.so)",
        "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout() + 0x23d (0x7f in x.so)",
        "",
    ]
    events = _feed(lines)
    cpp = next(e for e in events if e.kind is K.CPP_EXCEPTION)
    assert (cpp.fields["exc_type"], cpp.fields["raised_from"], cpp.rank) == (
        "c10::DistBackendError", "checkTimeout", 2)
    assert {e.kind for e in events} == {K.CPP_EXCEPTION, K.WATCHDOG_TIMEOUT,
                                       K.WATCHDOG_TERMINATED}


def test_torchrun_failure_summary_names_the_root_cause() -> None:
    """The ChildFailedError banner becomes one summary event with the first failure's rank,
    exit code and signal; the signal line is attributed to that rank."""
    lines = [
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "train.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
        "[1]:",
        "  time      : 2025-05-21_15:43:04",
        "  host      : node1",
        "  rank      : 1 (local_rank: 1)",
        "  exitcode  : -6 (pid: 14751)",
        "  error_file: <N/A>",
        "  traceback : Signal 6 (SIGABRT) received by PID 14751",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2025-05-21_15:43:03",
        "  host      : node1",
        "  rank      : 0 (local_rank: 0)",
        "  exitcode  : -9 (pid: 14750)",
        "  error_file: <N/A>",
        "  traceback : Signal 9 (SIGKILL) received by PID 14750",
        "============================================================",
    ]
    events = _feed(lines)
    summary = next(e for e in events if e.kind is K.CHILD_FAILED_SUMMARY)
    f = summary.fields
    assert (summary.rank, f["root_exitcode"], f["root_pid"], f["root_signal"]) == (
        0, -9, 14750, "SIGKILL")
    assert summary.stamp is not None and summary.stamp.text() == "2025-05-21 15:43:03.000000"
    others = f["other_failures"]
    assert isinstance(others, tuple) and dict(others[0])["rank"] == 1
    kill = [e for e in events if e.kind is K.SIGNAL_KILL and e.fields["signal"] == "SIGKILL"]
    assert kill[0].rank == 0



@pytest.mark.parametrize(("rule", "root"), [("=" * 60, 3), ("-" * 60, None)])
def test_a_table_cut_above_its_headers_reads_its_root_cause_from_the_closing_rule(
        rule: str, root: int | None) -> None:
    """torchrun closes the root cause's section with `=` and the other failures' with `-`:
    a pasted table that starts at an entry's fields names its root cause only by that rule."""
    extractor = EventExtractor(bare_exceptions=True)
    lines = ["  rank      : 3 (local_rank: 3)", "  exitcode  : 1 (pid: 8181)",
             "  error_file: <N/A>", rule, "next line of the paste"]
    events = [e for i, line in enumerate(lines, 1) for e in extractor.feed(line, i)]
    events.extend(extractor.flush())
    summary = next(e for e in events if e.kind is K.CHILD_FAILED_SUMMARY)
    assert summary.rank == root
    assert (summary.fields.get("root_pid") == 8181) is (root is not None)

def test_nccl_warn_and_its_return_code_chain() -> None:
    """The INFO `file:line -> N` lines after a WARN from the same thread are its error chain."""
    lines = [
        "kolyoz2:25146:25854 [0] ib_plugin.c:1105 NCCL WARN NET/IB : Got completion from peer "
        "10.0.35.1<49189> with error 4, opcode 5327, len 5327, vendor err 81 (Send)",
        "kolyoz2:25146:25852 [0] NCCL INFO some other thread",
        "kolyoz2:25146:25854 [0] NCCL INFO transport/net.cc:1137 -> 6",
        "kolyoz2:25146:25854 [0] NCCL INFO proxy.cc:698 -> 6",
        "kolyoz2:25146:25854 [0] NCCL INFO something else",
    ]
    events = _feed(lines)
    chain = next(e for e in events if e.kind is K.NCCL_ERROR)
    assert (chain.fields["retcode"], chain.fields["chain_length"], chain.line, chain.end_line) == (
        6, 2, 1, 4)


def test_dataloader_worker_traceback_nested_in_the_message_stays_in_the_block() -> None:
    """'Caught X in DataLoader worker' carries the worker's own traceback inside its message."""
    lines = [
        "Traceback (most recent call last):",
        '  File "/app/train.py", line 5, in <module>',
        "    for batch in loader:",
        "KeyError: Caught KeyError in DataLoader worker process 0.",
        "Original Traceback (most recent call last):",
        '  File "/site-packages/torch/utils/data/_utils/worker.py", line 308, in _worker_loop',
        "    data = fetcher.fetch(index)",
        "KeyError: 'label'",
        "",
        "epoch 2 starts",
    ]
    events = _feed(lines)
    assert sorted(e.kind.value for e in events) == ["dataloader_worker_died", "python_traceback"]
    tb = next(e for e in events if e.kind is K.PYTHON_TRACEBACK)
    assert tb.end_line == 9


def test_nccl_pids_are_mapped_to_ranks_by_init_lines() -> None:
    """An NCCL WARN from a pid whose init line named its rank is that rank's."""
    lines = [
        "h:100:101 [2] NCCL INFO ncclCommInitRank comm 0x1 rank 6 nranks 8 cudaDev 2 busId 3000 "
        "commId 0xabc - Init COMPLETE",
        "h:100:105 [2] misc/socket.cc:1 NCCL WARN Net : Call to recv from 10.0.0.9<4000> failed :"
        " Connection reset by peer",
    ]
    warn = next(e for e in _feed(lines) if e.kind is K.NCCL_WARN_NET)
    assert (warn.rank, warn.rank_origin, warn.fields["consequence"]) == (6, "nccl", True)


def test_glog_stamps_are_read_including_unpadded_months() -> None:
    """`E901 05:20:03.118…` is September 1st: month printed without zero padding."""
    event = _feed([
        "[rank7]:[E901 05:20:03.123992144 ProcessGroupNCCL.cpp:632] [Rank 7] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, "
        "NumelOut=1, Timeout(ms)=600000) ran for 600020 milliseconds before timing out."])[0]
    assert event.stamp is not None
    assert (event.stamp.month, event.stamp.day, event.stamp.text()) == (
        9, 1, "09-01 05:20:03.123992")


def test_a_block_left_open_is_closed_by_stale_lines() -> None:
    """A writer that dies mid-block cannot keep it open: after `stale_lines` other lines the
    block is closed and its event delivered."""
    extractor = EventExtractor(stale_lines=10)
    events = extractor.feed("[rank1]: Traceback (most recent call last):", 1)
    for i in range(2, 40):
        events += extractor.feed(f"[rank2]: step {i}", i)
    assert [e.kind for e in events] == [K.PYTHON_TRACEBACK]
    assert extractor.open_blocks == 0


@pytest.mark.parametrize("line", [
    "8: gpu-c02:51200:51200 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion "
    "from peer 10.0.0.2<1234> with error 12, opcode 0, len 0, vendor err 129",
    "stdout: gpu-c02:51200:51200 [0] misc/socket.cc:484 NCCL WARN Net : Call to recv from "
    "10.0.0.2<1234> failed : Connection timed out",
    "(worker1, rank=1, pid=4888, ip=10.60.0.4) [gpu-c02:3]:gpu-c02:51200:51200 [0] "
    "misc/socket.cc:484 NCCL WARN Net : Call to recv from 10.0.0.2<1234> failed : Connection "
    "timed out",
    "[15]gpu-c02:51200:51200 [0] misc/socket.cc:484 NCCL WARN Net : Call to recv from "
    "10.0.0.2<1234> failed : Connection timed out",
])
def test_nccls_own_prefix_is_read_after_a_tag_the_envelope_does_not_know(line: str) -> None:
    """A task label without srun's flag, a stream's name, Ray Train's worker tag, a line
    number: NCCL's `host:pid:tid [dev]` after them still names the writer."""
    events = EventExtractor().feed(line, 1)
    net = [e for e in events if e.kind is EventKind.NCCL_WARN_NET]
    assert net and (net[0].fields.get("host"), net[0].fields.get("pid")) == ("gpu-c02", 51200)


def test_nccls_prefix_is_not_found_inside_a_word() -> None:
    line = ("2025-05-16T16:39:55.210-07:00ip-10-36-29-253:79:2547 [0] misc/socket.cc:484 NCCL "
            "WARN Net : Call to recv from 10.0.0.2<1234> failed : Connection timed out")
    events = EventExtractor().feed(line, 1)
    assert all(e.fields.get("host") != "00ip-10-36-29-253" for e in events)
