"""Settings: layering, typing and one-pass validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.errors import SettingsError
from monitor.settings import load_settings


def test_defaults_load() -> None:
    """With nothing configured the documented defaults apply."""
    s = load_settings(None, env={})
    assert s.general.metrics_addr == "127.0.0.1:9824"
    assert s.progress.stall_floor_seconds == 20.0


def test_layers_defaults_toml_env_cli(tmp_path: Path) -> None:
    """TOML overrides defaults, RANKWATCH_* overrides TOML, the command line overrides all."""
    cfg = tmp_path / "c.toml"
    cfg.write_text(
        '[progress]\nstall_floor_seconds = 30\nstall_multiplier = 4\n[general]\njob_id = "a"\n'
    )
    s = load_settings(
        cfg,
        env={"RANKWATCH_PROGRESS_STALL_MULTIPLIER": "7", "RANKWATCH_JOB_ID": "b"},
        overrides={"general.job_id": "c"},
    )
    assert s.progress.stall_floor_seconds == 30.0
    assert s.progress.stall_multiplier == 7.0
    assert s.general.job_id == "c"


def test_three_errors_reported_together(tmp_path: Path) -> None:
    """Every bad key is reported in one pass, not one per run."""
    cfg = tmp_path / "bad.toml"
    cfg.write_text(
        '[progress]\nstall_floor_seconds = "soon"\nno_such_key = 1\n[general]\nlog_format = "xml"\n'
    )
    with pytest.raises(SettingsError) as err:
        load_settings(cfg, env={})
    problems = err.value.problems
    assert len(problems) == 3
    assert any("stall_floor_seconds must be a number" in p for p in problems)
    assert any("unknown key progress.no_such_key" in p for p in problems)
    assert any("log_format must be one of" in p for p in problems)


def test_limits_and_unknown_env() -> None:
    """Out-of-range values and unknown RANKWATCH_ variables are errors, not silently ignored."""
    with pytest.raises(SettingsError) as err:
        load_settings(None, env={"RANKWATCH_PROCESS_INTERVAL_SECONDS": "0", "RANKWATCH_BOGUS": "1"})
    assert len(err.value.problems) == 2


def test_list_settings_from_env_and_toml(tmp_path: Path) -> None:
    """Lists come from TOML arrays or comma-separated environment values."""
    s = load_settings(None, env={"RANKWATCH_CLOCK_NTP_SERVERS": "a:123, b"})
    assert s.clock.ntp_servers == ("a:123", "b")


def test_settings_are_frozen() -> None:
    """Settings cannot change after validation."""
    s = load_settings(None, env={})
    with pytest.raises(AttributeError):
        s.general.job_id = "x"  # type: ignore[misc]


def test_env_names_of_sections_with_underscores() -> None:
    """RANKWATCH_LOG_EVENTS_ENABLED sets log_events.enabled (the section name has an
    underscore); every section's every key is reachable from the environment."""
    settings = load_settings(None, env={"RANKWATCH_LOG_EVENTS_ENABLED": "false",
                                        "RANKWATCH_LOG_EVENTS_SETTLE_SECONDS": "1.5"})
    assert settings.log_events.enabled is False and settings.log_events.settle_seconds == 1.5
    from monitor.settings import settings_reference

    for key, _default, _doc in settings_reference():
        section, name = key.split(".", 1)
        var = f"RANKWATCH_{section}_{name}".upper()
        value = getattr(getattr(settings, section), name)
        text = ",".join(value) if isinstance(value, tuple) else str(value).lower()
        if isinstance(value, tuple) and not value:
            continue
        load_settings(None, env={var: text})  # raises SettingsError if unreachable
