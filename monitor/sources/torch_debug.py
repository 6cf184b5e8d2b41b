"""torch debug server source: on a suspected stall, ask every rank's debug worker server which
collective it is in and where its Python threads are — without ptrace.

A job opts in with one line per rank (torch 2.13):

    torch.distributed.debug.start_debug_server(worker_port=29700 + local_rank)

(rank 0's frontend also needs `tabulate` and `jinja2` installed: without them the call fails
on rank 0). A job that only wants the per-rank servers, without the frontend, may start them
directly: `torch._C._distributed_c10d._WorkerServer("::", 29700 + local_rank)` (private API).
A job that does not opt in loses nothing: the ports refuse and the source reports the ranks as
not answering, once, as a fault observation.

Each query is `POST /handler/dump_traceback`, `POST /handler/fr_trace_json` and
`POST /handler/dump_nccl_trace_json` on every rank's port, in parallel threads, each with a
deadline and a size cap (on an NCCL job the second is the CPU recorder's empty buffer and the
third holds the collectives; builds without NCCL answer it 404); the answers become a
`DebugSnapshot` observation with the joined picture (`monitor.parse.torch_debug`). Nothing here
raises past `query()`.
"""

from __future__ import annotations

import asyncio
import http.client
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from monitor.incidents import LiveEvidence
from monitor.model import Observation, ProcessSnapshot, ProcRole, SourceFault, Suspicion
from monitor.parse.torch_debug import LivePicture, RankAnswer, live_picture, rank_answer

SOURCE = "torch_debug"
# The flight-recorder buffers a rank may serve: torch's CPU recorder (gloo) and NCCL's.
FR_HANDLERS = ("fr_trace_json", "dump_nccl_trace_json")
MAX_REPLY_BYTES = 64 << 20
DEFAULT_TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True)
class WorkerEndpoint:
    """One rank's debug worker server."""

    rank: int
    host: str
    port: int


def endpoints_for(ranks: Sequence[int], host: str, base_port: int,
                  local_rank_of: Callable[[int], int] | None = None) -> tuple[WorkerEndpoint, ...]:
    """The endpoints of this node's ranks when the job used `base_port + local_rank`."""
    local = local_rank_of or (lambda r: r)
    return tuple(WorkerEndpoint(r, host, base_port + local(r)) for r in ranks)


@dataclass(frozen=True, slots=True)
class DebugSnapshot(Observation):
    """What the ranks' debug servers said at `at`."""

    picture: LivePicture
    seconds: float


class TorchDebugSource:
    """Queries the debug worker servers of the given ranks; `query()` is called on suspicion,
    not on a timer (every query makes every rank serialise its stacks and buffer)."""

    def __init__(self, endpoints: Sequence[WorkerEndpoint], *,
                 timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
                 clock: Callable[[], float] = time.time) -> None:
        self.endpoints = tuple(endpoints)
        self.timeout = timeout_seconds
        self.clock = clock

    def query(self) -> list[Observation]:
        started = time.monotonic()
        at = self.clock()
        if not self.endpoints:
            return []
        with ThreadPoolExecutor(max_workers=min(16, len(self.endpoints))) as pool:
            answers = list(pool.map(self._ask, self.endpoints))
        picture = live_picture({a.rank: a for a in answers})
        out: list[Observation] = [DebugSnapshot(at, picture, time.monotonic() - started)]
        if picture.silent:
            errors = "; ".join(f"rank {a.rank}: {a.error}" for a in answers if a.error)
            out.append(SourceFault(at, SOURCE, "no_answer", errors[:500]))
        return out

    def _ask(self, endpoint: WorkerEndpoint) -> RankAnswer:
        try:
            stacks = post(endpoint, "dump_traceback", self.timeout)
        except OSError as exc:
            return rank_answer(endpoint.rank, None, None, error=_describe(exc))
        buffers: list[bytes] = []
        problems: list[str] = []
        for handler in FR_HANDLERS:
            try:
                buffers.append(post(endpoint, handler, self.timeout))
            except HandlerMissing:
                continue  # this build has no such recorder
            except OSError as exc:
                problems.append(f"flight recorder: {_describe(exc)}")
        return rank_answer(endpoint.rank, stacks.decode("utf-8", "replace"), buffers,
                           error="; ".join(problems) or None)


class HandlerMissing(OSError):
    """The server has no handler of that name (HTTP 404)."""


def post(endpoint: WorkerEndpoint, handler: str, timeout: float) -> bytes:
    """`POST /handler/<handler>`; raises OSError on any failure (refused, timeout, non-200,
    reply over the cap)."""
    conn = http.client.HTTPConnection(endpoint.host, endpoint.port, timeout=timeout)
    try:
        conn.request("POST", f"/handler/{handler}", body=b"",
                     headers={"Content-Length": "0"})
        reply = conn.getresponse()
        body = reply.read(MAX_REPLY_BYTES + 1)
        if reply.status == 404:
            raise HandlerMissing(f"no handler {handler}: {body[:200]!r}")
        if reply.status != 200:
            raise OSError(f"HTTP {reply.status} from {handler}: {body[:200]!r}")
        if len(body) > MAX_REPLY_BYTES:
            raise OSError(f"{handler} reply over {MAX_REPLY_BYTES >> 20} MiB")
        return body
    except http.client.HTTPException as exc:
        raise OSError(f"{handler}: {type(exc).__name__}: {exc}") from exc
    finally:
        conn.close()


def _describe(exc: OSError) -> str:
    return f"{type(exc).__name__}: {exc}"


__all__ = [
    "FR_HANDLERS",
    "DebugSnapshot",
    "HandlerMissing",
    "TorchDebugSource",
    "WorkerEndpoint",
    "endpoints_for",
    "post",
]


class TorchDebugOnSuspicion:
    """The live source in the daemon: when a detector suspects a stall, ask the local ranks'
    debug servers (`torch_debug.base_port` + local rank) once, at most every
    `min_gap_seconds`, off the event loop; the answers join the incident as evidence.
    Only for jobs that opted in (`base_port` set)."""

    name = SOURCE

    def __init__(
        self,
        base_port: int,
        process_table: Callable[[], ProcessSnapshot | None],
        *,
        host: str = "127.0.0.1",
        timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
        min_gap_seconds: float = 15.0,
    ) -> None:
        self.base_port = base_port
        self.process_table = process_table
        self.host = host
        self.timeout = timeout_seconds
        self.min_gap = min_gap_seconds
        self._asked: asyncio.Queue[Suspicion] | None = None
        self._last_at: float | None = None
        self.queries = 0

    def on_observation(self, obs: Observation) -> None:
        if not isinstance(obs, Suspicion) or self._asked is None:
            return
        if self._last_at is not None and obs.at - self._last_at < self.min_gap:
            return
        try:
            self._asked.put_nowait(obs)
        except asyncio.QueueFull:
            return  # a query is already asked for
        self._last_at = obs.at

    def endpoints(self) -> tuple[WorkerEndpoint, ...]:
        table = self.process_table()
        if table is None:
            return ()
        ranks = {
            p.rank: p.local_rank if p.local_rank is not None else p.rank
            for p in table.processes
            if p.role is ProcRole.RANK and p.rank is not None
        }
        return endpoints_for(sorted(ranks), self.host, self.base_port, ranks.__getitem__)

    async def run(self, emit: Callable[[Observation], None]) -> None:
        self._asked = asyncio.Queue(maxsize=1)
        while True:
            await self._asked.get()
            source = TorchDebugSource(
                self.endpoints(), timeout_seconds=self.timeout, clock=time.monotonic
            )
            self.queries += 1
            for obs in await asyncio.to_thread(source.query):
                emit(obs)
                if isinstance(obs, DebugSnapshot) and obs.picture.sentences:
                    emit(LiveEvidence(obs.at, SOURCE, obs.picture.sentences))
