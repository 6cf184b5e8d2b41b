"""Real chronyd instances for tests: a loopback NTP server and a client tracking it.

Both run in the foreground (-n) with -x, so they never touch the system clock, and -u root so
that chronyd skips its socket-directory ownership checks. Every path (config, pid file,
command socket, log) lives in the test's own directory, and each instance is stopped through
its own Popen handle.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from monitor.parse.chrony import ChronyTracking, parse_tracking

SEARCH_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
STARTUP_TIMEOUT_SECONDS = 30.0


def require_binary(name: str, package: str) -> str:
    """The binary's path; a missing one fails the test (it is a missing install, not a skip)."""
    path = shutil.which(name, path=SEARCH_PATH)
    if path is None:
        pytest.fail(f"{name} not found: install the Debian package '{package}'")
    return path


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Chronyd:
    name: str
    rundir: Path
    process: subprocess.Popen[bytes]
    command_socket: Path
    ntp_port: int  # 0 for a client that serves nothing

    def tracking_text(self) -> str:
        """Raw `chronyc -c tracking` output from this instance's command socket."""
        chronyc = require_binary("chronyc", "chrony")
        proc = subprocess.run(
            [chronyc, "-n", "-c", "-h", str(self.command_socket), "tracking"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"chronyc failed ({proc.returncode}): {proc.stderr.strip()}")
        return proc.stdout

    def tracking(self) -> ChronyTracking:
        return parse_tracking(self.tracking_text())

    def log(self) -> str:
        path = self.rundir / f"{self.name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def _start(
    name: str, rundir: Path, lines: list[str], ntp_port: int, env: dict[str, str] | None
) -> Chronyd:
    chronyd = require_binary("chronyd", "chrony")
    rundir.mkdir(parents=True, exist_ok=True)
    rundir.chmod(0o700)
    command_socket = rundir / f"{name}.sock"
    config = rundir / f"{name}.conf"
    config.write_text(
        "\n".join(
            [
                *lines,
                "cmdport 0",
                f"bindcmdaddress {command_socket}",
                f"pidfile {rundir / (name + '.pid')}",
            ]
        )
        + "\n"
    )
    process = subprocess.Popen(
        [chronyd, "-n", "-x", "-u", "root", "-f", str(config), "-l", str(rundir / f"{name}.log")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    instance = Chronyd(name, rundir, process, command_socket, ntp_port)
    deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
    while True:  # ready when its command socket answers
        if process.poll() is not None:
            raise RuntimeError(f"chronyd {name} exited {process.returncode}: {instance.log()}")
        try:
            instance.tracking_text()
            return instance
        except RuntimeError:
            if time.monotonic() > deadline:
                instance.stop()
                raise RuntimeError(f"chronyd {name} did not start: {instance.log()}") from None
            time.sleep(0.05)


def start_server(rundir: Path, env: dict[str, str] | None = None) -> Chronyd:
    """A loopback NTP server serving this host's clock at stratum 8 on a free high port."""
    port = free_udp_port()
    lines = [
        f"port {port}",
        "bindaddress 127.0.0.1",
        "allow 127.0.0.1",
        "local stratum 8",
    ]
    return _start("server", rundir, lines, port, env)


def start_client(rundir: Path, server_port: int, *, wait_synchronised: bool = True) -> Chronyd:
    """A chronyd tracking the loopback server (polling every 0.25 s) without serving NTP."""
    lines = [f"server 127.0.0.1 port {server_port} iburst minpoll -2 maxpoll -2", "port 0"]
    client = _start("client", rundir, lines, 0, None)
    if wait_synchronised:
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while not client.tracking().synchronised:
            if time.monotonic() > deadline:
                client.stop()
                raise RuntimeError(f"chronyd client never synchronised: {client.log()}")
            time.sleep(0.1)
    return client
