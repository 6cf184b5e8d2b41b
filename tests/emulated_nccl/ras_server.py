"""The emulated job's NCCL RAS endpoint: one port on loopback for all its ranks.

usage: python -m tests.emulated_nccl.ras_server --dir DIR --port PORT [--version 2.28.9]

Every report is built at query time from what the ranks published in DIR (shared.py): their
real launched counts, communicator state and async errors, and what the kernel says of their
processes. It follows NCCL's behaviour (reference: NCCL RAS client protocol notes, §7 and §11):

* the endpoint exists from the moment the first rank registers its communicator until no rank
  process is left (then connections are refused, as when every NCCL process has exited);
* one report per connection, text (counts appear only inside a MISMATCH) or JSON after
  `SET FORMAT json`; the 2.28.7/2.28.9 JSON comma bug comes with those versions;
* a process that is stopped, a zombie or gone does not answer: its ranks are missing
  (INCOMPLETE), the first collection after that waits the collection timeout and reports a
  TIMEOUT, and after `--dead-after` seconds of trouble the process is DEAD for good;
* the listening port is shared by every rank's process (SO_REUSEPORT), so a connection can land
  on a stopped one and get no reply at all; the client must reconnect.
"""

from __future__ import annotations

import argparse
import hashlib
import socket
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from tests.emulated_nccl.shared import (
    COMM_FINALIZE,
    COMM_INIT,
    COMM_NONE,
    RankCounts,
    RankInfo,
    process_state,
    read_counts,
    read_rank_infos,
)
from tests.fake_ras import Comm, FakeRasServer, JobState, Member, Peer

GONE = ("", "Z")  # no process to answer: exited or a zombie
STOPPED = ("T", "t")


class JobView:
    """The RAS model of the emulated job, rebuilt from the shared directory at every query."""

    def __init__(
        self,
        directory: Path,
        *,
        version: str = "2.28.9",
        dead_after_seconds: float = 60.0,
        collection_timeout_seconds: float = 5.0,
    ) -> None:
        self.directory = directory
        self.version = version
        self.dead_after_seconds = dead_after_seconds
        self.collection_timeout_seconds = collection_timeout_seconds
        digest = hashlib.sha256(str(directory.resolve()).encode()).digest()
        self.comm_hash = int.from_bytes(digest[:8], "big")
        self._trouble_since: dict[int, float] = {}  # pid -> monotonic time trouble began
        self._dead: set[int] = set()  # pids declared dead (permanent)
        self._skipped: set[int] = set()  # pids a collection already timed out on
        self._lock = threading.Lock()

    def processes(self) -> dict[int, tuple[RankInfo, str]]:
        """rank -> (identity, kernel state) for every registered rank."""
        return {r: (i, process_state(i.pid)) for r, i in read_rank_infos(self.directory).items()}

    def listening(self) -> list[tuple[int, str]]:
        """(pid, state) of the processes that still hold the RAS port (alive or stopped)."""
        return sorted(
            (info.pid, state) for info, state in self.processes().values() if state not in GONE
        )

    def peer_state(self, pid: int, kernel_state: str, now: float) -> str:
        with self._lock:
            return self._peer_state(pid, kernel_state, now)

    def _peer_state(self, pid: int, kernel_state: str, now: float) -> str:
        if pid in self._dead:
            return "dead"
        if kernel_state in GONE or kernel_state in STOPPED:
            since = self._trouble_since.setdefault(pid, now)
            if now - since >= self.dead_after_seconds:
                self._dead.add(pid)
                return "dead"
            return "unresponsive"
        self._trouble_since.pop(pid, None)  # continued (SIGCONT) before it was declared dead
        self._skipped.discard(pid)
        return "alive"

    def observe(self) -> None:
        """Note trouble as it begins (NCCL's keep-alives notice within about a second), not
        only when a client happens to ask."""
        now = time.monotonic()
        for info, kernel_state in self.processes().values():
            self.peer_state(info.pid, kernel_state, now)

    def state(self, _query: int = 0, _elapsed: float = 0.0) -> JobState:
        now = time.monotonic()
        counts = read_counts(self.directory)
        peers: list[Peer] = []
        members: list[Member] = []
        new_timeouts = 0
        for rank, (info, kernel_state) in sorted(self.processes().items()):
            peer = Peer(info.host, info.pid, (info.gpu,), port=40000 + info.local_rank)
            peer.state = self.peer_state(info.pid, kernel_state, now)
            if peer.state == "unresponsive" and info.pid not in self._skipped:
                self._skipped.add(info.pid)
                new_timeouts += 1
            peers.append(peer)
            mine = counts.get(rank)
            if mine is not None:
                members.append(member(rank, peer, info, mine))
        job = JobState(version=self.version, cuda="12.9", cuda_runtime=12090,
                       cuda_driver=13000, peers=peers)  # fmt: skip
        if any(not m.nocomm for m in members) or any(m.peer.state != "alive" for m in members):
            members.sort(key=lambda m: m.rank)
            job.comms = [Comm(self.comm_hash, members, pid_hash=self.comm_hash ^ 0x5A5A5A5A)]
        if new_timeouts:
            # The first collection after a process stops answering waits for it, then gives up.
            job.timeouts = new_timeouts
            job.collection_delay_seconds = self.collection_timeout_seconds
        return job


def member(rank: int, peer: Peer, info: RankInfo, counts: RankCounts) -> Member:
    # Broadcast, Reduce, AllGather, ReduceScatter, AllReduce: the job uses the first and last.
    m = Member(rank, peer, info.gpu, counts=(counts.broadcast, 0, 0, 0, counts.allreduce))
    m.async_error = counts.async_error
    if counts.comm_state == COMM_INIT:
        m.init_state = 7  # ncclInProgress
    m.finalize_called = counts.comm_state == COMM_FINALIZE
    m.nocomm = counts.comm_state == COMM_NONE and peer.state == "alive"
    return m


class EmulatedRasServer(FakeRasServer):
    """The protocol server (shared with the scripted fake) over a `JobView`."""

    def __init__(self, view: JobView, *, host: str, port: int, reuseport_stall: bool) -> None:
        # A fixed version: the base class would otherwise build a report just to learn it.
        super().__init__(view.state, host=host, port=port, version=view.version)
        self.view = view
        self.reuseport_stall = reuseport_stall
        self._client_ports: dict[int, int] = {}

    def _serve(self, conn: socket.socket, index: int) -> None:
        try:
            self._client_ports[index] = int(conn.getpeername()[1])
        except OSError:
            self._client_ports[index] = index
        super()._serve(conn, index)

    def _report(self, conn: socket.socket, *, verbose: bool, fmt: str) -> None:
        started = time.time()
        super()._report(conn, verbose=verbose, fmt=fmt)
        # One line per report served, so a test can tell that (and when) a client polled.
        print(
            f"status {fmt}{' verbose' if verbose else ''} at {started:.3f} "
            f"took {time.time() - started:.3f}",
            flush=True,
        )

    def _silent(self, index: int) -> bool:
        """SO_REUSEPORT: the kernel hashes the connection onto one of the processes that hold
        the port; one that is stopped accepts (the kernel does that) and never answers."""
        if not self.reuseport_stall:
            return False
        holders = self.view.listening()
        if not holders:
            return True
        _pid, state = holders[self._client_ports.pop(index, index) % len(holders)]
        return state in STOPPED


def serve(args: argparse.Namespace) -> int:
    directory = Path(args.dir)
    view = JobView(
        directory, version=args.version, dead_after_seconds=args.dead_after,
        collection_timeout_seconds=args.collection_timeout,
    )  # fmt: skip
    while not view.listening():  # NCCL opens the port when a process creates its first comm
        time.sleep(0.05)
    server = EmulatedRasServer(
        view, host=args.host, port=args.port, reuseport_stall=not args.no_reuseport_stall
    )
    server.start()
    print(
        f"emulated NCCL {args.version} RAS endpoint on {server.address} for {directory}", flush=True
    )
    try:
        while view.listening():
            view.observe()
            time.sleep(0.1)
    finally:
        server.stop()
    print("every rank process is gone: the RAS port is closed", flush=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.emulated_nccl.ras_server")
    parser.add_argument("--dir", required=True, help="the job's RW_EMU_DIR")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=28028)
    parser.add_argument("--version", default="2.28.9", help="NCCL version to emulate")
    parser.add_argument(
        "--dead-after",
        type=float,
        default=60.0,
        help="seconds of trouble before a process is DEAD (NCCL: 60 × factor)",
    )
    parser.add_argument(
        "--collection-timeout",
        type=float,
        default=5.0,
        help="how long a collection waits for a newly silent process",
    )
    parser.add_argument(
        "--no-reuseport-stall",
        action="store_true",
        help="never route a connection to a stopped process",
    )
    args = parser.parse_args(argv)
    return serve(args)


if __name__ == "__main__":
    sys.exit(main())
