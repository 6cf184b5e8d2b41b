"""The whole monitoring path with real services: the SLURM prolog registers three nodes of a
job through file_sd, a real Prometheus scrapes the sidecars' real exporters, the repo's rules
fire into a real Alertmanager routed as in deploy/alertmanager, and every dashboard query
returns data. The epilog then unregisters the nodes and the alerts resolve.

The sidecars serve scripted node state (tests/e2e/scripted_sidecar.py) through rankwatch's
exporter, so that every metric the rules and dashboards use has a known value.

Why scripted, next to tests/e2e/test_prometheus_daemon.py (the real daemon on one node): the
job-level rules join several nodes (a culprit rank on another node than the ranks waiting for
it, a node whose sidecar never comes up), and some rules and panels need faults that one real
job cannot stage cheaply or at all on one machine (a dead rank while others run, a stuck
DataLoader, memory pressure, source and detector errors). Scripting them keeps this test fast
and exact; the real-daemon test shows that the names and labels it scripts are what the
daemon really exports.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.promql import Query, all_dashboard_queries, substitute
from tests.deploy.scripts import EPILOG, PROLOG, run_like_slurmd
from tests.e2e import services
from tests.e2e.services import Service, WebhookSink

pytestmark = pytest.mark.e2e

JOB = "4242"
SCENARIO = {
    "job": JOB,
    "nodes": {
        # rank 2 never arrived in the collective; rank 3 exited
        "gpu-a": {
            "stalled": True,
            "ras": True,
            "ras_ranks": ["0", "1", "2", "3"],
            "ras_lagging": "2",
            "clock_offset_seconds": 0.002,
            "ranks": {
                "0": {"step": 1200, "in_collective": True},
                "1": {"step": 1200, "in_collective": True},
            },
        },
        "gpu-b": {
            "stalled": True,
            "clock_offset_seconds": -0.001,
            "memory_available_fraction": 0.3,
            "ranks": {
                "2": {
                    "step": 1199,
                    "in_collective": False,
                    "stack_state": "dataloader_wait",
                    "dataloader_stalled": True,
                },
                "3": {"step": 1200, "exited": True, "state": "gone"},
            },
        },
        "gpu-c": {"fail": True, "ranks": {}},  # its sidecar never comes up
    },
}


@dataclass
class Stack:
    root: Path
    sink: WebhookSink
    alertmanager: Service
    prometheus: Service
    sd_dir: Path

    def node_env(self, node: str, context: str = "prolog_slurmd") -> dict[str, str]:
        return {
            "SLURM_JOB_ID": JOB,
            "SLURM_JOB_USER": "alice",
            "SLURM_JOB_UID": "1000",
            "SLURMD_NODENAME": node,
            "SLURM_NODELIST": "gpu-[a-c]",
            "SLURM_SCRIPT_CONTEXT": context,
            "RANKWATCH_DEPLOY_CONF": str(self.root / f"{node}.conf"),
            "SCRIPTED_SIDECAR_SCENARIO": str(self.root / "scenario.json"),
        }


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    services.require_tools()
    root = Path(tempfile.mkdtemp(prefix="rankwatch-prom-"))
    sink = WebhookSink()
    sink.start()
    started: list[Service] = []
    try:
        alertmanager = services.start_alertmanager(root / "alertmanager", sink.port)
        started.append(alertmanager)
        sd_dir = root / "file_sd"
        sd_dir.mkdir()
        prometheus = services.start_prometheus(root / "prometheus", sd_dir, alertmanager.url)
        started.append(prometheus)
        stack = Stack(root, sink, alertmanager, prometheus, sd_dir)
        yield stack
    finally:
        for node in SCENARIO["nodes"]:  # the epilog stops sidecars a failed test left behind
            if (root / f"{node}.conf").exists():
                run_like_slurmd(EPILOG, stack.node_env(node, "epilog_slurmd"))
        for service in reversed(started):
            service.stop()
        sink.stop()
        shutil.rmtree(root, ignore_errors=True)


def _install_sidecars(stack: Stack) -> None:
    (stack.root / "scenario.json").write_text(json.dumps(SCENARIO))
    bin_dir = stack.root / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "rankwatch"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'PYTHONPATH="{services.REPO}" exec "{sys.executable}" '
        '-m tests.e2e.scripted_sidecar "$@"\n'
    )
    wrapper.chmod(0o755)
    for node in SCENARIO["nodes"]:
        (stack.root / f"{node}.conf").write_text(
            f'PATH="{bin_dir}:$PATH"\n'
            f"run_dir={stack.root}/run-{node}\n"
            f"state_dir={stack.root}/state-{node}\n"
            f"log_dir={stack.root}/log-{node}\n"
            f"file_sd_dir={stack.sd_dir}\n"
            "metrics_bind=127.0.0.1\n"
            "metrics_host=127.0.0.1\n"
            f"metrics_port_base={services.free_port()}\n"
            "launcher=setsid\n"
            "stop_timeout_seconds=5\n"
        )


def _firing(stack: Stack, alertname: str, receiver: str) -> list[dict[str, Any]]:
    return [
        alert
        for path, alert in stack.sink.alerts(f"/{receiver}")
        if alert["labels"]["alertname"] == alertname and alert["status"] == "firing"
    ]


def test_file_sd_scrape_rules_alertmanager_and_dashboards(stack: Stack) -> None:
    """Prolog-registered sidecars are scraped through file_sd; the job-stall alert names the
    culprit ranks and reaches PagerDuty and Slack routes grouped by job; the missing
    sidecar and the dead rank alert; every dashboard query returns data; the epilog's
    unregistration resolves the sidecar alert."""
    _install_sidecars(stack)
    for node in SCENARIO["nodes"]:
        run = run_like_slurmd(PROLOG, stack.node_env(node))
        assert run.returncode == 0 and run.seconds < 1.0, run
    assert len(list(stack.sd_dir.glob("*.json"))) == 3

    prom = stack.prometheus
    services.wait_for(
        lambda: (
            services.query_value(prom, 'count(up{job="rankwatch"})') == 3
            and services.query_value(prom, 'sum(up{job="rankwatch"})') == 2
        ),
        timeout=60,
        what="three targets, two up",
    )
    assert services.query_value(prom, 'up{job="rankwatch", node="gpu-c", job_id="4242"}') == 0

    services.wait_for(
        lambda: bool(_firing(stack, "RankwatchJobStalled", "pagerduty-training")),
        timeout=60,
        what="RankwatchJobStalled at the PagerDuty route",
    )
    stalled = _firing(stack, "RankwatchJobStalled", "pagerduty-training")[0]
    assert stalled["labels"]["job_id"] == JOB
    assert stalled["labels"]["user"] == "alice"
    assert stalled["annotations"]["culprit_ranks"] == "2 3 "
    assert "rank 2 on gpu-b; rank 3 on gpu-b;" in stalled["annotations"]["description"]
    assert stalled["annotations"]["runbook_url"].endswith("#runbook-rankwatch-job-stalled")
    services.wait_for(
        lambda: (
            bool(_firing(stack, "RankwatchJobStalled", "slack-training"))
            and bool(_firing(stack, "RankwatchSidecarDown", "slack-training"))
            and bool(_firing(stack, "RankwatchRankDead", "pagerduty-training"))
            and bool(_firing(stack, "RankwatchDataloaderStalled", "slack-training"))
        ),
        timeout=60,
        what="the other alerts",
    )
    down = _firing(stack, "RankwatchSidecarDown", "slack-training")[0]
    assert down["labels"]["node"] == "gpu-c"
    assert not _firing(stack, "RankwatchSidecarDown", "pagerduty-training")  # a warning
    dead = _firing(stack, "RankwatchRankDead", "pagerduty-training")[0]
    assert (dead["labels"]["rank"], dead["labels"]["node"]) == ("3", "gpu-b")
    for delivery in stack.sink.deliveries:
        assert delivery.body["groupLabels"] == {"job_id": JOB}  # one group per job

    _check_dashboard_queries(prom)

    for node in SCENARIO["nodes"]:
        run = run_like_slurmd(EPILOG, stack.node_env(node, "epilog_slurmd"))
        assert run.returncode == 0
    assert list(stack.sd_dir.glob("*.json")) == []
    for node in ("gpu-a", "gpu-b"):
        log = (stack.root / f"log-{node}" / f"rankwatch-{JOB}.log").read_text()
        assert "stopped on SIGTERM" in log
    services.wait_for(
        lambda: any(
            alert["labels"]["alertname"] == "RankwatchSidecarDown" and alert["status"] == "resolved"
            for _, alert in stack.sink.alerts("/slack-training")
        ),
        timeout=60,
        what="RankwatchSidecarDown resolved once the job's nodes are unregistered",
    )


def _check_dashboard_queries(prom: Service) -> None:
    """Every panel and variable query, with $job_id set, succeeds and returns data."""
    queries = [Query(q.where, substitute(q.expr, {"job_id": JOB})) for q in all_dashboard_queries()]
    assert len(queries) > 50

    def failures() -> list[str]:
        bad = []
        for query in queries:
            reply = services.instant_query(prom, query.expr)
            if reply.get("status") != "success":
                bad.append(f"{query.where}: {reply.get('error')}")
            elif not reply["data"]["result"]:
                bad.append(f"{query.where}: no data for {query.expr}")
        return bad

    try:  # rate() and delta() need a few scrapes; give them time, then report what is left
        services.wait_for(lambda: not failures(), timeout=30, what="dashboard data")
    except TimeoutError:
        pytest.fail("\n".join(failures()))


def test_example_config_and_rules_load_in_prometheus(stack: Stack) -> None:
    """The running Prometheus loaded the repo's rule groups from the example config."""
    reply = services.instant_query(stack.prometheus, "vector(1)")
    assert reply["status"] == "success"
    rules_url = stack.prometheus.url + "/api/v1/rules"
    with urllib.request.urlopen(rules_url, timeout=10) as response:
        groups = json.loads(response.read())["data"]["groups"]
    names = {rule["name"] for group in groups for rule in group["rules"]}
    assert {"RankwatchJobStalled", "rank:rankwatch_stall_culprit:bool"} <= names
    assert os.path.exists(stack.root / "prometheus" / "rankwatch_rules.yml")
