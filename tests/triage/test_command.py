"""`rankwatch triage`: argument parsing, formats, exit codes, progress."""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from monitor.triage.command import PROGRESS_MIN_BYTES, _Progress, add_parser, run
from tests.logformats import (
    BASE,
    dump_signal_observed,
    first_to_signal,
    nccl_init,
    watchdog_timeout,
    write_lines,
)

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


@pytest.mark.parametrize("value", ["=5", "gpu017=nan", "gpu017=inf"])
def test_clock_offset_needs_a_name_and_a_finite_number(value: str) -> None:
    """--clock-offset without a node name or with a non-finite value is a usage error."""
    code, _, err = _run(str(MISMATCH), "--clock-offset", value)
    assert code == 2 and "NODE=SECONDS" in err


@pytest.mark.parametrize("value", ["-1", "nan"])
def test_bad_clock_threshold_is_a_usage_error(value: str) -> None:
    """--clock-threshold wants a non-negative number of seconds."""
    code, _, err = _run(str(MISMATCH), f"--clock-threshold={value}")
    assert code == 2 and "--clock-threshold" in err


def _skewed_job(root: Path) -> None:
    """Two files on two hosts; gpu2's clock is 45 s behind: its rank reads rank 0's dump
    signal "before" rank 0 sent it."""
    at = BASE
    early = BASE - dt.timedelta(seconds=45) + dt.timedelta(milliseconds=200)
    write_lines(root / "rank0.log", [nccl_init("gpu1", 4000, 0, 2), watchdog_timeout(0, 7, at),
                                     first_to_signal(0, at + dt.timedelta(microseconds=100))])
    write_lines(root / "rank1.log", [nccl_init("gpu2", 4001, 1, 2),
                                     *dump_signal_observed(1, 0, 6, 6, early)])


def test_clock_skew_is_flagged_and_a_given_offset_suppresses_it(tmp_path: Path) -> None:
    """The JSON report's `clock` flags gpu2's inferred skew; --clock-offset gpu2=45 applies the
    offset as given and the flag goes away; --clock-threshold 100 keeps the correction but
    does not flag it."""
    _skewed_job(tmp_path)
    code, out, _ = _run(str(tmp_path), "--format", "json")
    clock = json.loads(out)["clock"]
    assert code == 0 and clock["flagged"]
    gpu2 = next(c for c in clock["domains"] if c["domain"] == "gpu2")
    assert gpu2["basis"] == "inferred" and 44.5 < gpu2["correction_seconds"] < 47.0
    _, out, _ = _run(str(tmp_path), "--format", "json", "--clock-offset", "gpu2=45")
    clock = json.loads(out)["clock"]
    gpu2 = next(c for c in clock["domains"] if c["domain"] == "gpu2")
    assert not clock["flagged"] and (gpu2["basis"], gpu2["correction_seconds"]) == ("given", 45)
    _, out, _ = _run(str(tmp_path), "--clock-threshold", "100")
    assert "\nCLOCKS\n" in out and "CLOCK SKEW" not in out


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
