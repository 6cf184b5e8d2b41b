"""`rankwatch demo`: watch a simulated two-rank job in which a data worker stalls, with a
SIMULATED NCCL RAS endpoint beside it so that the RAS path is seen working too.

The screen tells the story in a few lines (the job's own output goes to a file): the job starts,
its pace is learned, the fault is injected, the page arrives naming the rank, its category, its
evidence and what to do. Colour only on a terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from monitor.demo.ras_server import start_demo_ras
from monitor.log import configure_logging
from monitor.model import AlertRecord, Severity
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
    "ras.paced_floor_seconds": 5.0,
    "ras.stall_multiplier": 2.0,
}
RAS_ALERTS = ("CollectiveDesync", "CollectiveHang", "RankDead", "RasRanksMissing", "NcclCommError")
WHAT_TO_DO = (
    "look at the named rank's stack (py-spy dump --pid PID) and its DataLoader workers; "
    "restart from the last checkpoint once the cause is fixed"
)


def firing_naming_rank(
    records: Sequence[AlertRecord], alertnames: Sequence[str], rank: int
) -> list[AlertRecord]:
    return [
        r
        for r in records
        if r.status == "firing" and r.alertname in alertnames and rank in r.culprit_ranks
    ]


class Screen:
    """The demo's lines: `[ 12 s] ...`, coloured only on a terminal."""

    COLOURS = {"critical": "\033[1;31m", "warning": "\033[33m", "info": "\033[2m", "ok": "\033[32m",
               "fault": "\033[1;35m"}  # fmt: skip

    def __init__(self, out: TextIO, started: float) -> None:
        self.out = out
        self.started = started
        self.colour = out.isatty()

    def paint(self, text: str, kind: str) -> str:
        if not self.colour or kind not in self.COLOURS:
            return text
        return f"{self.COLOURS[kind]}{text}\033[0m"

    def line(self, text: str, kind: str = "", *, at: float | None = None) -> None:
        elapsed = (at if at is not None else time.monotonic()) - self.started
        self.out.write(f"[{elapsed:3.0f} s] {self.paint(text, kind)}\n")
        self.out.flush()

    def detail(self, text: str) -> None:
        self.out.write(f"        {text}\n")
        self.out.flush()


class PageLines:
    """The console sink's stream for the demo: one story line per page, the rest skipped."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self.records: list[AlertRecord] = []

    def show(self, record: AlertRecord) -> None:
        if record.status != "firing" or record.severity is Severity.INFO:
            return
        who = f"culprit rank {','.join(map(str, record.culprit_ranks))}" if record.culprit_ranks else "no culprit yet"
        word = record.severity.value.upper()
        self.screen.line(f"PAGE {word} {record.alertname} [{record.category.value}], {who}",
                         record.severity.value)  # fmt: skip
        self.screen.detail(record.summary[:150])
        evidence = ", ".join(
            f"{k}={v}" for k, v in record.evidence.items()
            if k in ("frame", "quiet_seconds", "window_seconds", "stalled_ranks", "advancing_ranks",
                     "worker_pid", "frozen_seconds")
        )  # fmt: skip
        if evidence:
            self.screen.detail(f"evidence: {evidence[:140]}")
        self.screen.detail(f"runbook: {record.runbook_url}")


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
    output = Path(args.job_output) if args.job_output else progress_dir.parent / (
        f"{progress_dir.name}-job.log"
    )
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
    screen = Screen(out, time.monotonic())
    out.write(
        "rankwatch demo: a SIMULATED two-rank training job (no GPU, no torch) beside a SIMULATED\n"
        f"NCCL RAS endpoint on {ras_addr} (no NCCL runs here); rankwatch watches both.\n"
        f"  the job's own output: {output}\n"
    )
    if args.alert_log:
        out.write(f"  alert records:       {args.alert_log}\n")

    def announce(url: str | None) -> None:
        if url:
            out.write(f"  metrics:             {url}\n")
        out.write("\n")
        out.flush()

    command = [
        sys.executable, "-m", "monitor.demo.job",
        "--duration", str(args.duration),
        "--stall-after", str(STALL_AFTER_SECONDS),
        "--progress-dir", str(progress_dir),
    ]  # fmt: skip
    pages = PageLines(screen)
    session = Session(
        settings,
        WrapTarget(command, output_path=str(output)),
        console=io.StringIO(),  # the plain console lines give way to the story on screen
        on_metrics_url=announce,
        on_record=pages.show,
    )
    result = asyncio.run(_narrated(session, screen))
    screen.line(f"job ended (status {result.exit_code})")
    out.write("\n" + summary_line(result) + "\n")
    assert session.daemon is not None
    records = session.daemon.stats.records
    stalled = firing_naming_rank(records, ("ProgressStalled",), 1)
    desync = firing_naming_rank(records, RAS_ALERTS, 1)
    return _closing_summary(out, screen, stalled, desync, queries())


async def _narrated(session: Session, screen: Screen) -> Any:
    """Run the session while telling what happens: the pace learned, the fault injected."""
    run = asyncio.ensure_future(session.run())
    started = paced = faulted = False
    while not run.done():
        await asyncio.sleep(0.25)
        if not started and session.child is not None:
            started = True
            screen.line("job started: 2 ranks, each fed by a data worker process")
        daemon = session.daemon
        view = daemon.incidents.view if daemon is not None and daemon.incidents else None
        if not paced and view is not None and view.stall_window_seconds is not None:
            paced = True
            screen.line(
                f"pace learned from the job's own output: {view.steps_seen} steps seen, "
                f"stall window {view.stall_window_seconds:.0f} s"
            )
        if not faulted and time.monotonic() - screen.started >= STALL_AFTER_SECONDS:
            faulted = True
            screen.line("FAULT INJECTED: rank 1's data worker hangs inside __getitem__ "
                        "(rank 0 keeps training)", "fault")  # fmt: skip
    return run.result()


def _closing_summary(
    out: TextIO,
    screen: Screen,
    stalled: list[AlertRecord],
    ras_named: list[AlertRecord],
    ras_queries: int,
) -> int:
    if stalled:
        out.write(screen.paint("rankwatch demo: OK, the progress alert named rank 1 as the "
                               f"culprit: {stalled[0].summary}", "ok") + "\n")  # fmt: skip
    else:
        out.write("rankwatch demo: the stall was NOT detected from the job's output.\n")
    where = f"SIMULATED RAS endpoint, {ras_queries} STATUS queries answered"
    if ras_named:
        first = ras_named[0]
        levels = list(dict.fromkeys(r.severity.value for r in ras_named))
        out.write(
            f"rankwatch demo: OK, the RAS path ({where}) named rank 1 too: "
            f"{first.alertname} [{first.category.value}], {' then '.join(levels)}, recorded "
            f"inside the same incident ({first.incident_id})\n"
        )
    else:
        out.write(f"rankwatch demo: the RAS path ({where}) did NOT name rank 1.\n")
    out.write(f"What to do on such a page: {WHAT_TO_DO}.\n")
    if stalled and ras_named:
        return 0
    out.write("rankwatch demo: please report this.\n")
    return 1
