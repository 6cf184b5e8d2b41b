"""A sidecar whose node state is scripted, served by rankwatch's real Prometheus exporter.

Started by the repo's SLURM prolog in place of `rankwatch run --slurm-job ID` (it accepts and
ignores those arguments): it reads SLURMD_NODENAME and RANKWATCH_METRICS_ADDR like the daemon,
serves `exporters.prometheus.MetricsServer` over a snapshot built from the scenario file, and
exits on SIGTERM. Every metric the rules and dashboards use is in the snapshot, so Prometheus
queries return data; counters grow every second so that rate() has something to say.

Scenario (JSON): {"job": "4242", "nodes": {"<node>": {"ranks": {"0": {...}}, ...}}} where
each rank has step, in_collective, exited, dataloader_stalled, state; each node may have
"ras": true (a RAS polling node) and clock_offset_seconds / memory_available_fraction.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from exporters.prometheus import MetricsServer
from monitor import __version__
from monitor.model import HealthSnapshot, MetricFamilyData, SnapshotHolder, counter, gauge

STATES = ("running", "sleeping", "disk_sleep", "stopped", "zombie", "gone", "other")
HEALTH = ("ok", "unknown", "warning", "critical")
STACK_STATES = ("compute", "collective", "dataloader_wait", "io", "idle")


def families(job: str, node: str, spec: dict[str, Any], tick: int) -> list[MetricFamilyData]:
    ranks: dict[str, dict[str, Any]] = spec["ranks"]
    total = 64 * 2**30
    sources = ["stream", "process"] + (["nccl_ras"] if spec.get("ras") else [])
    fams = [
        gauge(
            "job_info",
            "Identity.",
            ("job", "node", "mode", "version"),
            [((job, node, "slurm", __version__), 1)],
        ),
        gauge("start_time_seconds", "Start.", (), time.time() - 60 - tick),
        gauge("source_up", "Up.", ("source",), [((src,), 1) for src in sources]),
        gauge(
            "source_poll_duration_seconds",
            "Poll.",
            ("source",),
            [((src,), 0.004) for src in sources if src != "stream"],
        ),
        counter(
            "source_errors",
            "Errors.",
            ("source", "error_type"),
            [((src, "timeout"), tick) for src in sources if src != "stream"],
        ),
        counter("observations_dropped", "Dropped.", ("source",), [(("stream",), 0)]),
        gauge(
            "health",
            "Health.",
            ("concern", "state"),
            [
                (("progress", h), 1.0 if h == spec.get("health", "critical") else 0.0)
                for h in HEALTH
            ],
        ),
        gauge(
            "alerts_firing", "Firing.", ("alertname", "severity"), [(("JobStalled", "critical"), 1)]
        ),
        counter("alerts", "Alerts.", ("alertname", "status"), [(("JobStalled", "firing"), 1)]),
        counter("detector_errors", "Detector errors.", ("detector",), [(("progress",), 0)]),
        counter("alerts_delivered", "Delivered.", ("sink",), [(("webhook",), 1)]),
        counter(
            "alerts_delivery_failed", "Failed.", ("sink", "reason"), [(("slack", "http_429"), tick)]
        ),
        gauge("rank_step", "Step.", ("rank",), [((r,), s["step"]) for r, s in ranks.items()]),
        gauge("rank_last_step_age_seconds", "Age.", ("rank",), [((r,), 30 + tick) for r in ranks]),
        gauge("rank_stall_window_seconds", "Window.", ("rank",), [((r,), 20) for r in ranks]),
        gauge(
            "rank_stalled",
            "Stalled.",
            ("rank",),
            [((r,), 1 if spec.get("stalled") else 0) for r in ranks],
        ),
        gauge("job_stalled", "Job stalled.", (), 1 if spec.get("stalled") else 0),
        gauge(
            "rank_state",
            "State.",
            ("rank", "state"),
            [
                ((r, st), 1.0 if st == s.get("state", "running") else 0.0)
                for r, s in ranks.items()
                for st in STATES
            ],
        ),
        counter("rank_cpu_seconds", "CPU.", ("rank",), [((r,), 10 + tick) for r in ranks]),
        gauge("rank_rss_bytes", "RSS.", ("rank",), [((r,), 3 * 2**30) for r in ranks]),
        gauge("rank_threads", "Threads.", ("rank",), [((r,), 42) for r in ranks]),
        gauge("rank_workers", "Workers.", ("rank",), [((r,), 4) for r in ranks]),
        gauge(
            "rank_exited",
            "Exited.",
            ("rank",),
            [((r,), 1 if s.get("exited") else 0) for r, s in ranks.items()],
        ),
        gauge("node_memory_total_bytes", "Total.", (), total),
        gauge(
            "node_memory_available_bytes",
            "Available.",
            (),
            total * spec.get("memory_available_fraction", 0.5),
        ),
        counter("output_lines", "Lines.", ("stream",), [(("stderr",), 100 * tick)]),
        counter("output_bytes", "Bytes.", ("stream",), [(("stderr",), 8000 * tick)]),
        counter("output_lines_truncated", "Truncated.", ("stream",), [(("stderr",), 0)]),
        gauge(
            "rank_in_collective",
            "In collective.",
            ("rank",),
            [
                ((r,), 1 if s.get("in_collective") else 0)
                for r, s in ranks.items()
                if not s.get("exited")
            ],
        ),
        gauge(
            "rank_stack_state",
            "Stack state.",
            ("rank", "state"),
            [
                ((r, st), 1.0 if st == s.get("stack_state", "collective") else 0.0)
                for r, s in ranks.items()
                for st in STACK_STATES
            ],
        ),
        gauge(
            "dataloader_stalled",
            "DataLoader stalled.",
            ("rank",),
            [((r,), 1 if s.get("dataloader_stalled") else 0) for r, s in ranks.items()],
        ),
        gauge("clock_offset_seconds", "Offset.", (), spec.get("clock_offset_seconds", 0.001)),
        gauge("clock_synchronised", "Synchronised.", (), 1),
    ]
    if spec.get("ras"):
        ops = [
            ((comm, r, "AllReduce"), 1000 + (0 if r == spec.get("ras_lagging") else tick))
            for comm in ("0x1a2b", "0x3c4d")
            for r in spec.get("ras_ranks", ranks)
        ]
        fams += [
            gauge("ras_up", "RAS up.", (), 1),
            gauge("ras_collective_ops", "Ops.", ("comm", "rank", "op"), ops),
            gauge("ras_missing_ranks", "Missing.", (), spec.get("ras_missing", 0)),
            gauge("ras_dead_processes", "Dead.", (), spec.get("ras_dead", 0)),
            gauge(
                "ras_communicators",
                "Communicators.",
                ("status",),
                [(("ok",), 1), (("incomplete",), 1)],
            ),
        ]
    return fams


def main() -> int:
    scenario = json.loads(Path(os.environ["SCRIPTED_SIDECAR_SCENARIO"]).read_text())
    node = os.environ["SLURMD_NODENAME"]
    job = os.environ["SLURM_JOB_ID"]
    spec = scenario["nodes"][node]
    if spec.get("fail"):
        print("scripted sidecar: failing on purpose", file=sys.stderr)
        return 3
    holder = SnapshotHolder()
    server = MetricsServer(holder, os.environ["RANKWATCH_METRICS_ADDR"])
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    tick = 0
    holder.current = HealthSnapshot(time.time(), tuple(families(job, node, spec, tick)), ())
    print(f"scripted sidecar serving {server.start()}", flush=True)
    while not stop.wait(1.0):
        tick += 1
        holder.current = HealthSnapshot(time.time(), tuple(families(job, node, spec, tick)), ())
    server.stop()
    print("scripted sidecar stopped on SIGTERM", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
