"""Start the emulated job's ranks like torchrun, but never tear the others down when one dies.

usage: python -m tests.emulated_nccl.launch_noteardown NPROC [--no-reap] [--] [RANK ARGS...]

With `--no-reap` the launcher never waits for a rank that died: it stays a zombie (state Z)
until every other rank has ended, as under a parent that is busy or broken. SIGTERM/SIGINT are
passed on to the ranks (stopped ones are continued first so they can act on it).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.emulated_nccl.shared import process_state

TRAIN = Path(__file__).resolve().parent / "train.py"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main(argv: list[str]) -> int:
    reap = "--no-reap" not in argv
    args = [a for a in argv if a not in ("--no-reap", "--")]
    nproc = int(args[0]) if args else 2
    port = free_port()
    procs: list[subprocess.Popen[bytes]] = []
    for rank in range(nproc):
        env = dict(
            os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(nproc),
            LOCAL_WORLD_SIZE=str(nproc), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
        )  # fmt: skip
        procs.append(subprocess.Popen([sys.executable, str(TRAIN), *args[1:]], env=env))

    def forward(signum: int, _frame: object) -> None:
        for p in procs:
            if process_state(p.pid) not in ("", "Z"):
                try:
                    os.kill(p.pid, signal.SIGCONT)
                    os.kill(p.pid, signum)
                except ProcessLookupError:
                    pass

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    if reap:
        while any(p.poll() is None for p in procs):
            time.sleep(0.2)
    else:
        # Look, never wait: a dead rank stays a zombie while any other rank lives.
        while any(process_state(p.pid) not in ("", "Z") for p in procs):
            time.sleep(0.2)
        for p in procs:
            p.wait()
    codes = [p.returncode for p in procs]
    return max((c if c >= 0 else 128 - c) for c in codes)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
