"""The `rankwatch` command. Only this module chooses exit codes."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from monitor import __version__
from monitor.errors import SettingsError
from monitor.log import configure_logging
from monitor.settings import Settings, load_settings
from monitor.triage.command import add_parser as add_triage_parser

EXIT_USAGE = 2
EXIT_NOT_FOUND = 127

RUN_EPILOG = """\
examples:
  rankwatch run -- torchrun --nproc-per-node 8 train.py
      wrap a job: output passes through unchanged, rankwatch exits with the job's status
  rankwatch run --alert-log alerts.jsonl --metrics-addr 127.0.0.1:9824 -- python train.py
      also write alert records as JSON lines; Prometheus scrapes :9824/metrics
  rankwatch run --pid 4242 --pid 4243 --stderr /scratch/job-4242.err
      attach to a running job's processes and follow its stderr file
  rankwatch run --config /etc/rankwatch.toml --job-id 4242 -- srun python train.py
  rankwatch run --ras 127.0.0.1:28028 -- torchrun --nproc-per-node 8 train.py
      poll NCCL's RAS port at this address (default: NCCL_RAS_ADDR of the ranks, else
      localhost:28028)
  rankwatch run --slurm-job "$SLURM_JOB_ID" --config /etc/rankwatch/rankwatch.toml
      as the SLURM prolog starts it: the job's ranks and output files on this node come
      from SLURM; runs until the epilog stops it (SIGTERM)
"""

CHECK_EPILOG = """\
examples:
  rankwatch check-config /etc/rankwatch.toml
      prints every problem at once (bad keys and values, unreadable secret files, malformed
      webhook URLs and NTP servers); exit status 2 when the file is invalid
"""

DEMO_EPILOG = """\
examples:
  rankwatch demo
      a simulated two-rank job (no GPU, no torch) in which rank 1's data worker stalls;
      a SIMULATED NCCL RAS endpoint shows the RAS path too
  rankwatch demo --duration 60 --metrics-addr 127.0.0.1:9900
"""


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", help="TOML configuration file")
    p.add_argument(
        "--metrics-addr",
        metavar="HOST:PORT",
        help="Prometheus endpoint (default 127.0.0.1:9824; empty disables)",
    )
    p.add_argument("--alert-log", metavar="PATH", help="write alert records as JSON lines to PATH")
    p.add_argument("--state-dir", metavar="DIR", help="directory for dumps and the alert spool")
    p.add_argument(
        "--log-format",
        choices=("json", "console"),
        help="daemon log format (console on a TTY by default)",
    )
    p.add_argument(
        "--log-level", choices=("debug", "info", "warning", "error"), help="daemon log level"
    )
    p.add_argument("--job-id", metavar="ID", help="job identifier on alerts and metrics")
    p.add_argument("--node-name", metavar="NAME", help="this node's name (default: host name)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rankwatch",
        description=(
            "Watch a distributed training job and name the rank that holds it up, "
            "minutes before the NCCL watchdog would kill it."
        ),
        epilog="Run `rankwatch COMMAND --help` for a command's options and examples.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser(
        "run",
        help="wrap a command (run -- CMD ...), attach to running processes (run --pid PID), "
        "or watch a SLURM job on this node (run --slurm-job ID)",
        description="Watch a job: wrap a command, attach to running processes and files, or "
        "watch a SLURM job's processes and output files on this node.",
        epilog=RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_common(run)
    run.add_argument(
        "--pid",
        type=int,
        action="append",
        default=[],
        metavar="PID",
        help="attach to this process (repeatable)",
    )
    run.add_argument(
        "--stderr",
        action="append",
        default=[],
        metavar="PATH",
        help="follow this output file (repeatable)",
    )
    run.add_argument(
        "--slurm-job",
        metavar="ID",
        help="watch this SLURM job on this node (started by the prolog; see deploy/slurm)",
    )
    run.add_argument(
        "--ras",
        metavar="HOST:PORT",
        help="NCCL RAS address to poll (default: the ranks' NCCL_RAS_ADDR, else localhost:28028)",
    )
    run.add_argument(
        "cmd", nargs=argparse.REMAINDER, help="-- CMD ARGS...: the command to run and watch"
    )

    check = sub.add_parser(
        "check-config",
        help="validate a configuration file, listing every problem at once",
        epilog=CHECK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("file", metavar="FILE")

    demo = sub.add_parser(
        "demo",
        help="run a self-contained simulated job where a data worker stalls",
        epilog=DEMO_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    demo.add_argument(
        "--duration", type=float, default=45.0, help="seconds the simulated job runs (default 45)"
    )
    demo.add_argument(
        "--metrics-addr",
        default="127.0.0.1:0",
        metavar="HOST:PORT",
        help="metrics endpoint (default: a free port)",
    )
    demo.add_argument("--alert-log", metavar="PATH", help="also write alert records as JSON lines")
    demo.add_argument(
        "--job-output",
        metavar="PATH",
        help="file for the simulated job's own output (default: a temporary file, printed)",
    )

    add_triage_parser(sub)

    status = sub.add_parser(
        "status",
        help="what a running sidecar sees (its metrics) and what it recorded (its alert log)",
    )
    status.add_argument(
        "--metrics-url",
        default="http://127.0.0.1:9824/metrics",
        help="the sidecar's metrics endpoint (default http://127.0.0.1:9824/metrics)",
    )
    status.add_argument(
        "--alert-log", metavar="PATH", help="also list the records of this alert log, info included"
    )

    sub.add_parser("version", help="print the version")
    return parser


def overrides_from(args: argparse.Namespace) -> dict[str, Any]:
    mapping = {
        "metrics_addr": "general.metrics_addr",
        "alert_log": "general.alert_log",
        "state_dir": "general.state_dir",
        "log_format": "general.log_format",
        "log_level": "general.log_level",
        "job_id": "general.job_id",
        "node_name": "general.node_name",
        "ras": "ras.addr",
    }
    out: dict[str, Any] = {}
    for attr, key in mapping.items():
        value = getattr(args, attr, None)
        if value is not None:
            out[key] = value
    return out


def _settings_or_exit(
    args: argparse.Namespace, extra: dict[str, Any] | None = None
) -> Settings | int:
    try:
        return load_settings(
            getattr(args, "config", None), overrides={**overrides_from(args), **(extra or {})}
        )
    except SettingsError as exc:
        for problem in exc.problems:
            print(f"rankwatch: {problem}", file=sys.stderr)
        return EXIT_USAGE


def runtime_problems(settings: Settings) -> list[str]:
    """What only shows when the settings are used: secret files, URLs, NTP server specs."""
    from exporters.factory import delivery_problems
    from monitor.sources.time_sync_probe import parse_server

    problems = delivery_problems(settings.delivery)
    for spec in settings.clock.ntp_servers:
        try:
            parse_server(spec)
        except ValueError as exc:
            problems.append(f"clock.ntp_servers: {exc}")
    if settings.ras.addr:
        from monitor.sources.nccl_ras import parse_addr

        try:
            parse_addr(settings.ras.addr)
        except ValueError as exc:
            problems.append(f"ras.addr: {exc}")
    return problems


def cmd_check_config(args: argparse.Namespace) -> int:
    try:
        settings = load_settings(args.file, env={})
    except SettingsError as exc:
        problems = list(exc.problems)
    else:
        problems = runtime_problems(settings)
    if problems:
        print(f"{args.file}: {len(problems)} problem(s)", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return EXIT_USAGE
    print(f"{args.file}: OK")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from monitor.session import (
        AttachTarget,
        CommandNotFound,
        Session,
        SessionError,
        SlurmTarget,
        WrapTarget,
        summary_line,
    )

    command = list(args.cmd)
    if command and command[0] == "--":
        command = command[1:]
    chosen = [bool(command), bool(args.pid), bool(args.slurm_job)]
    if sum(chosen) > 1:
        print("rankwatch: give one of -- CMD, --pid PID or --slurm-job ID", file=sys.stderr)
        return EXIT_USAGE
    if not any(chosen):
        print(
            "rankwatch: nothing to watch: give -- CMD ARGS..., --pid PID or --slurm-job ID",
            file=sys.stderr,
        )
        return EXIT_USAGE
    settings = _settings_or_exit(args)
    if isinstance(settings, int):
        return settings
    problems = runtime_problems(settings)
    if problems:
        for problem in problems:
            print(f"rankwatch: {problem}", file=sys.stderr)
        return EXIT_USAGE
    configure_logging(settings.general.log_format, settings.general.log_level)
    target: WrapTarget | AttachTarget | SlurmTarget
    if command:
        target = WrapTarget(command)
    elif args.slurm_job:
        target = SlurmTarget(args.slurm_job)
    else:
        target = AttachTarget(args.pid, args.stderr)
    session = Session(settings, target)
    try:
        result = asyncio.run(session.run())
    except CommandNotFound as exc:
        print(f"rankwatch: {exc.command}: {exc.reason}", file=sys.stderr)
        return exc.exit_code
    except SessionError as exc:
        print(f"rankwatch: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(summary_line(result), file=sys.stderr)
    return result.exit_code


def cmd_status(args: argparse.Namespace) -> int:
    from monitor import status

    lines: list[str] = []
    code = 0
    try:
        lines += status.render_status(status.summarise(status.parse_metrics(
            status.fetch(args.metrics_url))))  # fmt: skip
    except OSError as exc:
        lines.append(f"rankwatch status: {exc}")
        code = 1
    if args.alert_log:
        try:
            lines += status.render_records(status.read_records(Path(args.alert_log)))
        except OSError as exc:
            lines.append(f"rankwatch status: cannot read {args.alert_log}: {exc.strerror or exc}")
            code = 1
    print("\n".join(lines))
    return code


def cmd_demo(args: argparse.Namespace) -> int:
    from monitor.demo.command import run_demo

    return run_demo(args)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    if args.command == "version":
        print(f"rankwatch {__version__}")
        return 0
    if args.command == "check-config":
        return cmd_check_config(args)
    if args.command == "run":
        return cmd_run(args)
    if args.command == "demo":
        return cmd_demo(args)
    if args.command == "status":
        return cmd_status(args)
    if args.command == "triage":
        from monitor.triage.command import run as run_triage

        return run_triage(args)
    parser.print_help()
    return EXIT_USAGE
