"""Clock probes against real time sources: a loopback chronyd server and a chronyd client."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from monitor.errors import SettingsError, SourceError
from monitor.parse.sntp import SntpKissOfDeath
from monitor.parse.time_sync_model import (
    ClockMeasurement,
    ClockReading,
    ClockReferenceFailure,
    KernelClockStatus,
)
from monitor.settings import ClockSettings
from monitor.sources.time_sync_probe import (
    ClockRead,
    ClockReferenceProbe,
    KernelClockReader,
    LocalClockProbe,
    ServerBackoff,
    parse_server,
    read_clocks,
)
from tests.chrony_support import Chronyd, start_client, start_server


@pytest.fixture(scope="module")
def ntp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chronyd]:
    server = start_server(tmp_path_factory.mktemp("chrony-server"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def chrony_client(
    tmp_path_factory: pytest.TempPathFactory, ntp_server: Chronyd
) -> Iterator[Chronyd]:
    client = start_client(tmp_path_factory.mktemp("chrony-client"), ntp_server.ntp_port)
    yield client
    client.stop()


def settings(**overrides: object) -> ClockSettings:
    base: dict[str, object] = {
        "chronyc": "",
        "sntp_sample_gap_seconds": 0.02,
        "sntp_timeout_seconds": 1.0,
    }
    base.update(overrides)
    return ClockSettings(**base)  # type: ignore[arg-type]


def only(observations: object, kind: type) -> list:  # type: ignore[type-arg]
    return [o for o in observations if isinstance(o, kind)]  # type: ignore[attr-defined]


# -- SNTP -----------------------------------------------------------------------------


def test_sntp_against_loopback_chronyd_is_near_zero(ntp_server: Chronyd) -> None:
    """SNTP against a real chronyd serving this host's clock: offset within 5 ms, tiny delay."""
    label = f"127.0.0.1:{ntp_server.ntp_port}"
    probe = ClockReferenceProbe(settings(ntp_servers=(label,)))
    (m,) = only(probe.poll(time.monotonic()), ClockMeasurement)
    assert m.reference == label and m.method == "sntp"
    assert m.offset_seconds is not None and abs(m.offset_seconds) < 0.005
    assert m.delay_seconds is not None and 0 <= m.delay_seconds < 0.05
    assert m.stratum == 8
    assert m.synchronised and not m.leap_pending
    assert m.error_bound_seconds is not None and m.error_bound_seconds < 0.05


def test_unanswered_server_is_reported_beside_a_good_one(ntp_server: Chronyd) -> None:
    """A dead server is a ClockReferenceFailure; the good one still gives a measurement."""
    dead = f"127.0.0.1:{ntp_server.ntp_port + 1 if ntp_server.ntp_port < 65535 else 1}"
    probe = ClockReferenceProbe(
        settings(ntp_servers=(f"127.0.0.1:{ntp_server.ntp_port}", dead), sntp_timeout_seconds=0.3)
    )
    out = probe.poll(time.monotonic())
    assert len(only(out, ClockMeasurement)) == 1
    (failure,) = only(out, ClockReferenceFailure)
    assert failure.reference == dead
    assert failure.error_type in ("refused", "timeout")


def test_all_servers_unreachable_is_a_source_error() -> None:
    """When every configured server fails the source is blind: SourceError 'unreachable'."""
    probe = ClockReferenceProbe(settings(ntp_servers=("127.0.0.1:9",), sntp_timeout_seconds=0.2))
    with pytest.raises(SourceError) as info:
        probe.poll(time.monotonic())
    assert info.value.error_type == "unreachable"
    assert "127.0.0.1:9" in str(info.value)


def test_unresolvable_server_is_a_failure() -> None:
    """A server name that does not resolve is reported, not raised past the source."""
    probe = ClockReferenceProbe(settings(ntp_servers=("no-such-host.invalid:123",)))
    with pytest.raises(SourceError) as info:
        probe.poll(time.monotonic())
    assert "no-such-host.invalid" in str(info.value)


def test_no_reference_configured_is_blind() -> None:
    """No chronyd and no ntp_servers: SourceError 'no_reference', so health shows UNKNOWN."""
    for chronyc in ("", "chronyc-does-not-exist"):
        probe = ClockReferenceProbe(settings(chronyc=chronyc))
        with pytest.raises(SourceError) as info:
            probe.poll(time.monotonic())
        assert info.value.error_type == "no_reference"
        assert "ntp_servers" in str(info.value)


# -- chronyd --------------------------------------------------------------------------


def test_chronyc_tracking_from_a_real_client(chrony_client: Chronyd) -> None:
    """With chronyc pointed at a synchronised chronyd, its estimate is a measurement near zero."""
    probe = ClockReferenceProbe(
        settings(chronyc="chronyc", chronyc_host=str(chrony_client.command_socket))
    )
    (m,) = only(probe.poll(time.monotonic()), ClockMeasurement)
    assert m.method == "chrony" and m.reference == "chrony"
    assert m.synchronised
    assert m.offset_seconds is not None and abs(m.offset_seconds) < 0.005
    assert m.detail == "127.0.0.1"
    assert m.stratum == 9


def test_chronyd_not_synchronised(tmp_path: Path) -> None:
    """A chronyd with no reachable server answers, but unsynchronised and without an offset."""
    lonely = start_client(tmp_path, server_port=9, wait_synchronised=False)
    try:
        probe = ClockReferenceProbe(
            settings(chronyc="chronyc", chronyc_host=str(lonely.command_socket))
        )
        (m,) = only(probe.poll(time.monotonic()), ClockMeasurement)
    finally:
        lonely.stop()
    assert not m.synchronised
    assert m.offset_seconds is None and m.error_bound_seconds is None


def test_configured_chronyd_that_is_gone_is_a_failure(tmp_path: Path) -> None:
    """An explicitly configured chronyd socket that does not answer is a reference failure."""
    probe = ClockReferenceProbe(
        settings(chronyc="chronyc", chronyc_host=str(tmp_path / "nothing.sock"))
    )
    with pytest.raises(SourceError) as info:
        probe.poll(time.monotonic())
    assert info.value.error_type == "unreachable"
    assert "chrony" in str(info.value)


# -- configuration and backoff --------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("ntp1", ("ntp1", 123)),
        ("ntp1:11123", ("ntp1", 11123)),
        ("10.0.0.1", ("10.0.0.1", 123)),
        ("[::1]:1123", ("::1", 1123)),
        ("[::1]", ("::1", 123)),
        ("fe80::1", ("fe80::1", 123)),
    ],
)
def test_server_specs(spec: str, expected: tuple[str, int]) -> None:
    """host[:port] with the NTP port as default; IPv6 in brackets when a port is given."""
    assert parse_server(spec) == expected


def test_bad_server_specs_are_settings_errors() -> None:
    """Every bad server entry is reported at construction, together."""
    with pytest.raises(SettingsError) as info:
        ClockReferenceProbe(settings(ntp_servers=("ntp1:0", ":123", "[::1", "ok:123")))
    assert len(info.value.problems) == 3


def test_kiss_of_death_backoff() -> None:
    """RATE skips a doubling number of rounds; DENY leaves the server alone for an hour."""
    backoff = ServerBackoff()
    backoff.kiss_of_death(SntpKissOfDeath("RATE"), 0.0)
    assert [backoff.should_query(0.0) for _ in range(2)] == [False, True]
    backoff.kiss_of_death(SntpKissOfDeath("RATE"), 0.0)
    assert [backoff.should_query(0.0) for _ in range(3)] == [False, False, True]
    backoff.answered()
    backoff.kiss_of_death(SntpKissOfDeath("RATE"), 0.0)
    assert [backoff.should_query(0.0) for _ in range(2)] == [False, True]
    backoff.kiss_of_death(SntpKissOfDeath("DENY"), 100.0)
    assert not backoff.should_query(100.0 + 3599)
    assert backoff.should_query(100.0 + 3601)


# -- local clocks ---------------------------------------------------------------------


def test_local_probe_readings_agree_when_nothing_steps() -> None:
    """On an undisturbed machine the wall and monotonic deltas agree to well under a step."""
    probe = LocalClockProbe(settings(kernel_status=False))
    first = only(probe.poll(0.0), ClockReading)
    assert first[0].first
    time.sleep(0.2)
    (second,) = only(probe.poll(0.0), ClockReading)
    assert not second.first
    assert second.monotonic_delta_seconds == pytest.approx(0.2, abs=0.15)
    assert abs(second.wall_delta_seconds - second.monotonic_delta_seconds) < 0.01
    assert abs(second.adjusted_delta_seconds - second.raw_delta_seconds) < 0.001


def test_local_probe_sees_a_step_from_its_reader() -> None:
    """Deltas are differences of successive reads: a wall jump shows in wall_delta only."""
    reads = iter([ClockRead(1000.0, 5.0, 5.0, 5.0, 1e-6), ClockRead(998.5, 6.0, 6.0, 6.0, 1e-6)])
    probe = LocalClockProbe(settings(kernel_status=False), reader=lambda: next(reads))
    probe.poll(0.0)
    (reading,) = only(probe.poll(0.0), ClockReading)
    assert reading.wall_delta_seconds == pytest.approx(-1.5)
    assert reading.monotonic_delta_seconds == pytest.approx(1.0)


def test_paired_reads_are_tight() -> None:
    """The bracketed clock reads are microseconds apart (retrying preempted reads)."""
    assert read_clocks().uncertainty < 0.001


def test_kernel_status_is_read_and_sent_on_change_or_interval() -> None:
    """adjtimex gives the kernel's view; it is sent first, then only per offset interval."""
    kernel = KernelClockReader()
    status = kernel.read()
    assert status is not None, kernel.unavailable_reason
    assert status.max_error_seconds >= 0
    probe = LocalClockProbe(settings(offset_interval_seconds=1.0), kernel=kernel)
    assert len(only(probe.poll(0.0), KernelClockStatus)) == 1
    assert only(probe.poll(0.0), KernelClockStatus) == []
    time.sleep(1.05)
    assert len(only(probe.poll(0.0), KernelClockStatus)) == 1
