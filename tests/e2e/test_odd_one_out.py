"""The odd one out, end to end: four ranks wait for their collectives in a communication
library no rule recognises (tests/emulated_nccl/vendor_comm.py), so every rank looks like "user
code" to the state table. Rank 1 deadlocks in the job's own code. The stack detector, through
`rankwatch run` and real py-spy dumps, sees three ranks stuck at one place and names rank 1 as
the suspect (a warning: nothing recognised the others' wait). The RAS endpoint is off, so the
stacks alone decide."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.emulated_nccl.harness import run_scenario, scenario

pytestmark = pytest.mark.e2e


def test_three_alike_and_one_different_names_the_different_one(tmp_path: Path) -> None:
    spec = scenario(
        "user_deadlock", ranks=4, host_wait="vendor", ras=False, fault_rank=1, fault_step=30,
        step_seconds=0.1, workers=0,
        settings={"RANKWATCH_PYSPY_STRAGGLER_ALERT_SECONDS": "10"},
    )  # fmt: skip

    def odd_one_named(alerts: list[dict[str, object]]) -> bool:
        return any(a["alertname"] == "RankNotInCollective" and a["status"] == "firing"
                   for a in alerts)  # fmt: skip

    outcome = run_scenario(spec, tmp_path, until=odd_one_named, timeout=90)
    fired = [a for a in outcome.alerts
             if a["alertname"] == "RankNotInCollective" and a["status"] == "firing"]  # fmt: skip
    log = outcome.output.read_text(errors="replace")[-3000:]
    assert fired, log
    alert = fired[0]
    assert alert["culprit_ranks"] == [1], alert
    assert alert["severity"] == "warning" and alert["category"] == "collective_desync", alert
    assert "is the odd one out" in alert["summary"], alert["summary"]
    assert "vendor_comm.py" in alert["summary"], alert["summary"]
    groups = alert["evidence"]["stack_groups"]
    assert [g["ranks"] for g in groups] == [[0, 2, 3], [1]], groups
    # Nobody else was blamed on the way.
    blamed = {tuple(a["culprit_ranks"]) for a in outcome.alerts_before_stop()
              if a["status"] == "firing" and a["culprit_ranks"]}  # fmt: skip
    assert blamed <= {(1,)}, blamed
