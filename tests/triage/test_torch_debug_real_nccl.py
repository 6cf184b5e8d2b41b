"""The torch_debug source against what torch's debug servers really answered on an NCCL job.

tests/data/nccl_gpu/debug_server/debug/ holds the replies of a real run (torch 2.11, NCCL
2.28.9, H100; tests/data/nccl_gpu/README.md says how it was made): four ranks opted in with
`start_debug_server(worker_port=29700 + local_rank)`, rank 2 then looped in `time.sleep` outside
any collective, and every rank's server was asked before the fault and 15 s and 45 s after it.
Here each rank's replies are served again by a local HTTP server, one per rank, and the real
source asks them as it would ask the job.

What that run taught: on NCCL `fr_trace_json` answers the CPU recorder's buffer, empty (no
`entries` key at all); NCCL's own buffer is another handler, `dump_nccl_trace_json`, which the
servers list. And each rank's stacks hold DataLoader feeder threads besides the main one.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from monitor.model import SourceFault
from monitor.parse.flight_recorder import decode_dump
from monitor.sources.torch_debug import FR_HANDLERS, DebugSnapshot, TorchDebugSource, WorkerEndpoint

DATA = Path(__file__).resolve().parent.parent / "data" / "nccl_gpu"
REPLIES = DATA / "debug_server" / "debug"
RANKS = (0, 1, 2, 3)


def _captured(moment: str, rank: int, handler: str) -> tuple[int, bytes] | None:
    """(status, body) as the rank's server answered, or None where it was not asked."""
    name = f"handler_{handler}" if handler else "handler"
    path = REPLIES / f"{moment}-rank{rank}-{name}.txt"
    if not path.exists():
        return None
    header, _, body = path.read_bytes().partition(b"\n")
    return int(header.split()[4]), body  # "# POST /handler/x status 200 at …"


@contextlib.contextmanager
def _servers(answer: dict[int, dict[str, tuple[int, bytes]]]) -> Iterator[list[WorkerEndpoint]]:
    """One HTTP server per rank answering `POST /handler/<name>` from `answer`; any other
    handler is answered as torch's server answers an unknown one (404)."""
    servers: list[ThreadingHTTPServer] = []
    endpoints: list[WorkerEndpoint] = []
    for rank, replies in answer.items():

        class Handler(BaseHTTPRequestHandler):
            table = replies

            def do_POST(self) -> None:
                name = self.path.removeprefix("/handler/")
                status, body = self.table.get(
                    name, (404, f"Handler {name} not found".encode()))
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        endpoints.append(WorkerEndpoint(rank, "127.0.0.1", server.server_address[1]))
    try:
        yield endpoints
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


def _as_captured(moment: str) -> dict[int, dict[str, tuple[int, bytes]]]:
    out: dict[int, dict[str, tuple[int, bytes]]] = {}
    for rank in RANKS:
        out[rank] = {}
        for handler in ("ping", "dump_traceback", "fr_trace_json"):
            got = _captured(moment, rank, handler)
            assert got is not None, (moment, rank, handler)
            out[rank][handler] = got
    return out


def test_the_real_servers_list_nccls_own_recorder_beside_the_empty_cpu_one() -> None:
    """The facts the source is built on, read from the capture itself."""
    listed = _captured("after15", 0, "")  # GET /handler/
    assert listed is not None and listed[0] == 200
    handlers = json.loads(listed[1])
    assert set(FR_HANDLERS) <= set(handlers)
    for rank in RANKS:
        got = _captured("after15", rank, "fr_trace_json")
        assert got is not None and got[0] == 200
        assert "entries" not in json.loads(got[1])


@pytest.mark.parametrize("moment", ["after15", "after45"])
def test_the_stuck_ranks_main_thread_is_named_not_a_feeder_thread(moment: str) -> None:
    """Asked during the hang: rank 2's main thread is in the job's sleep loop (line 59), the
    others wait on their GPU in `loss.item()` (line 72). The DataLoader feeder threads each
    rank also runs (in threading.py) are not where the job is. The empty CPU recorder is an
    empty buffer, not a fault."""
    with _servers(_as_captured(moment)) as endpoints:
        out = TorchDebugSource(endpoints, timeout_seconds=5).query()
    assert not [o for o in out if isinstance(o, SourceFault)]
    (snapshot,) = [o for o in out if isinstance(o, DebugSnapshot)]
    picture = snapshot.picture
    assert all(a.error is None for a in picture.answers), [a.error for a in picture.answers]
    where = {a.rank: a.where for a in picture.answers}
    assert all(w is not None and w.file.endswith("train_nccl.py") for w in where.values())
    lines = {r: w.line for r, w in where.items() if w is not None}
    assert lines == {0: 72, 1: 72, 2: 59, 3: 72}
    assert all(a.fr is not None and a.fr.entries == () for a in picture.answers)
    assert not any("threading.py" in s for s in picture.sentences), picture.sentences


def test_before_the_fault_every_rank_is_stepping_in_the_same_place() -> None:
    with _servers(_as_captured("before")) as endpoints:
        out = TorchDebugSource(endpoints, timeout_seconds=5).query()
    (snapshot,) = [o for o in out if isinstance(o, DebugSnapshot)]
    assert {a.where.file.rsplit("/", 1)[-1] for a in snapshot.picture.answers if a.where} == {
        "train_nccl.py"
    }


def test_nccls_buffer_is_asked_too_and_names_the_rank_that_never_entered() -> None:
    """This capture did not ask `dump_nccl_trace_json` (the handler it lists; the third
    round's did, below). For a rank that never entered, its answer is stood in for here by the
    flight-recorder dumps NCCL's watchdog wrote in the same harness's `hang` run
    (tests/data/nccl_gpu/hang), decoded and written as JSON, the form that handler serves: the
    source must read it beside the empty CPU buffer and name rank 2."""
    served = _as_captured("after15")
    for rank in RANKS:
        dump = decode_dump((DATA / "hang" / f"fr_{rank}").read_bytes())
        served[rank]["dump_nccl_trace_json"] = (200, json.dumps(dump).encode())
    with _servers(served) as endpoints:
        out = TorchDebugSource(endpoints, timeout_seconds=5).query()
    (snapshot,) = [o for o in out if isinstance(o, DebugSnapshot)]
    fr = snapshot.picture.fr
    assert fr is not None and fr.primary is not None
    verdict = fr.primary
    assert (verdict.verdict, verdict.never_entered, verdict.op) == (
        "never_entered", (2,), "all_reduce")
    assert verdict.waiting == (0, 1, 3)
    assert any("never entered collective #175" in s for s in snapshot.picture.sentences)


def test_a_server_error_on_one_buffer_keeps_the_other_and_says_so() -> None:
    """A 500 from rank 0's NCCL handler is reported on rank 0, whose stacks still count; its
    empty CPU buffer is no evidence that it entered nothing: rank 0 is unknown, not blamed,
    and the others' buffers still name rank 2."""
    served = _as_captured("after15")
    for rank in RANKS:
        dump = decode_dump((DATA / "hang" / f"fr_{rank}").read_bytes())
        served[rank]["dump_nccl_trace_json"] = (200, json.dumps(dump).encode())
    served[0]["dump_nccl_trace_json"] = (500, b"internal error")
    with _servers(served) as endpoints:
        out = TorchDebugSource(endpoints, timeout_seconds=5).query()
    (snapshot,) = [o for o in out if isinstance(o, DebugSnapshot)]
    answers = {a.rank: a for a in snapshot.picture.answers}
    assert answers[0].error is not None and "HTTP 500" in answers[0].error
    assert answers[0].where is not None and answers[0].where.line == 72
    assert snapshot.picture.silent == ()
    fr = snapshot.picture.fr
    assert fr is not None and fr.primary is not None
    assert fr.primary.never_entered == (2,) and fr.primary.waiting == (1, 3)
    assert any("rank(s) 0: the flight recorder holds no collectives" in s
               for s in snapshot.picture.sentences), snapshot.picture.sentences


def _desync_replies(moment: str) -> dict[int, dict[str, tuple[int, bytes]]]:
    """The third round's `size_desync` run (tests/data/nccl_gpu/README.md), whose capture also
    asked `dump_nccl_trace_json`: NCCL's own buffer, as the servers really answered it."""
    out: dict[int, dict[str, tuple[int, bytes]]] = {}
    for rank in RANKS:
        out[rank] = {}
        for handler in ("ping", "dump_traceback", "fr_trace_json", "dump_nccl_trace_json"):
            path = DATA / "size_desync" / "debug" / f"{moment}-rank{rank}-handler_{handler}.txt"
            header, _, body = path.read_bytes().partition(b"\n")
            out[rank][handler] = (int(header.split()[4]), body)
    return out


@pytest.mark.parametrize("moment", ["after10", "after25"])
def test_nccls_real_buffer_names_the_rank_that_ran_another_size(moment: str) -> None:
    """Asked while the ranks hung (before the watchdog's 40 s): NCCL's buffer holds the
    entries, the CPU one is empty; at the collective where they part, rank 3 ran a 4096-element
    AllReduce and ranks 0-2 DDP's bucket. Every rank's main thread waits at one line of the
    job's loop (`loss.item()` in the script as it ran)."""
    served = _desync_replies(moment)
    assert all("entries" not in json.loads(served[r]["fr_trace_json"][1]) for r in RANKS)
    with _servers(served) as endpoints:
        out = TorchDebugSource(endpoints, timeout_seconds=5).query()
    (snapshot,) = [o for o in out if isinstance(o, DebugSnapshot)]
    picture = snapshot.picture
    fr = picture.fr
    assert fr is not None and fr.primary is not None
    assert (fr.primary.verdict, fr.primary.blamed) == ("size_mismatch", (3,))
    sizes = {rank: size for rank, _, size in fr.primary.sides}
    assert sizes[3] != sizes[0] == sizes[1] == sizes[2]
    where = {a.rank: a.where for a in picture.answers if a.where is not None}
    assert sorted(where) == list(RANKS)
    assert {(w.file.rsplit("/", 1)[-1], w.function) for w in where.values()} == {
        ("fault_job.py", "main")}
    assert len({w.line for w in where.values()}) == 1  # the one line all four wait at


def test_a_stack_cut_while_importing_names_a_file_not_the_import_machinery() -> None:
    """Before the fault, rank 0's stack was cut at faulthandler's depth inside torch's
    imports (all of it library frames): the frame shown is a real file, not `<frozen …>`."""
    with _servers(_desync_replies("before")) as endpoints:
        out = TorchDebugSource(endpoints, timeout_seconds=5).query()
    (snapshot,) = [o for o in out if isinstance(o, DebugSnapshot)]
    where = {a.rank: a.where for a in snapshot.picture.answers}
    assert where[0] is not None and not where[0].file.startswith("<frozen")
    assert where[0].file.endswith(".py")
