"""SNTP packet building, reply checks and RFC 5905 offset/delay arithmetic."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.parse.sntp import (
    Leap,
    NtpReply,
    SntpBogus,
    SntpKissOfDeath,
    SntpMalformed,
    SntpSample,
    SntpUnsynchronised,
    best_sample,
    build_request,
    ntp_to_unix,
    parse_reply,
    sample_from_exchange,
    unix_to_ntp,
)

T1 = 1_795_216_659.25


def reply_packet(
    request: bytes,
    *,
    receive: float = T1 + 0.5,
    transmit: float = T1 + 0.5001,
    leap: int = 0,
    version: int = 4,
    mode: int = 4,
    stratum: int = 2,
    refid: bytes = bytes([192, 168, 0, 1]),
    reference: float = T1 - 10,
    root_delay: float = 0.002,
    root_dispersion: float = 0.001,
) -> bytes:
    """A server reply built field by field, echoing the request's transmit timestamp."""
    first = (leap << 6) | (version << 3) | mode
    header = struct.pack(
        "!BBbbII4s",
        first,
        stratum,
        6,
        -20,
        int(root_delay * 65536),
        int(root_dispersion * 65536),
        refid,
    )

    def stamp(t: float) -> bytes:
        return struct.pack("!II", *unix_to_ntp(t)) if t else bytes(8)

    return header + stamp(reference) + request[40:48] + stamp(receive) + stamp(transmit)


def test_request_layout() -> None:
    """A request is 48 bytes, LI 0 / VN 4 / mode 3, carrying t1 with random low bits."""
    request = build_request(T1, nonce=0xABCDEF)
    assert len(request) == 48
    assert request[0] == 0x23
    seconds, fraction = struct.unpack("!II", request[40:48])
    assert fraction & 0xFFFFFF == 0xABCDEF
    assert ntp_to_unix(seconds, fraction & 0xFF000000) == pytest.approx(T1, abs=2**-8)


def test_nonce_changes_the_transmit_timestamp() -> None:
    """Two requests at the same instant differ in their nonce bits, so echoes cannot be replayed."""
    assert build_request(T1, 1)[40:48] != build_request(T1, 2)[40:48]


@given(st.floats(min_value=0, max_value=4_000_000_000, allow_nan=False))
def test_timestamp_round_trip(unix: float) -> None:
    """Unix -> NTP -> Unix is exact to the fixed-point resolution, across the 2036 era change."""
    assert ntp_to_unix(*unix_to_ntp(unix)) == pytest.approx(unix, abs=1e-6)


def test_era_one_timestamps_decode_after_2036() -> None:
    """A seconds field with its top bit clear is read as era 1 (after 2036-02-07)."""
    assert ntp_to_unix(0, 0) == 2**32 - 2_208_988_800
    assert ntp_to_unix(100, 0) > 2_085_978_496


def test_reply_fields_decoded() -> None:
    """Stratum, reference id, root delay/dispersion and the four times come out in seconds."""
    request = build_request(T1, 7)
    reply = parse_reply(reply_packet(request), request)
    assert reply.stratum == 2
    assert reply.reference_id == "192.168.0.1"
    assert reply.root_delay_seconds == pytest.approx(0.002, abs=2e-5)
    assert reply.root_dispersion_seconds == pytest.approx(0.001, abs=2e-5)
    assert reply.receive_time_unix == pytest.approx(T1 + 0.5, abs=1e-6)
    assert reply.transmit_time_unix == pytest.approx(T1 + 0.5001, abs=1e-6)
    assert reply.precision_seconds == 2.0**-20
    assert reply.leap is Leap.NONE


def test_stratum_one_reference_id_is_ascii() -> None:
    """At stratum 1 the reference id names the reference clock (GPS, PPS...)."""
    request = build_request(T1, 7)
    reply = parse_reply(reply_packet(request, stratum=1, refid=b"GPS\0"), request)
    assert reply.reference_id == "GPS"


@pytest.mark.parametrize("code", ["RATE", "DENY", "RSTR"])
def test_kiss_of_death(code: str) -> None:
    """Stratum 0 is a kiss-o'-death: the code comes back; DENY and RSTR mean stop."""
    request = build_request(T1, 7)
    with pytest.raises(SntpKissOfDeath) as info:
        parse_reply(reply_packet(request, stratum=0, refid=code.encode()), request)
    assert info.value.code == code
    assert info.value.stop_querying is (code != "RATE")


def test_unsynchronised_server_rejected() -> None:
    """Leap indicator 3 means the server's clock is unsynchronised: the sample is unusable."""
    request = build_request(T1, 7)
    with pytest.raises(SntpUnsynchronised):
        parse_reply(reply_packet(request, leap=3), request)


def test_server_without_reference_time_rejected() -> None:
    """A zero reference timestamp means the server was never synchronised."""
    request = build_request(T1, 7)
    with pytest.raises(SntpUnsynchronised):
        parse_reply(reply_packet(request, reference=0), request)


@pytest.mark.parametrize("leap", [Leap.INSERT_SECOND, Leap.DELETE_SECOND])
def test_leap_announcement_is_kept(leap: Leap) -> None:
    """An announced leap second does not invalidate the reply; it is reported."""
    request = build_request(T1, 7)
    assert parse_reply(reply_packet(request, leap=int(leap)), request).leap is leap


def test_reply_to_another_request_is_bogus() -> None:
    """A reply whose originate field does not echo our transmit timestamp is rejected."""
    request = build_request(T1, 7)
    other = build_request(T1, 8)
    with pytest.raises(SntpBogus):
        parse_reply(reply_packet(other), request)


@pytest.mark.parametrize(
    ("changes", "size"),
    [({"mode": 3}, 48), ({"version": 0}, 48), ({}, 47), ({"transmit": 0}, 48)],
)
def test_malformed_replies(changes: dict[str, int], size: int) -> None:
    """Wrong mode, impossible version, short packet or no transmit time: malformed."""
    request = build_request(T1, 7)
    packet = reply_packet(request, **changes)[:size]  # type: ignore[arg-type]
    with pytest.raises(SntpMalformed):
        parse_reply(packet, request)


def _reply(receive: float, transmit: float) -> NtpReply:
    request = build_request(T1, 7)
    return parse_reply(reply_packet(request, receive=receive, transmit=transmit), request)


def test_offset_and_delay_for_a_server_ahead() -> None:
    """Server 2 s ahead, 10 ms each way, 1 ms hold: offset +2 s (server minus us), delay 20 ms."""
    t1 = T1
    t2 = t1 + 0.010 + 2.0
    t3 = t2 + 0.001
    t4 = t1 + 0.021
    sample = sample_from_exchange(t1, t4, _reply(t2, t3))
    assert sample.server_minus_local_seconds == pytest.approx(2.0, abs=1e-6)
    assert sample.local_minus_server_seconds == pytest.approx(-2.0, abs=1e-6)
    assert sample.delay_seconds == pytest.approx(0.020, abs=1e-6)


def test_asymmetric_path_error_is_within_uncertainty() -> None:
    """With all the delay on one leg, the offset error is half the delay, inside the bound."""
    t1 = T1
    t2 = t1 + 0.030  # 30 ms out, 0 ms back, clocks agree
    t3 = t2
    t4 = t1 + 0.030
    sample = sample_from_exchange(t1, t4, _reply(t2, t3))
    assert abs(sample.server_minus_local_seconds) == pytest.approx(0.015, abs=1e-6)
    assert sample.uncertainty_seconds >= 0.015


def test_best_sample_is_the_least_delayed() -> None:
    """The minimum-delay sample wins (the RFC 5905 clock-filter rule)."""
    reply = _reply(T1, T1)
    samples = [
        SntpSample(0.3, 0.050, reply),
        SntpSample(0.1, 0.002, reply),
        SntpSample(0.2, 0.01, reply),
    ]
    assert best_sample(samples).server_minus_local_seconds == 0.1
    with pytest.raises(ValueError):
        best_sample([])
