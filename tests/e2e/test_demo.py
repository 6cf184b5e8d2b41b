"""End to end: the real `rankwatch demo` (simulated job, SIMULATED RAS endpoint, real daemon)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import child_env, rankwatch_argv, read_alerts


@pytest.mark.e2e
def test_demo_says_the_ras_endpoint_is_simulated_and_ras_names_rank_1(tmp_path: Path) -> None:
    """`rankwatch demo` announces its SIMULATED RAS endpoint (with its loopback address) before
    the job starts, the RAS path raises a collective desync naming rank 1 alongside the progress
    alert, and the closing summary reports both; the demo exits 0."""
    log = tmp_path / "alerts.jsonl"
    done = subprocess.run(
        # The default duration (45 s), as users run it.
        rankwatch_argv("demo", "--alert-log", str(log)),
        cwd=tmp_path,
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # one stream keeps the order of the demo's and the job's lines
        text=True,
        timeout=180,
    )
    output = done.stdout
    assert done.returncode == 0, output[-4000:]
    lines = output.splitlines()
    assert len(lines) <= 40, output  # one screen
    assert "\033[" not in output  # colour on a terminal only
    assert re.search(r"SIMULATED\nNCCL RAS endpoint on 127\.0\.0\.1:\d+ ", output), output[:2000]
    # The job's own output goes to a file whose path the demo prints.
    job_output = Path(re.search(r"the job's own output: (\S+)", output).group(1))  # type: ignore[union-attr]
    job_text = job_output.read_text()
    job_output.unlink()  # the demo keeps it for its user; the suite leaves nothing behind
    assert "[rank0]: step" in job_text and "[rank0]: step" not in output
    # The story, in order: start, pace, fault, the page naming rank 1 with its evidence.
    story = [
        output.index("job started"),
        output.index("pace learned from the job's own output"),
        output.index("FAULT INJECTED: rank 1's data worker"),
        output.index("culprit rank 1"),
        output.index("runbook: "),
        output.index("What to do on such a page"),
    ]
    assert story == sorted(story), output
    assert re.search(r"\[ *\d+ s\] PAGE (WARNING|CRITICAL) ProgressStalled .*culprit rank 1", output)
    summary = output[output.index("rankwatch: job exited") :]
    assert "the progress alert named rank 1" in summary
    assert re.search(
        r"the RAS path \(SIMULATED RAS endpoint, \d+ STATUS queries answered\) named rank 1 too: "
        r"CollectiveDesync \[collective_desync\], info, recorded inside the same incident",
        summary,
    ), summary

    records = [r for r in read_alerts(log) if r["status"] == "firing"]
    desync = [r for r in records if r["alertname"] == "CollectiveDesync"]
    assert desync and desync[0]["culprit_ranks"] == [1] and desync[0]["scope"] == "job"
    stall = [r for r in records if r["alertname"] == "ProgressStalled"]
    assert stall and stall[0]["culprit_ranks"] == [1]
    # One failure, one incident: the RAS view of it is evidence inside the incident the stall
    # opened, recorded as info; nothing else pages.
    assert {r["incident_id"] for r in desync} == {stall[0]["incident_id"]}
    assert all(r["severity"] == "info" for r in desync)
    pages = [r for r in records if r["severity"] != "info"]
    assert {r["alertname"] for r in pages} == {"ProgressStalled"}
