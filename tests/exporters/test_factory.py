"""build_sinks: configured sinks only, secrets from files, every problem reported at once,
and the cross-node policy wired in."""

from __future__ import annotations

from pathlib import Path

import pytest

from exporters.factory import build_sinks, delivery_problems, start_sinks
from monitor.errors import SettingsError
from monitor.settings import Settings, load_settings
from tests.delivery_support.receivers import PD_ACCEPTED, SLACK_OK, Receiver
from tests.delivery_support.records import job_record, run, stalled_record, wait_until


def write_config(tmp_path: Path, delivery: str) -> Settings:
    config = tmp_path / "rankwatch.toml"
    config.write_text(f'[general]\nstate_dir = "{tmp_path / "state"}"\n[delivery]\n{delivery}')
    return load_settings(config, env={})


def secret(tmp_path: Path, name: str, value: str) -> Path:
    path = tmp_path / name
    path.write_text(value + "\n")
    path.chmod(0o600)
    return path


def test_nothing_configured_builds_no_sinks(tmp_path: Path) -> None:
    """With no delivery keys set, no remote sink is built."""
    assert build_sinks(Settings(), node_is_reporting=True, state_dir=tmp_path) == []


def test_every_configured_sink_is_built_with_its_spool(tmp_path: Path) -> None:
    """Each of the four sinks is built when its key is set; spools live under
    <state_dir>/delivery/<sink>."""
    settings = write_config(
        tmp_path,
        f'slack_webhook_url_file = "{secret(tmp_path, "slack", "https://hooks.slack.com/s/T/B/x")}"\n'
        f'pagerduty_routing_key_file = "{secret(tmp_path, "pd", "0123456789abcdef" * 2)}"\n'
        'alertmanager_url = "http://127.0.0.1:9093"\n'
        f'webhook_url_file = "{secret(tmp_path, "hook", "https://example.org/hook")}"\n',
    )
    sinks = build_sinks(settings, node_is_reporting=True, node_name="gpu017")
    assert [s.name for s in sinks] == ["slack", "pagerduty", "alertmanager", "webhook"]
    for s in sinks:
        assert (tmp_path / "state" / "delivery" / s.name / "pending").is_dir()


def test_all_problems_are_reported_together_without_secret_content(tmp_path: Path) -> None:
    """Unknown sink names, unreadable and malformed secret files and bad URLs are reported in
    one SettingsError; no secret value appears in it."""
    settings = write_config(
        tmp_path,
        'warning_sinks = ["slack", "email"]\n'
        f'slack_webhook_url_file = "{secret(tmp_path, "slack", "not-a-url-SECRETVALUE")}"\n'
        f'pagerduty_routing_key_file = "{tmp_path / "missing"}"\n'
        'alertmanager_url = "am:9093"\n',
    )
    with pytest.raises(SettingsError) as caught:
        build_sinks(settings, node_is_reporting=True)
    problems = caught.value.problems
    assert len(problems) == 4
    assert problems == delivery_problems(settings.delivery)
    assert "SECRETVALUE" not in str(caught.value)
    assert any("unknown sink 'email'" in p for p in problems)


def test_job_level_alert_from_a_non_reporting_node(tmp_path: Path) -> None:
    """On a node that does not report, a job-level alert reaches PagerDuty but not Slack."""
    with Receiver(default=SLACK_OK) as slack, Receiver(default=PD_ACCEPTED) as pd:
        settings = write_config(
            tmp_path,
            f'slack_webhook_url_file = "{secret(tmp_path, "slack", slack.url("/s/T/B/x"))}"\n'
            f'pagerduty_routing_key_file = "{secret(tmp_path, "pd", "k" * 32)}"\n'
            f'pagerduty_url = "{pd.url("/v2/enqueue")}"\n'
            "coalesce_seconds = 0\n",
        )

        async def scenario() -> None:
            sinks = build_sinks(settings, node_is_reporting=lambda: False, node_name="gpu002")
            await start_sinks(sinks)
            for s in sinks:
                s.submit(job_record("gpu002"))
                s.submit(stalled_record(labels={"job": "4242", "node": "gpu002", "rank": "3"}))
            await wait_until(lambda: sum(s.stats.delivered for s in sinks) == 3)
            for s in sinks:
                await s.aclose(0.5)
            assert sinks[0].stats.skipped == {"other_node": 1}

        run(scenario)
        assert len(slack.snapshot()) == 1
        assert (
            "CRITICAL: DataloaderStalled" in slack.snapshot()[0].json["blocks"][0]["text"]["text"]
        )
        assert len(pd.snapshot()) == 2
