"""Benchmarks: triage of many large log files, and live classification throughput.

Run by hand (1 GiB of logs by default):
    python -m pytest tests/benchmarks/bench_triage.py -m benchmark
RW_BENCH_TRIAGE_BYTES (e.g. 67108864) gives a smaller input. Figures are
recorded in the benchmark table, with ratios against reference runs in the same process; nothing here asserts a time.
"""

from __future__ import annotations

import os
import random
import resource
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from monitor.detectors.log_events import LogEventsDetector
from monitor.model import Category, OutputChunk, OutputLine
from monitor.parse.envelope import line_rank
from monitor.parse.log_patterns import PREFILTER_LITERALS
from monitor.triage.analysis import diagnose
from monitor.triage.reader import read_inputs
from tests.benchmarks.report import progress, record
from tests.logformats import (
    BASE,
    dump_signal_observed,
    failure_detected,
    megatron_iteration,
    watchdog_timeout,
)

FILES = 128
STRAGGLER = 77
SEQ = 123456

NOISE = [
    "gpu{n:03d}:{pid}:{tid} [{dev}] NCCL INFO Channel {c:02d}/0 : {r}[{dev}] -> {r2}[{dev}] via "
    "P2P/IPC/read",
    "gpu{n:03d}:{pid}:{tid} [{dev}] NCCL INFO Connected all rings, use ring PXN 0 GDR 1",
    "gpu{n:03d}:{pid}:{tid} [{dev}] NCCL INFO NCCL_IB_HCA set to mlx5_{dev}",
    "[rank{r}]:[I{md} 10:{m:02d}:{s:02d}.123456789 ProcessGroupNCCL.cpp:1001] [PG ID 0 PG GUID "
    "0(default_pg) Rank {r}] ProcessGroupNCCL initialization options: size: 128",
    " {p:3d}%|#####     | {i}/{t} [01:{s:02d}<02:00,  2.{s:02d}it/s]",
    "{it}",
    "{{'loss': 0.{s}225, 'grad_norm': 1.41, 'learning_rate': 6.5e-06, 'epoch': 0.03}}",
    "[rank{r}]: step {i} tokens/s 41234 mfu 0.41 data_time 0.003",
]
RARE = [
    "requesting GET https://huggingface.co/x. Retrying in 1s [Retry 1/5].",
    "UserWarning: TypedStorage is deprecated. It will be removed in the future.",
]


def _noise_block(rank: int, rng: random.Random, lines: int) -> str:
    out = []
    for i in range(lines):
        if rng.random() < 0.001:
            out.append(rng.choice(RARE))
            continue
        template = rng.choice(NOISE)
        out.append(template.format(
            n=rank // 8, pid=40000 + rank, tid=40100 + rank, dev=rank % 8, c=i % 32, r=rank,
            r2=(rank + 1) % FILES, md="304", m=i % 60, s=i % 60, p=i % 100, i=i, t=100000,
            it=megatron_iteration(i)))
    return "\n".join(out) + "\n"


def _write_job(root: Path, total_bytes: int) -> list[Path]:
    """128 rank files of realistic noise; at the end 127 ranks time out in collective SEQ and
    rank 77 reports last enqueued == last completed (it never entered)."""
    per_file = max(total_bytes // FILES, 4096)
    rng = random.Random(7)
    paths = []
    for rank in range(FILES):
        block = _noise_block(rank, rng, 4000).encode()
        path = root / f"rank{rank:03d}.log"
        with open(path, "wb") as out:
            written = 0
            while written < per_file:
                piece = block[: per_file - written] if per_file - written < len(block) else block
                cut = piece.rfind(b"\n") + 1 or len(piece)
                out.write(piece[:cut])
                written += cut
            if rank == STRAGGLER:
                tail = dump_signal_observed(rank, 0, SEQ - 1, SEQ - 1, BASE)
            else:
                tail = [watchdog_timeout(rank, SEQ, BASE), failure_detected(rank, SEQ, SEQ,
                                                                            SEQ - 1, BASE)]
            out.write(("\n".join(tail) + "\n").encode())
        paths.append(path)
    return paths


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _grep_seconds(args: list[str], paths: list[Path]) -> float | None:
    if shutil.which("grep") is None:
        return None
    started = time.perf_counter()
    subprocess.run(["grep", "-c", *args, *map(str, paths)], stdout=subprocess.DEVNULL,
                   check=False)
    return time.perf_counter() - started


@pytest.mark.benchmark
@pytest.mark.timeout(3600)
def test_triage_of_many_large_files(tmp_path: Path) -> None:
    """Triage 1 GiB (or RW_BENCH_TRIAGE_BYTES) over 128 files; compare with grep -c."""
    total = int(os.environ.get("RW_BENCH_TRIAGE_BYTES", str(1 << 30)))
    root = tmp_path / "job"
    root.mkdir()
    try:
        progress(f"triage: writing {total / 2**20:,.0f} MiB in {FILES} files")
        paths = _write_job(root, total)
        size = sum(p.stat().st_size for p in paths)
        grep_one = _grep_seconds(["Watchdog caught"], paths)
        literals = tmp_path / "literals.txt"
        literals.write_text("\n".join(PREFILTER_LITERALS) + "\n")
        grep_all = _grep_seconds(["-F", "-f", str(literals)], paths)
        jobs = min(os.cpu_count() or 1, 8)
        children0 = _children_cpu()
        wall0, cpu0 = time.perf_counter(), time.process_time()
        scans, problems, _ = read_inputs([str(root)], jobs=jobs)
        diagnosis = diagnose(scans, problems)
        wall = time.perf_counter() - wall0
        cpu = time.process_time() - cpu0
        workers = _children_cpu() - children0
        assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.COLLECTIVE_DESYNC,
                                                                 (STRAGGLER,))
        lines = diagnosis.inputs.lines
        what = f"{size / 2**20:,.0f} MiB, {FILES} files, {lines:,} lines, jobs={jobs}"
        record(
            "triage",
            f"{what}: wall",
            f"{wall:.2f} s ({size / 2**20 / wall:,.0f} MiB/s)",
        )
        record(
            "triage",
            "per GiB",
            f"{wall * (1 << 30) / size:.1f} s",
            "<= 4 s per GiB in 128 files (first bar < 30 s)",
        )
        record(
            "triage",
            "CPU in all",
            f"{cpu + workers:.2f} s ({workers:.2f} s in {jobs} reader processes) "
            f"= {(cpu + workers) / jobs:.2f} s wall on {jobs} otherwise idle cores; "
            f"load average during the run {os.getloadavg()[0]:.1f}",
        )
        if grep_one is not None and grep_all is not None:
            record(
                "triage",
                "reference: grep -c 'Watchdog caught'",
                f"{grep_one:.2f} s -> triage/grep = {wall / grep_one:.1f}x",
            )
            record(
                "triage",
                f"reference: grep -c -F -f <{len(PREFILTER_LITERALS)} pre-filter literals>",
                f"{grep_all:.2f} s -> triage/grep = {wall / grep_all:.1f}x",
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _live_mix(lines: int) -> list[OutputChunk]:
    rng = random.Random(11)
    texts: list[str] = []
    errors = [
        watchdog_timeout(3, 99, BASE),
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a "
        "total capacity of 79.10 GiB of which 1.06 GiB is free.",
        "gpu3:4012:4301 [3] net_ib.cc:1450 NCCL WARN NET/IB: Got completion from peer "
        "11.214.147.122<39138> with status=12 opcode=0 len=0 vendor err 129 (Recv) hca mlx5_2",
    ]
    for rank in range(8):
        texts += _noise_block(rank, rng, lines // 8).splitlines()
    rng.shuffle(texts)
    for i in range(0, len(texts), 5000):
        texts[i] = rng.choice(errors)  # rare errors: 0.02 %
    chunks = []
    for i in range(0, len(texts), 1000):
        part = texts[i:i + 1000]
        chunks.append(OutputChunk(0.0, "stderr", tuple(OutputLine(line_rank(t), t)
                                                       for t in part)))
    return chunks


@pytest.mark.benchmark
@pytest.mark.timeout(1200)
def test_live_classification_lines_per_second() -> None:
    """Lines per second through the live detector on NCCL INFO noise, progress bars,
    framework logs and rare errors (target >= 300k lines/s)."""
    chunks = _live_mix(800_000)
    lines = sum(len(c.lines) for c in chunks)
    detector = LogEventsDetector(settle_seconds=0.0)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for chunk in chunks:
        detector.observe(chunk, 1.0)
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    detector.tick(10.0)
    counts = dict(next(f for f in detector.metric_families(0.0) if f.name == "log_events").samples)
    assert counts[("watchdog_timeout",)] > 0
    # reference in the same process: the cost of merely touching each line once in Python
    ref0 = time.process_time()
    touched = sum(len(line.text) for chunk in chunks for line in chunk.lines)
    reference = time.process_time() - ref0
    env0 = time.process_time()
    for chunk in chunks:
        for line in chunk.lines:
            line_rank(line.text)
    envelope = time.process_time() - env0
    record(
        "live classification",
        f"{lines:,} lines through the live detector, CPU",
        f"{lines / cpu:,.0f} lines/s ({lines / wall:,.0f} lines/s wall on this machine)",
        ">= 300k lines/s",
    )
    record(
        "live classification",
        f"reference: read every line once in Python ({touched:,} characters)",
        f"{lines / reference:,.0f} lines/s -> detector costs {cpu / reference:.1f}x that",
    )
    record("live classification", "envelope line_rank()", f"{lines / envelope:,.0f} lines/s")
