"""Interpretation of adjtimex(2) results."""

from __future__ import annotations

import pytest

from monitor.parse.timex import STA_NANO, STA_UNSYNC, interpret_timex


def test_unsynchronised_kernel() -> None:
    """STA_UNSYNC with TIME_ERROR (no time daemon): unsynchronised, 16 s maximum error."""
    k = interpret_timex(5, STA_UNSYNC, 16_000_000, 16_000_000, 0, 0)
    assert not k.synchronised
    assert k.state == "error"
    assert k.max_error_seconds == 16.0


def test_synchronised_kernel_with_leap_pending() -> None:
    """STA_UNSYNC clear and TIME_INS: synchronised, with a leap second pending."""
    k = interpret_timex(1, 0x0001 | 0x0010, 1500, 20, 12, 65536 * 3)
    assert k.synchronised
    assert k.leap_pending
    assert k.max_error_seconds == pytest.approx(0.0015)
    assert k.offset_seconds == pytest.approx(12e-6)
    assert k.frequency_ppm == 3.0


def test_time_error_alone_is_unsynchronised() -> None:
    """TIME_ERROR makes the clock unsynchronised even with STA_UNSYNC clear."""
    assert not interpret_timex(5, 0, 0, 0, 0, 0).synchronised


def test_nanosecond_offsets() -> None:
    """With STA_NANO the offset field counts nanoseconds."""
    assert interpret_timex(0, STA_NANO, 0, 0, 1500, 0).offset_seconds == pytest.approx(1.5e-6)
