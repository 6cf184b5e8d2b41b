"""The names triage pulls out of a line (hosts, addresses with their ports, pods, peers, PCI
addresses, endpoints) end where the name ends: a full stop or a comma after it, a bracketed or
scoped IPv6 address, c10d's bracketed socket addresses. Each case is (reader, line, what it must
give); the negatives are what must never be read as a name, or names already read right."""

from __future__ import annotations

from typing import Any

import pytest

from monitor.parse.log_patterns import classify_payload
from monitor.triage.lexicon import node_names, places

NCCL = "gpu-3:1234:1290 [0] "  # NCCL's own host:pid:tid [dev] prefix

# names that ended a sentence, or sat in brackets, and were cut wrong or not read
BUGS: list[tuple[str, str, Any]] = [
    # 1. lexicon _NODE: a host name ending a sentence kept its full stop (and any trailing '-', '...')
    ("places", "2024-05-01 10:07:12 ERROR Job step aborted: out of memory on node gpu-17.", ("gpu-17",)),
    ("node_names", "Rank 3 failed on node gpu-17.", ("gpu-17",)),
    ("places", "host: dgx-a100-07.cluster.local.", ("dgx-a100-07.cluster.local",)),
    ("places", "Connection refused by node gpu-17...", ("gpu-17",)),
    ("places", "Could not resolve hostname gpu-3.cluster.: Name or service not known", ("gpu-3.cluster",)),
    # 2. lexicon _NODE (kubectl node/NAME) and _POD_OBJECT (pod/NAME): followed by '.', not read at all
    ("places", "ERROR Worker lost: the node was shut down, see node/ip-10-0-1-7.ec2.internal.",
     ("ip-10-0-1-7.ec2.internal",)),
    ("node_names", "Evicted pod/w-3.", ("pod w-3",)),
    ("places", "Evicted pod/w-3.", ("pod w-3",)),
    # 3. lexicon _IPV4: c10d's bracketed socket address (IPv4-mapped or not) lost its port
    ("places", "[E socket.cpp:957] [c10d] recvValue failed on SocketImpl(fd=61, addr=[::ffff:10.0.0.2]:45678, "
               "remote=[::ffff:10.0.0.1]:29500): failed to recv, got 0 bytes", ("10.0.0.2:45678", "10.0.0.1:29500")),
    ("places", "sendBytes failed on SocketImpl(fd=61, addr=[gpu-3.cluster]:45678, remote=[10.0.0.1]:29500): Broken pipe",
     ("10.0.0.1:29500",)),
    ("places", "failed to connect to [10.0.0.1]:29500.", ("10.0.0.1:29500",)),
    # 4. lexicon _DIALED: Go's IPv6 endpoint in brackets not read at all
    ("places", 'ERROR upload failed: Post "https://[fd00::5]:9000/ckpt": dial tcp [fd00::5]:9000: connect: connection refused',
     ("[fd00::5]:9000",)),
    ("places", "dial tcp [fe80::1%eth0]:443: i/o timeout", ("[fe80::1%eth0]:443",)),
    # 5. log_patterns NCCL net: a scoped IPv6 peer (`%eth0`) demoted the line to a plain nccl_warn
    ("net_fields", NCCL + "NCCL WARN Call to recv from fe80::1%eth0<45678> failed : Connection reset by peer",
     ("nccl_warn_net", {"peer": "fe80::1%eth0", "peer_port": 45678})),
    ("net_fields", NCCL + "NCCL WARN Connection closed by remote peer fe80::1%eth0<45678>",
     ("nccl_warn_net", {"peer": "fe80::1%eth0", "peer_port": 45678})),
    ("net_fields", NCCL + "NCCL WARN socketProgressOpt: Call to recv from fe80::1%eth0<45678> failed : Connection reset by peer",
     ("nccl_warn_net", {"peer": "fe80::1%eth0", "peer_port": 45678})),
    # 6. log_patterns LAUNCH_ENDPOINT: trailing full stop kept; bracketed IPv6 with a zone or IPv4-mapped not read
    ("net_fields", "MASTER_ADDR=10.0.0.1.", ("launch_endpoint", {"host": "10.0.0.1"})),
    ("net_fields", "MASTER_ADDR: gpu-3.cluster.", ("launch_endpoint", {"host": "gpu-3.cluster"})),
    ("net_fields", "rdzv_endpoint: gpu-3.cluster.", ("launch_endpoint", {"host": "gpu-3.cluster"})),
    ("net_fields", "rdzv_endpoint=[fe80::1%eth0]:29400", ("launch_endpoint", {"host": "[fe80::1%eth0]", "port": 29400})),
    ("net_fields", "rdzv_endpoint=[::ffff:10.0.0.1]:29400", ("launch_endpoint", {"host": "[::ffff:10.0.0.1]", "port": 29400})),
    ("net_fields", "NCCL INFO NCCL_COMM_ID set by environment to [fe80::1%eth0]:29700",
     ("launch_endpoint", {"root": "[fe80::1%eth0]", "root_port": "29700"})),
    ("net_fields", "NCCL INFO NCCL_COMM_ID set by environment to [::ffff:10.0.0.1]:29700",
     ("launch_endpoint", {"root": "[::ffff:10.0.0.1]", "root_port": "29700"})),
    # 7. log_patterns launchers' node names: a trailing full stop/comma kept (culprit `node gpu-3.`)
    ("net_fields", "srun: error: Node failure on gpu-3.", ("slurm_task_exit", {"node": "gpu-3"})),
    ("net_fields", "srun: error: Node failure on nid001234,", ("slurm_task_exit", {"node": "nid001234"})),
    ("net_fields", "=   RANK 3 PID 1234 RUNNING AT gpu-3.", ("mpi_exit", {"pid": 1234, "node": "gpu-3"})),
    ("net_fields", "prterun has exited due to process rank 3 with PID 1234 on node gpu-3. This may",
     ("mpi_exit", {"pid": 1234, "node": "gpu-3"})),
    ("net_fields", "  Peer host:    gpu-3.", ("mpi_peer_lost", {"peer_host": "gpu-3"})),
    ("net_fields", "  Remote daemon: [[1234,0],3] on node gpu-3.", ("mpi_peer_lost", {"peer_host": "gpu-3"})),
    ("net_fields", "Unable to find address for: gpu-3.cluster.", ("store_timeout", {"host": "gpu-3.cluster"})),
    # 8. log_patterns AER: the source device ending a sentence kept its full stop
    ("net_fields", "pcieport 0000:00:03.1: AER: Multiple Uncorrected (Non-Fatal) error message received from 0000:3b:00.0.",
     ("gpu_fault", {"pci": "0000:3b:00.0", "source": "0000:3b:00.0"})),
]

NEGATIVES: list[tuple[str, str, Any]] = [
    # names already read right, must stay so
    ("places", "Rank 3 failed on node gpu-17, exiting", ("gpu-17",)),
    ("places", "node=gpu-17;", ("gpu-17",)),
    ("places", "(host gpu-17)", ("gpu-17",)),
    ("places", "Out of memory on host gpu-17\r", ("gpu-17",)),
    ("places", "node=gpu-17:29500", ("gpu-17",)),
    ("places", "host gpu17", ("gpu17",)),
    ("places", "Jan 30 10:33:08 gpu-17.cluster kernel: Out of memory", ("gpu-17.cluster",)),
    ("places", "node/ip-10-0-1-7.ec2.internal  Node is not ready", ("ip-10-0-1-7.ec2.internal",)),
    ("places", "Unable to connect to GCS at 127.0.0.1:6379.", ("127.0.0.1:6379",)),
    ("places", "Connect to 10.0.0.2<45678> failed : Connection refused", ("10.0.0.2:45678",)),
    ("places", "Error 111 connecting to 10.0.0.5:6379.", ("10.0.0.5:6379",)),
    ("places", "ip=10.0.0.5)", ("10.0.0.5",)),
    ("places", "ip='10.0.0.5'", ("10.0.0.5",)),
    ("places", "10.0.0.5:6379;", ("10.0.0.5:6379",)),
    ("places", "kafka-0.data.svc/10.42.7.3:9092 failed", ("kafka-0.data.svc:9092 (10.42.7.3)",)),
    ("places", "dial tcp 10.0.0.5:6379: connect: connection refused", ("10.0.0.5:6379",)),
    ("places", "dial tcp minio.svc:9000: i/o timeout", ("minio.svc:9000",)),
    ("places", "dial tcp: lookup minio.svc on 10.96.0.10:53: no such host", ("minio.svc",)),
    ("places", "local_rank: 3 (pid: 1234)", ("1234",)),
    ("places", "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.", ("1234",)),
    ("places", "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.", ("0000:3b:00.0",)),
    ("places", "failed on mlx5_0:1.", ("mlx5_0",)),
    ("places", "unreachable peer: gpu-node-3.", ("gpu-node-3",)),
    ("places", "from remote target /job:worker/replica:0/task:3.", ("/job:worker/replica:0/task:3",)),
    # not names: a bracket with no port, a port too long, a bracket not opened, a path, a
    # file:line ref, a timestamp, a log level, a bare number after `node`
    ("places", "[10.0.0.1] retry", ("10.0.0.1",)),
    ("places", "[10.0.0.1]:1234567", ("10.0.0.1",)),
    ("places", "x 10.0.0.1]:29500", ("10.0.0.1",)),
    ("places", "[::ffff:10.0.0.1]", ("10.0.0.1",)),
    ("places", "node/abc.def/x", ()),
    ("places", "[pod/w-3/pytorch] x", ()),
    ("places", "socket.cpp:752", ()),
    ("places", "[W socket.cpp:752] [c10d] warn", ()),
    ("places", "2024-05-01 10:07:12.123 ERROR", ()),
    ("places", "took 1.5s, 2.25s", ()),
    ("places", "node 3", ()),
    ("places", "ERROR: node ERROR", ()),
    ("places", "driver 535.104.05", ()),
    # log_patterns: read right before and after
    ("net_fields", NCCL + "NCCL WARN Call to recv from 10.0.0.2<45678> failed : Connection reset by peer",
     ("nccl_warn_net", {"peer": "10.0.0.2", "peer_port": 45678})),
    ("net_fields", NCCL + "NCCL WARN Connection closed by remote peer gpu-4.cluster<45678>",
     ("nccl_warn_net", {"peer": "gpu-4.cluster", "peer_port": 45678})),
    ("net_fields", NCCL + "NCCL WARN Call to connect to fe80::1%eth0<45678> failed : Connection refused",
     ("nccl_warn_net", {"peer": "fe80::1%eth0", "peer_port": 45678})),
    ("net_fields", "rdzv_endpoint=10.0.0.1:29400", ("launch_endpoint", {"host": "10.0.0.1", "port": 29400})),
    ("net_fields", "rdzv_endpoint=[::1]:29400", ("launch_endpoint", {"host": "[::1]", "port": 29400})),
    ("net_fields", "rdzv_endpoint=gpu-3:29400.", ("launch_endpoint", {"host": "gpu-3", "port": 29400})),
    ("net_fields", "MASTER_ADDR='gpu-3'", ("launch_endpoint", {"host": "gpu-3"})),
    ("net_fields", "MASTER_ADDR=localhost", ("launch_endpoint", {"host": "localhost"})),
    ("net_fields", "MASTER_ADDR=1", ("launch_endpoint", {"host": "1"})),
    ("net_fields", "master_addr, master_port = get_addr()", None),
    ("net_fields", "export NCCL_COMM_ID=gpu-head-0:29700", ("launch_endpoint", {"root": "gpu-head-0", "root_port": "29700"})),
    ("net_fields", "NCCL INFO NCCL_COMM_ID set by environment to 10.0.0.1:29700.",
     ("launch_endpoint", {"root": "10.0.0.1", "root_port": "29700"})),
    ("net_fields", "srun: error: Node failure on gpu-3", ("slurm_task_exit", {"node": "gpu-3"})),
    ("net_fields", "srun: error: gpu-3: task 3: Killed", ("slurm_task_exit", {"node": "gpu-3"})),
    ("net_fields", "mpirun noticed that process rank 3 with PID 1234 on node gpu-3 exited on signal 9 (Killed).",
     ("mpi_exit", {"pid": 1234, "node": "gpu-3"})),
    ("net_fields", "mpirun has exited due to process rank 3 with PID 1234 on node gpu-3 exiting improperly.",
     ("mpi_exit", {"pid": 1234, "node": "gpu-3"})),
    ("net_fields", "=   RANK 3 PID 1234 RUNNING AT gpu-3", ("mpi_exit", {"pid": 1234, "node": "gpu-3"})),
    ("net_fields", "  Peer host:    gpu-3", ("mpi_peer_lost", {"peer_host": "gpu-3"})),
    ("net_fields", "Unable to find address for: eth0", ("store_timeout", {"host": "eth0"})),
    ("net_fields", "pcieport 0000:00:03.1: AER: Uncorrected (Fatal) error received: 0000:3b:00.0",
     ("gpu_fault", {"pci": "0000:3b:00.0", "source": "0000:3b:00.0"})),
    ("net_fields", "pcieport 0000:00:03.1: AER: Corrected error received: 0000:3b:00.0, id=1234",
     ("gpu_fault", {"pci": "0000:3b:00.0", "source": "0000:3b:00.0"})),
]


_KEEP = ("host", "port", "peer", "peer_port", "pci", "source", "node", "pid", "root", "root_port",
         "peer_host")


def _read(function: str, line: str) -> Any:
    if function == "places":
        return places(line)
    if function == "node_names":
        return node_names(line)
    events = classify_payload(line)
    if not events:
        return None
    kind, _level, fields = events[0]
    return (kind.value, {k: v for k, v in fields.items() if k in _KEEP})


@pytest.mark.parametrize(("function", "line", "expected"), BUGS + NEGATIVES)
def test_a_name_ends_where_the_name_ends(function: str, line: str, expected: Any) -> None:
    assert _read(function, line) == expected
