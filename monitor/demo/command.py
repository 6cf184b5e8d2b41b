"""`rankwatch demo`: watch a simulated two-rank job in which a data worker stalls, with a
SIMULATED NCCL RAS endpoint beside it so that the RAS path is seen working too."""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from monitor.demo.ras_server import start_demo_ras
from monitor.log import configure_logging
from monitor.model import AlertRecord
from monitor.session import Session, WrapTarget, summary_line
from monitor.settings import load_settings

STALL_AFTER_SECONDS = 8.0
RAS_INTERVAL_SECONDS = 5.0  # the fastest RAS polling allowed

DEMO_SETTINGS: dict[str, Any] = {
    "progress.stall_floor_seconds": 6.0,
    "progress.stall_multiplier": 3.0,
    "progress.first_step_grace_seconds": 20.0,
    "general.job_id": "demo",
    # RAS: poll as often as allowed, no settling (the simulated communicator is created at once),
    # and a stall window of two polls so the desync shows within the demo's 45 s.
    "ras.interval_seconds": RAS_INTERVAL_SECONDS,
    "ras.settle_seconds": 0.0,
    "ras.stall_floor_seconds": 5.0,
    "ras.stall_multiplier": 2.0,
}
RAS_ALERTS = ("CollectiveDesync", "CollectiveHang", "RankDead", "RasRanksMissing", "NcclCommError")


def firing_naming_rank(
    records: Sequence[AlertRecord], alertnames: Sequence[str], rank: int
) -> list[AlertRecord]:
    return [
        r
        for r in records
        if r.status == "firing" and r.alertname in alertnames and rank in r.culprit_ranks
    ]


def run_demo(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="rankwatch-demo-") as progress_dir:
        ras = start_demo_ras(Path(progress_dir))
        try:
            return _run(args, Path(progress_dir), ras.address, lambda: ras.stats.status_queries)
        finally:
            ras.stop()


def _run(
    args: argparse.Namespace, progress_dir: Path, ras_addr: str, queries: Callable[[], int]
) -> int:
    overrides = {
        **DEMO_SETTINGS,
        "general.metrics_addr": args.metrics_addr,
        "ras.addr": ras_addr,
    }
    if args.alert_log:
        overrides["general.alert_log"] = args.alert_log
    settings = load_settings(None, env={}, overrides=overrides)
    configure_logging("console", "warning")
    out = sys.stderr
    ras_window = 2 * RAS_INTERVAL_SECONDS
    out.write(
        "rankwatch demo: a SIMULATED two-rank training job (no GPU, no torch).\n"
        f"Rank 1's data worker will hang inside __getitem__ after {STALL_AFTER_SECONDS:.0f} s; "
        "rank 0 keeps training.\n"
        f"Stall window for the demo: {DEMO_SETTINGS['progress.stall_floor_seconds']:.0f} s "
        "(the default for real jobs is 20 s, learned from the step rate).\n\n"
        f"rankwatch demo: NCCL RAS endpoint SIMULATED on {ras_addr} (no NCCL runs here).\n"
        "It answers the RAS protocol with what NCCL would report for this job: one 2-rank\n"
        "communicator, one AllReduce per step; once rank 1 hangs, rank 0 waits in an AllReduce\n"
        f"rank 1 never launches. rankwatch polls it every {RAS_INTERVAL_SECONDS:.0f} s "
        f"(ras.addr={ras_addr}); RAS stall window {ras_window:.0f} s.\n\n"
    )

    def announce(url: str | None) -> None:
        if url:
            out.write(
                f"rankwatch demo: metrics at {url} "
                f"(try: curl -s {url} | grep -E 'rank_|ras_')\n\n"
            )
        out.flush()

    command = [
        sys.executable,
        "-m",
        "monitor.demo.job",
        "--duration",
        str(args.duration),
        "--stall-after",
        str(STALL_AFTER_SECONDS),
        "--progress-dir",
        str(progress_dir),
    ]
    session = Session(settings, WrapTarget(command), on_metrics_url=announce)
    result = asyncio.run(session.run())
    out.write(summary_line(result) + "\n")
    assert session.daemon is not None
    records = session.daemon.stats.records
    stalled = firing_naming_rank(records, ("ProgressStalled",), 1)
    desync = firing_naming_rank(records, RAS_ALERTS, 1)
    return _closing_summary(out, stalled, desync, records, queries())


def _closing_summary(
    out: TextIO,
    stalled: list[AlertRecord],
    ras_named: list[AlertRecord],
    records: Sequence[AlertRecord],
    ras_queries: int,
) -> int:
    out.write("\n")
    if stalled:
        out.write(
            f"rankwatch demo: OK, the progress alert named rank 1 as the culprit: "
            f"{stalled[0].summary}\n"
        )
    else:
        out.write("rankwatch demo: the stall was NOT detected from the job's output.\n")
    where = f"SIMULATED RAS endpoint, {ras_queries} STATUS queries answered"
    if ras_named:
        first = ras_named[0]
        levels = list(dict.fromkeys(r.severity.value for r in ras_named))
        out.write(
            f"rankwatch demo: OK, the RAS path ({where}) named rank 1 too: "
            f"{first.alertname} [{first.category.value}], {' then '.join(levels)}: "
            f"{first.summary}\n"
        )
    else:
        other = [r.alertname for r in records if r.status == "firing" and r.alertname in RAS_ALERTS]
        seen = f" (RAS alerts: {', '.join(other)})" if other else ""
        out.write(f"rankwatch demo: the RAS path ({where}) did NOT name rank 1{seen}.\n")
    if stalled and ras_named:
        return 0
    out.write("rankwatch demo: please report this.\n")
    return 1
