"""Benchmark: triage of one large log file (225 MB by default), read in pieces by several
worker processes, against `grep -c` on the same file and against the one-process reader.

Run by hand:
    python -m pytest tests/benchmarks/bench_triage_one_file.py -m benchmark
RW_BENCH_ONE_FILE_BYTES sets the size. Figures are recorded in the benchmark table; nothing
asserts a time.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from monitor.triage.analysis import diagnose
from monitor.triage.reader import read_inputs
from tests.benchmarks.bench_triage import _noise_block
from tests.benchmarks.report import progress, record
from tests.logformats import BASE, watchdog_timeout

# Lines that pass the pre-filter without being failures (1 % of the lines by default,
# RW_BENCH_ONE_FILE_HITS): they cost the extractor, as in a real log.
HITS = [
    "requesting GET https://huggingface.co/x. Retrying in 1s [Retry 1/5].",
    "[rank3]:[W1124 10:01:01.123 ProcessGroupNCCL.cpp:4561] Warning: TORCH_NCCL_AVOID_RECORD_"
    "STREAMS is the default now, this environment variable is thus deprecated. (function "
    "operator())",
    "wandb: WARNING Connection to the server is slow, retrying",
    "UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed "
    "explicitly; an error will be raised in a future release",
]


def _with_hits(block: str, rng: random.Random, fraction: float) -> str:
    lines = block.splitlines()
    for i in range(len(lines)):
        if rng.random() < fraction:
            lines[i] = rng.choice(HITS)
    return "\n".join(lines) + "\n"


def _write(path: Path, size: int) -> None:
    rng = random.Random(11)
    fraction = float(os.environ.get("RW_BENCH_ONE_FILE_HITS", "0.01"))
    blocks = [_with_hits(_noise_block(rank, rng, 4000), rng, fraction).encode()
              for rank in range(8)]
    written = 0
    with path.open("wb") as out:
        while written < size:
            block = blocks[written // len(blocks[0]) % len(blocks)]
            out.write(block)
            written += len(block)
        out.write((watchdog_timeout(3, 4242, BASE) + "\n").encode())


def _grep(args: list[str], path: Path) -> float | None:
    if shutil.which("grep") is None:
        return None
    started = time.perf_counter()
    subprocess.run(["grep", "-c", *args, str(path)], stdout=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


@pytest.mark.benchmark
@pytest.mark.timeout(1800)
def test_triage_of_one_large_file(tmp_path: Path) -> None:
    size = int(os.environ.get("RW_BENCH_ONE_FILE_BYTES", str(225 * 10**6)))
    path = tmp_path / "rank0.log"
    _write(path, size)
    _grep(["x"], path)  # warm the page cache for everyone alike
    grep_one = _grep(["Watchdog caught"], path)
    jobs = min(os.cpu_count() or 1, 8)
    results = {}
    for label, n in (("one process", 1), (f"{jobs} processes", jobs)):
        progress(f"one file: triage, {label}")
        started = time.perf_counter()
        scans, problems, _ = read_inputs([str(path)], jobs=n)
        diagnosis = diagnose(scans, problems)
        results[label] = (time.perf_counter() - started, diagnosis)
    lines = results["one process"][1].inputs.lines
    assert results[f"{jobs} processes"][1].inputs.lines == lines
    assert results[f"{jobs} processes"][1].events == results["one process"][1].events
    share = 100 * float(os.environ.get("RW_BENCH_ONE_FILE_HITS", "0.01"))
    what = (
        f"one file, {size / 1e6:,.0f} MB, {lines:,} lines ({share:g} % pre-filter hits), "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    if grep_one is not None:
        record(
            "triage one file", "reference: grep -c 'Watchdog caught' on the same file",
            f"{grep_one:.2f} s",
        )
    for label, (wall, _d) in results.items():
        ratio = f"; {wall / grep_one:.1f}x grep -c" if grep_one is not None else ""
        record(
            "triage one file",
            f"{what}: triage, {label}",
            f"{wall:.2f} s = {lines / wall:,.0f} lines/s{ratio}",
            ">= 300,000 lines/s",
        )
