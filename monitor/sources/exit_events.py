"""Exact exit statuses of processes that are not our children.

A rank is usually a grandchild (launcher → rank), so `wait()` cannot tell how it died, and its
parent reaps it at once. Where the daemon has CAP_NET_ADMIN (root: the SLURM prolog), the
kernel's process-event connector (netlink, NETLINK_CONNECTOR / CN_IDX_PROC) reports every exit
with its wait status. Elsewhere the probe falls back to the zombie's /proc status, and says
"status unknown" rather than guess.

The connector reports every fork, exec and exit on the machine (py-spy and the ranks' own
threads included); from Linux 6.6 the listen request names the events wanted, so the kernel
sends exits only.
"""

from __future__ import annotations

import asyncio
import os
import socket
import struct
import threading
from collections import OrderedDict
from dataclasses import dataclass

from monitor.errors import SourceError
from monitor.runner import Emit

NETLINK_CONNECTOR = 11
CN_IDX_PROC = 1
CN_VAL_PROC = 1
PROC_CN_MCAST_LISTEN = 1
PROC_EVENT_EXIT = 0x80000000
EVENT_FILTER_SINCE = (6, 6)  # struct proc_input {mcast_op; event_type} (Linux 6.6)
NLMSG_DONE = 3

_NLMSGHDR = struct.Struct("=IHHII")
_CN_MSG = struct.Struct("=IIIIHH")
_EVENT_HEADER = struct.Struct("=IIQ")
_EXIT_EVENT = struct.Struct("=IIII")


@dataclass(frozen=True, slots=True)
class ExitStatus:
    exit_code: int | None
    signal: int | None
    source: str


def decode_wait_status(status: int) -> tuple[int | None, int | None]:
    """(exit code, signal) from a wait(2) status word."""
    signal = status & 0x7F
    if signal == 0:
        return (status >> 8) & 0xFF, None
    return None, signal


class ExitStatusBook:
    """Thread-safe, bounded map pid → how it ended; filled by whoever learns it first."""

    def __init__(self, capacity: int = 8192) -> None:
        self._lock = threading.Lock()
        self._book: OrderedDict[int, ExitStatus] = OrderedDict()
        self._capacity = capacity

    def record(self, pid: int, status: ExitStatus) -> None:
        with self._lock:
            self._book[pid] = status
            self._book.move_to_end(pid)
            while len(self._book) > self._capacity:
                self._book.popitem(last=False)

    def lookup(self, pid: int) -> ExitStatus | None:
        with self._lock:
            return self._book.get(pid)

    def forget(self, pid: int) -> None:
        with self._lock:
            self._book.pop(pid, None)


def listen_request(kernel_release: str) -> bytes:
    """The connector's listen request: exits only where the kernel filters (an older kernel
    ignores a request of the newer size, so it gets the plain one and sends everything)."""
    if _kernel_version(kernel_release) >= EVENT_FILTER_SINCE:
        return struct.pack("=II", PROC_CN_MCAST_LISTEN, PROC_EVENT_EXIT)
    return struct.pack("=I", PROC_CN_MCAST_LISTEN)


def _kernel_version(release: str) -> tuple[int, int]:
    parts = release.split(".")
    try:
        return int(parts[0]), int("".join(c for c in parts[1][:3] if c.isdigit()) or 0)
    except (IndexError, ValueError):
        return 0, 0


def parse_proc_event(message: bytes) -> tuple[int, ExitStatus] | None:
    """Parse one netlink message; return (pid, status) for a thread-group leader's exit."""
    if len(message) < _NLMSGHDR.size + _CN_MSG.size + _EVENT_HEADER.size:
        return None
    offset = _NLMSGHDR.size + _CN_MSG.size
    what, _cpu, _ts = _EVENT_HEADER.unpack_from(message, offset)
    if what != PROC_EVENT_EXIT:
        return None
    offset += _EVENT_HEADER.size
    if len(message) < offset + _EXIT_EVENT.size:
        return None
    pid, tgid, exit_code, _exit_signal = _EXIT_EVENT.unpack_from(message, offset)
    if pid != tgid:  # a thread ended, not the process
        return None
    code, sig = decode_wait_status(exit_code)
    return pid, ExitStatus(code, sig, "proc_connector")


class ExitEventsSource:
    """Streaming source: listens to the kernel's process events and fills the ExitStatusBook."""

    name = "exit_events"

    def __init__(self, book: ExitStatusBook) -> None:
        self.book = book
        self._sock: socket.socket | None = None
        self._stop = threading.Event()

    def open(self) -> None:
        try:
            sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_CONNECTOR)
            sock.bind((os.getpid(), CN_IDX_PROC))
            payload = listen_request(os.uname().release)
            cn = _CN_MSG.pack(CN_IDX_PROC, CN_VAL_PROC, 0, 0, len(payload), 0)
            header = _NLMSGHDR.pack(
                _NLMSGHDR.size + len(cn) + len(payload), NLMSG_DONE, 0, 0, os.getpid()
            )
            sock.send(header + cn + payload)
            sock.settimeout(0.5)
        except (OSError, AttributeError) as exc:
            raise SourceError(
                "permission_denied" if isinstance(exc, PermissionError) else "unavailable",
                f"process-event connector unavailable ({exc}); exit statuses of grandchildren "
                "come from /proc when visible, else are reported unknown",
            ) from exc
        self._sock = sock

    async def run(self, emit: Emit) -> None:
        self.open()
        thread = threading.Thread(target=self._listen, name="exit-events", daemon=True)
        thread.start()
        try:
            await asyncio.to_thread(thread.join)
        finally:
            self._stop.set()

    def _listen(self) -> None:
        sock = self._sock
        assert sock is not None
        try:
            while not self._stop.is_set():
                try:
                    data = sock.recv(65536)
                except TimeoutError:
                    continue
                except OSError:
                    return
                parsed = parse_proc_event(data)
                if parsed is not None:
                    self.book.record(*parsed)
        finally:
            sock.close()

    def stop(self) -> None:
        self._stop.set()
