"""SNTP (RFC 4330, with RFC 5905's on-wire rules): request packets, reply checks, offset math.

Pure: the source does the socket I/O and passes the times in. Timestamps are NTP 32.32 fixed
point counted from 1900; this module converts them to Unix seconds. Era rule (RFC 4330 §3):
a seconds field whose top bit is clear belongs to the era that starts in 2036.

On the wire:
  t1  client transmit (our clock)      t2  server receive (server clock)
  t3  server transmit (server clock)   t4  client receive (our clock)
  offset theta = ((t2 - t1) + (t3 - t4)) / 2   server clock minus ours
  delay  delta = (t4 - t1) - (t3 - t2)         round trip minus the server's hold time
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Sequence
from dataclasses import dataclass

NTP_UNIX_EPOCH_DELTA = 2_208_988_800  # seconds from 1900-01-01 to 1970-01-01
_ERA_SECONDS = 1 << 32
_FRACTION = float(1 << 32)
PACKET_SIZE = 48
_HEADER = struct.Struct("!BBbbII4s")  # LI/VN/mode, stratum, poll, precision, delay, disp, refid
CLIENT_MODE = 3
SERVER_MODE = 4
VERSION = 4


class Leap(enum.IntEnum):
    NONE = 0
    INSERT_SECOND = 1  # the last minute of the current UTC day has 61 seconds
    DELETE_SECOND = 2  # ... has 59 seconds
    UNSYNCHRONISED = 3  # the server's clock is not synchronised (alarm)


class SntpError(ValueError):
    """A reply that must not be used. `kind` is a bounded label value."""

    kind = "bad_reply"


class SntpMalformed(SntpError):
    kind = "malformed"


class SntpBogus(SntpError):
    """Not an answer to our request (stale, duplicate or spoofed)."""

    kind = "bogus"


class SntpKissOfDeath(SntpError):
    """Stratum 0: the server refuses service; `code` says why (RATE, DENY, RSTR, ...)."""

    kind = "kiss_of_death"

    def __init__(self, code: str) -> None:
        self.code = code
        super().__init__(f"kiss-o'-death {code}")

    @property
    def stop_querying(self) -> bool:
        """DENY and RSTR ask clients to stop; RATE asks them to slow down."""
        return self.code in ("DENY", "RSTR")


class SntpUnsynchronised(SntpError):
    """The server says its own clock is not synchronised (LI = 3, or no reference time)."""

    kind = "server_unsynchronised"


@dataclass(frozen=True, slots=True)
class NtpReply:
    leap: Leap
    version: int
    stratum: int
    poll: int
    precision_seconds: float
    root_delay_seconds: float
    root_dispersion_seconds: float
    reference_id: str  # dotted IPv4 / hash for stratum >= 2, ASCII code for stratum 1
    reference_time_unix: float
    originate_time_unix: float
    receive_time_unix: float  # t2
    transmit_time_unix: float  # t3


@dataclass(frozen=True, slots=True)
class SntpSample:
    """One exchange: offset (server minus local, RFC sign) and round-trip delay."""

    server_minus_local_seconds: float
    delay_seconds: float
    reply: NtpReply

    @property
    def local_minus_server_seconds(self) -> float:
        """The clock's error as rankwatch reports it: positive when this clock is ahead."""
        return -self.server_minus_local_seconds

    @property
    def uncertainty_seconds(self) -> float:
        """Half the round trip plus what the server itself is unsure of (RFC 5905 root distance)."""
        return (
            max(self.delay_seconds, 0.0) / 2
            + self.reply.root_delay_seconds / 2
            + self.reply.root_dispersion_seconds
        )


def unix_to_ntp(unix_seconds: float) -> tuple[int, int]:
    """(seconds, fraction) of an NTP timestamp, seconds modulo the 2^32 era."""
    ntp = unix_seconds + NTP_UNIX_EPOCH_DELTA
    seconds = int(ntp // 1)
    fraction = int((ntp - seconds) * _FRACTION)
    return seconds % _ERA_SECONDS, min(fraction, (1 << 32) - 1)


def ntp_to_unix(seconds: int, fraction: int) -> float:
    # Era 1 (from 2036-02-07) is recognised by a clear top bit (RFC 4330 §3).
    era_offset = _ERA_SECONDS if seconds < 0x8000_0000 else 0
    return seconds + era_offset - NTP_UNIX_EPOCH_DELTA + fraction / _FRACTION


def build_request(transmit_unix: float, nonce: int) -> bytes:
    """A 48-byte client request carrying t1 whose low 24 fraction bits are `nonce`.

    The random low bits make the originate echo unguessable; the precise t1 stays with the caller.
    """
    seconds, fraction = unix_to_ntp(transmit_unix)
    fraction = (fraction & 0xFF00_0000) | (nonce & 0x00FF_FFFF)
    first = (Leap.NONE << 6) | (VERSION << 3) | CLIENT_MODE
    return (
        _HEADER.pack(first, 0, 0, 0, 0, 0, b"\0\0\0\0")
        + bytes(24)
        + struct.pack("!II", seconds, fraction)
    )


def transmit_field(request: bytes) -> bytes:
    """The 8 transmit-timestamp bytes of a request: the reply must echo them as originate."""
    return request[40:48]


def parse_reply(data: bytes, request: bytes) -> NtpReply:
    """Decode and check a server reply to `request`; raise an SntpError when unusable."""
    if len(data) < PACKET_SIZE:
        raise SntpMalformed(f"reply is {len(data)} bytes, expected at least {PACKET_SIZE}")
    first, stratum, poll, precision, delay, dispersion, refid = _HEADER.unpack_from(data, 0)
    leap, version, mode = first >> 6, (first >> 3) & 0x7, first & 0x7
    if mode != SERVER_MODE:
        raise SntpMalformed(f"reply mode {mode}, expected {SERVER_MODE}")
    if not 1 <= version <= 4:
        raise SntpMalformed(f"reply version {version}")
    if data[24:32] != transmit_field(request):
        raise SntpBogus("originate timestamp does not echo our transmit timestamp")
    if stratum == 0:
        raise SntpKissOfDeath(_ascii_code(refid))
    if leap == Leap.UNSYNCHRONISED:
        raise SntpUnsynchronised("server reports leap indicator 3 (not synchronised)")
    stamps = struct.unpack_from("!8I", data, 16)
    if stamps[6] == 0 and stamps[7] == 0:
        raise SntpMalformed("reply has no transmit timestamp")
    if stamps[0] == 0 and stamps[1] == 0:
        raise SntpUnsynchronised("server has never been synchronised (no reference time)")
    return NtpReply(
        leap=Leap(leap),
        version=version,
        stratum=stratum,
        poll=poll,
        precision_seconds=2.0**precision,
        root_delay_seconds=_short_format(delay),
        root_dispersion_seconds=_short_format(dispersion),
        reference_id=_reference_id(stratum, refid),
        reference_time_unix=ntp_to_unix(stamps[0], stamps[1]),
        originate_time_unix=ntp_to_unix(stamps[2], stamps[3]),
        receive_time_unix=ntp_to_unix(stamps[4], stamps[5]),
        transmit_time_unix=ntp_to_unix(stamps[6], stamps[7]),
    )


def sample_from_exchange(t1_unix: float, t4_unix: float, reply: NtpReply) -> SntpSample:
    """Offset and delay from our send/receive times and the server's receive/transmit times."""
    t2, t3 = reply.receive_time_unix, reply.transmit_time_unix
    offset = ((t2 - t1_unix) + (t3 - t4_unix)) / 2
    delay = (t4_unix - t1_unix) - (t3 - t2)
    return SntpSample(offset, delay, reply)


def best_sample(samples: Sequence[SntpSample]) -> SntpSample:
    """The minimum-delay sample: the one least distorted by queueing (RFC 5905 clock filter)."""
    if not samples:
        raise ValueError("no samples")
    return min(samples, key=lambda s: s.delay_seconds)


def _short_format(value: int) -> float:
    return value / 65536.0  # NTP short format: 16.16 fixed point seconds


def _ascii_code(refid: bytes) -> str:
    return refid.rstrip(b"\0").decode("ascii", errors="replace") or "????"


def _reference_id(stratum: int, refid: bytes) -> str:
    if stratum == 1:
        return _ascii_code(refid)  # a reference clock's name, e.g. GPS, PPS
    return ".".join(str(b) for b in refid)
