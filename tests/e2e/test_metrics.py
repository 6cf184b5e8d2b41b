"""The Prometheus endpoint: a real scrape of a real daemon, checked by promtool."""

from __future__ import annotations

import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.conftest import child_env, rankwatch_argv

PROGRAMS = Path(__file__).parent / "programs"


def test_scrape_is_promtool_clean_and_has_per_rank_series(tmp_path: Path) -> None:
    """Scrape a wrapped two-rank job: promtool finds no problem; per-rank series are present."""
    proc = subprocess.Popen(
        rankwatch_argv(
            "run",
            "--metrics-addr",
            "127.0.0.1:0",
            "--log-level",
            "info",
            "--log-format",
            "json",
            "--",
            sys.executable,
            str(PROGRAMS / "two_ranks.py"),
        ),
        cwd=tmp_path,
        env=child_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        url = None
        assert proc.stderr is not None
        while url is None:
            line = proc.stderr.readline().decode()
            assert line, "daemon ended before announcing its metrics URL"
            m = re.search(r'"url": "(http://[^"]+)"', line)
            url = m.group(1) if m else None
        deadline = time.monotonic() + 30
        body = ""
        while time.monotonic() < deadline:
            body = urllib.request.urlopen(url, timeout=5).read().decode()
            if 'rankwatch_rank_state{rank="1"' in body and "rankwatch_rank_step{" in body:
                break
            time.sleep(0.5)
        check = subprocess.run(
            ["promtool", "check", "metrics"], input=body.encode(), capture_output=True, check=False
        )
        assert check.returncode == 0, check.stdout.decode() + check.stderr.decode()
        assert (
            'rankwatch_rank_state{rank="1",state="sleeping"}' in body
            or 'rankwatch_rank_state{rank="1",state="running"}' in body
        )
        assert 'rankwatch_source_up{source="process"} 1.0' in body
        assert "rankwatch_job_info{" in body
        assert 'rankwatch_health{concern="process",state="ok"} 1.0' in body
    finally:
        proc.terminate()
        proc.wait(timeout=30)
