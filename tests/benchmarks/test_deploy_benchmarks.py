"""Deployment costs: how long the Prolog and Epilog take, and what opening a job file with
the job user's rights costs against a plain open. Figures are recorded in the benchmark table,
never asserted."""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

import pytest

from monitor.slurm.context import PatternFields, expand_pattern, parse_listpids
from monitor.sources.user_file import UserIdentity, open_user_file
from tests.benchmarks.report import record
from tests.deploy.scripts import EPILOG, PROLOG, job_env, kill_quietly, make_node, run_like_slurmd

pytestmark = pytest.mark.benchmark


def _median_ms(samples: list[float]) -> str:
    return f"median {statistics.median(samples) * 1e3:.1f} ms, max {max(samples) * 1e3:.1f} ms"


def test_prolog_and_epilog_duration(tmp_path: Path) -> None:
    """Prolog (detached start + file_sd) and Epilog (SIGTERM, wait, cleanup) wall times."""
    node = make_node(tmp_path)
    prolog, epilog = [], []
    try:
        for job in range(100, 110):
            prolog.append(run_like_slurmd(PROLOG, job_env(node, str(job))).seconds)
            epilog.append(run_like_slurmd(EPILOG, job_env(node, str(job), "epilog_slurmd")).seconds)
    finally:
        for started in node.started():
            kill_quietly(int(started["pid"]))
    record("deploy", f"prolog wall time ({len(prolog)} runs)", _median_ms(prolog))
    record(
        "deploy",
        f"epilog wall time ({len(epilog)} runs, fake sidecar exits on SIGTERM)",
        _median_ms(epilog),
    )


@pytest.mark.skipif(os.geteuid() != 0, reason="opening as another user needs root")
def test_open_as_user_cost() -> None:
    """Per-open cost of the as_user (per-thread fsuid) and nofollow strategies, as a ratio
    to a plain open in the same process."""
    root = Path(tempfile.mkdtemp(prefix="rankwatch-bench-"))
    root.chmod(0o755)
    path = root / "slurm-1.out"
    path.write_text("x\n")
    path.chmod(0o644)
    nobody = UserIdentity.lookup(65534)
    timings: dict[str, float] = {}
    for strategy, user in (("direct", None), ("as_user", nobody), ("nofollow", nobody)):
        runs = 300
        start = time.perf_counter()
        for _ in range(runs):
            open_user_file(str(path), user, strategy).close()
        timings[strategy] = (time.perf_counter() - start) / runs
    base = timings["direct"]
    for strategy, seconds in timings.items():
        ratio = seconds / base
        record(
            "deploy", f"open_user_file[{strategy}]", f"{seconds * 1e6:.0f} us ({ratio:.1f}x direct)"
        )
    path.unlink()
    root.rmdir()


def test_pattern_and_listpids_parsing_speed() -> None:
    """Pure helpers: pattern expansion and listpids parsing per call."""
    fields = PatternFields(job_id=123456, user="alice", job_name="train", node_name="gpu017")
    runs = 20000
    start = time.perf_counter()
    for task in range(runs):
        expand_pattern("%x-%j-%N-%4t.err", fields, "/home/alice/run")
        del task
    expand_us = (time.perf_counter() - start) / runs * 1e6
    text = "PID JOBID STEPID LOCALID GLOBALID\n" + "".join(
        f"{1000 + i} 123456 0 {i % 8} {i}\n" for i in range(64)
    )
    start = time.perf_counter()
    for _ in range(2000):
        parse_listpids(text)
    parse_us = (time.perf_counter() - start) / 2000 * 1e6
    record("deploy", "expand_pattern per call", f"{expand_us:.1f} us")
    record("deploy", "parse_listpids (64 rows) per call", f"{parse_us:.0f} us")
