"""Benchmark: RAS report parsing at 16,384 ranks, and the client's cost per poll.

The job: 2,048 nodes x 8 GPUs, one process per GPU; a world communicator, 8 data-parallel
communicators (2,048 ranks, one per node) and 2,048 tensor-parallel ones (8 ranks, one node).
One node is dead and a quarter of the ranks (4,096) are one AllReduce behind, so the VERBOSE text
report lists thousands of lines. RW_BENCH_QUICK=1 runs 256 nodes instead.

Figures are recorded in the benchmark table, with ratios against a reference measured in the same run (the 1,024-rank
sample for text, bare `json.loads` for JSON); nothing is asserted on time. Target: under 100 ms
per parse.

Run: pytest tests/benchmarks/bench_ras.py -m benchmark
"""

from __future__ import annotations

import json
import os
import statistics
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from monitor.detectors.nccl import NcclRasDetector
from monitor.parse.ras_json import parse_json, parse_json_typed
from monitor.parse.ras_model import RasSnapshot
from monitor.parse.ras_text import parse_text
from monitor.settings import RasSettings
from monitor.sources.nccl_ras import ClientOptions, parse_reply, query_status
from tests.benchmarks.report import record
from tests.fake_ras import (
    Comm,
    FakeRasServer,
    JobShape,
    JobState,
    Member,
    make_peers,
    render_json,
    render_text_chunks,
    scenario,
    world_comm,
)

# RW_BENCH_QUICK=1 (CI) shrinks the job eightfold; the figures then say so.
NODES, GPUS = (256 if os.environ.get("RW_BENCH_QUICK") == "1" else 2048), 8
RANKS_TEXT = f"{NODES * GPUS:,}-rank"
PARSE_TARGET = "< 100 ms"
SAMPLE_13 = Path(__file__).parent.parent / "data" / "ras" / "samples" / "13-node-dead-128x8.txt"


def big_job(*, world_only: bool = False) -> JobState:
    peers = make_peers(NODES, GPUS, subnet="10.", first_host=0)
    for i, peer in enumerate(peers):  # 10.<node / 256>.<node % 256>.1 style addresses
        node = i // GPUS
        peer.host = f"10.{node // 256}.{node % 256}.1"
    world = world_comm(peers, 0x7D03BE61C5A2F98E, (1, 0, 300, 300, 90_000))
    for m in world.members[NODES // 2:NODES // 2 + NODES * 2]:  # a quarter of the ranks
        m.counts = (1, 0, 300, 300, 89_999)
    comms = [world]
    if not world_only:
        for g in range(GPUS):
            comms.append(Comm(0x8631C1889EC83C10 + g, [
                Member(n, peers[n * GPUS + g], g, counts=(0, 0, 0, 0, 45_000))
                for n in range(NODES)
            ]))
        for n in range(NODES):
            comms.append(Comm(0x100000 + n, [
                Member(g, peers[n * GPUS + g], g, counts=(0, 0, 600, 600, 0)) for g in range(GPUS)
            ]))
    for peer in peers[77 * GPUS:78 * GPUS]:  # node 77 is dead
        peer.state = "dead"
    return JobState(version="2.29.7", peers=peers, comms=comms, collection_seconds=0.412)


def best_ms(fn: Callable[[], object], repeat: int = 5) -> tuple[float, float]:
    """(best wall, median CPU) milliseconds over `repeat` runs. CPU time (this thread only) is
    the steadier figure on a shared machine."""
    walls, cpus = [], []
    for _ in range(repeat):
        started, cpu_started = time.perf_counter(), time.thread_time()
        fn()
        walls.append((time.perf_counter() - started) * 1000)
        cpus.append((time.thread_time() - cpu_started) * 1000)
    return min(walls), statistics.median(cpus)


@pytest.mark.benchmark
def test_parse_16k_rank_reports() -> None:
    """Parse a VERBOSE text report and JSON reports of the job; record ms each."""
    state = big_job()
    text = "".join(render_text_chunks(state, verbose=True, elapsed=0.0))
    document = render_json(state, elapsed=0.0)
    world_document = render_json(big_job(world_only=True), elapsed=0.0)
    sample = SAMPLE_13.read_bytes()

    report = parse_text(text)
    assert report.complete and report.unknown_lines == 0 and report.dead_count == 8
    assert parse_json(document).complete and parse_json(world_document).complete

    text_best, text_median = best_ms(lambda: parse_text(text))
    ref_best, _ = best_ms(lambda: parse_text(sample), repeat=20)
    assert parse_json(document, fast=True) == parse_json(document, fast=False)
    json_best, json_median = best_ms(lambda: parse_json(document, fast=False), repeat=3)
    fast_best, fast_median = best_ms(lambda: parse_json(document, fast=True), repeat=3)
    loads_best, _ = best_ms(lambda: json.loads(document), repeat=3)
    world_best, world_median = best_ms(lambda: parse_json(world_document, fast=False))
    world_fast, _ = best_ms(lambda: parse_json(world_document, fast=True))
    world_loads, _ = best_ms(lambda: json.loads(world_document))
    job = f"{NODES} x {GPUS} ranks"
    record(
        "ras",
        f"parse {job}, VERBOSE text ({len(text) / 1e6:.2f} MB, {text.count(chr(10))} lines)",
        f"best {text_best:.1f} ms, median CPU {text_median:.1f} ms",
        PARSE_TARGET,
    )
    record(
        "ras",
        "reference: 1,024-rank text sample",
        f"best {ref_best:.2f} ms (text above = x{text_best / ref_best:.0f})",
    )
    typed = "msgspec" if parse_json_typed(document) is not None else "not installed: stdlib"
    world = f"parse {job}, JSON, world comm only ({len(world_document) / 1e6:.1f} MB)"
    record(
        "ras",
        f"{world}, stdlib",
        f"best {world_best:.1f} ms, median CPU {world_median:.1f} ms "
        f"(x{world_best / world_loads:.2f} json.loads)",
        PARSE_TARGET,
    )
    record(
        "ras",
        f"{world}, typed ({typed})",
        f"best {world_fast:.1f} ms (x{world_fast / world_loads:.2f} json.loads)",
        PARSE_TARGET,
    )
    record("ras", f"{world}, reference: bare json.loads", f"best {world_loads:.1f} ms")
    full = (
        f"parse {job}, JSON, world + 8 DP + {NODES:,} TP comms ({len(document) / 1e6:.1f} MB)"
    )
    record(
        "ras",
        f"{full}, stdlib",
        f"best {json_best:.1f} ms, median CPU {json_median:.1f} ms "
        f"(x{json_best / loads_best:.2f} json.loads)",
        PARSE_TARGET,
    )
    record(
        "ras",
        f"{full}, typed ({typed})",
        f"best {fast_best:.1f} ms, median CPU {fast_median:.1f} ms "
        f"(x{fast_best / loads_best:.2f} json.loads)",
        PARSE_TARGET,
    )
    record("ras", f"{full}, reference: bare json.loads", f"best {loads_best:.1f} ms")

@pytest.mark.benchmark
def test_detector_cost_per_16k_snapshot() -> None:
    """The detector runs on the event loop: its cost per snapshot of the big job, and per 16-rank
    snapshot as the reference."""
    settings = RasSettings()
    small = JobState(peers=make_peers(2, 8), comms=[world_comm(make_peers(2, 8), 1, (0,) * 5)])
    for label, state in (("16 ranks", small), (f"{NODES * GPUS:,} ranks", big_job())):
        for fmt, report in (
            ("text", parse_text("".join(render_text_chunks(state, verbose=True, elapsed=0.0)))),
            ("JSON", parse_json(render_json(state, elapsed=0.0))),
        ):
            detector = NcclRasDetector(settings, local_hosts={"10.0.0.1"})
            times = []
            for i in range(6):
                at = 1000.0 + 10 * i
                started = time.perf_counter()
                detector.observe(RasSnapshot(at=at, report=report, poll_interval_seconds=10), at)
                detector.metric_families(at)
                times.append((time.perf_counter() - started) * 1000)
            record(
                "ras",
                f"detector per snapshot (event loop), {label}, {fmt}"
                + (" (reference)" if state is small else ""),
                f"first {times[0]:.2f} ms, then median {statistics.median(times[1:]):.2f} ms",
            )


@pytest.mark.benchmark
def test_client_cost_per_poll() -> None:
    """Wall time and the client thread's CPU time per poll (exchange + parse) against the fake."""
    options = ClientOptions(handshake_timeout_seconds=1.0, deadline_seconds=30.0)
    what = "client per poll (loopback fake, exchange + parse)"
    for label, version in (("2 x 8 job, JSON", "2.29.7"), ("2 x 8 job, text", "2.27.7")):
        shape = JobShape(version=version, collection_delay_seconds=0.0)
        with FakeRasServer(scenario(shape=shape)) as srv:
            wall, cpu = _polls(srv.port, options, 40)
        record("ras", f"{what}, {label}", f"{wall:.2f} ms wall, {cpu:.2f} ms client CPU")
    big = big_job()
    replies = (
        (f"{RANKS_TEXT} job, JSON (all communicators)", (render_json(big, elapsed=0.0), "")),
        (f"{RANKS_TEXT} job, VERBOSE text", render_text_chunks(big, verbose=True, elapsed=0.0)),
    )
    for label, chunks in replies:
        with FakeRasServer(replay_chunks=_constant(chunks)) as srv:
            wall, cpu = _polls(srv.port, options, 3)
        record(
            "ras",
            f"{what}, {label} ({len(chunks[0]) + len(chunks[1]):,} bytes)",
            f"{wall:.0f} ms wall, {cpu:.0f} ms client CPU",
        )


def _constant(chunks: tuple[str, str]) -> Callable[[], tuple[str, str]]:
    return lambda: chunks


def _polls(port: int, options: ClientOptions, count: int) -> tuple[float, float]:
    """Median wall ms and mean client-thread CPU ms per poll (exchange + parse)."""
    walls: list[float] = []
    cpu_total = 0.0

    def run() -> None:
        nonlocal cpu_total
        cpu_started = time.thread_time()
        for _ in range(count):
            started = time.perf_counter()
            parse_reply(query_status("127.0.0.1", port, options))
            walls.append((time.perf_counter() - started) * 1000)
        cpu_total = (time.thread_time() - cpu_started) * 1000

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    return statistics.median(walls), cpu_total / count
