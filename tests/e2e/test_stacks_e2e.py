"""End to end: the real `rankwatch run` around a real 2-rank torchrun job (torch CPU build,
gloo, DDP, DataLoader with 2 workers per rank), with the real py-spy.

Each test starts `python -m monitor run --alert-log ... -- python -m torch.distributed.run
--standalone --nproc_per_node 2 tests/e2e/torch_job.py --mode ...` and reads the alert log.
The job writes its ranks' and workers' pids to a file, so faults can be aimed exactly.
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.e2e.watched_job import Record, WatchedJob

pytestmark = pytest.mark.e2e


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[Callable[..., WatchedJob]]:
    started: list[WatchedJob] = []

    def start(*job_args: str, env: dict[str, str] | None = None) -> WatchedJob:
        job = WatchedJob(tmp_path, *job_args, env=env)
        started.append(job)
        return job

    yield start
    for job in started:
        job.stop()


def firing(name: str) -> Callable[[Record], bool]:
    return lambda r: r["status"] == "firing" and r["alertname"] == name


def test_worker_blocked_in_getitem_is_named_with_its_frame(
    watched: Callable[..., WatchedJob],
) -> None:
    """Rank 1's DataLoader worker 0 blocks forever in __getitem__: DataloaderStalled names
    rank 1, that worker's pid and the __getitem__ frame, and lists rank 0 as waiting in a
    collective; the full dump is in the state directory."""
    job = watched("--mode", "stall_worker", "--steps", "100000", "--fault-step", "30")
    job.pids("worker", 1, count=2)
    record = job.wait_for(firing("DataloaderStalled"), timeout=150)
    assert record is not None, job.tail()
    evidence = record["evidence"]
    assert record["labels"]["rank"] == "1"
    assert record["culprit_ranks"] == [1]
    assert record["category"] == "dataloader_stall"
    assert evidence["worker_pid"] == job.worker_pid(rank=1, worker=0)
    assert evidence["frame"].endswith("SyntheticDataset.__getitem__")
    assert "torch_job.py:" in evidence["frame"]
    assert evidence["waiting_ranks"] == [0]
    assert evidence["victims"][0]["state"] == "in_collective"
    assert Path(evidence["dump_path"]).is_file()
    assert f"DataLoader worker {evidence['worker_pid']}" in record["summary"]


def test_stopped_rank_is_named_rank_stopped(watched: Callable[..., WatchedJob]) -> None:
    """Rank 1 SIGSTOPped mid-run: an alert names rank 1 with category rank_stopped."""
    job = watched("--mode", "healthy", "--steps", "1000000", "--item-seconds", "0.002")
    rank1 = job.pids("rank", 1)[0]
    job.wait_for_steps(20)
    os.kill(rank1, signal.SIGSTOP)
    try:
        record = job.wait_for(
            lambda r: r["status"] == "firing" and r["category"] == "rank_stopped", timeout=90
        )
    finally:
        os.kill(rank1, signal.SIGCONT)
    assert record is not None, job.tail()
    assert record["culprit_ranks"] == [1]
    assert "rank 1" in record["summary"]


def test_killed_rank_is_named_rank_dead_within_5_seconds(
    watched: Callable[..., WatchedJob],
) -> None:
    """Rank 1 SIGKILLed mid-run: a rank_dead alert names rank 1 within 5 s of the kill."""
    job = watched("--mode", "healthy", "--steps", "1000000", "--item-seconds", "0.002")
    rank1 = job.pids("rank", 1)[0]
    job.wait_for_steps(20)
    killed_at = time.time()
    os.kill(rank1, signal.SIGKILL)
    record = job.wait_for(
        lambda r: (
            r["status"] == "firing" and r["category"] == "rank_dead" and r["culprit_ranks"] == [1]
        ),
        timeout=30,
    )
    assert record is not None, job.tail()
    started = dt.datetime.fromisoformat(record["starts_at"].replace("Z", "+00:00")).timestamp()
    assert started - killed_at < 5.0
    assert "rank 1" in record["summary"]


def test_healthy_job_with_a_40s_checkpoint_raises_no_alert(
    watched: Callable[..., WatchedJob],
) -> None:
    """Rank 0 saves a checkpoint for 40 s mid-run while rank 1 waits in a barrier: the stacks
    show the save, the stall window is widened, and no alert is raised at all."""
    job = watched(
        "--mode", "checkpoint_40s", "--steps", "400", "--fault-step", "200",
        "--item-seconds", "0.002", "--checkpoint-seconds", "40",
    )  # fmt: skip
    assert job.proc.wait(timeout=240) == 0, job.tail()
    assert job.records() == [], job.tail()
    assert b"done 400 steps" in job.output.read_bytes()
    dumps = list((job.state_dir / "pyspy").glob("*.json"))
    saving = [p for p in dumps if "serialization.py" in p.read_text()]
    assert saving, "the save was never seen in a dump"


def test_missing_pyspy_is_said_once_and_the_job_runs_on(
    watched: Callable[..., WatchedJob],
) -> None:
    """With py-spy unavailable, rankwatch says so once, clearly, and the job still runs to
    completion under it with its own exit status."""
    job = watched(
        "--mode", "healthy", "--steps", "200", "--item-seconds", "0.002",
        env={"RANKWATCH_PYSPY_EXECUTABLE": "/nonexistent/py-spy"},
    )  # fmt: skip
    assert job.proc.wait(timeout=180) == 0, job.tail()
    output = job.output.read_text(errors="replace")
    assert output.count("pyspy_cannot_attach") == 1, output[-4000:]
    assert "pip install py-spy" in output
