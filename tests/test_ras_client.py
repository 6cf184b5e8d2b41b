"""The RAS client against the fake server: the recommended sequence, every misbehaviour,
deadlines, partial replies, and errors that leave the source UNKNOWN (never OK)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest

from monitor.errors import SourceError
from monitor.parse.ras_model import ReportFormat
from monitor.sources.nccl_ras import ClientOptions, parse_reply, query_status
from tests.fake_ras import FakeRasServer, JobShape, Misbehaviour, scenario

FAST = ClientOptions(
    handshake_timeout_seconds=0.4, connect_timeout_seconds=1.0, deadline_seconds=3.0
)
ALLOWED = {"CLIENT PROTOCOL 2", "TIMEOUT 5", "SET FORMAT json", "STATUS", "VERBOSE STATUS"}


def free_port() -> int:
    """A loopback port with nothing listening (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def fake(version: str = "2.29.7", **kwargs: Any) -> FakeRasServer:
    shape = JobShape(version=version, collection_delay_seconds=kwargs.pop("delay", 0.005))
    return FakeRasServer(scenario(shape=shape), **kwargs)


def test_json_exchange_follows_the_recommended_sequence() -> None:
    """Handshake, TIMEOUT, SET FORMAT json, STATUS, then EOF: a complete JSON report."""
    with fake() as srv:
        reply = query_status("127.0.0.1", srv.port, FAST)
        assert srv.stats.commands == ["CLIENT PROTOCOL 2", "TIMEOUT 5", "SET FORMAT json", "STATUS"]
    assert (reply.format, reply.partial, reply.handshake_attempts) == ("json", False, 1)
    report = parse_reply(reply)
    assert report.format is ReportFormat.JSON and report.complete
    assert report.nccl_version == "2.29.7"


@pytest.mark.parametrize("version", ["2.24.3", "2.26.2", "2.28.3"])
def test_old_servers_fall_back_to_text_on_the_same_connection(version: str) -> None:
    """`ERROR: Unknown command SET FORMAT json` means text, asked on the same connection."""
    with fake(version) as srv:
        reply = query_status("127.0.0.1", srv.port, FAST)
        assert srv.stats.connections == 1
    assert reply.format == "text" and not reply.notes
    report = parse_reply(reply)
    assert report.format is ReportFormat.TEXT and report.complete
    assert report.nccl_version == version


def test_every_resolved_address_is_tried() -> None:
    """localhost may be ::1: when the IPv4 address refuses, the IPv6 one answers."""
    dead_port = free_port()
    with fake(host="::1") as srv:

        def resolver(host: str, port: int) -> Sequence[tuple[int, Any]]:
            return [
                (socket.AF_INET, ("127.0.0.1", dead_port)),
                (socket.AF_INET6, ("::1", srv.port)),
            ]

        reply = query_status("localhost", srv.port, FAST, resolver=resolver)
    assert reply.address == f"[::1]:{srv.port}"
    assert parse_reply(reply).complete


def test_real_resolution_of_an_ipv6_literal() -> None:
    """An IPv6 literal resolves through getaddrinfo and connects to the IPv6 loopback."""
    with fake(host="::1") as srv:
        reply = query_status("::1", srv.port, FAST)
    assert reply.address.startswith("[::1]:")


def test_refused_everywhere_is_a_source_error() -> None:
    """Nothing listening: SourceError `refused` (the source goes down, its concern UNKNOWN)."""
    with pytest.raises(SourceError) as info:
        query_status("127.0.0.1", free_port(), FAST)
    assert info.value.error_type == "refused"


def test_silent_server_times_out_after_one_reconnect() -> None:
    """A server that accepts and never answers: two short handshake waits, then an error."""
    with fake(misbehaviour=Misbehaviour.NEVER_ANSWER) as srv:
        started = time.monotonic()
        with pytest.raises(SourceError) as info:
            query_status("127.0.0.1", srv.port, FAST)
        elapsed = time.monotonic() - started
        assert srv.stats.connections == 2
    assert info.value.error_type == "handshake_timeout"
    assert elapsed < 2 * FAST.handshake_timeout_seconds + 1.5


def test_reconnect_reaches_a_live_process_after_a_stopped_one() -> None:
    """SO_REUSEPORT may hand the first connection to a stopped process; the retry gets through."""
    with fake(misbehaviour=Misbehaviour.STALL_FIRST) as srv:
        reply = query_status("127.0.0.1", srv.port, FAST)
        assert srv.stats.connections == 2
    assert reply.handshake_attempts == 2 and parse_reply(reply).complete


def test_garbage_handshake_is_a_source_error() -> None:
    """Binary garbage instead of `SERVER PROTOCOL 2`: SourceError `bad_handshake`."""
    with fake(misbehaviour=Misbehaviour.GARBAGE_HANDSHAKE) as srv, pytest.raises(
        SourceError
    ) as info:
        query_status("127.0.0.1", srv.port, FAST)
    assert info.value.error_type == "bad_handshake"


def test_garbage_report_is_read_and_not_recognised() -> None:
    """Binary garbage after STATUS is read to EOF; the parser recognises nothing in it."""
    with fake(misbehaviour=Misbehaviour.GARBAGE) as srv:
        reply = query_status("127.0.0.1", srv.port, FAST)
    report = parse_reply(reply)
    assert len(reply.data) == 64 * 1024
    assert not report.recognised and report.unknown_lines > 0


def test_close_mid_report_is_kept_and_incomplete() -> None:
    """The server closes half-way through the report: what arrived is parsed, marked incomplete."""
    with fake("2.27.7", misbehaviour=Misbehaviour.CLOSE_MID_REPORT) as srv:
        reply = query_status("127.0.0.1", srv.port, FAST)
    report = parse_reply(reply)
    assert report.nccl_version == "2.27.7"
    assert not report.complete and "truncated" in report.faults


def test_drip_feed_respects_the_deadline_and_keeps_the_partial_reply() -> None:
    """One byte per 100 ms: the exchange ends at the deadline with the bytes so far, partial."""
    options = ClientOptions(handshake_timeout_seconds=0.4, deadline_seconds=1.5)
    with fake(misbehaviour=Misbehaviour.DRIP) as srv:
        started = time.monotonic()
        reply = query_status("127.0.0.1", srv.port, options)
        elapsed = time.monotonic() - started
    assert reply.partial and reply.partial_reason == "deadline"
    assert 1.4 <= elapsed < 1.5 + 1.0
    assert 3 <= len(reply.data) <= 20


def test_slow_collection_past_the_deadline_keeps_the_first_chunk() -> None:
    """A collection slower than the deadline: the text header chunk is kept, marked partial."""
    options = ClientOptions(handshake_timeout_seconds=0.4, deadline_seconds=1.0, want_json=False)
    with fake(delay=5.0) as srv:
        reply = query_status("127.0.0.1", srv.port, options)
        srv.stop()
    report = parse_reply(reply)
    assert reply.partial and reply.data.endswith(b"\nCommunicators...")
    assert report.nccl_version == "2.29.7" and not report.complete


def test_huge_reply_is_cut_at_the_size_cap() -> None:
    """A 50 MB reply with a 1 MiB cap: the first MiB is kept and the reply marked partial."""
    options = ClientOptions(handshake_timeout_seconds=0.4, deadline_seconds=10.0,
                            max_reply_bytes=1 << 20)
    with fake(misbehaviour=Misbehaviour.HUGE) as srv:
        reply = query_status("127.0.0.1", srv.port, options)
    assert reply.partial and reply.partial_reason == "size_cap"
    assert len(reply.data) == 1 << 20


def test_huge_reply_is_read_whole_within_the_deadline() -> None:
    """A 50 MB reply under the default cap is read to EOF well within a 30 s deadline."""
    options = ClientOptions(handshake_timeout_seconds=0.4, deadline_seconds=30.0)
    with fake(misbehaviour=Misbehaviour.HUGE) as srv:
        started = time.monotonic()
        reply = query_status("127.0.0.1", srv.port, options)
    assert not reply.partial
    assert len(reply.data) >= 50 * 1024 * 1024
    assert time.monotonic() - started < 30


def test_extra_ok_lines_before_json_are_skipped() -> None:
    """Stray acknowledgement lines before the JSON document do not break parsing."""
    with fake(misbehaviour=Misbehaviour.EXTRA_OK) as srv:
        reply = query_status("127.0.0.1", srv.port, FAST)
    report = parse_reply(reply)
    assert report.complete and "preamble_lines_skipped" in report.faults


def test_truncated_json_is_salvaged() -> None:
    """A JSON document that stops half-way keeps its header; the report is incomplete."""
    with fake(misbehaviour=Misbehaviour.TRUNCATED_JSON) as srv:
        reply = query_status("127.0.0.1", srv.port, FAST)
    report = parse_reply(reply)
    assert report.nccl_version == "2.29.7" and not report.complete


def test_stop_interrupts_a_pending_read() -> None:
    """Setting the stop event ends a drip-fed read within a fraction of a second."""
    stop = threading.Event()
    options = ClientOptions(handshake_timeout_seconds=0.4, deadline_seconds=60.0)
    results: list[Any] = []
    with fake(misbehaviour=Misbehaviour.DRIP) as srv:
        thread = threading.Thread(
            target=lambda: results.append(query_status("127.0.0.1", srv.port, options, stop=stop))
        )
        thread.start()
        time.sleep(0.5)
        stopped_at = time.monotonic()
        stop.set()
        thread.join(timeout=5)
        assert time.monotonic() - stopped_at < 1.0
    assert results[0].partial_reason == "stopped"


@pytest.mark.parametrize("misbehaviour", list(Misbehaviour))
def test_the_client_never_sends_anything_but_the_query_commands(misbehaviour: Misbehaviour) -> None:
    """Whatever the server does, the client sends only the handshake, TIMEOUT, SET FORMAT and
    STATUS lines: never CONTROL."""
    options = ClientOptions(handshake_timeout_seconds=0.3, deadline_seconds=0.8,
                            max_reply_bytes=1 << 20)
    with fake(misbehaviour=misbehaviour) as srv:
        with contextlib.suppress(SourceError):
            query_status("127.0.0.1", srv.port, options)
        assert set(srv.stats.commands) <= ALLOWED
        assert not srv.sent_control()
