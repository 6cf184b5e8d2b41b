"""deploy/prometheus rules and scrape config, deploy/alertmanager routes, and the list of metric
names they and the dashboards use."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from monitor.alerts import runbook_anchor
from tests.deploy.promql import (
    REPO,
    RULES_DIR,
    USED_METRICS,
    metric_names,
    render_used_metrics,
    rule_files,
    rules,
)

RULES = RULES_DIR / "rankwatch_rules.yml"
RULE_TESTS = RULES_DIR / "tests" / "rankwatch_rules_test.yml"
ALERTMANAGER = REPO / "deploy" / "alertmanager" / "alertmanager.yml"
README = REPO / "README.md"
RUNBOOK_BASE = "https://github.com/rankwatch/rankwatch/blob/main/README.md#"


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, check=False, cwd=cwd)


def _alerts() -> list[dict[str, object]]:
    return [rule for rule in rules(RULES) if "alert" in rule]


def test_promtool_check_rules() -> None:
    """Every rule file parses and passes promtool's lint."""
    for path in rule_files():
        done = _run("promtool", "check", "rules", str(path))
        assert done.returncode == 0, done.stdout + done.stderr


def test_promtool_rule_unit_tests_pass() -> None:
    """The promtool unit tests of every alert and recording rule pass."""
    done = _run("promtool", "test", "rules", str(RULE_TESTS))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


def test_promtool_rule_unit_tests_can_fail(tmp_path: Path) -> None:
    """A wrong expectation (the culprit is rank 3, not 2) makes promtool fail."""
    tests_dir = tmp_path / "tests"
    tests_dir.mkdir()
    shutil.copy(RULES, tmp_path / RULES.name)
    text = RULE_TESTS.read_text().replace('culprit_ranks: "2 "', 'culprit_ranks: "3 "', 1)
    (tests_dir / RULE_TESTS.name).write_text(text)
    done = _run("promtool", "test", "rules", str(tests_dir / RULE_TESTS.name))
    assert done.returncode == 1
    assert "culprit_ranks" in done.stdout + done.stderr


def test_every_alert_has_for_severity_and_annotations() -> None:
    """Each alert waits (`for:`), has a severity, a summary, a description and a runbook link
    to its README anchor."""
    alerts = _alerts()
    assert {a["alert"] for a in alerts} == {
        "RankwatchJobStalled",
        "RankwatchRankDead",
        "RankwatchDataloaderStalled",
        "RankwatchMemoryPressure",
        "RankwatchSidecarDown",
    }
    for alert in alerts:
        name = str(alert["alert"])
        assert re.fullmatch(r"\d+[smh]", str(alert.get("for", ""))), name
        labels = alert["labels"]
        annotations = alert["annotations"]
        assert isinstance(labels, dict) and isinstance(annotations, dict)
        assert labels["severity"] in ("warning", "critical"), name
        assert annotations["summary"] and annotations["description"], name
        assert annotations["runbook_url"] == RUNBOOK_BASE + runbook_anchor(name), name


def test_every_alert_fires_in_a_unit_test() -> None:
    """Each alert name is expected to fire (non-empty exp_alerts) somewhere in the tests."""
    suite = yaml.safe_load(RULE_TESTS.read_text())
    fired = {
        case["alertname"]
        for test in suite["tests"]
        for case in test.get("alert_rule_test", [])
        if case.get("exp_alerts")
    }
    assert fired == {a["alert"] for a in _alerts()}


def test_readme_has_a_runbook_for_every_alert() -> None:
    """README.md has `### Runbook: <AlertName>` and its kebab-case anchor per alert."""
    text = README.read_text(encoding="utf-8")
    for name in {str(a["alert"]) for a in _alerts()}:
        assert f"### Runbook: {name}" in text, name
        assert f'<a id="{runbook_anchor(name)}"></a>' in text, name


def test_prometheus_config_is_valid() -> None:
    """The example scrape config (file_sd) and the rule files it globs are valid."""
    done = _run("promtool", "check", "config", "prometheus.yml", cwd=RULES_DIR)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rankwatch_rules.yml" in done.stdout


def test_alertmanager_config_and_routes() -> None:
    """The Alertmanager example is valid; critical alerts page PagerDuty and post to Slack,
    warnings go to Slack only; both group by job."""
    done = _run("amtool", "check-config", str(ALERTMANAGER))
    assert done.returncode == 0, done.stdout + done.stderr

    def receivers(*labels: str) -> str:
        routed = _run(
            "amtool", "config", "routes", "test", f"--config.file={ALERTMANAGER}", *labels
        )
        assert routed.returncode == 0, routed.stderr
        return routed.stdout.strip()

    assert receivers("alertname=RankwatchJobStalled", "severity=critical", "job_id=42") == (
        "pagerduty-training,slack-training"
    )
    assert receivers("alertname=RankwatchSidecarDown", "severity=warning", "job_id=42") == (
        "slack-training"
    )
    # An alert a sidecar posts itself (exporters/alertmanager.py labels) routes the same way.
    assert receivers("alertname=RankDead", "severity=critical", "job=42", "job_id=42",
                     "category=rank_dead") == "pagerduty-training,slack-training"
    assert receivers("alertname=ClockUnsynchronised", "severity=warning", "job=42",
                     "job_id=42") == "slack-training"
    config = yaml.safe_load(ALERTMANAGER.read_text())
    assert all(route["group_by"] == ["job_id"] for route in config["route"]["routes"])


@pytest.mark.parametrize(
    ("expr", "names"),
    [
        ("max by (job_id) (rankwatch_job_stalled)", {"rankwatch_job_stalled"}),
        ('rate(a_total{x="b c", y=~"$v"}[5m]) / on (n) group_left () b', {"a_total", "b"}),
        ("x == bool 0 and on (job_id) y:rec:max > 0 or vector(0)", {"x", "y:rec:max"}),
        ("time() - rankwatch_start_time_seconds", {"rankwatch_start_time_seconds"}),
        ('label_replace(m, "dst", "$1", "src", "(.*)")', {"m"}),
    ],
)
def test_metric_name_extraction(expr: str, names: set[str]) -> None:
    """Metric names are told apart from functions, keywords, labels and strings."""
    assert metric_names(expr) == names


def test_used_metrics_list_is_current() -> None:
    """tests/data/deploy/used_metrics.txt lists exactly the exporter metrics the rules and
    dashboards use (regenerate: python -m tests.deploy.promql --write)."""
    assert USED_METRICS.read_text(encoding="utf-8") == render_used_metrics()
    names = [line for line in USED_METRICS.read_text().splitlines() if not line.startswith("#")]
    assert names and all(n.startswith("rankwatch_") for n in names)
