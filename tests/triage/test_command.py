"""`rankwatch triage`: argument parsing, formats, exit codes, progress."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from monitor.triage.command import PROGRESS_MIN_BYTES, _Progress, add_parser, run
from tests.logformats import BASE, watchdog_timeout, write_lines

DATA = Path(__file__).resolve().parent.parent / "data" / "logs"
MISMATCH = DATA / "44-nccl-timeout-broadcast-numel-mismatch-desync.log"
CONTRACT_KEYS = {"category", "culprit_ranks", "initiator_ranks", "observer_ranks", "ranks",
                 "first_error", "timeline", "events", "summary", "recommendations"}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rankwatch")
    add_parser(parser.add_subparsers(dest="command"))
    return parser


def _run(*argv: str) -> tuple[int, str, str]:
    args = _parser().parse_args(["triage", *argv])
    out, err = io.StringIO(), io.StringIO()
    code = run(args, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_subcommand_is_registered_with_examples() -> None:
    """add_parser registers `triage` with usage examples in its help."""
    parser = _parser()
    args = parser.parse_args(["triage", "logs/"])
    assert (args.command, args.paths, args.format, args.handler) == ("triage", ["logs/"], "text",
                                                                      run)
    assert "examples:" in _help(parser) and "--format" in _help(parser)


def _help(parser: argparse.ArgumentParser) -> str:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return str(action.choices["triage"].format_help())
    raise AssertionError("no subparsers")


def test_json_report_has_the_contract_keys() -> None:
    """--format json carries every key of the triage contract, with the diagnosis."""
    code, out, _ = _run(str(MISMATCH), "--format", "json")
    report = json.loads(out)
    assert code == 0
    assert set(report) >= CONTRACT_KEYS
    assert (report["category"], report["culprit_ranks"]) == ("software", [2])
    assert report["first_error"]["file"].endswith(MISMATCH.name)
    rank2 = next(r for r in report["ranks"] if r["rank"] == 2)
    assert (rank2["seq"], rank2["op_type"], rank2["numel_in"], rank2["last_enqueued"],
            rank2["last_completed"]) == (7219, "BROADCAST", 24084544, 7219, 7218)
    assert all(":" in entry["location"] for entry in report["timeline"])


def test_text_report_reads_in_a_terminal() -> None:
    """The default text report leads with category and culprit, then the evidence."""
    code, out, _ = _run(str(MISMATCH))
    assert code == 0
    lines = out.splitlines()
    assert lines[2:4] == ["CATEGORY   software", "CULPRIT    rank 2"]
    for section in ("RANKS", "CAUSAL CHAIN", "TIMELINE", "KEY FILES", "RECOMMENDATIONS"):
        assert any(line.startswith(section) for line in lines), section


def test_markdown_report_has_tables() -> None:
    """--format markdown renders headed sections and a per-rank table."""
    code, out, _ = _run(str(MISMATCH), "--format", "markdown")
    assert code == 0 and out.startswith("# rankwatch triage")
    assert "## Ranks" in out and "| rank | pg | seq |" in out


def test_output_file(tmp_path: Path) -> None:
    """--output writes the report to a file instead of standard output."""
    target = tmp_path / "report.json"
    code, out, _ = _run(str(MISMATCH), "--format", "json", "--output", str(target))
    assert (code, out) == (0, "")
    assert json.loads(target.read_text())["category"] == "software"


def test_nothing_readable_exits_2_and_says_why(tmp_path: Path) -> None:
    """When no input can be read the exit status is 2 and each reason is printed."""
    code, out, err = _run(str(tmp_path / "missing.log"), str(tmp_path))
    assert (code, out) == (2, "")
    assert "no readable input" in err
    assert "missing.log: cannot read: no such file or directory" in err
    assert "empty directory" in err


def test_some_bad_inputs_still_give_a_report(tmp_path: Path) -> None:
    """Unreadable inputs are listed in the report; the rest is diagnosed (exit 0)."""
    good = write_lines(tmp_path / "rank1.log", [watchdog_timeout(1, 5, BASE)])
    code, out, _ = _run(str(good), str(tmp_path / "missing.log"))
    assert code == 0
    assert "INPUT PROBLEMS" in out and "missing.log: cannot read" in out


def test_bad_clock_offset_is_a_usage_error() -> None:
    """--clock-offset wants NODE=SECONDS."""
    code, _, err = _run(str(MISMATCH), "--clock-offset", "gpu017")
    assert code == 2 and "NODE=SECONDS" in err


def test_progress_goes_to_stderr_for_large_inputs() -> None:
    """Large inputs print progress at most once a second on standard error."""
    now = [0.0]
    stream = io.StringIO()
    progress = _Progress(stream, 0.0, enabled=True, clock=lambda: now[0])
    progress.total = 4 * PROGRESS_MIN_BYTES
    for _ in range(8):
        now[0] += 0.6
        progress.add(PROGRESS_MIN_BYTES // 2)
    progress.done()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 5
    assert lines[0].startswith("rankwatch triage: read 64 of 256 MiB (25%)")
    assert lines[-1].startswith("rankwatch triage: read 256 MiB in")


def test_small_inputs_print_no_progress() -> None:
    """Below the size threshold nothing is printed."""
    stream = io.StringIO()
    progress = _Progress(stream, 0.0, enabled=True, clock=lambda: 100.0)
    progress.total = 1000
    progress.add(1000)
    progress.done()
    assert stream.getvalue() == ""


@pytest.mark.timeout(120)
def test_runs_as_a_real_process_over_the_corpus(tmp_path: Path) -> None:
    """A real interpreter runs the command over the whole corpus directory."""
    script = ("import argparse, sys\n"
              "from monitor.triage.command import add_parser\n"
              "p = argparse.ArgumentParser(prog='rankwatch'); add_parser(p.add_subparsers())\n"
              "a = p.parse_args(sys.argv[1:]); sys.exit(a.handler(a))\n")
    done = subprocess.run([sys.executable, "-c", script, "triage", str(DATA), "--format",
                           "json", "--jobs", "2"], capture_output=True, text=True, timeout=110,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["inputs"]["files"] == 25
    assert report["events"]["watchdog_timeout"] == 24
