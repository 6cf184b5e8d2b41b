"""`rankwatch demo`: watch a simulated two-rank job in which a data worker stalls."""

from __future__ import annotations

import argparse
import asyncio
import sys

from monitor.log import configure_logging
from monitor.session import Session, WrapTarget, summary_line
from monitor.settings import load_settings

DEMO_SETTINGS = {
    "progress.stall_floor_seconds": 6.0,
    "progress.stall_multiplier": 3.0,
    "progress.first_step_grace_seconds": 20.0,
    "general.job_id": "demo",
}


def run_demo(args: argparse.Namespace) -> int:
    overrides = {**DEMO_SETTINGS, "general.metrics_addr": args.metrics_addr}
    if args.alert_log:
        overrides["general.alert_log"] = args.alert_log
    settings = load_settings(None, env={}, overrides=overrides)
    configure_logging("console", "warning")
    out = sys.stderr
    out.write(
        "rankwatch demo: a SIMULATED two-rank training job (no GPU, no torch).\n"
        "Rank 1's data worker will hang inside __getitem__ after 8 s; rank 0 keeps training.\n"
        f"Stall window for the demo: {DEMO_SETTINGS['progress.stall_floor_seconds']:.0f} s "
        "(the default for real jobs is 20 s, learned from the step rate).\n\n"
    )

    def announce(url: str | None) -> None:
        if url:
            out.write(f"rankwatch demo: metrics at {url} (try: curl -s {url} | grep rank_)\n\n")
        out.flush()

    command = [sys.executable, "-m", "monitor.demo_job", "--duration", str(args.duration)]
    session = Session(settings, WrapTarget(command), on_metrics_url=announce)
    result = asyncio.run(session.run())
    out.write(summary_line(result) + "\n")
    assert session.daemon is not None
    named = [
        r
        for r in session.daemon.stats.records
        if r.status == "firing" and r.alertname == "ProgressStalled" and 1 in r.culprit_ranks
    ]
    if named:
        out.write(
            f"\nrankwatch demo: OK, the alert named rank 1 as the culprit: {named[0].summary}\n"
        )
        return 0
    out.write("\nrankwatch demo: the stall was NOT detected; please report this.\n")
    return 1
