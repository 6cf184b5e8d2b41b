"""The real `rankwatch` command with every capability wired in: RAS polling by `--ras`, log
events from the job's output, `check-config` reporting what only shows at use, `--slurm-job`
refusing an incomplete prolog environment, and `triage` as a subcommand."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fake_ras import Event, FakeRasServer, JobShape, scenario

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
DATA_LOGS = REPO / "tests" / "data" / "logs"


def rankwatch(*args: str, **kwargs: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "monitor", *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def wait_for(predicate: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return bool(predicate())


def quiet_config(tmp_path: Path, extra: str = "") -> Path:
    """Settings that keep a test independent of the machine: no py-spy, no clock reference."""
    config = tmp_path / "rankwatch.toml"
    config.write_text(
        "[pyspy]\nenabled = false\n[clock]\nenabled = false\n" + extra, encoding="utf-8"
    )
    return config


def test_ras_flag_pages_a_dead_rank_from_the_wrapped_job(tmp_path: Path) -> None:
    """`run --ras HOST:PORT -- CMD`: the RAS port is polled (this node is the primary in wrap
    mode) and a rank that goes DEAD becomes a RankDead record naming it."""
    alert_log = tmp_path / "alerts.jsonl"
    config = quiet_config(
        tmp_path,
        "[ras]\ninterval_seconds = 5\nsettle_seconds = 0\nhandshake_timeout_seconds = 0.5\n"
        "reply_timeout_seconds = 3\nskip_versions = []\n",
    )
    script = scenario(Event.DEAD, shape=JobShape(version="2.29.7"), after_seconds=2.0,
                      culprit_ranks=(3,), dead_after_extra_queries=0)
    with FakeRasServer(script) as srv:
        proc = rankwatch(
            "run", "--config", str(config), "--ras", srv.address, "--alert-log", str(alert_log),
            "--metrics-addr", "", "--", sys.executable, "-c", "import time; time.sleep(60)",
        )  # fmt: skip
        try:
            found = wait_for(
                lambda: any(r["alertname"] == "RankDead" for r in records(alert_log)), 25
            )
        finally:
            proc.send_signal(signal.SIGTERM)
            _out, err = proc.communicate(timeout=30)
        assert srv.stats.status_queries >= 1 and not srv.sent_control()
    assert found, f"no RankDead record; stderr:\n{err[-3000:]}"
    dead = next(r for r in records(alert_log) if r["alertname"] == "RankDead")
    assert dead["culprit_ranks"] == [3] and dead["severity"] == "critical"
    # SIGTERM was forwarded to the job, and rankwatch exits with its status, as a shell does.
    assert proc.returncode == 128 + signal.SIGTERM


def test_log_event_in_the_jobs_output_becomes_an_alert(tmp_path: Path) -> None:
    """A watchdog timeout line on the job's stderr gives an NcclCollectiveTimeout record that
    names the rank, and the line still reaches our stderr unchanged."""
    alert_log = tmp_path / "alerts.jsonl"
    config = quiet_config(tmp_path, "[ras]\nenabled = false\n[log_events]\nsettle_seconds = 0.5\n")
    line = (
        "[rank1]:[E ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=42, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, "
        "Timeout(ms)=600000) ran for 600012 milliseconds before timing out."
    )
    program = f"import sys, time; print({line!r}, file=sys.stderr, flush=True); time.sleep(4)"
    proc = rankwatch(
        "run", "--config", str(config), "--alert-log", str(alert_log), "--metrics-addr", "",
        "--", sys.executable, "-c", program,
    )  # fmt: skip
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert line in err
    timeouts = [r for r in records(alert_log) if r["alertname"] == "NcclCollectiveTimeout"]
    assert timeouts, f"no NcclCollectiveTimeout record: {records(alert_log)}\n{err[-2000:]}"
    assert timeouts[0]["status"] == "firing" and 1 in timeouts[0]["culprit_ranks"] + [
        int(r) for r in timeouts[0]["evidence"].get("initiator_ranks", [])
    ]


def test_check_config_reports_problems_that_show_only_at_use(tmp_path: Path) -> None:
    """A missing secret file, a webhook file without a URL, a malformed NTP server and a bad
    RAS address are all reported together, with exit status 2."""
    not_a_url = tmp_path / "slack_url"
    not_a_url.write_text("hooks.slack.example/T000\n")
    config = tmp_path / "bad.toml"
    config.write_text(
        "[delivery]\n"
        f'pagerduty_routing_key_file = "{tmp_path / "missing-key"}"\n'
        f'slack_webhook_url_file = "{not_a_url}"\n'
        "[clock]\n"
        'ntp_servers = ["ntp.example:notaport"]\n'
        "[ras]\n"
        'addr = "[::1"\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "monitor", "check-config", str(config)],
        capture_output=True, text=True, cwd=REPO, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    text = done.stderr
    assert "4 problem(s)" in text, text
    for key in ("pagerduty_routing_key_file", "slack_webhook_url_file", "clock.ntp_servers",
                "ras.addr"):
        assert key in text, text
    assert "T000" not in text, "a secret file's content must never be printed"


def test_slurm_job_without_the_prolog_environment_is_a_usage_error(tmp_path: Path) -> None:
    """`run --slurm-job ID` outside a prolog says which variables are missing, exit 2."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM")}
    done = subprocess.run(
        [sys.executable, "-m", "monitor", "run", "--slurm-job", "4242", "--metrics-addr", ""],
        capture_output=True, text=True, cwd=REPO, env=env, check=False, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "SLURM_JOB_USER" in done.stderr and "SLURMD_NODENAME" in done.stderr


def test_one_target_at_a_time() -> None:
    """-- CMD, --pid and --slurm-job exclude each other."""
    done = subprocess.run(
        [sys.executable, "-m", "monitor", "run", "--slurm-job", "1", "--pid", "1"],
        capture_output=True, text=True, cwd=REPO, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "one of" in done.stderr


def test_triage_is_a_subcommand(tmp_path: Path) -> None:
    """`rankwatch triage FILE --format json` produces the report contract."""
    log = DATA_LOGS / "18-torchrun-childfailed-sigkill-rank0.log"
    done = subprocess.run(
        [sys.executable, "-m", "monitor", "triage", str(log), "--format", "json"],
        capture_output=True, text=True, cwd=REPO, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert "category" in report and 0 in report["culprit_ranks"]
