"""Benchmark: triage of 128 ranks' flight-recorder dumps and logs together.

Run by hand:
    python -m pytest tests/benchmarks/bench_triage_dumps.py -m benchmark
Each rank's dump holds RW_BENCH_FR_ENTRIES entries (default 2000, NCCL's default ring size)
with an 8-frame stack each, built from the entries of a real torch 2.13 dump
(tests/data/flight_recorder); rank 77 never enters the last collective. Each rank's log is
RW_BENCH_FR_LOG_BYTES (default 1 MiB) of realistic noise ending in the watchdog timeouts.
Figures are recorded in the benchmark table with the time of `pickle.load` of the same dumps (no checks, no typing)
as the reference; nothing asserts a time.
"""

from __future__ import annotations

import copy
import os
import pickle
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from monitor.model import Category
from monitor.triage.analysis import diagnose
from monitor.triage.reader import read_inputs
from tests.benchmarks.bench_triage import FILES, STRAGGLER, _write_job
from tests.benchmarks.report import progress, record

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "flight_recorder" / \
    "gloo-skip-allreduce" / "fr_rank_0"


def _dump(rank: int, entries: int, template: dict[str, Any]) -> bytes:
    base = template["entries"][-1]
    out = copy.deepcopy(template)
    out["pg_config"] = {"0": {"name": "0", "desc": "default_pg",
                              "ranks": str(list(range(FILES)))}}
    last = entries - 1 if rank == STRAGGLER else entries
    rows = []
    for seq in range(max(1, last - entries + 1), last + 1):
        entry = dict(base)
        entry.update(collective_seq_id=seq, record_id=seq, op_id=seq,
                     profiling_name="nccl:all_reduce" if seq % 3 else "nccl:all_gather",
                     state="completed" if seq < entries else "started",
                     frames=[{"filename": f"/opt/train/lib/python3.11/site-packages/pkg/mod{k}.py",
                              "line": 100 + k, "name": f"step_{k}"} for k in range(8)])
        rows.append(entry)
    out["entries"] = rows
    out["pg_status"] = {"0": {"last_enqueued_collective": last, "last_started_collective": last,
                              "last_completed_collective": min(last, entries - 1)}}
    return pickle.dumps(out, protocol=2)


@pytest.mark.benchmark
@pytest.mark.timeout(1800)
def test_triage_of_128_ranks_dumps_and_logs(tmp_path: Path) -> None:
    entries = int(os.environ.get("RW_BENCH_FR_ENTRIES", "2000"))
    log_bytes = int(os.environ.get("RW_BENCH_FR_LOG_BYTES", str(1 << 20)))
    template = pickle.loads(FIXTURE.read_bytes())  # a committed, trusted fixture
    root = tmp_path / "job"
    (root / "dumps").mkdir(parents=True)
    try:
        (root / "logs").mkdir()
        progress(f"triage with dumps: writing {FILES} logs and {FILES} dumps")
        _write_job(root / "logs", log_bytes * FILES)
        for rank in range(FILES):
            (root / "dumps" / f"nccl_trace_rank_{rank}").write_bytes(
                _dump(rank, entries, template))
        dump_bytes = sum(p.stat().st_size for p in (root / "dumps").iterdir())
        logs = sum(p.stat().st_size for p in (root / "logs").iterdir())
        started = time.perf_counter()
        for path in (root / "dumps").iterdir():
            pickle.loads(path.read_bytes())
        plain = time.perf_counter() - started
        jobs = min(os.cpu_count() or 1, 8)
        started = time.perf_counter()
        scans, problems, _ = read_inputs([str(root)], jobs=jobs)
        diagnosis = diagnose(scans, problems)
        wall = time.perf_counter() - started
        started = time.perf_counter()
        dump_scans, _, _ = read_inputs([str(root / "dumps")], jobs=jobs)
        diagnose(dump_scans, [])
        dumps_only = time.perf_counter() - started
        assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.COLLECTIVE_DESYNC,
                                                                 (STRAGGLER,))
        record(
            "triage with dumps",
            f"{FILES} dumps ({dump_bytes / 2**20:.1f} MiB, {entries} entries each) + {FILES} "
            f"logs ({logs / 2**20:.0f} MiB), jobs={jobs}: wall",
            f"{wall:.2f} s",
            "<= 5 s",
        )
        record(
            "triage with dumps",
            "dumps alone",
            f"{dumps_only:.2f} s ({dumps_only / plain:.1f}x the reference)",
        )
        record(
            "triage with dumps",
            "reference: plain pickle.loads of the same dumps (no checks)",
            f"{plain:.2f} s",
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
