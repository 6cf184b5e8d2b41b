"""The monitoring path with the real daemon: the SLURM prolog registers a node through file_sd
and starts `rankwatch run` there (through a stand-in for the `rankwatch` executable that turns
`run --slurm-job ID` into a wrapped job, since no SLURM runs here); a real Prometheus scrapes
the real exporter, the repo's rules fire into a real Alertmanager routed as in
deploy/alertmanager, and every dashboard query runs against what the daemon exported. The
epilog stops the daemon and unregisters the node.

The job: two ranks (RANK, LOCAL_RANK, WORLD_SIZE set as torchrun sets them) of a torch gloo
group that all-reduce one tensor per step; after a few steps rank 1 stops in its own code, so
rank 0 waits in the all-reduce. py-spy sees that, and RankwatchJobStalled names rank 1. The
daemon's webhook sink points at a closed port, so its delivery metrics fire AlertDeliveryFailing
and AlertDeliveryLost; its Alertmanager sink posts the sidecar's own alerts next to the rules'.
A fake NCCL RAS server (the one allowed fake) and a loopback chronyd give the RAS and clock
panels something to show.

tests/e2e/test_prometheus_live.py covers, with scripted sidecars, what one real node cannot
show: rules across several nodes, a sidecar that never comes up, dead ranks, DataLoader stalls.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.chrony_support import Chronyd, start_server
from tests.deploy.promql import Query, all_dashboard_queries, substitute
from tests.deploy.scripts import EPILOG, PROLOG, pid_alive, run_like_slurmd, wait_until
from tests.e2e import services
from tests.e2e.services import Service, WebhookSink
from tests.fake_ras import FakeRasServer, JobShape, JobState, Scenario, scenario

pytestmark = pytest.mark.e2e

JOB = "4343"
NODE = "gpu-r1"
RULE_WAIT_SECONDS = 3  # every alert rule's `for:` here, as services.rules_with_short_waits()

# The job, as a launcher (no argument) or a rank (its rank number). The launcher gives each
# rank the variables torchrun sets; rank 1 stops after STALL_AFTER steps.
JOB_SOURCE = """\
import os, socket, subprocess, sys, time
STALL_AFTER = 8
if len(sys.argv) == 1:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "WORLD_SIZE": "2"}
    ranks = [subprocess.Popen([sys.executable, __file__, str(r)],
                              env={**env, "RANK": str(r), "LOCAL_RANK": str(r)}) for r in (0, 1)]
    sys.exit(max(r.wait() for r in ranks))
import torch
import torch.distributed as dist
rank = int(os.environ["RANK"])
dist.init_process_group("gloo", rank=rank, world_size=2)
tensor = torch.ones(1)
for step in range(1, 1_000_000):
    if rank == 1 and step > STALL_AFTER:
        time.sleep(3600)  # stuck in its own code: rank 0 waits in the all-reduce
    dist.all_reduce(tensor)
    print(f"[rank{rank}]: step {step}/1000000 loss 0.5", file=sys.stderr, flush=True)
    time.sleep(0.2)
"""

# Stands in for the `rankwatch` executable the prolog starts: `run --slurm-job ID [--config F]`
# becomes the real daemon wrapping the job above. It stays the parent (its command line keeps
# `--slurm-job ID`, which the epilog checks) and hands SIGTERM on.
LAUNCHER = """\
#!{python}
import os, signal, subprocess, sys
args = sys.argv[1:]
at = args.index("--slurm-job")
job = args[at + 1]
command = [sys.executable, "-m", "monitor", *args[:at], *args[at + 2 :], "--job-id", job,
           "--node-name", os.environ["SLURMD_NODENAME"], "--ras", {ras!r},
           "--log-format", "json", "--log-level", "info", "--", sys.executable, {job!r}]
daemon = subprocess.Popen(command, env={{**os.environ, "PYTHONPATH": {repo!r}}})
signal.signal(signal.SIGTERM, lambda *_: daemon.send_signal(signal.SIGTERM))
sys.exit(daemon.wait())
"""


@dataclass
class Stack:
    root: Path
    sink: WebhookSink
    alertmanager: Service
    prometheus: Service
    sd_dir: Path
    chronyd: Chronyd
    ras: FakeRasServer


def node_env(root: Path, context: str = "prolog_slurmd") -> dict[str, str]:
    """What slurmd gives the prolog and epilog of this node (see tests/deploy/scripts.py)."""
    return {
        "SLURM_JOB_ID": JOB,
        "SLURM_JOB_USER": "alice",
        "SLURM_JOB_UID": "1000",
        "SLURMD_NODENAME": NODE,
        "SLURM_NODELIST": NODE,
        "SLURM_SCRIPT_CONTEXT": context,
        "RANKWATCH_DEPLOY_CONF": str(root / "deploy.conf"),
    }


def _shorten_other_rule_files(prometheus: Service, workdir: Path) -> None:
    """start_prometheus shortens the `for:` of rankwatch_rules.yml only; shorten the other rule
    files the same way and have Prometheus reload them (SIGHUP)."""
    for path in workdir.glob("*_rules.yml"):
        if path.name == "rankwatch_rules.yml":
            continue
        doc = yaml.safe_load(path.read_text())
        for group in doc["groups"]:
            for rule in group["rules"]:
                if "alert" in rule:
                    rule["for"] = f"{RULE_WAIT_SECONDS}s"
        path.write_text(yaml.safe_dump(doc))
    prometheus.process.send_signal(signal.SIGHUP)

    def reloaded() -> bool:
        alerts = [rule for group in _rule_groups(prometheus) for rule in group["rules"]]
        return all(r["duration"] == RULE_WAIT_SECONDS for r in alerts if r["type"] == "alerting")

    services.wait_for(reloaded, timeout=30, what="Prometheus reloading the shortened rules")


def _rule_groups(prometheus: Service) -> list[dict[str, Any]]:
    with urllib.request.urlopen(prometheus.url + "/api/v1/rules", timeout=10) as reply:
        groups: list[dict[str, Any]] = json.loads(reply.read())["data"]["groups"]
        return groups


def _ras_job_on_this_host() -> Scenario:
    """A healthy two-rank job as RAS reports it, its processes on 127.0.0.1, so that the
    daemon counts them as this node's ranks (per-rank collective counts)."""
    healthy = scenario(shape=JobShape(nodes=1, gpus_per_node=2))

    def state(query: int, elapsed: float) -> JobState:
        job = healthy(query, elapsed)
        for peer in job.peers:
            peer.host = "127.0.0.1"
        return job

    return state


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    services.require_tools()
    root = Path(tempfile.mkdtemp(prefix="rankwatch-promd-"))
    with contextlib.ExitStack() as cleanup:
        cleanup.callback(shutil.rmtree, root, ignore_errors=True)
        sink = WebhookSink()
        sink.start()
        cleanup.callback(sink.stop)
        ras = cleanup.enter_context(FakeRasServer(_ras_job_on_this_host()))
        chronyd = start_server(root / "chrony")
        cleanup.callback(chronyd.stop)
        alertmanager = services.start_alertmanager(root / "alertmanager", sink.port)
        cleanup.callback(alertmanager.stop)
        sd_dir = root / "file_sd"
        sd_dir.mkdir()
        prometheus = services.start_prometheus(root / "prometheus", sd_dir, alertmanager.url)
        cleanup.callback(prometheus.stop)
        _shorten_other_rule_files(prometheus, root / "prometheus")
        # The epilog stops a daemon that a failed test left behind (a no-op after the test's).
        cleanup.callback(run_like_slurmd, EPILOG, node_env(root, "epilog_slurmd"), 60.0)
        yield Stack(root, sink, alertmanager, prometheus, sd_dir, chronyd, ras)


def _install_daemon(stack: Stack) -> Path:
    """The job, the stand-in executable, the daemon's configuration with short windows, and
    the deploy configuration the prolog reads. Returns the daemon's log file."""
    root = stack.root
    job = root / "job.py"
    job.write_text(JOB_SOURCE)
    bin_dir = root / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "rankwatch"
    launcher.write_text(
        LAUNCHER.format(python=sys.executable, ras=stack.ras.address, job=str(job),
                        repo=str(services.REPO))
    )  # fmt: skip
    launcher.chmod(0o755)
    closed_port = services.free_port()  # nothing listens there: every webhook post fails
    (root / "webhook_url").write_text(f"http://127.0.0.1:{closed_port}/hook\n")
    (root / "rankwatch.toml").write_text(
        "[progress]\nstall_floor_seconds = 2\nstall_multiplier = 2\n"
        "[pyspy]\nrepeats = 1\nmin_round_gap_seconds = 1\nsuspect_idle_seconds = 2\n"
        "straggler_alert_seconds = 3\n"
        "[ras]\ninterval_seconds = 5\nsettle_seconds = 0\nskip_versions = []\n"
        '[clock]\nchronyc = ""\noffset_interval_seconds = 2\n'
        f'ntp_servers = ["127.0.0.1:{stack.chronyd.ntp_port}"]\n'
        "[delivery]\n"
        f'alertmanager_url = "{stack.alertmanager.url}"\n'
        f'webhook_url_file = "{root / "webhook_url"}"\n'
        "max_attempts_seconds = 3\nretry_initial_backoff_seconds = 0.5\n"
    )
    (root / "deploy.conf").write_text(
        f'PATH="{bin_dir}:$PATH"\n'
        f"rankwatch_config={root / 'rankwatch.toml'}\n"
        f"run_dir={root}/run\n"
        f"state_dir={root}/state\n"
        f"log_dir={root}/log\n"
        f"file_sd_dir={stack.sd_dir}\n"
        "metrics_bind=127.0.0.1\n"
        "metrics_host=127.0.0.1\n"
        f"metrics_port_base={services.free_port()}\n"
        "launcher=setsid\n"
        "stop_timeout_seconds=20\n"
    )
    return root / "log" / f"rankwatch-{JOB}.log"


def _received(stack: Stack, alertname: str, receiver: str) -> list[dict[str, Any]]:
    return [
        alert
        for _, alert in stack.sink.alerts(f"/{receiver}")
        if alert["labels"]["alertname"] == alertname and alert["status"] == "firing"
    ]


def _prometheus_alerts(stack: Stack, alertname: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(stack.prometheus.url + "/api/v1/alerts", timeout=10) as reply:
        alerts: list[dict[str, Any]] = json.loads(reply.read())["data"]["alerts"]
    return [a for a in alerts if a["labels"]["alertname"] == alertname and a["state"] == "firing"]


def test_real_daemon_scraped_alerting_and_dashboards(stack: Stack) -> None:
    """The prolog registers the node and starts the real daemon; Prometheus scrapes it through
    file_sd; RankwatchJobStalled names rank 1 (not in the collective rank 0 waits in) and
    reaches the PagerDuty and Slack routes; the failing webhook sink raises AlertDeliveryFailing
    and AlertDeliveryLost; the sidecar's own alerts arrive through its Alertmanager sink, on
    the same routes; every dashboard query runs, and returns data unless it needs what one
    healthy node cannot show; the epilog stops the daemon and unregisters the node."""
    started = time.monotonic()
    log = _install_daemon(stack)
    run = run_like_slurmd(PROLOG, node_env(stack.root))
    assert run.returncode == 0 and run.seconds < 2.0, run
    (registration,) = stack.sd_dir.glob("*.json")
    (target,) = json.loads(registration.read_text())
    assert target["labels"] == {"job_id": JOB, "user": "alice", "node": NODE}

    prom = stack.prometheus
    try:
        services.wait_for(
            lambda: services.query_value(prom, f'up{{job="rankwatch", job_id="{JOB}"}}') == 1,
            timeout=60,
            what="the daemon scraped through file_sd",
        )
        info = services.instant_query(prom, f'rankwatch_job_info{{job_id="{JOB}"}}')
        labels = info["data"]["result"][0]["metric"]
        assert (labels["node"], labels["exported_job"], labels["mode"]) == (NODE, JOB, "wrap")

        # With every `for:` shortened here, the rule for a stall nobody can be blamed for may
        # fire first; the one that names the culprit follows once the stacks show it.
        def naming_rank_1() -> list[dict[str, Any]]:
            return [
                a
                for a in _received(stack, "RankwatchJobStalled", "pagerduty-training")
                if a["annotations"].get("culprit_ranks") == "1 "
            ]

        services.wait_for(
            lambda: bool(naming_rank_1()),
            timeout=90,
            what="RankwatchJobStalled naming rank 1 at the PagerDuty route",
        )
        stalled = naming_rank_1()[0]
        assert stalled["labels"]["job_id"] == JOB and stalled["labels"]["user"] == "alice"
        assert stalled["annotations"]["culprit_ranks"] == "1 "
        assert f"rank 1 on {NODE};" in stalled["annotations"]["description"]
        culprits = services.instant_query(prom, "rank:rankwatch_stall_culprit:bool")
        assert [r["metric"]["rank"] for r in culprits["data"]["result"]] == ["1"]

        services.wait_for(
            lambda: (
                bool(_received(stack, "RankwatchJobStalled", "slack-training"))
                and bool(_received(stack, "AlertDeliveryFailing", "slack-training"))
                and bool(_received(stack, "AlertDeliveryLost", "slack-training"))
            ),
            timeout=60,
            what="the Slack copy and the delivery alerts",
        )
        for name in ("AlertDeliveryFailing", "AlertDeliveryLost"):
            alert = _received(stack, name, "slack-training")[0]
            labels = alert["labels"]
            assert (labels["sink"], labels["node"], labels["job_id"]) == ("webhook", NODE, JOB)
            assert not _received(stack, name, "pagerduty-training")  # warnings
        assert services.query_value(
            prom, f'rankwatch_alerts_delivery_failed_total{{job_id="{JOB}", sink="webhook"}}'
        )

        # The sidecar's own alerts, posted by its Alertmanager sink, carry job_id too. Its stall
        # is a warning (Slack route) until its stacks name the culprit (critical, PagerDuty).
        own = [
            alert
            for path, alert in stack.sink.alerts()
            if path in ("/pagerduty-training", "/slack-training")
            and not alert["labels"]["alertname"].startswith(("Rankwatch", "AlertDelivery"))
            and alert["labels"].get("job_id") == JOB
        ]
        assert {a["labels"]["alertname"] for a in own} & {"ProgressStalled", "RankNotInCollective"}
        for delivery in stack.sink.deliveries:
            assert delivery.body["groupLabels"] == {"job_id": JOB}  # one group per job

        _check_dashboard_queries(prom)
    finally:
        stop = run_like_slurmd(EPILOG, node_env(stack.root, "epilog_slurmd"), timeout=60)
    assert stop.returncode == 0 and stop.seconds < 15.0, stop
    assert list(stack.sd_dir.glob("*.json")) == []
    scripts_log = (stack.root / "log" / "slurm-scripts.log").read_text()
    pid = int(scripts_log.split("prolog: started sidecar pid ")[1].split()[0])
    assert f"epilog: sidecar pid {pid} stopped" in scripts_log, scripts_log
    assert not pid_alive(pid)
    assert wait_until(lambda: not _processes_running(stack.root / "job.py"), timeout=10)
    assert '"event": "metrics_listening"' in log.read_text(errors="replace")
    print(f"real daemon through Prometheus: {time.monotonic() - started:.1f} s")


def _processes_running(script: Path) -> list[int]:
    """Live processes whose command line names `script` (the job's launcher and ranks)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if str(script).encode() in args and pid_alive(int(cmdline.parent.name)):
            found.append(int(cmdline.parent.name))
    return found


# Dashboard queries with no data until a fault that this job does not stage (no dashboard
# query needs several nodes); the scripted nodes of test_prometheus_live.py give each of them
# data. Here they must still run without error.
NEED_FAULTS_NOT_STAGED_HERE = {
    "rankwatch-job-overview.json:Exited ranks:A": "a rank that exited",
    "rankwatch-nccl-ras.json:RAS errors:A": "a failing RAS poll",
    "rankwatch-node-health.json:Source errors:A": "a failing source",
    "rankwatch-node-health.json:Dropped observations and detector errors:B": "a detector bug",
}


def _check_dashboard_queries(prom: Service) -> None:
    queries = [Query(q.where, substitute(q.expr, {"job_id": JOB})) for q in all_dashboard_queries()]
    assert len(queries) > 50
    assert set(NEED_FAULTS_NOT_STAGED_HERE) <= {q.where for q in queries}

    def failures() -> list[str]:
        bad = []
        for query in queries:
            reply = services.instant_query(prom, query.expr)
            if reply.get("status") != "success":
                bad.append(f"{query.where}: {reply.get('error')}")
            elif not reply["data"]["result"] and query.where not in NEED_FAULTS_NOT_STAGED_HERE:
                bad.append(f"{query.where}: no data for {query.expr}")
        return bad

    try:  # rate() and delta() need a few scrapes, RAS a few polls
        services.wait_for(lambda: not failures(), timeout=30, what="dashboard data")
    except TimeoutError:
        pytest.fail("\n".join(failures()))
    empty = [q.where for q in queries if not services.instant_query(prom, q.expr)["data"]["result"]]
    print(
        f"{len(queries) - len(empty)} of {len(queries)} dashboard queries with data; none: {empty}"
    )
