"""Two nodes, one stuck rank: the victims must not page as culprits.

A 2-node torch gloo job on loopback, one rank per "node" (RANK 0 and 1, LOCAL_RANK 0,
WORLD_SIZE 2, as torchrun sets them on two hosts), each rank wrapped by its own
`rankwatch run --node-name node-a|node-b`. Both sidecars are registered through file_sd with the
labels the SLURM prolog gives them (job_id, user, node); a real Prometheus loads the repo's
deploy/prometheus rules with their own `for:` waits (only the scrape and evaluation intervals
are shortened, to 5 s) and routes through a real Alertmanager to a webhook sink.

After about 10 s of steps, rank 1 hangs in its own code before its all_reduce; rank 0 then
waits in the all_reduce for it. Node A sees only a waiting rank: it may say the job is stalled,
as a warning naming nobody, but never pages rank 0 (a victim) nor rank 1 (which it cannot
see). Node B names rank 1 critically; the cross-node rule RankwatchJobStalled names rank 1 at
the webhook, with no node label (one page per job). The test prints the seconds from the hang
to the first RankwatchJobStalled notification and to node B's first page.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import child_env, rankwatch_argv, read_alerts
from tests.e2e import services
from tests.e2e.services import WebhookSink

pytestmark = pytest.mark.e2e

JOB = "5151"
USER = "alice"
NODES = ("node-a", "node-b")  # node-a runs rank 0, node-b rank 1
EVALUATION_INTERVAL = "5s"  # scrape and rule evaluation; the rules' `for:` stay the repo's

# One rank; RANK and the rendezvous come from the environment. Rank 1 hangs in its own code
# once it has stepped HEALTHY_SECONDS, and writes the moment to HANG_FILE first.
RANK_SOURCE = """\
import os, sys, time
import torch
import torch.distributed as dist

HEALTHY_SECONDS = 10.0


def wait_for_a_lock_that_never_comes():
    while True:
        time.sleep(0.1)


rank = int(os.environ["RANK"])
dist.init_process_group("gloo", rank=rank, world_size=int(os.environ["WORLD_SIZE"]))
tensor = torch.ones(1)
started = time.monotonic()
for step in range(1, 1001):
    if rank == 1 and time.monotonic() - started > HEALTHY_SECONDS:
        with open(os.environ["HANG_FILE"], "w") as out:
            out.write(repr(time.time()))
        wait_for_a_lock_that_never_comes()
    dist.all_reduce(tensor)
    print(f"iteration {step:8d}/    1000 | loss {1.0 / step:.4f} |", file=sys.stderr, flush=True)
    time.sleep(0.1)
"""

SHORT_WINDOWS = {
    "RANKWATCH_PROGRESS_STALL_FLOOR_SECONDS": "5",
    "RANKWATCH_PYSPY_SUSPECT_IDLE_SECONDS": "5",
    "RANKWATCH_PYSPY_STRAGGLER_ALERT_SECONDS": "10",
    "RANKWATCH_PYSPY_MIN_ROUND_GAP_SECONDS": "2",
    "RANKWATCH_PYSPY_REPEATS": "1",
    "RANKWATCH_RAS_ENABLED": "false",
    "RANKWATCH_CLOCK_ENABLED": "false",
}


@dataclass
class Sidecar:
    node: str
    rank: int
    process: subprocess.Popen[bytes]
    alert_log: Path
    output: Path

    def records(self) -> list[dict[str, Any]]:
        return read_alerts(self.alert_log)

    def tail(self) -> str:
        return self.output.read_text(errors="replace")[-3000:]

    def stop(self) -> None:
        """SIGTERM to the sidecar's process group (the sidecar and its rank), then SIGKILL."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)


def _register(sd_dir: Path, node: str, port: int) -> None:
    """What the SLURM prolog writes for a node (deploy/slurm/rankwatch-common.sh)."""
    target = [
        {"targets": [f"127.0.0.1:{port}"], "labels": {"job_id": JOB, "user": USER, "node": node}}
    ]
    (sd_dir / f"rankwatch-{JOB}-{node}.json").write_text(json.dumps(target))


def _start_sidecar(root: Path, node: str, rank: int, master_port: int, sd_dir: Path) -> Sidecar:
    metrics_port = services.free_port()
    workdir = root / node
    workdir.mkdir()
    alert_log = workdir / "alerts.jsonl"
    output = workdir / "output.log"
    argv = rankwatch_argv(
        "run", "--node-name", node, "--job-id", JOB,
        "--metrics-addr", f"127.0.0.1:{metrics_port}", "--alert-log", str(alert_log),
        "--state-dir", str(workdir / "state"), "--log-format", "json", "--log-level", "info",
        "--", sys.executable, str(root / "rank.py"),
    )  # fmt: skip
    env = child_env(
        RANK=str(rank), LOCAL_RANK="0", WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(master_port), HANG_FILE=str(root / "hang"), **SHORT_WINDOWS,
    )  # fmt: skip
    with output.open("wb") as out:
        process = subprocess.Popen(
            argv, cwd=workdir, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    _register(sd_dir, node, metrics_port)
    return Sidecar(node, rank, process, alert_log, output)


def _stalled_at_webhook(sink: WebhookSink) -> list[tuple[float, dict[str, Any]]]:
    """(received at, alert) for each firing RankwatchJobStalled, in arrival order."""
    found = []
    for delivery in list(sink.deliveries):
        for alert in delivery.body.get("alerts", []):
            labels = alert["labels"]
            if labels["alertname"] == "RankwatchJobStalled" and alert["status"] == "firing":
                found.append((delivery.received_at, alert))
    return found


def _pages(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r["status"] == "firing" and r["severity"] == "critical"]


def test_only_the_stuck_rank_is_named_across_nodes(tmp_path: Path) -> None:
    services.require_tools()
    (tmp_path / "rank.py").write_text(RANK_SOURCE)
    with contextlib.ExitStack() as cleanup:
        sink = WebhookSink()
        sink.start()
        cleanup.callback(sink.stop)
        alertmanager = services.start_alertmanager(tmp_path / "alertmanager", sink.port)
        cleanup.callback(alertmanager.stop)
        sd_dir = tmp_path / "file_sd"
        sd_dir.mkdir()
        prometheus = services.start_prometheus(
            tmp_path / "prometheus", sd_dir, alertmanager.url,
            interval=EVALUATION_INTERVAL, short_waits=False,
        )  # fmt: skip
        cleanup.callback(prometheus.stop)

        master_port = services.free_port()
        node_a, node_b = (
            _start_sidecar(tmp_path, node, rank, master_port, sd_dir)
            for rank, node in enumerate(NODES)
        )
        cleanup.callback(node_a.stop)
        cleanup.callback(node_b.stop)

        hang_file = tmp_path / "hang"
        services.wait_for(hang_file.exists, timeout=60, what="rank 1 to hang")
        time.sleep(0.05)  # the file is written before the hang
        hung_at = time.monotonic() - (time.time() - float(hang_file.read_text()))

        # Both sidecars have their say while the rule waits its `for:`; node B gets a few
        # seconds more after the rule's page if it has not paged by then.
        b_paged_at: float | None = None
        webhook_at: float | None = None
        deadline = time.monotonic() + 75
        while time.monotonic() < deadline:
            if b_paged_at is None and any(
                r["culprit_ranks"] == [1] for r in _pages(node_b.records())
            ):
                b_paged_at = time.monotonic()
            if webhook_at is None and _stalled_at_webhook(sink):
                webhook_at = time.monotonic()
            if webhook_at is not None and (
                b_paged_at is not None or time.monotonic() > webhook_at + 10
            ):
                break
            time.sleep(0.25)
        time.sleep(2)

        a_records = node_a.records()
        b_records = node_b.records()
        stalled = _stalled_at_webhook(sink)
        report = (
            f"node A: {json.dumps(a_records, indent=1)[-3000:]}\n"
            f"node B: {json.dumps(b_records, indent=1)[-3000:]}\n"
            f"webhook: {[d.body for d in sink.deliveries][-3:]}\n"
            f"node A output: {node_a.tail()}\nnode B output: {node_b.tail()}"
        )

        # (4) Figures, not assertions (printed first, so that a failing run still shows them).
        to_webhook = f"{stalled[0][0] - hung_at:.1f} s" if stalled else "never"
        to_b_page = f"{b_paged_at - hung_at:.1f} s" if b_paged_at is not None else "never"
        print(
            f"\nhang -> RankwatchJobStalled at the webhook: {to_webhook} "
            f"(scrape/evaluation every {EVALUATION_INTERVAL}, the repo's for:)\n"
            f"hang -> node B's first page naming rank 1: {to_b_page}"
        )

        # (1) Node A holds only a victim: no warning or critical record names rank 0, and none
        # names rank 1, which node A cannot see; a stall record is a warning naming nobody.
        loud = [r for r in a_records if r["severity"] in ("warning", "critical")]
        assert not [r for r in loud if {0, 1} & set(r["culprit_ranks"])], report
        for record in a_records:
            if record["alertname"] == "ProgressStalled" and record["status"] == "firing":
                assert record["severity"] == "warning" and record["culprit_ranks"] == [], report
        assert not _pages(a_records), report

        # (3) The cross-node rule names rank 1, once per job: no node label.
        assert stalled, report
        alert = stalled[0][1]
        assert alert["annotations"]["culprit_ranks"] == "1 ", report
        assert alert["labels"]["job_id"] == JOB and alert["labels"]["user"] == USER
        assert "node" not in alert["labels"], alert["labels"]
        assert "rank 1 on node-b;" in alert["annotations"]["description"]

        # (2) Node B sees rank 1 outside any collective (its stacks show the user-code frame):
        # it pages, naming rank 1.
        said = [
            (r["alertname"], r["severity"], r["culprit_ranks"], r["summary"]) for r in b_records
        ]
        assert b_paged_at is not None, f"node B never paged rank 1; it said: {said}"
