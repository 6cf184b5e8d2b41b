"""End to end: a real torch 2.13 gloo job (torchrun, 3 ranks, TORCH_FR_BUFFER_SIZE set) in
which rank 1 skips an all-reduce; every rank writes its flight-recorder dump; `rankwatch
triage` names rank 1 and `collective_desync` from the dumps alone, and beside the job's logs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JOB = Path(__file__).resolve().parent / "fr_gloo_job.py"
TRIAGE = ("import argparse, sys\n"
          "from monitor.triage.command import add_parser\n"
          "p = argparse.ArgumentParser(prog='rankwatch'); add_parser(p.add_subparsers())\n"
          "a = p.parse_args(sys.argv[1:]); sys.exit(a.handler(a))\n")


def _triage(*paths: Path) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", TRIAGE, "triage", *map(str, paths),
                           "--format", "json", "-q"], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    report: dict[str, object] = json.loads(done.stdout)
    return report


@pytest.fixture(scope="module")
def job_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    dumps = tmp_path_factory.mktemp("dumps")
    logs = tmp_path_factory.mktemp("logs")
    env = {**os.environ, "TORCH_FR_BUFFER_SIZE": "64", "FR_DUMP_PREFIX": str(dumps / "fr_rank_"),
           "FR_SKIP_RANK": "1", "FR_TIMEOUT_SECONDS": "3", "PYTHONPATH": str(ROOT)}
    with (logs / "torchrun.log").open("w") as out:
        done = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone",
                               "--nproc-per-node", "3", str(JOB)], stdout=out,
                              stderr=subprocess.STDOUT, env=env, timeout=150, cwd=ROOT)
    assert done.returncode == 0, (logs / "torchrun.log").read_text()
    return dumps, logs


@pytest.mark.timeout(300)
def test_the_dumps_alone_name_the_rank_that_skipped(job_run: tuple[Path, Path]) -> None:
    dumps, _logs = job_run
    assert sorted(p.name for p in dumps.iterdir()) == ["fr_rank_0", "fr_rank_1", "fr_rank_2"]
    report = _triage(dumps)
    assert report["category"] == "collective_desync"
    assert report["culprit_ranks"] == [1]
    fr = report["flight_recorder"]
    assert isinstance(fr, dict)
    group = fr["groups"][0]
    assert (group["verdict"], group["seq"], group["op"]) == ("never_entered", 5, "all_reduce")
    assert group["waiting_ranks"] == [0, 2]
    rank1 = next(r for r in group["ranks"] if r["rank"] == 1)
    # The stack in rank 1's dump points at the job's own call: the broadcast before the skip.
    assert rank1["last_op"] == "broadcast"
    assert "fr_gloo_job.py" in rank1["called_from"]


@pytest.mark.timeout(300)
def test_with_the_job_log_the_dumps_still_decide(job_run: tuple[Path, Path]) -> None:
    dumps, logs = job_run
    report = _triage(dumps, logs)
    assert report["category"] == "collective_desync"
    assert report["culprit_ranks"] == [1]
    findings = report["findings"]
    assert isinstance(findings, list)
    assert any("never entered collective #5" in f for f in findings)


def test_logs_and_dumps_agree_on_the_collective(tmp_path: Path) -> None:
    """Watchdog timeouts of ranks 0 and 2 in collective #5 beside the real dumps in which
    rank 1 never entered #5: the report says they agree, and names rank 1."""
    from tests.logformats import BASE, watchdog_timeout, write_lines

    fixtures = ROOT / "tests" / "data" / "flight_recorder" / "gloo-skip-allreduce"
    for rank in range(3):
        (tmp_path / f"fr_rank_{rank}").write_bytes((fixtures / f"fr_rank_{rank}").read_bytes())
    write_lines(tmp_path / "job.log", [watchdog_timeout(0, 5, BASE), watchdog_timeout(2, 5, BASE)])
    report = _triage(tmp_path)
    assert report["category"] == "collective_desync" and report["culprit_ranks"] == [1]
    findings = report["findings"]
    assert isinstance(findings, list)
    assert any("logs and dumps agree on the collective: #5" in f for f in findings)
