"""The scripted fake NCCL RAS server: the only fake the test suite allows.

The protocol handling and the report rendering live in `monitor.demo.simulated_ras` (the simulated
endpoint `rankwatch demo` also uses); this module adds what only tests need: scripted scenarios
(`scenario()`: healthy, then a rank goes DEAD after N queries, ...), replays of captured replies,
and misbehaviours that emulate broken or hostile servers.

Run standalone (for end-to-end tests and manual checks):

    python -m tests.fake_ras --port 28028 --scenario dead --after 3
"""

from __future__ import annotations

import argparse
import enum
import random
import socket
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from monitor.demo.simulated_ras import (
    ERROR_TEXTS,
    LINE_BUFFER_BYTES,
    OPS,
    STATUS_WORDS,
    Comm,
    JobState,
    Member,
    Peer,
    ServerStats,
    SimulatedRasServer,
    StateFn,
    five_counts,
    make_peers,
    render_json,
    render_text_chunks,
    version_tuple,
    world_comm,
)

__all__ = [
    "ERROR_TEXTS",
    "LINE_BUFFER_BYTES",
    "OPS",
    "STATUS_WORDS",
    "Comm",
    "Event",
    "FakeRasServer",
    "JobShape",
    "JobState",
    "Member",
    "Misbehaviour",
    "Peer",
    "Scenario",
    "ServerStats",
    "make_peers",
    "render_json",
    "render_text_chunks",
    "replay",
    "scenario",
    "version_tuple",
    "world_comm",
]

# --------------------------------------------------------------------------------------------
# Scenarios: a JobState per STATUS query (query index from 0, seconds since the server started).

Scenario = StateFn


@dataclass(frozen=True)
class JobShape:
    nodes: int = 2
    gpus_per_node: int = 8
    version: str = "2.29.7"
    ops_per_query: int = 12  # AllReduce launches between two queries of a healthy job
    base_count: int = 1000
    subnet: str = "10.0.0."
    collection_delay_seconds: float = 0.005


class Event(str, enum.Enum):
    """What happens to the job at the trigger point of a scenario."""

    NONE = "healthy"
    DEAD = "dead"  # a process is killed: unresponsive at once, DEAD a little later
    MISSING = "missing"  # a process is stopped (SIGSTOP) and stays unresponsive
    DESYNC = "desync"  # some ranks never launch the next collective; counts freeze, mismatched
    HANG = "hang"  # every rank launched, none completed: counts freeze, equal
    ABORT = "abort"  # two ranks report an async Remote process error and abort


def scenario(
    event: Event | str = Event.NONE,
    *,
    shape: JobShape | None = None,
    after_queries: int | None = None,
    after_seconds: float | None = None,
    culprit_ranks: tuple[int, ...] = (5,),
    dead_after_extra_queries: int = 1,
) -> Scenario:
    """A job that is healthy (counts advance every query) until the trigger, then `event`.

    The trigger is a query count or a time since the server started (the first one reached);
    neither means at once. For DEAD, the killed process is unresponsive (with a TIMEOUT) for
    `dead_after_extra_queries` queries and then DEAD, as NCCL reports it.
    """
    shape = shape or JobShape()
    event = Event(event)
    triggered_at: dict[str, int] = {}

    def state(query: int, elapsed: float) -> JobState:
        hit = (after_queries is None and after_seconds is None) or (
            (after_queries is not None and query >= after_queries)
            or (after_seconds is not None and elapsed >= after_seconds)
        )
        if hit and "query" not in triggered_at:
            triggered_at["query"] = query
        since = query - triggered_at["query"] if "query" in triggered_at else -1
        peers = make_peers(shape.nodes, shape.gpus_per_node, subnet=shape.subnet)
        frozen_at = triggered_at.get("query", query)
        active = event is Event.NONE or since < 0
        step = query if active else frozen_at
        base = shape.base_count + step * shape.ops_per_query
        counts = (1, 0, 2 * step, 0, base)
        comm = world_comm(peers, 0x7D03BE61C5A2F98E, counts)
        job = JobState(
            version=shape.version,
            peers=peers,
            comms=[comm],
            collection_delay_seconds=shape.collection_delay_seconds,
        )
        if active:
            return job
        culprits = [m for m in comm.members if m.rank in culprit_ranks]
        if event in (Event.DEAD, Event.MISSING):
            for m in culprits:
                dead = event is Event.DEAD and since >= dead_after_extra_queries
                m.peer.state = "dead" if dead else "unresponsive"
            if since == 0:
                job.timeouts = 2
        elif event is Event.DESYNC:
            for m in comm.members:
                if m.rank not in culprit_ranks:
                    m.counts = five_counts((1, 0, 2 * step, 0, base + 1))
        elif event is Event.ABORT:
            for m in culprits:
                m.async_error = 6
                m.abort_flag = True
        # Event.HANG: counts stay where they were, equal on every rank.
        return job

    return state


def replay(path: str, *, split_at: str = "\nCommunicators...") -> Callable[[], tuple[str, str]]:
    """Serve a captured reply verbatim (text: split in two chunks like the server does)."""
    with open(path, encoding="utf-8") as fh:
        data = fh.read()

    def chunks() -> tuple[str, str]:
        cut = data.find(split_at)
        if cut < 0:
            return data, ""
        cut += len(split_at)
        return data[:cut], data[cut:]

    return chunks


# --------------------------------------------------------------------------------------------
# The server.


class Misbehaviour(str, enum.Enum):
    NONE = "none"
    NEVER_ANSWER = "never-answer"  # accepts, reads, never replies
    STALL_FIRST = "stall-first"  # the first connection never answers (a SIGSTOPped process)
    CLOSE_MID_REPORT = "close-mid-report"  # sends part of the report, then closes
    DRIP = "drip"  # sends the report one byte per `drip_seconds`
    GARBAGE = "garbage"  # answers STATUS with binary garbage
    GARBAGE_HANDSHAKE = "garbage-handshake"  # answers the first line with binary garbage
    HUGE = "huge"  # answers STATUS with `huge_bytes` of report-like text
    EXTRA_OK = "extra-ok"  # two stray OK lines before the report
    TRUNCATED_JSON = "truncated-json"  # the JSON document stops half-way, then a clean close


class FakeRasServer(SimulatedRasServer):
    """The simulated endpoint driven by a scenario, plus misbehaviours. Use as a context manager;
    `.port` is the bound port."""

    def __init__(
        self,
        scenario_fn: Scenario | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        version: str | None = None,
        misbehaviour: Misbehaviour | str = Misbehaviour.NONE,
        replay_chunks: Callable[[], tuple[str, str]] | None = None,
        drip_seconds: float = 0.1,
        huge_bytes: int = 50 * 1024 * 1024,
    ) -> None:
        super().__init__(scenario_fn or scenario(), host=host, port=port, version=version)
        self.misbehaviour = Misbehaviour(misbehaviour)
        self.replay_chunks = replay_chunks
        self.drip_seconds = drip_seconds
        self.huge_bytes = huge_bytes

    def __enter__(self) -> FakeRasServer:
        self.start()
        return self

    def _silent(self, index: int) -> bool:
        return self.misbehaviour is Misbehaviour.NEVER_ANSWER or (
            self.misbehaviour is Misbehaviour.STALL_FIRST and index == 1
        )

    def _intercept(self, conn: socket.socket) -> bool:
        if self.misbehaviour is Misbehaviour.GARBAGE_HANDSHAKE:
            conn.sendall(_garbage(4096))
            return True
        return False

    def _report(self, conn: socket.socket, *, verbose: bool, fmt: str) -> None:
        if self.misbehaviour is Misbehaviour.NONE and self.replay_chunks is None:
            super()._report(conn, verbose=verbose, fmt=fmt)
            return
        state = self._next_state()
        if self.misbehaviour is Misbehaviour.EXTRA_OK:
            conn.sendall(b"OK\nOK\n")
        if self.misbehaviour is Misbehaviour.GARBAGE:
            conn.sendall(_garbage(64 * 1024))
            return
        if self.misbehaviour is Misbehaviour.HUGE:
            self._send_huge(conn)
            return
        started = time.monotonic()
        if self.replay_chunks is not None:
            head, tail = self.replay_chunks()
            self._send(conn, head)
            self._pause(state.collection_delay_seconds)
            self._send(conn, tail)
            return
        if fmt == "json":
            self._pause(state.collection_delay_seconds)
            body = render_json(state, elapsed=time.monotonic() - started)
            if self.misbehaviour is Misbehaviour.TRUNCATED_JSON:
                body = body[: len(body) // 2]
            self._send(conn, body)
            return
        head, _ = render_text_chunks(state, verbose=verbose, elapsed=0.0)
        self._send(conn, head)
        self._pause(state.collection_delay_seconds)
        _, tail = render_text_chunks(state, verbose=verbose, elapsed=time.monotonic() - started)
        if self.misbehaviour is Misbehaviour.CLOSE_MID_REPORT:
            self._send(conn, tail[: len(tail) // 2])
            return
        self._send(conn, tail)

    def _send(self, conn: socket.socket, text: str) -> None:
        if self.misbehaviour is not Misbehaviour.DRIP:
            super()._send(conn, text)
            return
        data = text.encode()
        for i in range(len(data)):
            if self._stop.is_set():
                return
            conn.sendall(data[i : i + 1])
            self._stop.wait(self.drip_seconds)

    def _send_huge(self, conn: socket.socket) -> None:
        line = b"  Rank 1 -- GPU 0 managed by process 4100 on node 10.0.0.11\n"
        block = line * (65536 // len(line))
        sent = 0
        # (the conversation's 0.2 s timeout would cut the reply short, as a clean close, when a
        # loaded machine's client falls behind: a send waits for the client as long as it reads)
        conn.settimeout(30.0)
        conn.sendall(b"NCCL version 2.29.7 compiled with CUDA 13.0\n")
        while sent < self.huge_bytes and not self._stop.is_set():
            conn.sendall(block)
            sent += len(block)


def _garbage(size: int) -> bytes:
    rng = random.Random(1234)
    return bytes(rng.getrandbits(8) for _ in range(size))



# --------------------------------------------------------------------------------------------
# Standalone use.


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.fake_ras",
        description="Simulated NCCL RAS endpoint (a fake: no NCCL involved).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (::1 for IPv6)")
    parser.add_argument("--port", type=int, default=28028, help="port (0 picks a free one)")
    parser.add_argument(
        "--scenario", default="healthy", choices=[e.value for e in Event],
        help="what happens to the simulated job",
    )
    parser.add_argument("--after", type=int, default=None, help="trigger after N STATUS queries")
    parser.add_argument(
        "--after-seconds", type=float, default=None, help="trigger after S seconds"
    )
    parser.add_argument("--ranks", default="5", help="culprit ranks, comma separated")
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--gpus-per-node", type=int, default=8)
    parser.add_argument("--version", default="2.29.7", help="emulated NCCL version")
    parser.add_argument(
        "--misbehave", default="none", choices=[m.value for m in Misbehaviour],
        help="emulate a broken server",
    )
    parser.add_argument("--replay", default=None, help="serve this captured reply verbatim")
    args = parser.parse_args(argv)
    shape = JobShape(nodes=args.nodes, gpus_per_node=args.gpus_per_node, version=args.version)
    scenario_fn = scenario(
        args.scenario,
        shape=shape,
        after_queries=args.after,
        after_seconds=args.after_seconds,
        culprit_ranks=tuple(int(r) for r in args.ranks.split(",") if r),
    )
    server = FakeRasServer(
        scenario_fn,
        host=args.host,
        port=args.port,
        misbehaviour=args.misbehave,
        replay_chunks=replay(args.replay) if args.replay else None,
    )
    server.start()
    print(
        f"SIMULATED NCCL RAS endpoint (fake, NCCL {args.version} emulated) listening on "
        f"{server.address}, scenario {args.scenario}",
        flush=True,
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
