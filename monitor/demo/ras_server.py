"""The SIMULATED NCCL RAS endpoint of `rankwatch demo`: what NCCL's RAS would report for the demo
job, served on loopback by `monitor.demo.simulated_ras` (no NCCL is involved).

The demo job has no collectives, so the simulation derives them from the ranks' progress files
(`rank<N>`: pid and step count, written by `monitor.demo.job --progress-dir`): one 2-rank world
communicator, created once every rank has started; an initial Broadcast (the parameter sync) and
one AllReduce per step (the gradient sync). A synchronous collective cannot complete until every
rank launched it, so no rank runs more than one AllReduce ahead of the slowest: once rank 1's data
worker hangs, rank 1 stays at its last step and rank 0 waits in the next AllReduce. The counts
then freeze one apart, the MISMATCH the RAS detector reports as a collective desync naming rank 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from monitor.demo.simulated_ras import (
    Comm,
    JobState,
    Member,
    Peer,
    SimulatedRasServer,
    StateFn,
)

DEMO_HOST = "127.0.0.1"  # the simulated job's node, as RAS names nodes by IP
DEMO_COMM_HASH = 0xD3E0_5A17_C0FF_EE01
DEMO_NCCL_VERSION = "2.29.7"  # JSON reports with per-rank counts
DEMO_WORLD_SIZE = 2


@dataclass(frozen=True)
class RankProgress:
    pid: int
    steps: int


def read_progress(directory: Path) -> dict[int, RankProgress]:
    """The ranks' progress files; a missing or unreadable one means that rank has not started."""
    progress: dict[int, RankProgress] = {}
    for path in directory.glob("rank*"):
        rank_text = path.name[len("rank") :]
        if not rank_text.isdigit():
            continue
        try:
            pid_text, steps_text = path.read_text(encoding="ascii").split()
            progress[int(rank_text)] = RankProgress(int(pid_text), int(steps_text))
        except (OSError, ValueError):
            continue
    return progress


def demo_job_state(
    progress: Mapping[int, RankProgress], world_size: int = DEMO_WORLD_SIZE
) -> JobState:
    """The job as RAS would see it, from the ranks' progress (pure)."""
    ranks = range(world_size)
    if any(rank not in progress for rank in ranks):
        return JobState(version=DEMO_NCCL_VERSION)  # no communicator before every rank started
    slowest = min(progress[rank].steps for rank in ranks)
    peers = [Peer(DEMO_HOST, progress[rank].pid, (rank,), port=40000 + rank) for rank in ranks]
    members = [
        Member(rank, peers[rank], rank, counts=(1, 0, 0, 0, min(progress[rank].steps, slowest + 1)))
        for rank in ranks
    ]
    return JobState(
        version=DEMO_NCCL_VERSION,
        peers=peers,
        comms=[Comm(DEMO_COMM_HASH, members)],
    )


def demo_state_fn(progress_dir: Path, world_size: int = DEMO_WORLD_SIZE) -> StateFn:
    """A state function for the server: the demo job's state read afresh at every query."""

    def state(_query: int, _elapsed: float) -> JobState:
        return demo_job_state(read_progress(progress_dir), world_size)

    return state


def start_demo_ras(progress_dir: Path, host: str = DEMO_HOST) -> SimulatedRasServer:
    """A started simulated RAS endpoint mirroring the demo job, on a free port of `host`."""
    server = SimulatedRasServer(demo_state_fn(progress_dir), host=host, port=0)
    server.start()
    return server
