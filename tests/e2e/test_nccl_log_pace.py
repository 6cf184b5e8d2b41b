"""A job that prints NCCL COLL lines (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL) is paced by them:
on an NCCL release whose RAS replies are text only (counts shown only inside a MISMATCH, so RAS
learns no rate before the freeze), the frozen MISMATCH is judged against the job's pace from its
log lines and the stuck rank is named within the fault's bar (without the lines: the 30 s floor
from the first MISMATCH seen, past the bar). A transient MISMATCH seen twice before the fault
can give RAS a rate of its own, which then leads; either way the window is the paced floor."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.emulated_nccl.faults import BY_FAULT, Measured, measure

pytestmark = pytest.mark.e2e


def desync_alerts(measured: Measured) -> list[dict[str, object]]:
    return [
        a for a in measured.outcome.alerts
        if a["alertname"] == "CollectiveDesync" and a["status"] == "firing"
    ]  # fmt: skip


def test_text_ras_job_paced_by_its_coll_lines_names_the_hung_kernel(tmp_path: Path) -> None:
    measured = measure("kernel_hang", tmp_path, timeout=60, nccl_version="2.27.3", op_lines="nccl")
    log = measured.outcome.output.read_text(errors="replace")
    assert "NCCL INFO AllReduce: opCount" in log
    assert measured.named is not None, (measured.first, log[-3000:])
    assert measured.seconds_to_named is not None
    assert measured.seconds_to_named <= BY_FAULT["kernel_hang"].bar_seconds, measured.named
    desync = desync_alerts(measured)
    assert desync, [a["alertname"] for a in measured.outcome.alerts]
    evidence = desync[0]["evidence"]
    assert desync[0]["culprit_ranks"] == [1]
    assert evidence["window_seconds"] == 15.0, evidence  # type: ignore[index]
    assert evidence["pace_source"] in ("log_lines", "log_lines_job_wide", "ras"), evidence  # type: ignore[index]
