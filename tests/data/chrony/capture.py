"""Regenerate the chronyc captures in this directory (run by hand, as root, from the repo root):

    python -m tests.data.chrony.capture

Each case writes NAME.csv (`chronyc -c tracking`) and NAME.txt (`chronyc tracking`, the
human-readable report whose "fast"/"slow" wording the parser tests check signs against).
Cases:
  client-synchronised       a client chronyd tracking a loopback chronyd server
  client-not-synchronised   a client chronyd whose server does not answer
  server-local-stratum      the loopback server itself (`local stratum 8`)
  client-server-ahead       the server runs under libfaketime +0.25 s; chronyd takes kernel
                            receive timestamps, so only its transmit times are shifted and the
                            client sees the server about 0.125 s ahead (its own clock slow)
  client-server-behind      the same with -0.25 s: the client's clock looks 0.125 s fast
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.chrony_support import Chronyd, require_binary, start_client, start_server

HERE = Path(__file__).resolve().parent
LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"


def save(name: str, instance: Chronyd) -> None:
    chronyc = require_binary("chronyc", "chrony")
    (HERE / f"{name}.csv").write_text(instance.tracking_text())
    text = subprocess.run(
        [chronyc, "-n", "-h", str(instance.command_socket), "tracking"],
        capture_output=True,
        text=True,
        check=True,
        timeout=10,
    ).stdout
    (HERE / f"{name}.txt").write_text(text)
    print(f"{name}: {(HERE / f'{name}.csv').read_text().strip()}")


def settle(client: Chronyd, seconds: float) -> None:
    """Let the client take a few more samples so the figures are not the first estimate."""
    time.sleep(seconds)
    if not client.tracking().synchronised:
        raise RuntimeError("client lost synchronisation")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        server = start_server(base / "a")
        try:
            client = start_client(base / "a", server.ntp_port)
            settle(client, 3)
            save("client-synchronised", client)
            save("server-local-stratum", server)
            client.stop()
        finally:
            server.stop()

        lonely = start_client(base / "b", server_port=9, wait_synchronised=False)
        time.sleep(1)
        save("client-not-synchronised", lonely)
        lonely.stop()

        for name, shift in (("client-server-ahead", "+0.25"), ("client-server-behind", "-0.25")):
            env = dict(
                os.environ, LD_PRELOAD=LIBFAKETIME, FAKETIME=shift, FAKETIME_DONT_FAKE_MONOTONIC="1"
            )
            server = start_server(base / name, env=env)
            try:
                client = start_client(base / name, server.ntp_port)
                settle(client, 3)
                save(name, client)
                client.stop()
            finally:
                server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
