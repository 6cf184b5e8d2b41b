"""Parser for `chronyc -c tracking`: one CSV line describing chronyd's view of the system clock.

Field order (chronyc's tracking report): reference id (hex), reference name or address, stratum,
reference time (Unix seconds), system time, last offset, RMS offset, frequency, residual
frequency, skew, root delay, root dispersion, update interval, leap status.

Signs follow chronyc's wording, which is easy to get backwards:
  * system time > 0 means the system clock is *slow* of NTP time ("... seconds slow"), so the
    clock's error (local minus true) is -system_time;
  * frequency > 0 means the clock runs slow ("ppm slow").
The error bound is chronyc's own: |system time| + root delay / 2 + root dispersion.
"""

from __future__ import annotations

from dataclasses import dataclass

NOT_SYNCHRONISED = "Not synchronised"
UNSET_REFERENCE_ID = "00000000"
LEAP_STATUSES = ("Normal", "Insert second", "Delete second", NOT_SYNCHRONISED)
_FIELD_COUNT = 14


class ChronyParseError(ValueError):
    """The text is not a `chronyc -c tracking` report."""


@dataclass(frozen=True, slots=True)
class ChronyTracking:
    reference_id: str
    reference_name: str
    stratum: int
    reference_time_unix: float
    system_time_seconds: float  # chrony's sign: positive = local clock slow of NTP time
    last_offset_seconds: float
    rms_offset_seconds: float
    frequency_ppm: float  # chrony's sign: positive = local clock runs slow
    residual_frequency_ppm: float
    skew_ppm: float
    root_delay_seconds: float
    root_dispersion_seconds: float
    update_interval_seconds: float
    leap_status: str

    @property
    def synchronised(self) -> bool:
        """chronyd has selected a reference and trusts its estimate."""
        return self.leap_status != NOT_SYNCHRONISED and self.reference_id != UNSET_REFERENCE_ID

    @property
    def offset_seconds(self) -> float:
        """Local clock minus reference time: positive when this clock is ahead."""
        return -self.system_time_seconds

    @property
    def error_bound_seconds(self) -> float:
        """Largest |local clock - true time| consistent with chronyd's estimate."""
        return (
            abs(self.system_time_seconds)
            + self.root_delay_seconds / 2
            + self.root_dispersion_seconds
        )

    @property
    def leap_pending(self) -> bool:
        return self.leap_status in ("Insert second", "Delete second")


def parse_tracking(text: str) -> ChronyTracking:
    """Parse the first non-empty line of `chronyc -c tracking` output."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if not line:
        raise ChronyParseError("empty chronyc output")
    fields = line.split(",")
    if len(fields) < _FIELD_COUNT:
        raise ChronyParseError(f"expected {_FIELD_COUNT} CSV fields, got {len(fields)}: {line!r}")
    # The name sits between fixed-width ends; rejoin it in case it ever carries a comma.
    head, tail = fields[0], fields[-12:]
    name = ",".join(fields[1:-12])
    leap = tail[11]
    if leap not in LEAP_STATUSES:
        raise ChronyParseError(f"unknown leap status {leap!r}")
    if not _is_hex(head):
        raise ChronyParseError(f"reference id is not hex: {head!r}")
    try:
        stratum = int(tail[0])
        numbers = [float(value) for value in tail[1:11]]
    except ValueError as exc:
        raise ChronyParseError(f"bad number in {line!r}: {exc}") from None
    return ChronyTracking(
        reference_id=head.upper(),
        reference_name=name,
        stratum=stratum,
        reference_time_unix=numbers[0],
        system_time_seconds=numbers[1],
        last_offset_seconds=numbers[2],
        rms_offset_seconds=numbers[3],
        frequency_ppm=numbers[4],
        residual_frequency_ppm=numbers[5],
        skew_ppm=numbers[6],
        root_delay_seconds=numbers[7],
        root_dispersion_seconds=numbers[8],
        update_interval_seconds=numbers[9],
        leap_status=leap,
    )


def _is_hex(text: str) -> bool:
    return bool(text) and all(c in "0123456789abcdefABCDEF" for c in text)
