"""Contract: every metric name the Prometheus rules and Grafana dashboards use is exported by
the real daemon (`rankwatch run` with every capability on: processes, progress, log events,
RAS against the fake server, py-spy, clock, a delivery sink)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.deploy.promql import USED_METRICS
from tests.e2e.services import WebhookSink, free_port
from tests.fake_ras import FakeRasServer, JobShape, scenario

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]

# Two "ranks" (RANK in their environment, as torchrun sets it) that report steps and then
# one of them stops reporting, so the stall path and its metrics are exercised.
JOB = """\
import os, subprocess, sys, time
if len(sys.argv) == 1:
    children = [subprocess.Popen([sys.executable, __file__, str(r)],
                                 env={**os.environ, "RANK": str(r), "LOCAL_RANK": str(r),
                                      "WORLD_SIZE": "2"}) for r in (0, 1)]
    sys.exit(max(c.wait() for c in children))
rank = int(sys.argv[1])
for step in range(1, 400):
    if rank == 1 and step > 8:
        time.sleep(3600)
    print(f"[rank{rank}]: step {step}/1000 loss=0.5", file=sys.stderr, flush=True)
    time.sleep(0.2)
"""


def exposed_names(url: str) -> set[str]:
    text = urllib.request.urlopen(url, timeout=10).read().decode()
    names: set[str] = set()
    for family in text_string_to_metric_families(text):
        names.add(family.name)
        names.update(sample.name for sample in family.samples)
        if family.type == "counter":
            names.add(family.name + "_total")
    return names


def test_rules_and_dashboards_use_only_metrics_the_daemon_exports(tmp_path: Path) -> None:
    """Scrape the real daemon mid-job: every name in tests/data/deploy/used_metrics.txt (the
    names the rules and dashboards use) is among the families it exports."""
    used = [n for n in USED_METRICS.read_text().splitlines() if n and not n.startswith("#")]
    job = tmp_path / "job.py"
    job.write_text(JOB)
    receiver = WebhookSink()
    receiver.start()
    url_file = tmp_path / "webhook_url"
    url_file.write_text(f"http://127.0.0.1:{receiver.port}/hook\n")
    port = free_port()
    config = tmp_path / "rankwatch.toml"
    config.write_text(
        "[general]\n"
        f'state_dir = "{tmp_path / "state"}"\n'
        "[progress]\nstall_floor_seconds = 2\nstall_multiplier = 2\n"
        "[ras]\ninterval_seconds = 5\nsettle_seconds = 0\nskip_versions = []\n"
        "[delivery]\n"
        f'webhook_url_file = "{url_file}"\n'
    )
    with FakeRasServer(scenario(shape=JobShape(version="2.29.7"))) as ras:
        proc = subprocess.Popen(
            [sys.executable, "-m", "monitor", "run", "--config", str(config), "--ras",
             ras.address, "--metrics-addr", f"127.0.0.1:{port}", "--log-format", "json",
             "--", sys.executable, str(job)],
            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            missing: list[str] = list(used)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and missing:
                time.sleep(2)
                try:
                    names = exposed_names(f"http://127.0.0.1:{port}/metrics")
                except OSError:
                    continue
                missing = [n for n in used if n not in names]
        finally:
            proc.send_signal(signal.SIGTERM)
            _out, err = proc.communicate(timeout=60)
            receiver.stop()
    assert not missing, f"used by rules/dashboards but not exported: {missing}\n{err[-3000:]}"
