"""The cross-node clock skew rule: promtool validates it and runs its unit tests."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from monitor.detectors.clock import ClockDetector
from monitor.settings import ClockSettings

PROMETHEUS_DIR = Path(__file__).resolve().parents[2] / "deploy" / "prometheus"
RULES = PROMETHEUS_DIR / "clock_rules.yml"
RULE_TESTS = PROMETHEUS_DIR / "tests" / "clock_rules_test.yml"


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    path = shutil.which("promtool")
    if path is None:
        pytest.fail("promtool not found: install the Debian package 'prometheus'")
    return subprocess.run([path, *args], capture_output=True, text=True, timeout=60, check=False)


def test_rules_are_valid() -> None:
    """`promtool check rules` accepts the clock rules."""
    result = promtool("check", "rules", str(RULES))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_rule_unit_tests_pass() -> None:
    """`promtool test rules`: only the odd node of a job is flagged, with its signed skew."""
    result = promtool("test", "rules", str(RULE_TESTS))
    assert result.returncode == 0, result.stdout + result.stderr


def test_rules_use_only_metrics_the_sidecar_exports() -> None:
    """Every rankwatch_ metric named in the rules is one the clock detector emits."""
    families = ClockDetector(ClockSettings(), "n").metric_families(0)
    exported = {"rankwatch_" + f.name for f in families}
    used = set(re.findall(r"\brankwatch_[a-z_]+", RULES.read_text()))
    assert used, "the rules name no rankwatch metric"
    assert used <= exported
