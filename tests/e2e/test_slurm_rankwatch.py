"""End to end on a real SLURM cluster with the real daemon: `sbatch` a job whose rank stalls →
the repo's Prolog starts `rankwatch run --slurm-job ID` detached (the job starts at once) →
the stall alert reaches a local webhook receiver → `scancel` → the Epilog stops rankwatch
with SIGTERM and exits 0; the file_sd registration appears and disappears.

The job runs as `nobody`; rankwatch runs as root and must read the job's output with the job
user's rights (monitor/sources/user_file.py).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.scripts import pid_alive, wait_until
from tests.e2e.services import WebhookSink, free_port
from tests.e2e.slurm_cluster import SlurmCluster

pytestmark = pytest.mark.e2e

RANKWATCH = Path(sys.executable).with_name("rankwatch")

# A rank that reports 12 steps, 0.25 s apart, on stderr and then hangs (as in a collective).
TRAIN = """\
import sys, time
for step in range(1, 13):
    print(f"step {step}/1000 loss=0.5", file=sys.stderr, flush=True)
    time.sleep(0.25)
print("entering all_reduce", file=sys.stderr, flush=True)
time.sleep(3600)
"""


def _alerts_in(body: Any) -> Iterator[dict[str, Any]]:
    """Alert-shaped objects anywhere in a webhook body (a record, a list, an envelope)."""
    if isinstance(body, dict):
        labels = body.get("labels")
        if "alertname" in body or (isinstance(labels, dict) and "alertname" in labels):
            yield body
        for value in body.values():
            yield from _alerts_in(value)
    elif isinstance(body, list):
        for item in body:
            yield from _alerts_in(item)


def _alertname(alert: dict[str, Any]) -> str:
    return str(alert.get("alertname") or alert.get("labels", {}).get("alertname", ""))


@pytest.fixture
def webhook() -> Iterator[WebhookSink]:
    sink = WebhookSink()
    sink.start()
    yield sink
    sink.stop()


def _deploy(slurm_cluster: SlurmCluster, webhook: WebhookSink) -> Path:
    """Configure the repo's Prolog/Epilog to start rankwatch with a short progress window and
    a webhook; return the alert log every job's rankwatch appends to."""
    root = slurm_cluster.root
    url_file = root / "webhook_url"
    url_file.write_text(f"http://127.0.0.1:{webhook.port}/rankwatch\n")
    alert_log = root / "alerts.jsonl"
    config = root / "rankwatch.toml"
    config.write_text(
        "[general]\n"
        f'alert_log = "{alert_log}"\n'
        "[progress]\n"
        "stall_floor_seconds = 3\n"
        "stall_multiplier = 2\n"
        "first_step_grace_seconds = 60\n"
        "[pyspy]\n"
        "enabled = false\n"
        "[ras]\n"
        "enabled = false\n"
        "[delivery]\n"
        f'webhook_url_file = "{url_file}"\n'
    )
    (root / "rankwatch-slurm.conf").write_text(
        f"rankwatch_bin={RANKWATCH}\n"
        f"rankwatch_config={config}\n"
        f"run_dir={root}/run\n"
        f"state_dir={root}/rwstate\n"
        f"log_dir={root}/rwlog\n"
        f"file_sd_dir={root}/file_sd\n"
        "metrics_bind=127.0.0.1\n"
        "metrics_host=127.0.0.1\n"
        f"metrics_port_base={free_port()}\n"
        "launcher=setsid\n"
        "stop_timeout_seconds=10\n"
    )
    return alert_log


def test_stalled_rank_alert_reaches_webhook_and_epilog_stops_rankwatch(
    slurm_cluster: SlurmCluster, webhook: WebhookSink
) -> None:
    """The full deployment path with the real `rankwatch` console script."""
    root = slurm_cluster.root
    alert_log = _deploy(slurm_cluster, webhook)
    work = root / "jobs" / "e2e-stall"
    work.mkdir()
    (work / "train.py").write_text(TRAIN)
    os.chown(work, 65534, 65534)

    submitted = time.monotonic()
    job = slurm_cluster.sbatch(
        "--uid=nobody", "--gid=nogroup", "-D", str(work), "-J", "rw-stall",
        "-o", "train-%j.out", "-e", "train-%j.err",
        "--wrap", "exec /usr/bin/python3 -u train.py",
    )  # fmt: skip
    slurm_cluster.wait_state(job, {"RUNNING"}, timeout=30)
    assert wait_until(lambda: "step 1/" in _read(work / f"train-{job}.err"), timeout=30)
    assert time.monotonic() - submitted < 10, "the prolog held the job back"

    pidfile = root / "run" / f"rankwatch-{job}.pid"
    sd_file = root / "file_sd" / f"rankwatch-{job}-{slurm_cluster.node}.json"
    daemon_log = root / "rwlog" / f"rankwatch-{job}.log"
    assert wait_until(pidfile.exists, timeout=10)
    pid = int(pidfile.read_text())
    assert pid_alive(pid)
    assert json.loads(sd_file.read_text())[0]["labels"]["job_id"] == job

    def stall_alert() -> dict[str, Any] | None:
        for delivery in webhook.deliveries:
            for alert in _alerts_in(delivery.body):
                if "stall" in _alertname(alert).lower() and json.dumps(alert).find(job) >= 0:
                    return alert
        return None

    if not wait_until(lambda: stall_alert() is not None, timeout=90):
        pytest.fail(
            "no stall alert reached the webhook.\n"
            f"deliveries: {[d.body for d in webhook.deliveries]}\n"
            f"alert log: {_read(alert_log)}\ndaemon log: {_read(daemon_log)[-4000:]}"
        )
    alert = stall_alert()
    assert alert is not None
    assert alert.get("status", "firing") == "firing"

    slurm_cluster.run("scancel", job)
    slurm_cluster.wait_state(job, {"CANCELLED"}, timeout=30)
    assert wait_until(lambda: not pid_alive(pid), timeout=30), "the epilog did not stop it"
    assert wait_until(lambda: not sd_file.exists(), timeout=10)
    assert not pidfile.exists()
    assert "sent SIGKILL" not in _read(root / "rwlog" / "slurm-scripts.log")
    assert wait_until(lambda: slurm_cluster.node_state() == "idle", timeout=30)


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


# A healthy rank: it steps until it is stopped.
HEALTHY = """\
import sys, time
step = 0
while True:
    step += 1
    print(f"step {step}/100000 loss=0.5", file=sys.stderr, flush=True)
    time.sleep(0.25)
"""


def test_scancel_and_a_time_limit_page_no_one(
    slurm_cluster: SlurmCluster, webhook: WebhookSink
) -> None:
    """(5) of the false-page matrix on the real SLURM: a healthy job cancelled with `scancel`,
    and one ended by its time limit, leave info records and no warning or critical one."""
    root = slurm_cluster.root
    alert_log = _deploy(slurm_cluster, webhook)
    work = root / "jobs" / "e2e-healthy"
    work.mkdir(parents=True)
    (work / "train.py").write_text(HEALTHY)
    os.chown(work, 65534, 65534)

    def submit(name: str, *extra: str) -> str:
        return slurm_cluster.sbatch(
            "--uid=nobody", "--gid=nogroup", "-D", str(work), "-J", name, *extra,
            "-o", f"{name}-%j.out", "-e", f"{name}-%j.err",
            "--wrap", "exec /usr/bin/python3 -u train.py",
        )  # fmt: skip

    cancelled = submit("rw-cancel")
    limited = submit("rw-limit", "--time=1")
    slurm_cluster.wait_state(cancelled, {"RUNNING"}, timeout=30)
    slurm_cluster.wait_state(limited, {"RUNNING"}, timeout=30)
    assert wait_until(lambda: "step 20/" in _read(work / f"rw-cancel-{cancelled}.err"), 30)
    slurm_cluster.run("scancel", cancelled)
    slurm_cluster.wait_state(cancelled, {"CANCELLED"}, timeout=30)
    slurm_cluster.wait_state(limited, {"TIMEOUT"}, timeout=180)
    for job in (cancelled, limited):
        pidfile = root / "run" / f"rankwatch-{job}.pid"
        assert wait_until(lambda f=pidfile: not f.exists(), timeout=30), "the epilog did not stop it"
    records = [json.loads(line) for line in _read(alert_log).splitlines() if line.strip()]
    ours = [r for r in records if r["labels"].get("job") in (cancelled, limited)]
    pages = [r for r in ours if r["status"] == "firing" and r["severity"] != "info"]
    assert pages == [], pages
    assert webhook.deliveries == [] or not any(
        cancelled in json.dumps(d.body) or limited in json.dumps(d.body)
        for d in webhook.deliveries
    )
