"""The kernel's process-event connector, for real (needs CAP_NET_ADMIN: root)."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import time

import pytest

from monitor.sources.exit_events import (
    PROC_CN_MCAST_LISTEN,
    PROC_EVENT_EXIT,
    ExitEventsSource,
    ExitStatus,
    ExitStatusBook,
    listen_request,
    parse_proc_event,
)

_EVENT_AT = 16 + 20  # nlmsghdr + cn_msg


def test_listen_request_asks_for_exits_only_where_the_kernel_filters() -> None:
    exits_only = struct.pack("=II", PROC_CN_MCAST_LISTEN, PROC_EVENT_EXIT)
    everything = struct.pack("=I", PROC_CN_MCAST_LISTEN)
    assert listen_request("6.18.44-fc-v669") == exits_only
    assert listen_request("6.6.0") == exits_only
    assert listen_request("7.0.1") == exits_only
    assert listen_request("6.5.13-generic") == everything
    assert listen_request("5.14.0-362.el9.x86_64") == everything
    assert listen_request("unknown") == everything


@pytest.mark.skipif(os.geteuid() != 0, reason="the process-event connector needs CAP_NET_ADMIN")
def test_a_grandchild_exit_status_arrives_and_nothing_else_where_filtered() -> None:
    """A grandchild (not ours to wait for) exits with 7 after its parent started threads and
    an exec: its status is read from the connector; on a filtering kernel every message the
    socket received was an exit."""
    source = ExitEventsSource(ExitStatusBook())
    source.open()
    sock = source._sock
    assert sock is not None
    script = (
        "import os, subprocess, sys, threading\n"
        "threading.Thread(target=lambda: None).start()\n"
        "subprocess.run(['true'])\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    os._exit(7)\n"
        "print(pid, flush=True)\n"
        "os._exit(0)\n"
    )
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    grandchild = int(child.stdout)
    kinds: set[int] = set()
    found: ExitStatus | None = None
    deadline = time.monotonic() + 10
    try:
        while found is None and time.monotonic() < deadline:
            try:
                message = sock.recv(65536)
            except TimeoutError:
                continue
            kinds.add(struct.unpack_from("=I", message, _EVENT_AT)[0])
            parsed = parse_proc_event(message)
            if parsed is not None and parsed[0] == grandchild:
                found = parsed[1]
    finally:
        sock.close()
    assert found == ExitStatus(7, None, "proc_connector")
    if len(listen_request(os.uname().release)) == 8:
        assert kinds == {PROC_EVENT_EXIT}
