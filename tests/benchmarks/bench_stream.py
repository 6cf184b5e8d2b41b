"""Benchmark: output-stream throughput (split + rank attribution + progress extraction).

Records lines/s over a generated log with NCCL INFO noise, and the ratio against `grep -c`
over the same file in the same run. Size: RW_BENCH_STREAM_BYTES (default 1 GiB).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from monitor.parse.progress import match_progress
from monitor.sources.stream import Attribution, LineSplitter, attribute
from tests.benchmarks.report import record

NOISE = [
    "gpu017:81234:81290 [3] NCCL INFO Channel 05/0 : 3[3] -> 4[4] via P2P/CUMEM/read\n",
    "gpu017:81234:81290 [3] NCCL INFO Connected all rings, use ring PXN 0 GDR 1\n",
    "[rank3]:[W1016 03:31:38.928019586 ProcessGroupNCCL.cpp:1250] Warning: some user warning\n",
    "INFO:root:loading shard 17 of 128 from /data/shards\n",
]


def make_log(path: Path, size: int) -> int:
    block_lines = []
    for i in range(1000):
        block_lines.append(NOISE[i % len(NOISE)])
        if i % 50 == 0:
            block_lines.append(
                f"[rank{i % 8}]: iteration {i:8d}/  100000 | consumed samples: {i * 64:12d} | elapsed time per iteration (ms): 812.3 |\n"
            )
        if i % 97 == 0:
            block_lines.append(f" 12%|#2        | {i}/8000 [01:02<07:40, 15.3it/s]\r")
    block = "".join(block_lines).encode()
    lines_per_block = "".join(block_lines).replace("\r", "\n").count("\n")
    written = lines = 0
    with path.open("wb") as fh:
        while written < size:
            fh.write(block)
            written += len(block)
            lines += lines_per_block
    return lines


@pytest.mark.benchmark
def test_stream_throughput(tmp_path: Path) -> None:
    """Lines per second of the live stream path, and the ratio against grep -c."""
    size = int(os.environ.get("RW_BENCH_STREAM_BYTES", str(1 << 30)))
    path = tmp_path / "noise.log"
    expected = make_log(path, size)

    started = time.perf_counter()
    grep = subprocess.run(["grep", "-c", "", str(path)], capture_output=True, check=True)
    grep_seconds = time.perf_counter() - started

    splitter = LineSplitter(1_048_576)
    how = Attribution()
    lines = progress_lines = 0
    started = time.perf_counter()
    with path.open("rb", buffering=0) as fh:
        while chunk := fh.read(65536):
            for text in splitter.feed(chunk):
                line = attribute(text, how)
                lines += 1
                if match_progress(line.text) is not None:
                    progress_lines += 1
    ours = time.perf_counter() - started
    assert lines == expected
    rate = lines / ours
    record(
        "stream",
        f"split + attribute + progress, {size / 2**20:.0f} MiB, {lines:,} lines "
        f"({progress_lines:,} progress)",
        f"{ours:.2f} s = {rate:,.0f} lines/s",
        ">= 300,000 lines/s",
    )
    record(
        "stream",
        f"reference: grep -c on the same file ({int(grep.stdout)} lines)",
        f"{grep_seconds:.2f} s; ratio ours/grep = {ours / grep_seconds:.1f}x",
    )
