"""The demo's simulated RAS endpoint: its view of the demo job, and the real RAS source and
detector against it on loopback (the detector's clock is driven by the test, so no waiting)."""

from __future__ import annotations

import dataclasses
import json
import socket
from pathlib import Path

from monitor.demo.command import DEMO_SETTINGS
from monitor.demo.job import write_progress
from monitor.demo.ras_server import (
    DEMO_HOST,
    RankProgress,
    demo_job_state,
    demo_state_fn,
    read_progress,
    start_demo_ras,
)
from monitor.demo.simulated_ras import SimulatedRasServer, render_json
from monitor.detectors.nccl import NcclRasDetector
from monitor.model import Category, Severity, Transition
from monitor.settings import load_settings
from monitor.sources.nccl_ras import NcclRasSource


def write(directory: Path, rank: int, pid: int, steps: int) -> None:
    (directory / f"rank{rank}").write_text(f"{pid} {steps}\n", encoding="ascii")


def allreduce_counts(progress: dict[int, RankProgress]) -> dict[int, int]:
    doc = json.loads(render_json(demo_job_state(progress), elapsed=0.0))
    (comm,) = doc["communicators"]
    return {r["rank"]: r["collective_counts"]["AllReduce"] for r in comm["ranks"]}


def test_no_communicator_until_every_rank_started() -> None:
    """Before both ranks report progress, the simulated job has no communicator (as NCCL before
    init), so nothing can look mismatched."""
    state = demo_job_state({0: RankProgress(100, 3)})
    assert state.comms == [] and state.peers == []
    assert json.loads(render_json(state, elapsed=0.0))["communicators"] == []


def test_counts_follow_steps_and_no_rank_runs_two_collectives_ahead() -> None:
    """One AllReduce per step; a rank is never more than one AllReduce ahead of the slowest,
    because a synchronous collective cannot complete until every rank launched it."""
    assert allreduce_counts({0: RankProgress(100, 20), 1: RankProgress(101, 20)}) == {0: 20, 1: 20}
    assert allreduce_counts({0: RankProgress(100, 21), 1: RankProgress(101, 20)}) == {0: 21, 1: 20}
    assert allreduce_counts({0: RankProgress(100, 90), 1: RankProgress(101, 58)}) == {0: 59, 1: 58}


def test_the_report_names_the_demo_processes() -> None:
    """Ranks are reported on the demo's loopback node with the pids from the progress files."""
    doc = json.loads(
        render_json(
            demo_job_state({0: RankProgress(4242, 5), 1: RankProgress(4343, 5)}), elapsed=0.0
        )
    )
    ranks = {r["rank"]: (r["host"], r["pid"]) for r in doc["communicators"][0]["ranks"]}
    assert ranks == {0: (DEMO_HOST, 4242), 1: (DEMO_HOST, 4343)}


def test_read_progress_skips_partial_and_foreign_files(tmp_path: Path) -> None:
    """Only complete `rank<N>` files count; temporary and unreadable files are ignored."""
    write_progress(tmp_path, 0, 7)
    (tmp_path / ".rank1.tmp").write_text("123 ", encoding="ascii")
    (tmp_path / "rank1").write_text("garbage\n", encoding="ascii")
    (tmp_path / "rankings").write_text("1 2\n", encoding="ascii")
    progress = read_progress(tmp_path)
    assert list(progress) == [0] and progress[0].steps == 7 and progress[0].pid > 0


def test_endpoint_listens_on_ipv4_loopback_on_a_free_port(tmp_path: Path) -> None:
    """The demo endpoint binds 127.0.0.1 on a port of its own and speaks the RAS handshake."""
    server = start_demo_ras(tmp_path)
    try:
        assert server.address == f"127.0.0.1:{server.port}" and server.port > 0
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as conn:
            conn.sendall(b"CLIENT PROTOCOL 2\n")
            assert conn.recv(100).startswith(b"SERVER PROTOCOL ")
    finally:
        server.stop()


def fired(outputs: list[object]) -> list[Transition]:
    return [o for o in outputs if isinstance(o, Transition) and o.firing]


def test_ras_source_and_detector_name_rank_1_once_its_counts_freeze(tmp_path: Path) -> None:
    """With the demo's RAS settings, the real source polling the simulated endpoint and the real
    detector stay quiet while both ranks train (counts move, even one apart), then report a
    collective desync naming rank 1 once rank 1 stops and rank 0 waits one AllReduce ahead:
    a warning after one stall window, critical after two."""
    settings = load_settings(
        None, env={}, overrides={k: v for k, v in DEMO_SETTINGS.items() if k.startswith("ras.")}
    ).ras
    with SimulatedRasServer(demo_state_fn(tmp_path)) as server:
        settings = dataclasses.replace(settings, addr=server.address)
        source = NcclRasSource(settings, node_index=0)
        detector = NcclRasDetector(settings)
        now = 0.0

        def poll() -> list[Transition]:
            out: list[object] = []
            for obs in source.poll(now):
                out += detector.observe(obs, now)
            out += detector.tick(now)
            return fired(out)

        assert poll() == []  # the job has not started: no communicator yet
        steps = {0: 0, 1: 0}
        for index in range(6):  # training: 25 steps per poll, rank 0 a step ahead every other
            now += settings.interval_seconds
            steps[1] += 25
            steps[0] = steps[1] + (1 if index % 2 == 0 else 0)
            write(tmp_path, 0, 1000, steps[0])
            write(tmp_path, 1, 1001, steps[1])
            assert poll() == [], f"alert while training at {now} s"
        stalled_at = steps[1]
        alerts: list[tuple[float, Transition]] = []
        for _ in range(8):  # rank 1 hangs; rank 0 keeps stepping but waits in the AllReduce
            now += settings.interval_seconds
            steps[0] += 25
            write(tmp_path, 0, 1000, steps[0])
            alerts += [(now, t) for t in poll()]
        assert server.stats.status_queries == 15 and not server.sent_control()

    desync = [(at, t) for at, t in alerts if t.alertname == "CollectiveDesync"]
    assert [t.severity for _, t in desync] == [Severity.WARNING, Severity.CRITICAL], alerts
    (first_at, first), (critical_at, _) = desync
    assert first.culprit_ranks == (1,) and first.category is Category.COLLECTIVE_DESYNC
    assert f"AllReduce {stalled_at} (others at {stalled_at + 1})" in first.summary
    window = 2 * settings.interval_seconds
    freeze_seen = 6 * settings.interval_seconds + settings.interval_seconds
    assert first_at == freeze_seen + window and critical_at == freeze_seen + 2 * window
