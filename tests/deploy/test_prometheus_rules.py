"""deploy/prometheus rules and scrape config, deploy/alertmanager routes, and the list of metric
names they and the dashboards use."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from monitor.alerts import runbook_anchor
from tests.delivery_support.records import sink
from tests.delivery_support.scripted import ScriptedNotifier
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
DELIVERY_RULES = RULES_DIR / "delivery_rules.yml"
DELIVERY_RULE_TESTS = RULES_DIR / "tests" / "delivery_rules_test.yml"
ALERTMANAGER = REPO / "deploy" / "alertmanager" / "alertmanager.yml"
ALERTS_DOC = REPO / "docs" / "alerts.md"
RUNBOOK_BASE = "https://github.com/rankwatch/rankwatch/blob/main/docs/alerts.md#"


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, check=False, cwd=cwd)


def _alerts() -> list[dict[str, object]]:
    """Every alert rule of every shipped rule file."""
    return [rule for path in rule_files() for rule in rules(path) if "alert" in rule]


def _rule_tests() -> list[Path]:
    return sorted((RULES_DIR / "tests").glob("*_rules_test.yml"))


def test_promtool_check_rules() -> None:
    """Every rule file parses and passes promtool's lint."""
    for path in rule_files():
        done = _run("promtool", "check", "rules", str(path))
        assert done.returncode == 0, done.stdout + done.stderr


def test_promtool_rule_unit_tests_pass() -> None:
    """The promtool unit tests of every alert and recording rule pass, one test file per
    rule file."""
    tests = _rule_tests()
    assert [t.name for t in tests] == [f"{r.stem}_test.yml" for r in rule_files()]
    done = _run("promtool", "test", "rules", *map(str, tests))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("SUCCESS") == len(tests)


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


INCREASE_ONLY = " or ".join(
    f"sum by (job_id, user, node, sink) (increase(rankwatch_alerts_delivery_{kind}_total[15m])) > 0"
    for kind in ("failed", "dropped")
)


@pytest.mark.parametrize(
    ("mutate", "caught_by"),
    [
        # increase() alone: a counter's series appears at 1 with its first event, unseen
        (lambda expr: INCREASE_ONLY, 'sink="pagerduty"'),
        # any new series: the console sink's series appear at 0 from the start
        (lambda expr: expr.replace("_total > 0 unless", "_total unless"), 'sink="console"'),
    ],
    ids=["increase-only", "new-zero-series"],
)
def test_delivery_loss_rule_unit_tests_can_fail(
    tmp_path: Path, mutate: Callable[[str], str], caught_by: str
) -> None:
    """AlertDeliveryLost must count a new loss series (a counter's first event) but not a new
    series at 0; either mistake fails the unit tests, in the case that shows it."""
    tests_dir = tmp_path / "tests"
    tests_dir.mkdir()
    doc = yaml.safe_load(DELIVERY_RULES.read_text())
    (lost,) = [
        r for g in doc["groups"] for r in g["rules"] if r.get("alert") == "AlertDeliveryLost"
    ]
    mutated = mutate(lost["expr"])
    assert mutated != lost["expr"]
    lost["expr"] = mutated
    (tmp_path / DELIVERY_RULES.name).write_text(yaml.safe_dump(doc))
    shutil.copy(DELIVERY_RULE_TESTS, tests_dir / DELIVERY_RULE_TESTS.name)
    done = _run("promtool", "test", "rules", str(tests_dir / DELIVERY_RULE_TESTS.name))
    assert done.returncode == 1
    assert "the first loss is a new series" in done.stdout + done.stderr
    assert caught_by in done.stdout + done.stderr
    assert "a known loss counter grows" not in done.stdout + done.stderr  # increase() does that


def test_delivery_rules_use_only_metrics_the_delivery_sink_exports(tmp_path: Path) -> None:
    """Every rankwatch_ name in delivery_rules.yml is one a delivery sink exports (counters
    with _total), so the rules cannot silently select nothing."""
    families = sink(ScriptedNotifier(), tmp_path).metric_families()
    exported = {"rankwatch_" + f.name + ("_total" if f.kind == "counter" else "") for f in families}
    used = set(re.findall(r"\brankwatch_[a-z_]+", DELIVERY_RULES.read_text()))
    assert {"rankwatch_alerts_delivery_sink_up", "rankwatch_alerts_delivery_failed_total"} <= used
    assert used <= exported, used - exported


def test_every_alert_has_for_severity_and_annotations() -> None:
    """Each alert waits (`for:`), has a severity, a summary, a description and a runbook link
    to its anchor in docs/alerts.md."""
    alerts = _alerts()
    assert {a["alert"] for a in alerts} == {
        "RankwatchJobStalled",
        "RankwatchRankDead",
        "RankwatchDataloaderStalled",
        "RankwatchMemoryPressure",
        "RankwatchSidecarDown",
        "ClockSkewAcrossNodes",
        "AlertDeliveryFailing",
        "AlertDeliveryLost",
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
    fired = {
        case["alertname"]
        for path in _rule_tests()
        for test in yaml.safe_load(path.read_text())["tests"]
        for case in test.get("alert_rule_test", [])
        if case.get("exp_alerts")
    }
    assert fired == {a["alert"] for a in _alerts()}


def test_alerts_doc_has_a_runbook_for_every_alert() -> None:
    """docs/alerts.md has `### Runbook: <AlertName>` and its kebab-case anchor per alert."""
    text = ALERTS_DOC.read_text(encoding="utf-8")
    for name in {str(a["alert"]) for a in _alerts()}:
        assert f"### Runbook: {name}" in text, name
        assert f'<a id="{runbook_anchor(name)}"></a>' in text, name


def test_prometheus_config_is_valid() -> None:
    """The example scrape config (file_sd) and the rule files it globs are valid."""
    done = _run("promtool", "check", "config", "prometheus.yml", cwd=RULES_DIR)
    assert done.returncode == 0, done.stdout + done.stderr
    for path in rule_files():
        assert path.name in done.stdout


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
