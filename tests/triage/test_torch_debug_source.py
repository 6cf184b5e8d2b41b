"""The torch_debug source against a real job: torchrun, 2 gloo ranks, each with torch 2.13's
debug worker server on loopback; rank 1 skips an all-reduce. Asked live, the servers' stacks
and flight-recorder buffers name rank 1 as the rank that never entered, and show where each
rank's code is. A port nobody listens on is a fault observation, not an exception."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from monitor.model import SourceFault
from monitor.sources.torch_debug import (
    DebugSnapshot,
    TorchDebugSource,
    WorkerEndpoint,
    endpoints_for,
    post,
)

ROOT = Path(__file__).resolve().parents[2]
JOB = Path(__file__).resolve().parent / "debug_server_job.py"


def _free_pair() -> int:
    for _ in range(50):
        with socket.socket() as a:
            a.bind(("127.0.0.1", 0))
            base = int(a.getsockname()[1])
        if base >= 65535:
            continue
        try:
            with socket.socket() as b, socket.socket() as c:
                b.bind(("127.0.0.1", base))
                c.bind(("127.0.0.1", base + 1))
            return base
        except OSError:
            continue
    raise RuntimeError("no two free consecutive ports")


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    ready = tmp_path_factory.mktemp("ready")
    base = _free_pair()
    env = {**os.environ, "DBG_WORKER_BASE": str(base), "DBG_READY_DIR": str(ready),
           "DBG_SKIP_RANK": "1", "TORCH_FR_BUFFER_SIZE": "64", "PYTHONPATH": str(ROOT)}
    log = (tmp_path_factory.mktemp("log") / "job.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "torch.distributed.run", "--standalone",
                             "--nproc-per-node", "2", str(JOB)], env=env, stdout=log,
                            stderr=subprocess.STDOUT, cwd=ROOT, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and len(list(ready.iterdir())) < 2:
            assert proc.poll() is None, "the job ended early"
            time.sleep(0.2)
        assert len(list(ready.iterdir())) == 2
        time.sleep(1.0)  # rank 0 is inside the all-reduce by now
        yield base
    finally:
        for marker in ready.iterdir():  # the workers run in sessions of their own
            with contextlib.suppress(OSError, ValueError):
                os.kill(int(marker.read_text()), signal.SIGKILL)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        log.close()


@pytest.mark.timeout(180)
def test_the_live_servers_name_the_rank_that_never_entered(job: int) -> None:
    assert post(WorkerEndpoint(0, "127.0.0.1", job), "ping", 5.0) == b"pong"
    source = TorchDebugSource(endpoints_for([0, 1], "127.0.0.1", job), timeout_seconds=10)
    out = source.query()
    snapshot = next(o for o in out if isinstance(o, DebugSnapshot))
    assert not any(isinstance(o, SourceFault) for o in out)
    picture = snapshot.picture
    assert picture.fr is not None and picture.fr.primary is not None
    verdict = picture.fr.primary
    assert (verdict.verdict, verdict.seq, verdict.op) == ("never_entered", 4, "all_reduce")
    assert verdict.never_entered == (1,) and verdict.waiting == (0,)
    where = {a.rank: a.where for a in picture.answers}
    assert where[1] is not None and where[1].file.endswith("debug_server_job.py")
    assert where[0] is not None and where[0].file.endswith("debug_server_job.py")
    rank0_frames = [f.function for s in picture.answers[0].stacks for f in s.frames]
    assert "all_reduce" in rank0_frames
    assert any("never entered collective #4" in s for s in picture.sentences)


def test_a_rank_that_does_not_answer_is_a_fault_not_an_exception() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nobody listens there
    source = TorchDebugSource([WorkerEndpoint(3, "127.0.0.1", port)], timeout_seconds=2)
    out = source.query()
    snapshot = next(o for o in out if isinstance(o, DebugSnapshot))
    assert snapshot.picture.silent == (3,) and snapshot.picture.fr is None
    faults = [o for o in out if isinstance(o, SourceFault)]
    assert faults and faults[0].source == "torch_debug" and "rank 3" in faults[0].message


@pytest.mark.timeout(180)
def test_a_suspicion_asks_the_live_servers_once_and_the_incident_gets_their_word(
    job: int,
) -> None:
    """In the daemon: a suspicion makes the on-suspicion source ask the local ranks' servers
    (ranks from the process table, port = base + local rank); the answer becomes evidence the
    incident layer carries on the page. A second suspicion within the gap asks nothing."""
    import asyncio

    from monitor.incidents import IncidentLayer, LiveEvidence
    from monitor.model import (
        Category,
        ProcessInfo,
        ProcessSnapshot,
        ProcRole,
        ProcState,
        Severity,
        Suspicion,
        Transition,
    )
    from monitor.settings import IncidentSettings
    from monitor.sources.torch_debug import TorchDebugOnSuspicion

    def rank(r: int) -> ProcessInfo:
        return ProcessInfo(
            1000 + r, 1, ProcRole.RANK, r, r, None, "python", ProcState.SLEEPING, 1.0, 1, 1,
            True, True,
        )  # fmt: skip

    table = ProcessSnapshot(0.0, (rank(0), rank(1)), 1, 1)
    source = TorchDebugOnSuspicion(job, lambda: table, timeout_seconds=10, min_gap_seconds=60)
    emitted: list[object] = []

    async def scenario() -> None:
        task = asyncio.ensure_future(source.run(emitted.append))
        await asyncio.sleep(0.1)
        source.on_observation(Suspicion(time.monotonic(), (1,), "progress stalled", "progress"))
        source.on_observation(Suspicion(time.monotonic(), (1,), "again", "progress"))
        deadline = time.monotonic() + 60
        while not any(isinstance(o, LiveEvidence) for o in emitted):
            assert time.monotonic() < deadline, emitted
            await asyncio.sleep(0.2)
        task.cancel()

    asyncio.run(scenario())
    assert source.queries == 1
    evidence = next(o for o in emitted if isinstance(o, LiveEvidence))
    assert any("never entered collective #4" in s for s in evidence.sentences)

    incidents = IncidentLayer(IncidentSettings(settle_seconds=0.0))
    incidents.observe(evidence, 1.0)
    stall = Transition(
        "progress", "ProgressStalled", True, Severity.WARNING, Category.UNDETERMINED, {},
        "job progress stalled",
    )  # fmt: skip
    (page,) = incidents.judge(stall, 2.0) + incidents.tick(2.0)
    assert any("never entered" in s for s in page.evidence["torch_debug"])  # type: ignore[union-attr]
