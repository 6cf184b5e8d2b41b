"""Real Prometheus and Alertmanager (Debian's packages) on loopback, configured from the
repo's deploy/ examples, and a webhook receiver that records what Alertmanager delivers."""

from __future__ import annotations

import json
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
PROMETHEUS_DIR = REPO / "deploy" / "prometheus"
ALERTMANAGER_EXAMPLE = REPO / "deploy" / "alertmanager" / "alertmanager.yml"
PROMETHEUS_BIN = "prometheus"
ALERTMANAGER_BIN = "prometheus-alertmanager"


def missing_tools() -> list[str]:
    return [t for t in (PROMETHEUS_BIN, ALERTMANAGER_BIN, "promtool") if not shutil.which(t)]


def require_tools() -> None:
    """Fail (never skip) when Prometheus or Alertmanager is not installed."""
    missing = missing_tools()
    if missing:
        pytest.fail(
            f"missing {', '.join(missing)}: install the Debian packages prometheus and "
            "prometheus-alertmanager",
            pytrace=False,
        )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Delivery:
    path: str
    body: dict[str, Any]
    received_at: float


@dataclass
class WebhookSink:
    """Records every POST (path = receiver name) as JSON; answers 200."""

    deliveries: list[Delivery] = field(default_factory=list)
    port: int = 0
    _server: ThreadingHTTPServer | None = None

    def start(self) -> None:
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                sink.deliveries.append(Delivery(self.path, body, time.monotonic()))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()

    def alerts(self, path: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        """(receiver path, alert) for every alert in every delivery."""
        found = []
        for delivery in list(self.deliveries):
            if path is None or delivery.path == path:
                found.extend((delivery.path, alert) for alert in delivery.body.get("alerts", []))
        return found


@dataclass
class Service:
    name: str
    process: subprocess.Popen[bytes]
    url: str
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _wait_ready(service: Service, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if service.process.poll() is not None:
            raise RuntimeError(f"{service.name} exited: {service.log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(service.url + "/-/ready", timeout=2) as reply:
                if reply.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.1)
    raise TimeoutError(f"{service.name} not ready after {timeout}s")


def alertmanager_config(sink_port: int) -> dict[str, Any]:
    """The example routes, with every receiver replaced by a webhook to the local sink
    (path = receiver name) and fast grouping."""
    config = yaml.safe_load(ALERTMANAGER_EXAMPLE.read_text())
    config.pop("global", None)
    config["route"].update(group_wait="1s", group_interval="1s", repeat_interval="1h")
    config["receivers"] = [
        {
            "name": receiver["name"],
            "webhook_configs": [
                {"url": f"http://127.0.0.1:{sink_port}/{receiver['name']}", "send_resolved": True}
            ],
        }
        for receiver in config["receivers"]
    ]
    return config


def start_alertmanager(workdir: Path, sink_port: int) -> Service:
    workdir.mkdir(parents=True, exist_ok=True)
    config = workdir / "alertmanager.yml"
    config.write_text(yaml.safe_dump(alertmanager_config(sink_port)))
    port = free_port()
    log = workdir / "alertmanager.log"
    process = subprocess.Popen(
        [
            ALERTMANAGER_BIN,
            f"--config.file={config}",
            f"--storage.path={workdir / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--cluster.listen-address=",
        ],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    service = Service("alertmanager", process, f"http://127.0.0.1:{port}", log)
    _wait_ready(service)
    return service


def rules_with_short_waits(for_seconds: str = "3s") -> dict[str, Any]:
    """The repo's rules with every `for:` shortened, so that a test waits seconds, not minutes."""
    rules = yaml.safe_load((PROMETHEUS_DIR / "rankwatch_rules.yml").read_text())
    for group in rules["groups"]:
        for rule in group["rules"]:
            if "alert" in rule:
                rule["for"] = for_seconds
    return dict(rules)


def start_prometheus(
    workdir: Path,
    sd_dir: Path,
    alertmanager_url: str,
    *,
    interval: str = "1s",
    short_waits: bool = True,
) -> Service:
    """The example prometheus.yml with `interval` as scrape and evaluation interval, the
    file_sd directory and the local Alertmanager; rule files copied next to it (clock_rules.yml
    too when present). rankwatch_rules.yml gets 3 s `for:` waits unless `short_waits` is
    False, which keeps the repo's own."""
    workdir.mkdir(parents=True, exist_ok=True)
    config = yaml.safe_load((PROMETHEUS_DIR / "prometheus.yml").read_text())
    config["global"].update(scrape_interval=interval, evaluation_interval=interval)
    scrape = config["scrape_configs"][0]
    scrape.update(scrape_interval=interval, scrape_timeout="1s")
    scrape["file_sd_configs"] = [{"files": [f"{sd_dir}/*.json"], "refresh_interval": "1s"}]
    am_host = urllib.parse.urlparse(alertmanager_url).netloc
    config["alerting"]["alertmanagers"] = [{"static_configs": [{"targets": [am_host]}]}]
    (workdir / "prometheus.yml").write_text(yaml.safe_dump(config))
    if short_waits:
        (workdir / "rankwatch_rules.yml").write_text(yaml.safe_dump(rules_with_short_waits()))
    else:
        shutil.copy(PROMETHEUS_DIR / "rankwatch_rules.yml", workdir / "rankwatch_rules.yml")
    for extra in PROMETHEUS_DIR.glob("*_rules.yml"):
        if extra.name != "rankwatch_rules.yml":
            shutil.copy(extra, workdir / extra.name)
    port = free_port()
    log = workdir / "prometheus.log"
    process = subprocess.Popen(
        [
            PROMETHEUS_BIN,
            f"--config.file={workdir / 'prometheus.yml'}",
            f"--storage.tsdb.path={workdir / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        cwd=workdir,
    )
    service = Service("prometheus", process, f"http://127.0.0.1:{port}", log)
    _wait_ready(service)
    return service


def instant_query(prometheus: Service, expr: str) -> dict[str, Any]:
    """GET /api/v1/query; returns the decoded reply (status, data or error)."""
    url = prometheus.url + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            data: dict[str, Any] = json.loads(reply.read())
            return data
    except urllib.error.HTTPError as exc:
        error: dict[str, Any] = json.loads(exc.read() or b"{}")
        return error


def query_value(prometheus: Service, expr: str) -> float | None:
    reply = instant_query(prometheus, expr)
    result = reply.get("data", {}).get("result", [])
    if reply.get("status") != "success" or not result:
        return None
    return float(result[0]["value"][1])


def wait_for(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.25)
    raise TimeoutError(f"waited {timeout}s for {what}")
