"""The clock rules and metrics under promtool: rule checks, rule unit tests, metric lint."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest

from exporters.prometheus import SnapshotCollector
from monitor.detectors.time_sync import ClockDetector
from monitor.model import HealthSnapshot, SnapshotHolder
from monitor.settings import ClockSettings
from tests.monitor.detectors.test_time_sync import kernel, measurement, reading

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


def test_clock_metrics_pass_promtool_lint() -> None:
    """The clock detector's series, rendered as the exporter does, pass `promtool check metrics`."""
    detector = ClockDetector(ClockSettings(), "gpu01")
    detector.observe(reading(1.0, first=True), 1.0)
    detector.observe(reading(2.0, jump=-1.0), 2.0)
    detector.observe(measurement(2.0, 0.2), 2.0)
    detector.observe(kernel(2.0, True), 2.0)
    holder = SnapshotHolder()
    holder.current = HealthSnapshot(0.0, tuple(detector.metric_families(2.0)), ())
    registry = CollectorRegistry(auto_describe=False)
    registry.register(SnapshotCollector(holder))
    exposition = generate_latest(registry).decode()
    assert 'rankwatch_clock_steps_total{direction="backward"} 1.0' in exposition
    path = shutil.which("promtool")
    assert path is not None, "promtool not found: install the Debian package 'prometheus'"
    result = subprocess.run(
        [path, "check", "metrics"], input=exposition, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr
