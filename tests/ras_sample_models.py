"""Job models from which the fake RAS server renders every reference sample byte for byte.

Each builder returns (state, verbose, format). The samples' hashes, pids and addresses are made
up; the models only reproduce them, which checks the fake's renderer against the reference.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.fake_ras import Comm, JobState, Member, Peer, world_comm

SampleModel = tuple[JobState, bool, str]


def _node_peers(hosts: list[str], per_node: int, first_pids: list[int]) -> list[Peer]:
    peers = []
    for host, first_pid in zip(hosts, first_pids, strict=True):
        for gpu in range(per_node):
            peers.append(Peer(host, first_pid + gpu, (gpu,), port=40000 + gpu))
    return peers


def sample_01() -> SampleModel:
    peers = _node_peers(["10.0.0.1", "10.0.0.2"], 8, [100, 200])
    state = JobState(
        version="2.27.7", cuda="12.9", cuda_runtime=12090, cuda_driver=12080, peers=peers,
        comms=[world_comm(peers, 0x1234, (0, 0, 0, 0, 5))], collection_seconds=0.01,
    )
    return state, False, "text"


def sample_02() -> SampleModel:
    hosts = [f"172.31.8.{20 + i}" for i in range(16)]
    peers = _node_peers(hosts, 8, [306585 + (i - 5) * 1117 for i in range(16)])
    world = world_comm(peers, 0x9C3E7710AB52F4E6, (0, 0, 0, 0, 14303))
    for m in world.members:
        if 40 <= m.rank < 48:
            m.counts = (0, 0, 0, 0, 14302)
    state = JobState(
        version="2.28.9", cuda="12.9", cuda_runtime=12090, cuda_driver=12090, peers=peers,
        comms=[world], collection_seconds=0.041,
    )
    return state, False, "text"


def sample_03() -> SampleModel:
    hosts = ["172.16.64.210", "172.16.64.212", "172.16.64.213", "172.16.64.222"]
    peers = _node_peers(hosts, 8, [507285, 1598388, 3500071, 2405067])
    big = world_comm(peers, 0x9E17999AFAA87DBB, (0, 0, 0, 0, 7))
    for m in big.members:
        gpu = m.rank % 8
        if gpu == 4 and m.peer.host in ("172.16.64.210", "172.16.64.213"):
            m.finalize_called = True
        elif gpu != 0:
            m.nocomm = True
    small = []
    for gpu in range(8):
        comm = Comm(
            0x1000 + gpu,
            [Member(i, peers[i * 8 + gpu], gpu, counts=(0, 0, 0, 0, 3)) for i in range(4)],
        )
        if gpu == 7:
            for m in comm.members:
                m.init_state, m.counts = 7, (0, 0, 0, 0, 0)
        small.append(comm)
    state = JobState(
        version="2.26.6", cuda="12.8", cuda_runtime=12080, cuda_driver=12080, peers=peers,
        comms=[big, *small], collection_seconds=0.0,
    )
    return state, False, "text"


def _sample_04_05(dead: bool) -> JobState:
    peers = _node_peers(["10.0.12.7", "10.0.12.8"], 8, [1877302, 1877402])
    world = world_comm(peers, 0x27A079B828FF1A75, (0, 0, 0, 0, 5))
    peers[13].state = "dead" if dead else "unresponsive"
    return JobState(
        version="2.29.7", peers=peers, comms=[world],
        collection_seconds=0.006 if dead else 5.018, timeouts=0 if dead else 2,
    )


def sample_04() -> SampleModel:
    return _sample_04_05(dead=False), False, "text"


def sample_05() -> SampleModel:
    return _sample_04_05(dead=True), False, "text"


def sample_06() -> SampleModel:
    hosts = [f"10.1.1.{i + 1}" for i in range(16)]
    peers = _node_peers(hosts, 8, [1000 * (i + 1) for i in range(16)])
    world = world_comm(peers, 0x1, (0, 0, 0, 0, 9))
    dp = [
        Comm(0x100 + g, [Member(i, peers[i * 8 + g], g, counts=(0, 0, 0, 0, 9)) for i in range(16)])
        for g in range(8)
    ]
    tp = [
        Comm(0x200 + n, [Member(g, peers[n * 8 + g], g, counts=(0, 0, 0, 0, 9)) for g in range(8)])
        for n in range(16)
    ]
    state = JobState(
        version="2.30.7", peers=peers, comms=[world, *dp, *tp], collection_seconds=0.037
    )
    return state, False, "text"


def _sample_07(verbose: bool) -> SampleModel:
    hosts = [f"172.31.8.{20 + i}" for i in range(16)]
    peers = _node_peers(hosts, 8, [303234 + (i - 2) * 1117 for i in range(16)])
    world = world_comm(peers, 0x9C3E7710AB52F4E6, (0, 0, 0, 0, 20519))
    for m in world.members:
        if 16 <= m.rank < 36:
            m.counts = (0, 0, 0, 0, 20518)
    state = JobState(
        version="2.28.9", cuda="12.9", cuda_runtime=12090, cuda_driver=12090, peers=peers,
        comms=[world], collection_seconds=0.043 if verbose else 0.044,
    )
    return state, verbose, "text"


def sample_07a() -> SampleModel:
    return _sample_07(verbose=False)


def sample_07b() -> SampleModel:
    return _sample_07(verbose=True)


def sample_08() -> SampleModel:
    peers = _node_peers(["10.42.0.11", "10.42.0.12"], 8, [1290009, 1290117])
    world = world_comm(peers, 0x5F1A2C9E84B3D071, (0, 0, 0, 0, 10042))
    for m in world.members:
        if m.rank in (9, 10):
            m.counts, m.async_error, m.abort_flag = (0, 0, 0, 0, 10041), 6, True
    state = JobState(
        version="2.27.7", cuda="12.9", cuda_runtime=12090, cuda_driver=12080, peers=peers,
        comms=[world], collection_seconds=0.01,
    )
    return state, False, "text"


def sample_09() -> SampleModel:
    hosts = ["172.16.64.210", "172.16.64.212", "172.16.64.213", "172.16.64.222"]
    peers = []
    for host, first_pid in zip(hosts, [507285, 1598388, 3487979, 2405067], strict=True):
        for gpu in range(8):  # CUDA_VISIBLE_DEVICES per process: CUDA 0, NVML = physical
            peers.append(Peer(host, first_pid + gpu, (0,), (gpu,), port=40000 + gpu))
    world = Comm(
        0xCF264AF53EDBE986,
        [Member(i, p, 0, nvml=i % 8, counts=(0, 0, 0, 0, 50)) for i, p in enumerate(peers)],
    )
    small = Comm(0x3B0E55D2A1C47F90, [Member(i, peers[i * 8 + 3], 0, nvml=3) for i in range(4)])
    small.members[1].init_state = 2
    peers[21].state = "unresponsive"
    state = JobState(
        version="2.24.3", cuda="12.6", cuda_runtime=12060, cuda_driver=12060, peers=peers,
        comms=[world, small], collection_seconds=2.05, timeouts=2,
    )
    return state, False, "text"


def sample_10() -> SampleModel:
    peers = _node_peers(["10.9.1.21", "10.9.1.22"], 8, [80001, 80101])
    peers += _node_peers(["10.9.1.23"], 4, [81002])
    state = JobState(
        version="2.28.9", cuda="12.9", cuda_runtime=12090, cuda_driver=12090, peers=peers,
        comms=[], collection_seconds=0.002,
    )
    return state, False, "text"


def sample_11() -> SampleModel:
    peers = _node_peers(["192.168.100.5"], 8, [23410])
    world = world_comm(peers, 0xE0A41D5C77F2B309, (0, 0, 0, 0, 0))
    for m in world.members:
        if m.rank in (0, 1):
            m.counts = (0, 0, 1, 0, 0)
    state = JobState(
        version="2.30.7", cuda="13.0", cuda_runtime=13000, cuda_driver=13010, peers=peers,
        comms=[world], collection_seconds=0.001,
    )
    return state, False, "text"


def sample_12() -> SampleModel:
    hosts_pids = [("10.1.0.31", 91000), ("10.1.0.32", 91001), ("10.1.0.33", 91002),
                  ("10.1.0.34", 91003)]
    peers = [Peer(h, pid, tuple(range(8)), port=1) for h, pid in hosts_pids]
    members = [Member(i * 8 + g, p, g) for i, p in enumerate(peers) for g in range(8)]
    peers[2].state = "dead"
    state = JobState(
        version="2.28.9", cuda="12.9", cuda_runtime=12090, cuda_driver=12090, peers=peers,
        comms=[Comm(0x44B20C6E19DA7F83, members)], collection_seconds=0.003,
    )
    return state, False, "text"


def node_dead_job(nodes: int = 128, dead_node: int = 77) -> JobState:
    """Sample 13's job: world + 8 DP + one TP communicator per node; one node's processes dead."""
    hosts = [f"10.64.2.{36 + i}" for i in range(nodes)]
    peers = _node_peers(hosts, 8, [96769 + (i - dead_node) * 1000 for i in range(nodes)])
    world = world_comm(peers, 0x7D03BE61C5A2F98E, (0, 0, 0, 0, 9))
    dp_hashes = [0x8631C1889EC83C10, 0xF3AB7940DCE58B4B, 0x02A7E7A80DC97C19, 0xDD07F3FDFA706FD3,
                 0x4C490552DC67F385, 0xDB47EE62577D561D, 0x2A54A32AE13EF635, 0x3DA34C71B211B739]
    dp = [
        Comm(dp_hashes[g],
             [Member(i, peers[i * 8 + g], g, counts=(0, 0, 0, 0, 9)) for i in range(nodes)])
        for g in range(8)
    ]
    tp = [
        Comm(0x200 + n, [Member(g, peers[n * 8 + g], g, counts=(0, 0, 0, 0, 9)) for g in range(8)])
        for n in range(nodes)
    ]
    for g in range(8):
        peers[dead_node * 8 + g].state = "dead"
    return JobState(
        version="2.29.7", peers=peers, comms=[world, *dp, *tp], collection_seconds=0.118
    )


def sample_13() -> SampleModel:
    return node_dead_job(), False, "text"


def _sample_14_15(version: str) -> JobState:
    peers = _node_peers(["10.20.3.41"], 4, [1524344])
    host_hash = 0xB7E7187447156001
    c1 = Comm(0xB7D1E44C2A93F15, [Member(0, peers[2], 2), Member(1, peers[3], 3)],
              host_hash, 0x3C0F9A21D86E4B57)
    c2 = Comm(
        0x63D2A9F0E15B7C48,
        [Member(i, peers[i], i, counts=(0, 0, 805, 805, 0)) for i in range(2)],
        host_hash, 0xB8242ED28A71381E,
    )
    c3 = Comm(
        0xAE94423CFBB2EF4A,
        [Member(i, peers[i], i, counts=(1, 0, 402, 0, 12944)) for i in range(4)],
        host_hash, 0xB8242ED28A71381E,
    )
    peers[3].state = "unresponsive"
    runtime = 13000 if version.startswith("2.29") else 12090
    return JobState(
        version=version, cuda_runtime=runtime, cuda_driver=runtime, peers=peers,
        comms=[c3, c1, c2], collection_seconds=5.006, timeouts=1, timestamp="2026-03-02 14:06:53",
    )


def sample_14() -> SampleModel:
    return _sample_14_15("2.29.7"), False, "json"


def sample_15() -> SampleModel:
    return _sample_14_15("2.28.9"), False, "json"


def sample_16() -> SampleModel:
    state = JobState(version="2.30.7", collection_seconds=0.001, timestamp="2026-03-02 15:40:02")
    return state, False, "json"


SAMPLE_MODELS: dict[str, Callable[[], SampleModel]] = {
    "01-healthy-2x8.txt": sample_01,
    "02-mismatch-counts-16x8.txt": sample_02,
    "03-transitional-init-finalize-4x8.txt": sample_03,
    "04-incomplete-unresponsive-2x8.txt": sample_04,
    "05-dead-process-2x8.txt": sample_05,
    "06-multi-group-healthy-16x8.txt": sample_06,
    "07a-mismatch-20-laggards-plain-16x8.txt": sample_07a,
    "07b-mismatch-20-laggards-verbose-16x8.txt": sample_07b,
    "08-async-error-abort-2x8.txt": sample_08,
    "09-v224-incomplete-and-init-error-4x8.txt": sample_09,
    "10-uneven-nodes-no-comms-3nodes.txt": sample_10,
    "11-not-launched-yet-1x8.txt": sample_11,
    "12-multigpu-process-dead-4x8.txt": sample_12,
    "13-node-dead-128x8.txt": sample_13,
    "14-json-status-v229plus-1x4.json.txt": sample_14,
    "15-json-status-v2289-invalid-1x4.json.txt": sample_15,
    "16-json-status-no-comms.json.txt": sample_16,
}
