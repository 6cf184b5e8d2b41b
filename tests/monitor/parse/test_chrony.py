"""`chronyc -c tracking` parsing, over real captures from chronyd 4.3 (tests/data/chrony/)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from monitor.parse.chrony import ChronyParseError, parse_tracking

DATA = Path(__file__).resolve().parents[2] / "data" / "chrony"
CAPTURES = sorted(p.stem for p in DATA.glob("*.csv"))


def capture(name: str) -> str:
    return (DATA / f"{name}.csv").read_text()


def human_system_time(name: str) -> tuple[float, str]:
    """(seconds, 'fast'|'slow') from the human-readable report captured alongside."""
    text = (DATA / f"{name}.txt").read_text()
    match = re.search(r"System time\s*:\s*([0-9.]+) seconds (fast|slow) of NTP time", text)
    assert match, text
    return float(match.group(1)), match.group(2)


def test_all_captures_are_present() -> None:
    """The capture set covers synchronised, unsynchronised, server and both offset signs."""
    assert set(CAPTURES) >= {
        "client-synchronised",
        "client-not-synchronised",
        "server-local-stratum",
        "client-server-ahead",
        "client-server-behind",
    }


def test_synchronised_client_fields() -> None:
    """A client tracking the loopback server: every field lands in its typed slot."""
    t = parse_tracking(capture("client-synchronised"))
    assert t.reference_id == "7F000001"
    assert t.reference_name == "127.0.0.1"
    assert t.stratum == 9
    assert t.reference_time_unix > 1.7e9
    assert t.leap_status == "Normal"
    assert t.synchronised
    assert abs(t.system_time_seconds) < 1e-3
    assert 0 < t.root_delay_seconds < 1e-3
    assert t.update_interval_seconds == pytest.approx(0.3)


def test_not_synchronised_capture() -> None:
    """A client without a reachable server reports "Not synchronised": no offset can be trusted."""
    t = parse_tracking(capture("client-not-synchronised"))
    assert t.leap_status == "Not synchronised"
    assert t.reference_id == "00000000"
    assert t.reference_name == ""
    assert t.stratum == 0
    assert not t.synchronised
    assert t.root_dispersion_seconds == 1.0


def test_local_stratum_server_is_synchronised() -> None:
    """A server on `local stratum` has a local reference id and counts as synchronised."""
    t = parse_tracking(capture("server-local-stratum"))
    assert t.reference_id == "7F7F0101"
    assert t.stratum == 8
    assert t.synchronised


@pytest.mark.parametrize(
    "name", ["client-server-ahead", "client-server-behind", "client-synchronised"]
)
def test_offset_sign_matches_chronyc_wording(name: str) -> None:
    """chronyc says 'slow' when system time is positive: rankwatch's offset is then negative."""
    t = parse_tracking(capture(name))
    size, word = human_system_time(name)
    assert abs(t.system_time_seconds) == pytest.approx(size, abs=50e-6)
    if size > 1e-3:
        expected_sign = -1 if word == "slow" else 1
        assert t.offset_seconds * expected_sign > 0


def test_server_ahead_means_local_clock_behind() -> None:
    """With the server 0.125 s ahead, this clock is 0.125 s behind: offset -0.125 s."""
    t = parse_tracking(capture("client-server-ahead"))
    assert t.offset_seconds == pytest.approx(-0.125, abs=2e-3)
    behind = parse_tracking(capture("client-server-behind"))
    assert behind.offset_seconds == pytest.approx(0.125, abs=2e-3)


def test_error_bound_is_offset_plus_half_root_delay_plus_dispersion() -> None:
    """The error bound adds |system time|, half the root delay and the root dispersion."""
    t = parse_tracking(capture("client-server-behind"))
    expected = abs(t.system_time_seconds) + t.root_delay_seconds / 2 + t.root_dispersion_seconds
    assert t.error_bound_seconds == pytest.approx(expected)
    assert t.error_bound_seconds > 0.25


def test_reference_name_with_comma_is_kept_whole() -> None:
    """Fields are taken from both ends, so a name containing a comma cannot shift them."""
    line = "C0A80001,odd,name,3,1795216659.0,0.5,0,0,1.5,0,0,0.01,0.002,64.0,Insert second"
    t = parse_tracking(line)
    assert t.reference_name == "odd,name"
    assert t.stratum == 3
    assert t.offset_seconds == -0.5
    assert t.frequency_ppm == 1.5
    assert t.leap_pending


@pytest.mark.parametrize(
    "text",
    [
        "",
        "506 Cannot talk to daemon",
        "7F000001,127.0.0.1,9,1,2,3",
        "7F000001,127.0.0.1,x,1,2,3,4,5,6,7,8,9,10,Normal",
        "7F000001,127.0.0.1,9,1,2,3,4,5,6,7,8,9,10,Sideways",
        "ZZZ,127.0.0.1,9,1,2,3,4,5,6,7,8,9,10,Normal",
    ],
)
def test_malformed_output_raises(text: str) -> None:
    """Anything that is not a full tracking line is rejected with ChronyParseError."""
    with pytest.raises(ChronyParseError):
        parse_tracking(text)
