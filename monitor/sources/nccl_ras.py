"""NCCL RAS source: polls the RAS client port, gently, and emits parsed STATUS snapshots.

Every STATUS query makes every NCCL process of the job gather data, and several NCCL versions
crashed under polling, so this source is careful by construction:

* only nodes 0 (primary) and 1 (backup, offset by half an interval) poll by default;
  `polling_plan()` decides, purely, from the node index and the settings;
* never faster than every 5 s; the interval stretches when replies are slow, after timeouts and
  while communicators are initialising (`next_interval()`);
* the first STATUS waits `settle_seconds` after the port first answers (communicators are being
  created then); NCCL versions in `ras.skip_versions` are never queried again once seen;
* one query at a time, an overall deadline on every exchange, `VERBOSE STATUS` only on NCCL
  2.29.2+ (#1762), and never `CONTROL`.

The exchange follows the protocol's recommended client sequence: resolve with AF_UNSPEC and try
every address; `CLIENT PROTOCOL 2` with a short deadline, reconnecting once (SO_REUSEPORT may have
routed us to a stopped process); `TIMEOUT <integer>`; `SET FORMAT json`, falling back to text on
`ERROR: Unknown command`; `STATUS`; read to EOF under the deadline. A reply cut by the deadline or
the size cap is kept and marked partial. A refused or silent port raises SourceError, so the
runner shows the source down and the RAS concern UNKNOWN, never OK.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from monitor.errors import SourceError
from monitor.model import (
    MetricFamilyData,
    Observation,
    SourceFault,
    Suspicion,
    counter,
    gauge,
)
from monitor.parse.ras_json import parse_json
from monitor.parse.ras_model import (
    CommStatus,
    RasPollingOff,
    RasReport,
    RasSnapshot,
    parse_version,
)
from monitor.parse.ras_text import parse_text
from monitor.settings import RasSettings

DEFAULT_HOST = "localhost"
DEFAULT_PORT = 28028
MIN_INTERVAL_SECONDS = 5.0
EXTRA_QUERY_MIN_SECONDS = 5.0  # a suspicion's extra STATUS never follows the last one sooner
MAX_ADDRESSES_TRIED = 4
READ_SLICE_SECONDS = 0.25  # socket waits are sliced so close() is honoured promptly
VERBOSE_SAFE_FROM = (2, 29, 2)  # VERBOSE STATUS corrupted memory before this (NCCL #1762)

EnvProvider = Callable[[], Iterable[Mapping[str, str]]] | Iterable[Mapping[str, str]]
Resolver = Callable[[str, int], Sequence[tuple[int, Any]]]


# ---------------------------------------------------------------------------------------------
# Pure policy: who polls, how often, what is skipped, where to connect.


@dataclass(frozen=True, slots=True)
class PollPlan:
    polls: bool
    role: str  # "primary" | "backup" | "extra" | "off"
    phase_offset_seconds: float
    interval_seconds: float
    reason: str


def polling_plan(node_index: int | None, settings: RasSettings) -> PollPlan:
    """Whether this node polls RAS, and when. `node_index` None (wrap mode, one node) is 0.

    Nodes 0..poll_nodes-1 poll, each offset by index/poll_nodes of an interval, so the job sees
    evenly spaced queries (default: node 0 at t, node 1 at t + interval/2).
    """
    interval = max(MIN_INTERVAL_SECONDS, settings.interval_seconds)
    if not settings.enabled:
        return PollPlan(False, "off", 0.0, interval, "ras.enabled is false")
    index = 0 if node_index is None else node_index
    if settings.poll_nodes <= 0 or index >= settings.poll_nodes:
        return PollPlan(
            False,
            "off",
            0.0,
            interval,
            f"node index {index} does not poll: only nodes below ras.poll_nodes="
            f"{settings.poll_nodes} query RAS (it sees the whole job from any node)",
        )
    role = {0: "primary", 1: "backup"}.get(index, "extra")
    offset = interval * index / settings.poll_nodes
    return PollPlan(True, role, offset, interval, f"{role} RAS poller")


def next_interval(
    base_seconds: float,
    *,
    max_seconds: float,
    slow_reply_factor: float,
    last_duration_seconds: float | None,
    consecutive_timeouts: int = 0,
    initialising: bool = False,
) -> float:
    """The delay before the next query: the base, stretched when the job is under strain.

    * a reply that took d seconds: at least `slow_reply_factor` x d (RAS duty cycle bounded);
    * timeouts in a row: the base doubled per timeout (a stuck job is not hammered);
    * communicators initialising: twice the base (queries during init crashed NCCL).
    Never below 5 s; never above `max_seconds` (or the base, if the base is larger).
    """
    base = max(MIN_INTERVAL_SECONDS, base_seconds)
    ceiling = max(base, max_seconds)
    delay = base
    if last_duration_seconds is not None:
        delay = max(delay, slow_reply_factor * last_duration_seconds)
    if consecutive_timeouts > 0:
        delay = max(delay, base * (2 ** min(consecutive_timeouts, 16)))
    if initialising:
        delay = max(delay, 2 * base)
    return min(delay, ceiling)


def version_skipped(version: str, patterns: Iterable[str]) -> str | None:
    """The pattern of `ras.skip_versions` that matches this NCCL version, if any.

    Patterns match by leading components: `2.26` matches 2.26.2 and 2.26.6, `2.28.9` only 2.28.9.
    """
    parsed = parse_version(version if version.count(".") >= 2 else version + ".0")
    if parsed is None:
        return None
    for pattern in patterns:
        parts = pattern.strip().split(".")
        if not parts or not all(p.isdigit() for p in parts) or len(parts) > 3:
            continue
        if tuple(int(p) for p in parts) == parsed[: len(parts)]:
            return pattern
    return None


def parse_addr(text: str) -> tuple[str, int]:
    """`host:port`, `[v6addr]:port` or `host` (default port) as NCCL_RAS_ADDR writes them."""
    text = text.strip()
    if not text:
        raise ValueError("empty address")
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep:
            raise ValueError(f"unterminated IPv6 address in {text!r}")
        port_text = rest[1:] if rest.startswith(":") else rest
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    elif ":" in text:  # a bare IPv6 address
        host, port_text = text, ""
    else:
        host, port_text = text, ""
    if not port_text:
        port = DEFAULT_PORT
    elif port_text.isdigit() and 0 < int(port_text) < 65536:
        port = int(port_text)
    else:
        raise ValueError(f"bad port in {text!r}")
    return host or DEFAULT_HOST, port


def choose_address(
    configured: str, environments: Iterable[Mapping[str, str]]
) -> tuple[str, int, str]:
    """(host, port, origin): `ras.addr`, else the ranks' NCCL_RAS_ADDR (most common), else the
    default. Raises ValueError for an unparsable address."""
    if configured:
        return (*parse_addr(configured), "ras.addr")
    values = Counter(
        env["NCCL_RAS_ADDR"] for env in environments if env.get("NCCL_RAS_ADDR", "").strip()
    )
    if values:
        value = values.most_common(1)[0][0]
        return (*parse_addr(value), "NCCL_RAS_ADDR")
    return DEFAULT_HOST, DEFAULT_PORT, "default"


# ---------------------------------------------------------------------------------------------
# The client: one STATUS exchange.


@dataclass(frozen=True, slots=True)
class RasReply:
    data: bytes
    format: str  # "json" | "text"
    partial: bool
    partial_reason: str  # "", "deadline", "size_cap", "stopped"
    address: str
    handshake_attempts: int
    duration_seconds: float
    notes: tuple[str, ...] = ()  # recoverable oddities, e.g. "timeout_rejected"


@dataclass(frozen=True, slots=True)
class ClientOptions:
    want_json: bool = True
    verbose: bool = False
    collection_timeout_seconds: int = 5
    connect_timeout_seconds: float = 2.0
    handshake_timeout_seconds: float = 1.0
    deadline_seconds: float = 12.0
    max_reply_bytes: int = 256 * 1024 * 1024
    handshake_only: bool = False


def getaddrinfo_resolver(host: str, port: int) -> Sequence[tuple[int, Any]]:
    """Every (family, sockaddr) `host` resolves to, IPv4 and IPv6 (AF_UNSPEC)."""
    infos = socket.getaddrinfo(host, port, socket.AF_UNSPEC, socket.SOCK_STREAM)
    seen: list[tuple[int, Any]] = []
    for family, _type, _proto, _name, sockaddr in infos:
        if (family, sockaddr) not in seen:
            seen.append((family, sockaddr))
    return seen


class _Stopped(Exception):
    pass


# When every address failed, the most telling failure names the error.
_FAILURE_PRIORITY = (
    "handshake_timeout",
    "bad_handshake",
    "handshake_reset",
    "connect_timeout",
    "connect_error",
    "refused",
)


class _Line:
    """A socket with a line buffer; every wait is bounded by a deadline and the stop event."""

    def __init__(self, sock: socket.socket, stop: threading.Event) -> None:
        self.sock = sock
        self.stop = stop
        self.buffer = b""
        self.eof = False

    def send(self, text: str) -> None:
        self.sock.sendall(text.encode())

    def recv_once(self, deadline: float) -> bool:
        """Read once; False on timeout. EOF sets `eof`."""
        while True:
            if self.stop.is_set():
                raise _Stopped
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            self.sock.settimeout(min(remaining, READ_SLICE_SECONDS))
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                continue
            if not data:
                self.eof = True
            self.buffer += data
            return True

    def read_line(self, deadline: float) -> str | None:
        """One reply line without its newline; None when the deadline passes or on EOF."""
        while b"\n" not in self.buffer:
            if self.eof or len(self.buffer) > 4096 or not self.recv_once(deadline):
                return None
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode("utf-8", errors="replace").rstrip("\r")


def _connect(family: int, sockaddr: Any, timeout: float) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(sockaddr)
    except BaseException:
        sock.close()
        raise
    return sock


def _format_sockaddr(family: int, sockaddr: Any) -> str:
    host, port = sockaddr[0], sockaddr[1]
    return f"[{host}]:{port}" if family == socket.AF_INET6 else f"{host}:{port}"


def _handshake(
    family: int, sockaddr: Any, options: ClientOptions, stop: threading.Event
) -> tuple[_Line | None, int, str]:
    """Connect and exchange CLIENT PROTOCOL, reconnecting once when nothing answers.

    Returns (connection or None, attempts, failure type)."""
    failure = ""
    for attempt in (1, 2):
        try:
            sock = _connect(family, sockaddr, options.connect_timeout_seconds)
        except ConnectionRefusedError:
            return None, attempt, "refused"
        except TimeoutError:
            return None, attempt, "connect_timeout"
        except OSError as exc:
            return None, attempt, f"connect_error:{exc.errno}"
        conn = _Line(sock, stop)
        try:
            conn.send("CLIENT PROTOCOL 2\n")
            line = conn.read_line(time.monotonic() + options.handshake_timeout_seconds)
        except _Stopped:
            sock.close()
            raise
        except OSError:
            sock.close()
            failure = "handshake_reset"
            continue
        if line is None:
            sock.close()
            failure = "handshake_timeout"
            continue  # maybe a stopped process took the connection: reconnect once
        if not line.startswith("SERVER PROTOCOL "):
            sock.close()
            return None, attempt, "bad_handshake"
        return conn, attempt, ""
    return None, 2, failure


def query_status(
    host: str,
    port: int,
    options: ClientOptions,
    *,
    resolver: Resolver = getaddrinfo_resolver,
    stop: threading.Event | None = None,
) -> RasReply:
    """One RAS exchange: handshake, TIMEOUT, SET FORMAT, STATUS, read to EOF.

    Raises SourceError (error types: resolve_failed, refused, connect_timeout, handshake_timeout,
    bad_handshake, no_ack, connection_lost, stopped) when no report could be had.
    """
    stop = stop or threading.Event()
    started = time.monotonic()
    try:
        addresses = list(resolver(host, port))[:MAX_ADDRESSES_TRIED]
    except (OSError, UnicodeError) as exc:
        raise SourceError("resolve_failed", f"cannot resolve {host}: {exc}") from exc
    if not addresses:
        raise SourceError("resolve_failed", f"{host} resolves to no address")
    failures: list[str] = []
    conn: _Line | None = None
    attempts = 0
    where = ""
    try:
        for family, sockaddr in addresses:
            where = _format_sockaddr(family, sockaddr)
            conn, tries, failure = _handshake(family, sockaddr, options, stop)
            attempts += tries
            if conn is not None:
                break
            failures.append(f"{where} {failure}")
    except _Stopped:
        raise SourceError("stopped", "RAS query interrupted by shutdown") from None
    if conn is None:
        kinds = {f.rsplit(" ", 1)[1].split(":")[0] for f in failures}
        error_type = next(
            (k for k in _FAILURE_PRIORITY if k in kinds), sorted(kinds)[0] if kinds else "refused"
        )
        raise SourceError(error_type, "no RAS answer: " + "; ".join(failures))
    try:
        if options.handshake_only:
            return RasReply(b"", "none", False, "", where, attempts, time.monotonic() - started)
        return _exchange(conn, options, where, attempts, started)
    except _Stopped:
        raise SourceError("stopped", "RAS query interrupted by shutdown") from None
    except OSError as exc:
        raise SourceError("connection_lost", f"{where}: {exc}") from exc
    finally:
        conn.sock.close()


def _exchange(
    conn: _Line, options: ClientOptions, where: str, attempts: int, started: float
) -> RasReply:
    notes: list[str] = []
    ack_deadline = time.monotonic() + max(options.handshake_timeout_seconds, 1.0)
    conn.send(f"TIMEOUT {int(options.collection_timeout_seconds)}\n")
    ack = conn.read_line(ack_deadline)
    if ack is None:
        raise SourceError("no_ack", f"{where}: no reply to TIMEOUT")
    if ack != "OK":
        notes.append("timeout_rejected")
    fmt = "text"
    if options.want_json:
        conn.send("SET FORMAT json\n")
        ack = conn.read_line(time.monotonic() + max(options.handshake_timeout_seconds, 1.0))
        if ack is None:
            raise SourceError("no_ack", f"{where}: no reply to SET FORMAT")
        if ack == "OK":
            fmt = "json"
        elif not ack.startswith("ERROR: Unknown command"):
            notes.append("set_format_rejected")
    conn.send("VERBOSE STATUS\n" if options.verbose else "STATUS\n")
    deadline = started + options.deadline_seconds
    data = bytearray(conn.buffer)
    conn.buffer = b""
    partial_reason = ""
    while not conn.eof:
        if len(data) > options.max_reply_bytes:
            partial_reason = "size_cap"
            del data[options.max_reply_bytes :]
            break
        try:
            got = conn.recv_once(deadline)
        except _Stopped:
            partial_reason = "stopped"
            break
        if not got:
            partial_reason = "deadline"
            break
        data += conn.buffer
        conn.buffer = b""
    return RasReply(
        bytes(data),
        fmt,
        bool(partial_reason),
        partial_reason,
        where,
        attempts,
        time.monotonic() - started,
        tuple(notes),
    )


def parse_reply(reply: RasReply) -> RasReport:
    """The typed report of a reply, by the format the server agreed to."""
    if reply.format == "json" or reply.data.lstrip()[:1] == b"{":
        return parse_json(reply.data)
    return parse_text(reply.data)


# ---------------------------------------------------------------------------------------------
# The polled source.


@dataclass
class _Stats:
    """Self-metrics, replaced as a whole after each poll (read by the event loop thread)."""

    up: bool | None = None
    last_duration_seconds: float = 0.0
    last_reply_bytes: int = 0
    results: dict[str, int] = field(default_factory=dict)


class NcclRasSource:
    """PolledSource for the NCCL RAS port. Call close() on shutdown to cut a pending wait."""

    name = "nccl_ras"

    def __init__(
        self,
        settings: RasSettings,
        *,
        node_index: int | None = 0,
        rank_environments: EnvProvider | None = None,
        version_hint: Callable[[], str | None] | None = None,
        resolver: Resolver = getaddrinfo_resolver,
    ) -> None:
        """`node_index`: this node's index in the job (None in wrap mode: one node, the
        primary). `rank_environments`: the ranks' environments, or a callable returning them
        (called before each query: ranks may start after the daemon).
        `version_hint`: the job's NCCL version if known beforehand (e.g. from NCCL's log
        banner), so a skipped version is never queried at all."""
        self._settings = settings
        self._plan = polling_plan(node_index, settings)
        self._environments = rank_environments
        self._version_hint = version_hint
        self._resolver = resolver
        self._stop = threading.Event()
        # Start-to-start delay until the next poll (stretched, offset, or long when off); the
        # runner reads it after each poll.
        self.interval_seconds = self._plan.interval_seconds
        self._started_at: float | None = None
        self._port_seen_at: float | None = None
        self._version: str | None = None
        self._timeouts = 0
        self._announced_off = False
        self._stats = _Stats()
        # Set to poll now instead of at the next interval (the runner waits on it): a suspected
        # stall asks for a fresh report as evidence.
        self.wake = asyncio.Event()
        self._last_query_at: float | None = None
        self._initialising = False
        self.extra_queries = 0

    def on_observation(self, obs: Observation) -> None:
        """A Suspicion asks for one extra STATUS: only on a polling node, once the port was seen
        and init has settled, never while communicators initialise, never sooner than
        EXTRA_QUERY_MIN_SECONDS after the last query (the runner keeps one in flight)."""
        if not isinstance(obs, Suspicion) or not self._plan.polls or self.wake.is_set():
            return
        seen = self._port_seen_at
        if seen is None or obs.at < seen + self._settings.settle_seconds or self._initialising:
            return
        if self._last_query_at is not None and obs.at - self._last_query_at < EXTRA_QUERY_MIN_SECONDS:
            return
        self.extra_queries += 1
        self.wake.set()

    # -- runner interface ---------------------------------------------------------------------
    @property
    def plan(self) -> PollPlan:
        return self._plan

    def close(self) -> None:
        self._stop.set()

    def poll(self, now: float) -> Sequence[Observation]:
        if self._stop.is_set():
            return []
        if not self._plan.polls:
            self.interval_seconds = 3600.0
            if self._announced_off:
                return []
            self._announced_off = True
            return [RasPollingOff(now, self._plan.reason)]
        if self._started_at is None:
            self._started_at = now
            if self._plan.phase_offset_seconds > 0:
                self.interval_seconds = self._plan.phase_offset_seconds
                return []
        base = self._plan.interval_seconds
        self.interval_seconds = base
        skipped = self._skipped_version()
        if skipped is not None:
            self.interval_seconds = max(base, self._settings.max_interval_seconds)
            self._record("version_skipped", up=False)
            raise SourceError("version_skipped", skipped)
        host, port = self._address()
        settle = self._settings.settle_seconds
        if self._port_seen_at is None and settle > 0:
            self._probe(host, port, now)
            return []
        if self._port_seen_at is not None and now < self._port_seen_at + settle:
            self.interval_seconds = max(0.05, self._port_seen_at + settle - now)
            return []
        return self._query(host, port, now)

    # -- steps --------------------------------------------------------------------------------
    def _skipped_version(self) -> str | None:
        version = self._version
        if version is None and self._version_hint is not None:
            version = self._version_hint()
        if not version:
            return None
        pattern = version_skipped(version, self._settings.skip_versions)
        if pattern is None:
            return None
        return (
            f"NCCL {version} matches ras.skip_versions entry {pattern!r}: not polled "
            "(known crashes under RAS polling; see docs/nccl-ras.md)"
        )

    def _address(self) -> tuple[str, int]:
        environments: Iterable[Mapping[str, str]] = ()
        if self._environments is not None:
            environments = (
                self._environments() if callable(self._environments) else self._environments
            )
        try:
            host, port, _origin = choose_address(self._settings.addr, environments)
        except ValueError as exc:
            self._record("bad_address", up=False)
            raise SourceError("bad_address", f"RAS address: {exc}") from exc
        return host, port

    def _options(self, *, handshake_only: bool = False) -> ClientOptions:
        settings = self._settings
        version = parse_version(self._version) if self._version else None
        verbose = settings.verbose and version is not None and version >= VERBOSE_SAFE_FROM
        return ClientOptions(
            want_json=settings.prefer_json,
            verbose=verbose,
            collection_timeout_seconds=int(settings.collection_timeout_seconds),
            connect_timeout_seconds=settings.connect_timeout_seconds,
            handshake_timeout_seconds=settings.handshake_timeout_seconds,
            deadline_seconds=settings.reply_timeout_seconds,
            max_reply_bytes=settings.max_reply_bytes,
            handshake_only=handshake_only,
        )

    def _probe(self, host: str, port: int, now: float) -> None:
        """Handshake only (no collection): learn that the port is up, then let init settle."""
        try:
            query_status(host, port, self._options(handshake_only=True),
                         resolver=self._resolver, stop=self._stop)
        except SourceError as exc:
            self._record(exc.error_type, up=False)
            # A port never seen open is the usual state of a job without NCCL (or before its
            # first communicator): UNKNOWN, said at info. Once seen, losing it is a warning.
            exc.quiet = exc.error_type in ("refused", "resolve_failed")
            raise
        self._port_seen_at = now
        self.interval_seconds = max(0.05, self._settings.settle_seconds)

    def _query(self, host: str, port: int, now: float) -> Sequence[Observation]:
        base = self._plan.interval_seconds
        self._last_query_at = now
        try:
            reply = query_status(host, port, self._options(), resolver=self._resolver,
                                 stop=self._stop)
        except SourceError as exc:
            if exc.error_type == "stopped":
                return []
            if exc.error_type in ("handshake_timeout", "no_ack", "connect_timeout"):
                self._timeouts += 1
            self.interval_seconds = self._next(base, None)
            self._record(exc.error_type, up=False)
            if self._port_seen_at is None:  # never seen open: see _probe
                exc.quiet = exc.error_type in ("refused", "resolve_failed")
            raise
        if reply.partial_reason == "stopped":
            return []  # shutting down: half a report is not worth a verdict
        if self._port_seen_at is None:
            self._port_seen_at = now
        report = parse_reply(reply)
        if report.nccl_version:
            self._version = report.nccl_version
        self._timeouts = self._timeouts + 1 if reply.partial_reason == "deadline" else 0
        initialising = any(row.status is CommStatus.INIT for row in report.groups) or any(
            c.status is CommStatus.INIT for c in report.communicators
        )
        self._initialising = initialising
        self.interval_seconds = self._next(base, reply.duration_seconds, initialising=initialising)
        if not report.recognised:
            error_type = {"deadline": "reply_timeout", "size_cap": "reply_too_large"}.get(
                reply.partial_reason, "unrecognised_reply"
            )
            self._record(error_type, up=False, reply=reply)
            excerpt = reply.data[:80]
            raise SourceError(
                error_type,
                f"{reply.address}: {len(reply.data)} bytes that are not a RAS report "
                f"({reply.partial_reason or 'complete'}): {excerpt!r}",
            )
        partial = reply.partial or not report.complete
        reason = reply.partial_reason or ("truncated" if not report.complete else "")
        self._record("partial" if partial else "ok", up=True, reply=reply)
        snapshot = RasSnapshot(
            at=now,
            report=report,
            address=reply.address,
            partial=partial,
            partial_reason=reason,
            duration_seconds=reply.duration_seconds,
            reply_bytes=len(reply.data),
            poll_interval_seconds=self.interval_seconds,
        )
        out: list[Observation] = [snapshot]
        if partial:
            out.append(
                SourceFault(now, self.name, "partial_reply",
                            f"{reply.address}: reply incomplete ({reason}), "
                            f"{len(reply.data)} bytes kept")
            )
        if report.unknown_lines:
            out.append(
                SourceFault(now, self.name, "unknown_lines",
                            f"{report.unknown_lines} unrecognised line(s), e.g. "
                            f"{report.unknown_samples[:1]!r}")
            )
        return out

    def _next(self, base: float, duration: float | None, *, initialising: bool = False) -> float:
        return next_interval(
            base,
            max_seconds=self._settings.max_interval_seconds,
            slow_reply_factor=self._settings.slow_reply_factor,
            last_duration_seconds=duration,
            consecutive_timeouts=self._timeouts,
            initialising=initialising,
        )

    def _record(self, result: str, *, up: bool, reply: RasReply | None = None) -> None:
        old = self._stats
        results = dict(old.results)
        results[result] = results.get(result, 0) + 1
        self._stats = _Stats(
            up=up,
            last_duration_seconds=reply.duration_seconds if reply else old.last_duration_seconds,
            last_reply_bytes=len(reply.data) if reply else old.last_reply_bytes,
            results=results,
        )

    # -- self-metrics -------------------------------------------------------------------------
    def metric_families(self) -> Sequence[MetricFamilyData]:
        stats = self._stats
        families = [
            gauge(
                "ras_polling",
                "1 when this node queries NCCL RAS (by role), 0 when policy keeps it quiet.",
                ("role",),
                [((self._plan.role,), 1.0 if self._plan.polls else 0.0)],
            ),
        ]
        if not self._plan.polls:
            return families
        families += [
            gauge(
                "ras_poll_interval_seconds",
                "Current delay between RAS queries (stretched when replies are slow).",
                (),
                self.interval_seconds,
            ),
            counter(
                "ras_polls",
                "RAS queries by result (ok, partial, refused, handshake_timeout, ...).",
                ("result",),
                [((k,), v) for k, v in sorted(stats.results.items())],
            ),
            counter(
                "ras_extra_queries",
                "Extra RAS STATUS queries asked by a suspected stall (evidence gathering).",
                (),
                self.extra_queries,
            ),
        ]
        if stats.up is not None:
            families.append(
                gauge("ras_up", "1 when the last RAS query got a report, else 0.", (),
                      1.0 if stats.up else 0.0)
            )
        if stats.results:
            families += [
                gauge(
                    "ras_poll_duration_seconds",
                    "Duration of the last RAS exchange (connect to end of report).",
                    (),
                    stats.last_duration_seconds,
                ),
                gauge("ras_reply_bytes", "Size of the last RAS report.", (),
                      stats.last_reply_bytes),
            ]
        return families


def local_addresses() -> frozenset[str]:
    """This node's IP addresses, to tell which RAS ranks run here (RAS names nodes by IP)."""
    addresses: set[str] = set()
    try:
        import psutil

        for entries in psutil.net_if_addrs().values():
            for entry in entries:
                if entry.family in (socket.AF_INET, socket.AF_INET6):
                    addresses.add(entry.address.split("%", 1)[0])
    except Exception:  # noqa: BLE001 - best effort; an empty set only drops per-rank metrics
        pass
    return frozenset(addresses)
