"""Each fault of a real-NCCL-looking job is named by rankwatch: the right rank (or, for a
whole-job hang, none and why), the right category, one incident, on the emulated NCCL job
(tests/emulated_nccl: gloo ranks with NCCL's counts on a RAS endpoint and CUDA-style host
waits). How fast is measured by tests/benchmarks/bench_fault_to_page.py, not asserted here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.emulated_nccl.faults import BY_FAULT, EXPECTED, is_page, measure

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("fault", [e.fault for e in EXPECTED])
def test_the_fault_is_named_with_its_rank_and_category(tmp_path: Path, fault: str) -> None:
    expected = BY_FAULT[fault]
    # Generous: speed is the benchmark's to measure; a loaded CI machine only takes longer.
    measured = measure(fault, tmp_path, timeout=120)
    log = measured.outcome.output.read_text(errors="replace")[-3000:]
    ras = tmp_path / "ras.txt"
    ras_tail = ras.read_text(errors="replace")[-1500:] if ras.exists() else ""
    seen = [(a["starts_at"], a["status"], a["alertname"], a["severity"], a["summary"][:120])
            for a in measured.outcome.alerts]  # fmt: skip
    assert measured.named is not None, (seen, log, ras_tail)
    named = measured.named
    if not expected.culprit:
        assert named["evidence"].get("severity_note") is None
        assert named["severity"] == "critical", named  # says why no rank is blamed
    # Nothing before the fault was shut down blames another rank, or pages twice.
    before = [a for a in measured.outcome.alerts_before_stop() if is_page(a)]
    wrong = [a for a in before if a["culprit_ranks"] and tuple(a["culprit_ranks"]) != expected.culprit]
    assert wrong == [], wrong
    incidents = {a["incident_id"] for a in before if a["severity"] == "critical"}
    assert len(incidents) <= 1, before
    if fault in ("dead_reaped", "dead_unreaped"):
        assert measured.outcome.fault is not None
        assert named["evidence"]["pid"] == measured.outcome.fault.pid, "not the rank's own pid"
