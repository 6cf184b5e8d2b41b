"""Clock probes: the local clocks compared with each other, and this clock against references.

Two polled sources:
  * LocalClockProbe ("clock_local"), every `clock.step_check_seconds`: paired reads of the wall
    clock, CLOCK_BOOTTIME, CLOCK_MONOTONIC and CLOCK_MONOTONIC_RAW, sent as deltas; plus the
    kernel's synchronisation status (adjtimex) when it changes and once per offset interval.
  * ClockReferenceProbe ("clock_reference"), every `clock.offset_interval_seconds`: chronyd's
    tracking report (`chronyc -c tracking`) when chronyd answers, and SNTP exchanges with each
    of `clock.ntp_servers`. With no reference at all it raises SourceError, so the daemon
    shows the concern as UNKNOWN rather than OK.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from monitor.errors import SettingsError, SourceError
from monitor.model import Observation
from monitor.parse.chrony import ChronyParseError, parse_tracking
from monitor.parse.sntp import (
    SntpBogus,
    SntpError,
    SntpKissOfDeath,
    SntpSample,
    best_sample,
    build_request,
    parse_reply,
    sample_from_exchange,
)
from monitor.parse.time_sync_model import (
    LOCAL_SOURCE,
    REFERENCE_SOURCE,
    ClockMeasurement,
    ClockReading,
    ClockReferenceFailure,
    KernelClockStatus,
)
from monitor.parse.timex import KernelClock, interpret_timex
from monitor.settings import ClockSettings

NTP_PORT = 123
_STEADY_CLOCK = getattr(time, "CLOCK_BOOTTIME", time.CLOCK_MONOTONIC)
_RAW_CLOCK = getattr(time, "CLOCK_MONOTONIC_RAW", time.CLOCK_MONOTONIC)
_PAIR_TOLERANCE_SECONDS = 100e-6  # retry a read whose paired clock reads were further apart
_PAIR_ATTEMPTS = 5
_KOD_STOP_SECONDS = 3600.0  # DENY / RSTR: leave the server alone this long
_MAX_RATE_BACKOFF = 64  # RATE: skip up to this many measurement rounds


# ---------------------------------------------------------------------------------------
# Local clocks


@dataclass(frozen=True, slots=True)
class ClockRead:
    wall: float
    steady: float
    adjusted: float
    raw: float
    uncertainty: float


def read_clocks() -> ClockRead:
    """Read the four clocks in bracketed pairs; retry when the thread was preempted mid-read."""
    best: ClockRead | None = None
    for _ in range(_PAIR_ATTEMPTS):
        s1 = time.clock_gettime(_STEADY_CLOCK)
        wall = time.time()
        s2 = time.clock_gettime(_STEADY_CLOCK)
        r1 = time.clock_gettime(_RAW_CLOCK)
        adjusted = time.monotonic()
        r2 = time.clock_gettime(_RAW_CLOCK)
        read = ClockRead(wall, (s1 + s2) / 2, adjusted, (r1 + r2) / 2, max(s2 - s1, r2 - r1) / 2)
        if best is None or read.uncertainty < best.uncertainty:
            best = read
        if read.uncertainty <= _PAIR_TOLERANCE_SECONDS:
            break
    assert best is not None
    return best


class _Timex(ctypes.Structure):
    # struct timex from <sys/timex.h> (glibc, Linux); 208 bytes on 64-bit.
    _fields_ = [
        ("modes", ctypes.c_uint),
        ("offset", ctypes.c_long),
        ("freq", ctypes.c_long),
        ("maxerror", ctypes.c_long),
        ("esterror", ctypes.c_long),
        ("status", ctypes.c_int),
        ("constant", ctypes.c_long),
        ("precision", ctypes.c_long),
        ("tolerance", ctypes.c_long),
        ("time_sec", ctypes.c_long),
        ("time_usec", ctypes.c_long),
        ("tick", ctypes.c_long),
        ("ppsfreq", ctypes.c_long),
        ("jitter", ctypes.c_long),
        ("shift", ctypes.c_int),
        ("stabil", ctypes.c_long),
        ("jitcnt", ctypes.c_long),
        ("calcnt", ctypes.c_long),
        ("errcnt", ctypes.c_long),
        ("stbcnt", ctypes.c_long),
        ("tai", ctypes.c_int),
        ("_reserved", ctypes.c_int * 11),
    ]


class KernelClockReader:
    """adjtimex(2) with modes = 0: reads the kernel's clock discipline state, changes nothing."""

    def __init__(self) -> None:
        self._adjtimex: Callable[..., int] | None = None
        self.unavailable_reason = ""
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
            self._adjtimex = libc.adjtimex
        except (OSError, AttributeError) as exc:
            self.unavailable_reason = f"adjtimex unavailable: {exc}"

    def read(self) -> KernelClock | None:
        if self._adjtimex is None:
            return None
        buf = _Timex()
        result = self._adjtimex(ctypes.byref(buf))
        if result < 0:
            errno = ctypes.get_errno()
            self.unavailable_reason = f"adjtimex failed: errno {errno}"
            return None
        return interpret_timex(result, buf.status, buf.maxerror, buf.esterror, buf.offset, buf.freq)


class LocalClockProbe:
    """Compares the wall clock with the monotonic clocks at a steady cadence."""

    name = LOCAL_SOURCE

    def __init__(
        self,
        settings: ClockSettings,
        reader: Callable[[], ClockRead] = read_clocks,
        kernel: KernelClockReader | None = None,
    ) -> None:
        self.interval_seconds = settings.step_check_seconds
        self._read = reader
        self._kernel = (
            kernel
            if kernel is not None
            else (KernelClockReader() if settings.kernel_status else None)
        )
        self._kernel_every = settings.offset_interval_seconds
        self._previous: ClockRead | None = None
        self._last_kernel: KernelClock | None = None
        self._last_kernel_sent_at: float | None = None

    def poll(self, now: float) -> Sequence[Observation]:
        read = self._read()
        prev = self._previous
        self._previous = read
        at = read.adjusted
        if prev is None:
            out: list[Observation] = [
                ClockReading(at, read.wall, 0.0, 0.0, 0.0, 0.0, read.uncertainty, first=True)
            ]
        else:
            out = [
                ClockReading(
                    at,
                    read.wall,
                    wall_delta_seconds=read.wall - prev.wall,
                    monotonic_delta_seconds=read.steady - prev.steady,
                    adjusted_delta_seconds=read.adjusted - prev.adjusted,
                    raw_delta_seconds=read.raw - prev.raw,
                    uncertainty_seconds=read.uncertainty + prev.uncertainty,
                )
            ]
        kernel = self._kernel.read() if self._kernel is not None else None
        if kernel is not None and self._kernel_due(kernel, at):
            self._last_kernel, self._last_kernel_sent_at = kernel, at
            out.append(KernelClockStatus(at, kernel))
        return out

    def _kernel_due(self, kernel: KernelClock, at: float) -> bool:
        last = self._last_kernel
        if last is None or self._last_kernel_sent_at is None:
            return True
        changed = (last.synchronised, last.state) != (kernel.synchronised, kernel.state)
        return changed or at - self._last_kernel_sent_at >= self._kernel_every


# ---------------------------------------------------------------------------------------
# References: chronyd and SNTP servers


def parse_server(spec: str) -> tuple[str, int]:
    """'host', 'host:port', '[v6]:port' or a bare IPv6 address -> (host, port)."""
    text = spec.strip()
    if not text:
        raise ValueError("empty server")
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep:
            raise ValueError(f"unclosed '[' in {spec!r}")
        port_text = rest[1:] if rest.startswith(":") else ""
        if rest and not rest.startswith(":"):
            raise ValueError(f"junk after ']' in {spec!r}")
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    else:  # a name, an IPv4 address, or an unbracketed IPv6 address without port
        host, port_text = text, ""
    if not host:
        raise ValueError(f"no host in {spec!r}")
    if not port_text:
        return host, NTP_PORT
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError(f"bad port in {spec!r}")
    return host, int(port_text)


class ServerBackoff:
    """What an NTP server asked of us: DENY/RSTR kiss-o'-death = leave it alone for an hour;
    RATE (or an unknown code) = skip measurement rounds, doubling each time, up to 64."""

    def __init__(self) -> None:
        self.stopped_until = 0.0
        self.skip_rounds = 0
        self._next_skip = 1

    def should_query(self, now: float) -> bool:
        """Call once per measurement round."""
        if now < self.stopped_until:
            return False
        if self.skip_rounds > 0:
            self.skip_rounds -= 1
            return False
        return True

    def kiss_of_death(self, kod: SntpKissOfDeath, now: float) -> None:
        if kod.stop_querying:
            self.stopped_until = now + _KOD_STOP_SECONDS
        else:
            self.skip_rounds = self._next_skip
            self._next_skip = min(self._next_skip * 2, _MAX_RATE_BACKOFF)

    def answered(self) -> None:
        self._next_skip = 1


@dataclass
class _Server:
    host: str
    port: int
    label: str
    backoff: ServerBackoff


class ClockReferenceProbe:
    """Measures this clock's offset against chronyd's estimate and configured SNTP servers."""

    name = REFERENCE_SOURCE

    def __init__(self, settings: ClockSettings) -> None:
        self.interval_seconds = settings.offset_interval_seconds
        self._settings = settings
        problems: list[str] = []
        self._servers: list[_Server] = []
        for spec in settings.ntp_servers:
            try:
                host, port = parse_server(spec)
            except ValueError as exc:
                problems.append(f"clock.ntp_servers: {exc}")
                continue
            self._servers.append(_Server(host, port, spec.strip(), ServerBackoff()))
        if problems:
            raise SettingsError(problems)

    def poll(self, now: float) -> Sequence[Observation]:
        out: list[Observation] = []
        measured = False
        failures: list[str] = []
        chrony = self._chrony(now)
        if isinstance(chrony, ClockMeasurement):
            out.append(chrony)
            measured = True
        elif isinstance(chrony, ClockReferenceFailure):
            out.append(chrony)
            failures.append(f"chrony: {chrony.message}")
        for server in self._servers:
            result = self._sntp(server, now)
            if result is None:
                continue
            out.append(result)
            if isinstance(result, ClockMeasurement):
                measured = True
            else:
                failures.append(f"{server.label}: {result.message}")
        if measured:
            return out
        if failures:
            raise SourceError("unreachable", "no time reference answered: " + "; ".join(failures))
        if self._servers:  # every server is backing off after a kiss-o'-death
            raise SourceError("backing_off", "every NTP server asked us to back off")
        raise SourceError(
            "no_reference",
            "no time reference: chronyd is not answering and clock.ntp_servers is empty",
            quiet=True,
        )

    # -- chronyd --------------------------------------------------------------------------
    def _chrony(self, now: float) -> ClockMeasurement | ClockReferenceFailure | None:
        """chronyd's tracking report; None when chronyd is simply not there."""
        s = self._settings
        executable = shutil.which(s.chronyc) if s.chronyc else None
        if executable is None:
            if s.chronyc and s.chronyc_host:
                return ClockReferenceFailure(
                    now, "chrony", "chrony", "missing", f"{s.chronyc} not found"
                )
            return None
        argv = [executable, "-n", "-c"]
        if s.chronyc_host:
            argv += ["-h", s.chronyc_host]
        argv.append("tracking")
        try:
            proc = subprocess.run(
                argv,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=s.chronyc_timeout_seconds,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return ClockReferenceFailure(now, "chrony", "chrony", "timeout", "chronyc timed out")
        except OSError as exc:
            return ClockReferenceFailure(now, "chrony", "chrony", "exec_failed", str(exc))
        if proc.returncode != 0:
            message = (proc.stderr or proc.stdout).strip() or f"exit status {proc.returncode}"
            if not s.chronyc_host:
                return None  # chronyc installed but no chronyd running: not a reference here
            return ClockReferenceFailure(now, "chrony", "chrony", "unreachable", message)
        try:
            tracking = parse_tracking(proc.stdout)
        except ChronyParseError as exc:
            return ClockReferenceFailure(now, "chrony", "chrony", "parse_error", str(exc))
        synced = tracking.synchronised
        return ClockMeasurement(
            at=now,
            reference="chrony",
            method="chrony",
            offset_seconds=tracking.offset_seconds if synced else None,
            uncertainty_seconds=(
                tracking.root_delay_seconds / 2 + tracking.root_dispersion_seconds
                if synced
                else None
            ),
            synchronised=synced,
            leap_pending=tracking.leap_pending,
            stratum=tracking.stratum,
            delay_seconds=None,
            wall_seconds=time.time(),
            detail=tracking.reference_name or tracking.reference_id,
        )

    # -- SNTP -----------------------------------------------------------------------------
    def _sntp(self, server: _Server, now: float) -> ClockMeasurement | ClockReferenceFailure | None:
        if not server.backoff.should_query(now):
            return None
        s = self._settings
        fail = _failure_factory(now, server.label)
        try:
            infos = socket.getaddrinfo(server.host, server.port, type=socket.SOCK_DGRAM)
        except (socket.gaierror, UnicodeError) as exc:
            return fail("resolve_failed", str(exc))
        family, socktype, proto, _, address = infos[0]
        samples: list[SntpSample] = []
        last_error: tuple[str, str] = ("timeout", "no reply")
        try:
            with socket.socket(family, socktype, proto) as sock:
                sock.connect(address)
                for index in range(s.sntp_samples):
                    if index:
                        _drain(sock, s.sntp_sample_gap_seconds)
                    try:
                        samples.append(_exchange(sock, s.sntp_timeout_seconds))
                    except SntpKissOfDeath as kod:
                        server.backoff.kiss_of_death(kod, now)
                        return fail(kod.kind, f"kiss-o'-death {kod.code}")
                    except SntpError as exc:
                        last_error = (exc.kind, str(exc))
                    except TimeoutError:
                        last_error = ("timeout", f"no reply within {s.sntp_timeout_seconds} s")
                    except OSError as exc:  # ICMP port unreachable arrives as ECONNREFUSED
                        last_error = (
                            "refused"
                            if isinstance(exc, ConnectionRefusedError)
                            else "socket_error",
                            str(exc),
                        )
        except OSError as exc:
            return fail("socket_error", str(exc))
        if not samples:
            return fail(*last_error)
        server.backoff.answered()
        best = best_sample(samples)
        reply = best.reply
        return ClockMeasurement(
            at=now,
            reference=server.label,
            method="sntp",
            offset_seconds=best.local_minus_server_seconds,
            uncertainty_seconds=best.uncertainty_seconds,
            synchronised=True,
            leap_pending=reply.leap in (1, 2),
            stratum=reply.stratum,
            delay_seconds=best.delay_seconds,
            wall_seconds=reply.transmit_time_unix,
            detail=reply.reference_id,
        )


def _failure_factory(now: float, label: str) -> Callable[[str, str], ClockReferenceFailure]:
    def fail(error_type: str, message: str) -> ClockReferenceFailure:
        return ClockReferenceFailure(now, label, "sntp", error_type, message)

    return fail


def _exchange(sock: socket.socket, timeout: float) -> SntpSample:
    """One request/reply. t4 is t1 plus monotonic elapsed time, so a step mid-flight cannot
    distort the delay; replies that do not echo our request are skipped until the deadline."""
    request = build_request(time.time(), secrets.randbits(24))
    t1 = time.time()
    sent = time.monotonic()
    sock.send(request)
    deadline = sent + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no matching reply")
        sock.settimeout(remaining)
        data = sock.recv(1024)
        received = time.monotonic()
        try:
            reply = parse_reply(data, request)
        except SntpBogus:
            continue  # a late answer to an earlier request
        return sample_from_exchange(t1, t1 + (received - sent), reply)


def _drain(sock: socket.socket, seconds: float) -> None:
    """Pause between exchanges, discarding late replies to earlier requests meanwhile."""
    deadline = time.monotonic() + seconds
    while (remaining := deadline - time.monotonic()) > 0:
        sock.settimeout(remaining)
        try:
            sock.recv(1024)
        except (TimeoutError, OSError):
            return
