"""`rankwatch triage PATH...`: the post-mortem command.

`add_parser(subparsers)` registers the subcommand; `run(args)` reads every input, diagnoses
and prints the report, and returns the exit status: 0 when a report was produced, 2 when no
input could be read at all (the reasons are printed).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from monitor.triage.analysis import diagnose
from monitor.triage.clocks import SkewOptions
from monitor.triage.reader import read_inputs
from monitor.triage.report import RENDERERS

EXIT_OK = 0
EXIT_USAGE = 2
PROGRESS_MIN_BYTES = 64 << 20
PARALLEL_MIN_BYTES = 32 << 20

_EPILOG = """\
examples:
  rankwatch triage logs/                       every file under logs/, text report
  rankwatch triage 'job-4242/*.err' --format markdown > postmortem.md
  rankwatch triage node*/rank*.log.gz --format json | jq .culprit_ranks
  rankwatch triage logs/ --clock-offset gpu017=-0.8   correct one node's clock (seconds)
  rankwatch triage logs/ alerts.jsonl          apply the clock offsets rankwatch measured

The report names the category (closed set), the culprit ranks or `undetermined`, the
per-rank table (last enqueued/started/completed work, SeqNum, OpType, first error), the
initiators and observers, the stuck collective's start time, the time-ordered timeline with
file:line, the causal chain, key files and recommendations. Unreadable, binary or truncated
inputs are listed once and skipped. Exit status: 0 report produced, 2 nothing readable.

Clocks: every node stamps its lines with its own clock. Offsets given with --clock-offset or
measured by rankwatch (ClockOffsetHigh records of an alert log given as an input) are
applied; otherwise skew is inferred from the logs (flight-recorder dump signals read before
they were sent, one collective's watchdog timeouts stamped far apart). The report says when
node timestamps disagree, which correction it applied and on what evidence, and marks with
~ the entries whose order the clocks cannot settle.
"""


def add_parser(subparsers: Any) -> None:
    """Register `triage` on an argparse subparsers object."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "triage",
        help="root-cause report from per-rank logs (files, directories, globs, .gz)",
        description="Read every line of every rank's log and say which rank broke the job, "
        "and why — or `undetermined` when the logs do not show it.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="log files, directories (read recursively), glob patterns, .gz files")
    parser.add_argument("--format", choices=sorted(RENDERERS), default="text",
                        help="report format (default: text)")
    parser.add_argument("--output", "-o", metavar="FILE",
                        help="write the report to FILE instead of standard output")
    parser.add_argument("--timeline-limit", type=int, default=200, metavar="N",
                        help="most timeline entries kept in the report (default: 200)")
    parser.add_argument("--jobs", "-j", type=int, default=0, metavar="N",
                        help="files read in parallel (default: CPU count for large inputs)")
    parser.add_argument("--clock-offset", action="append", default=[], metavar="NODE=SECONDS",
                        help="add SECONDS to the timestamps of a host or file (repeatable); "
                        "overrides measured and inferred skew for that clock")
    parser.add_argument("--clock-threshold", type=float, default=SkewOptions.threshold_seconds,
                        metavar="SECONDS",
                        help="flag an inferred clock skew at least this large (default: "
                        f"{SkewOptions.threshold_seconds:g})")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="no progress on standard error")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, stdout: TextIO | None = None,
        stderr: TextIO | None = None) -> int:
    """Run a triage; returns the exit status."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    offsets: dict[str, float] = {}
    for item in args.clock_offset:
        node, _, value = item.partition("=")
        try:
            offsets[node] = float(value)
        except ValueError:
            err.write(f"rankwatch triage: --clock-offset wants NODE=SECONDS, got {item!r}\n")
            return EXIT_USAGE
        if not node or not math.isfinite(offsets[node]):
            err.write(f"rankwatch triage: --clock-offset wants NODE=SECONDS, got {item!r}\n")
            return EXIT_USAGE
    threshold = float(getattr(args, "clock_threshold", SkewOptions.threshold_seconds))
    if not math.isfinite(threshold) or threshold < 0:
        err.write("rankwatch triage: --clock-threshold wants a non-negative number of seconds\n")
        return EXIT_USAGE
    started = time.monotonic()
    progress = _Progress(err, started, enabled=not args.quiet)
    jobs = args.jobs
    total_guess = _total_size(args.paths)
    if jobs <= 0:
        jobs = min(os.cpu_count() or 1, 8) if total_guess >= PARALLEL_MIN_BYTES else 1
    progress.total = total_guess
    scans, problems, _total = read_inputs(args.paths, jobs=jobs, on_bytes=progress.add)
    progress.done()
    if not scans:
        err.write("rankwatch triage: no readable input\n")
        for problem in problems:
            err.write(f"  {problem.path}: {problem.problem}\n")
        return EXIT_USAGE
    diagnosis = diagnose(scans, problems, clock_offsets=offsets,
                         timeline_limit=max(1, args.timeline_limit),
                         seconds=time.monotonic() - started,
                         skew=SkewOptions(threshold_seconds=threshold))
    report = RENDERERS[args.format](diagnosis)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as handle:
                handle.write(report)
        except OSError as exc:
            err.write(f"rankwatch triage: cannot write {args.output}: {exc.strerror or exc}\n")
            return EXIT_USAGE
    else:
        out.write(report)
    return EXIT_OK


def _total_size(paths: list[str]) -> int:
    total = 0
    for path in paths:
        try:
            if os.path.isdir(path):
                for dirpath, _dirs, files in os.walk(path):
                    for name in files:
                        with contextlib.suppress(OSError):
                            total += os.path.getsize(os.path.join(dirpath, name))
            else:
                total += os.path.getsize(path)
        except OSError:
            pass
    return total


class _Progress:
    """Progress on standard error for large inputs, at most once a second."""

    def __init__(self, stream: TextIO, started: float, *, enabled: bool,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.started = started
        self.enabled = enabled
        self.clock = clock
        self.total = 0
        self.read = 0
        self.last = started
        self.shown = False

    def add(self, n: int) -> None:
        self.read += n
        if not self.enabled or self.total < PROGRESS_MIN_BYTES:
            return
        now = self.clock()
        if now - self.last < 1.0:
            return
        self.last = now
        self.shown = True
        pct = 100.0 * self.read / self.total if self.total else 0.0
        self.stream.write(f"rankwatch triage: read {self.read / 2**20:,.0f} of "
                          f"{self.total / 2**20:,.0f} MiB ({pct:.0f}%), "
                          f"{now - self.started:.1f} s\n")
        self.stream.flush()

    def done(self) -> None:
        if self.shown:
            self.stream.write(f"rankwatch triage: read {self.read / 2**20:,.0f} MiB in "
                              f"{self.clock() - self.started:.1f} s; analysing\n")
            self.stream.flush()
