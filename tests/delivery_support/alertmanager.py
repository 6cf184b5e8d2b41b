"""A real Alertmanager on loopback, clustering off, for end-to-end delivery tests.

The binary is `$RANKWATCH_ALERTMANAGER_BIN`, else `prometheus-alertmanager` (Debian's name,
package prometheus-alertmanager), else `alertmanager` on PATH. A missing binary fails the test
with an install hint: it is a required test dependency, not an optional one.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

from tests.delivery_support.receivers import free_port

BIN_ENV = "RANKWATCH_ALERTMANAGER_BIN"


def find_alertmanager() -> str:
    candidates = [os.environ.get(BIN_ENV, ""), "prometheus-alertmanager", "alertmanager"]
    for candidate in candidates:
        if candidate and (found := shutil.which(candidate)):
            return found
    raise AssertionError(
        "Alertmanager not found: apt-get install prometheus-alertmanager "
        f"(or set {BIN_ENV} to the binary)"
    )


CONFIG = """\
global:
  resolve_timeout: {resolve_timeout}
route:
  receiver: sink
  group_by: [alertname, job]
  group_wait: {group_wait}
  group_interval: {group_interval}
  repeat_interval: {repeat_interval}
receivers:
  - name: sink
    webhook_configs:
      - url: {webhook_url}
        send_resolved: true
"""


class Alertmanager:
    """Started on enter, stopped (by its own process handle) on exit."""

    def __init__(
        self,
        workdir: Path,
        webhook_url: str,
        *,
        resolve_timeout: str = "5m",
        group_wait: str = "1s",
        group_interval: str = "1s",
        repeat_interval: str = "1h",
    ) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._config = CONFIG.format(
            resolve_timeout=resolve_timeout,
            group_wait=group_wait,
            group_interval=group_interval,
            repeat_interval=repeat_interval,
            webhook_url=webhook_url,
        )
        self._process: subprocess.Popen[bytes] | None = None
        self.log_path = workdir / "alertmanager.log"

    def __enter__(self) -> Alertmanager:
        self.workdir.mkdir(parents=True, exist_ok=True)
        config = self.workdir / "alertmanager.yml"
        config.write_text(self._config)
        with self.log_path.open("wb") as log:
            self._process = subprocess.Popen(
                [
                    find_alertmanager(),
                    f"--config.file={config}",
                    f"--storage.path={self.workdir / 'data'}",
                    f"--web.listen-address=127.0.0.1:{self.port}",
                    "--cluster.listen-address=",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self._wait_ready(timeout=30)
        return self

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self._process is not None
            if self._process.poll() is not None:
                raise AssertionError(f"alertmanager exited: {self.log_path.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/-/ready", timeout=1) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise AssertionError("alertmanager not ready in time")

    def active_alerts(self) -> list[dict[str, object]]:
        with urllib.request.urlopen(f"{self.url}/api/v2/alerts?active=true", timeout=5) as reply:
            alerts: list[dict[str, object]] = json.loads(reply.read())
            return alerts

    def __exit__(self, *exc: object) -> None:
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=10)
