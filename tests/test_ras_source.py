"""The RAS source: who polls and when (pure policy tables), then the polled source against the
fake server (phase offset, settling, version skips, address discovery, errors, metrics)."""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import replace
from typing import Any

import pytest

from monitor.errors import SourceError
from monitor.model import SourceFault
from monitor.parse.ras_model import RasPollingOff, RasSnapshot
from monitor.settings import RasSettings, load_settings
from monitor.sources.nccl_ras import (
    NcclRasSource,
    choose_address,
    local_addresses,
    next_interval,
    parse_addr,
    polling_plan,
    version_skipped,
)
from tests.fake_ras import Event, FakeRasServer, JobShape, Misbehaviour, scenario

QUICK = RasSettings(
    interval_seconds=10.0,
    settle_seconds=0.0,
    handshake_timeout_seconds=0.4,
    connect_timeout_seconds=1.0,
    reply_timeout_seconds=3.0,
    skip_versions=(),
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def fake(version: str = "2.29.7", delay: float = 0.005, **kwargs: Any) -> FakeRasServer:
    shape = JobShape(version=version, collection_delay_seconds=delay)
    return FakeRasServer(scenario(kwargs.pop("event", Event.NONE), shape=shape), **kwargs)


def snapshots(observations: Any) -> list[RasSnapshot]:
    return [o for o in observations if isinstance(o, RasSnapshot)]


# ----------------------------------------------------------------------------------------------
# Pure policy.


@pytest.mark.parametrize(
    ("node_index", "overrides", "polls", "role", "offset"),
    [
        (None, {}, True, "primary", 0.0),  # wrap mode on one node: the primary
        (0, {}, True, "primary", 0.0),
        (1, {}, True, "backup", 5.0),  # half an interval later
        (2, {}, False, "off", 0.0),
        (7, {}, False, "off", 0.0),
        (0, {"poll_nodes": 0}, False, "off", 0.0),
        (0, {"enabled": False}, False, "off", 0.0),
        (2, {"poll_nodes": 4}, True, "extra", 5.0),
        (1, {"interval_seconds": 30.0}, True, "backup", 15.0),
    ],
)
def test_polling_plan(
    node_index: int | None, overrides: dict[str, Any], polls: bool, role: str, offset: float
) -> None:
    """Only nodes below poll_nodes poll, node 0 first, the others offset across the interval."""
    plan = polling_plan(node_index, replace(RasSettings(), **overrides))
    assert (plan.polls, plan.role, plan.phase_offset_seconds) == (polls, role, offset)


def test_polling_plan_never_faster_than_five_seconds() -> None:
    """An interval below 5 s (possible only by building settings in code) is raised to 5 s."""
    assert polling_plan(0, replace(RasSettings(), interval_seconds=1.0)).interval_seconds == 5.0
    with pytest.raises(Exception, match=r"ras\.interval_seconds must be >= 5"):
        load_settings(env={}, overrides={"ras.interval_seconds": 1.0})


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"last_duration_seconds": 0.01}, 10.0),  # fast reply: the base
        ({"last_duration_seconds": 2.0}, 20.0),  # 2 s reply x factor 10
        ({"last_duration_seconds": 30.0}, 60.0),  # capped
        ({"last_duration_seconds": None, "consecutive_timeouts": 1}, 20.0),
        ({"last_duration_seconds": None, "consecutive_timeouts": 3}, 60.0),
        ({"last_duration_seconds": 0.01, "initialising": True}, 20.0),
    ],
)
def test_interval_stretches_under_strain(kwargs: dict[str, Any], expected: float) -> None:
    """Slow replies, timeouts and initialising communicators stretch the interval, up to a cap."""
    assert next_interval(10.0, max_seconds=60.0, slow_reply_factor=10.0, **kwargs) == expected


def test_interval_floor_and_cap() -> None:
    """Never below 5 s; a base above the cap wins over the cap."""
    assert next_interval(1.0, max_seconds=60.0, slow_reply_factor=10.0,
                         last_duration_seconds=None) == 5.0
    assert next_interval(120.0, max_seconds=60.0, slow_reply_factor=10.0,
                         last_duration_seconds=30.0) == 120.0


@pytest.mark.parametrize(
    ("version", "patterns", "expected"),
    [
        ("2.26.2", ("2.24", "2.25", "2.26"), "2.26"),
        ("2.26.6", ("2.24", "2.25", "2.26"), "2.26"),
        ("2.27.3", ("2.24", "2.25", "2.26"), None),
        ("2.28.9", ("2.28.9",), "2.28.9"),
        ("2.28.7", ("2.28.9",), None),
        ("2.26.2", ("2.2",), None),  # components, not characters
        ("2.27.3a0", ("2.27.3",), "2.27.3"),
        ("2.29.7", ("bogus", "2.x"), None),
    ],
)
def test_version_skip_patterns(
    version: str, patterns: tuple[str, ...], expected: str | None
) -> None:
    """Skip patterns match whole leading version components."""
    assert version_skipped(version, patterns) == expected


def test_default_skip_list_covers_the_versions_that_crashed_under_polling() -> None:
    """By default 2.24-2.26 are not polled (init-time query crashes #1669/#1718, fixed 2.27.3)."""
    defaults = RasSettings().skip_versions
    assert version_skipped("2.24.3", defaults) and version_skipped("2.26.5", defaults)
    assert version_skipped("2.27.3", defaults) is None
    assert version_skipped("2.29.7", defaults) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("localhost:28028", ("localhost", 28028)),
        ("10.1.2.3:12345", ("10.1.2.3", 12345)),
        ("[::1]:28029", ("::1", 28029)),
        ("myhost", ("myhost", 28028)),
        ("::1", ("::1", 28028)),
        (":5000", ("localhost", 5000)),
    ],
)
def test_parse_addr(text: str, expected: tuple[str, int]) -> None:
    """NCCL_RAS_ADDR forms: host:port, [v6]:port, and a bare host."""
    assert parse_addr(text) == expected


@pytest.mark.parametrize("text", ["", "host:port", "[::1:5", "host:70000"])
def test_parse_addr_rejects_nonsense(text: str) -> None:
    """An address that cannot be used is a ValueError, not a silent default."""
    with pytest.raises(ValueError):
        parse_addr(text)


def test_address_precedence() -> None:
    """ras.addr wins; else the ranks' most common NCCL_RAS_ADDR; else localhost:28028."""
    envs = [{"NCCL_RAS_ADDR": "localhost:1001"}, {"NCCL_RAS_ADDR": "localhost:1002"},
            {"NCCL_RAS_ADDR": "localhost:1002"}, {"PATH": "/bin"}]
    assert choose_address("10.0.0.1:9", envs) == ("10.0.0.1", 9, "ras.addr")
    assert choose_address("", envs) == ("localhost", 1002, "NCCL_RAS_ADDR")
    assert choose_address("", [{}]) == ("localhost", 28028, "default")


def test_local_addresses_include_loopback() -> None:
    """This node's addresses (to pick its ranks out of RAS reports) include 127.0.0.1."""
    assert "127.0.0.1" in local_addresses()


# ----------------------------------------------------------------------------------------------
# The polled source against the fake server.


def source_for(srv: FakeRasServer, settings: RasSettings = QUICK, **kwargs: Any) -> NcclRasSource:
    return NcclRasSource(replace(settings, addr=srv.address), **kwargs)


def test_primary_polls_at_once_and_emits_a_snapshot() -> None:
    """Node 0 queries on its first poll; the snapshot carries the report and the exchange facts."""
    with fake() as srv:
        source = source_for(srv)
        (snap,) = snapshots(source.poll(100.0))
    assert snap.at == 100.0 and not snap.partial
    assert snap.report.nccl_version == "2.29.7"
    assert snap.reply_bytes > 1000 and snap.address == srv.address
    assert source.interval_seconds == 10.0


def test_backup_waits_half_an_interval_first() -> None:
    """Node 1's first poll only schedules; it queries half an interval later."""
    with fake() as srv:
        source = source_for(srv, node_index=1)
        assert source.poll(100.0) == []
        assert source.interval_seconds == 5.0 and srv.stats.connections == 0
        assert snapshots(source.poll(105.0))


def test_settle_period_after_the_port_appears() -> None:
    """The first contact is a handshake only; STATUS waits `settle_seconds` (init crashes)."""
    with fake() as srv:
        source = source_for(srv, replace(QUICK, settle_seconds=30.0))
        assert source.poll(100.0) == []
        assert srv.stats.commands == ["CLIENT PROTOCOL 2"]
        assert source.interval_seconds == 30.0
        assert source.poll(110.0) == [] and srv.stats.status_queries == 0
        assert snapshots(source.poll(130.0)) and srv.stats.status_queries == 1


def test_skipped_version_is_queried_once_then_never_again() -> None:
    """The first report reveals NCCL 2.26.2, listed in skip_versions: no further queries, and
    the source is down (its concern UNKNOWN) with the reason."""
    with fake("2.26.2") as srv:
        source = source_for(srv, replace(QUICK, skip_versions=("2.26",)))
        assert snapshots(source.poll(100.0))
        with pytest.raises(SourceError) as info:
            source.poll(110.0)
        assert info.value.error_type == "version_skipped" and "2.26.2" in str(info.value)
        assert srv.stats.connections == 1


def test_version_hint_skips_without_any_query() -> None:
    """A version known beforehand (e.g. from NCCL's log banner) prevents even the first query."""
    with fake("2.26.2") as srv:
        source = source_for(srv, replace(QUICK, skip_versions=("2.26",)),
                            version_hint=lambda: "2.26.2")
        with pytest.raises(SourceError):
            source.poll(100.0)
        assert srv.stats.connections == 0


def test_refused_port_raises_and_reports_down() -> None:
    """Nothing listening: SourceError, `ras_up` 0, the failure counted by result."""
    source = NcclRasSource(replace(QUICK, addr=f"127.0.0.1:{free_port()}"))
    with pytest.raises(SourceError) as info:
        source.poll(100.0)
    assert info.value.error_type == "refused"
    families = {f.name: f for f in source.metric_families()}
    assert families["ras_up"].samples == (((), 0.0),)
    assert families["ras_polls"].samples == ((("refused",), 1.0),)


def test_non_polling_node_says_so_once_and_stays_quiet() -> None:
    """Node 5 never connects; it announces why once and then sleeps long."""
    with fake() as srv:
        source = source_for(srv, node_index=5)
        (off,) = source.poll(100.0)
        assert isinstance(off, RasPollingOff) and "ras.poll_nodes" in off.reason
        assert source.poll(200.0) == [] and source.interval_seconds == 3600.0
        assert srv.stats.connections == 0
    families = {f.name: f for f in source.metric_families()}
    assert families["ras_polling"].samples == ((("off",), 0.0),)
    assert "ras_up" not in families


@pytest.mark.parametrize(
    ("version", "second"), [("2.28.9", "STATUS"), ("2.29.7", "VERBOSE STATUS")]
)
def test_verbose_only_where_it_is_safe(version: str, second: str) -> None:
    """VERBOSE STATUS is sent only once the server is known to be 2.29.2+ (#1762)."""
    with fake(version) as srv:
        source = source_for(srv, replace(QUICK, verbose=True, prefer_json=False))
        source.poll(100.0)
        source.poll(110.0)
        queries = [c for c in srv.stats.commands if c.endswith("STATUS")]
    assert queries == ["STATUS", second]


def test_address_from_the_ranks_environment_over_ipv6() -> None:
    """With no ras.addr, NCCL_RAS_ADDR found in a rank's environment is used ([::1]:port)."""
    with fake(host="::1") as srv:
        environments = [{"NCCL_RAS_ADDR": f"[::1]:{srv.port}"}]
        source = NcclRasSource(QUICK, rank_environments=lambda: environments)
        (snap,) = snapshots(source.poll(100.0))
    assert snap.address == f"[::1]:{srv.port}"


def test_bad_address_in_the_environment_is_a_source_error() -> None:
    """An unusable NCCL_RAS_ADDR makes the source blind with a clear error type."""
    source = NcclRasSource(QUICK, rank_environments=[{"NCCL_RAS_ADDR": "host:notaport"}])
    with pytest.raises(SourceError) as info:
        source.poll(100.0)
    assert info.value.error_type == "bad_address"


def test_slow_reply_stretches_the_interval() -> None:
    """A 0.8 s reply with factor 10 pushes the next poll to about 8 s after a 5 s base."""
    with fake(delay=0.8) as srv:
        source = source_for(srv, replace(QUICK, interval_seconds=5.0))
        source.poll(100.0)
    assert 8.0 <= source.interval_seconds < 12.0


def test_partial_reply_is_emitted_marked_with_a_fault() -> None:
    """A drip-fed reply cut by the deadline becomes a partial snapshot plus a SourceFault."""
    with fake(misbehaviour=Misbehaviour.DRIP, drip_seconds=0.005) as srv:
        source = source_for(srv, replace(QUICK, reply_timeout_seconds=2.0, prefer_json=False))
        observations = source.poll(100.0)
    (snap,) = snapshots(observations)
    assert snap.partial and snap.partial_reason == "deadline"
    assert any(isinstance(o, SourceFault) and o.error_type == "partial_reply" for o in observations)


def test_reply_cut_before_anything_useful_is_a_timeout() -> None:
    """A deadline that leaves only a fragment of the first line: SourceError `reply_timeout`."""
    with fake(misbehaviour=Misbehaviour.DRIP) as srv:
        source = source_for(srv, replace(QUICK, reply_timeout_seconds=1.0))
        with pytest.raises(SourceError) as info:
            source.poll(100.0)
    assert info.value.error_type == "reply_timeout"


def test_garbage_reply_is_a_source_error() -> None:
    """A reply that is no RAS report at all: SourceError `unrecognised_reply`, never a snapshot."""
    with fake(misbehaviour=Misbehaviour.GARBAGE) as srv:
        source = source_for(srv)
        with pytest.raises(SourceError) as info:
            source.poll(100.0)
    assert info.value.error_type == "unrecognised_reply"
    assert {f.name: f for f in source.metric_families()}["ras_up"].samples == (((), 0.0),)


def test_close_cuts_a_pending_poll_short() -> None:
    """close() during a slow exchange ends the poll promptly (daemon shutdown)."""
    with fake(misbehaviour=Misbehaviour.DRIP) as srv:
        source = source_for(srv, replace(QUICK, reply_timeout_seconds=60.0))
        thread = threading.Thread(target=lambda: source.poll(100.0))
        thread.start()
        time.sleep(0.6)
        closed_at = time.monotonic()
        source.close()
        thread.join(timeout=5)
        assert not thread.is_alive() and time.monotonic() - closed_at < 1.0
        assert source.poll(200.0) == []


def test_self_metrics_after_a_good_poll() -> None:
    """ras_up 1, the duration, the reply size, the interval and the role are exported."""
    with fake() as srv:
        source = source_for(srv)
        source.poll(100.0)
    families = {f.name: f for f in source.metric_families()}
    assert families["ras_up"].samples == (((), 1.0),)
    assert families["ras_polling"].samples == ((("primary",), 1.0),)
    assert families["ras_polls"].samples == ((("ok",), 1.0),)
    assert families["ras_reply_bytes"].samples[0][1] > 1000
    assert 0 < families["ras_poll_duration_seconds"].samples[0][1] < 3
    assert families["ras_poll_interval_seconds"].samples == (((), 10.0),)


def test_a_suspicion_asks_for_one_extra_status_when_allowed() -> None:
    """A suspected stall wakes the poller for a fresh report, but never before the port was
    seen, never within 5 s of the last query, never twice before the poll it asked for."""
    from monitor.model import Suspicion

    def suspect(at: float) -> Suspicion:
        return Suspicion(at, (1,), "progress stalled", "progress")

    with fake() as srv:
        source = source_for(srv)
        source.on_observation(suspect(99.0))
        assert not source.wake.is_set()  # the port was never seen: nothing to ask yet
        assert snapshots(source.poll(100.0))
        source.on_observation(suspect(103.0))
        assert not source.wake.is_set()  # 3 s after the last query
        source.on_observation(suspect(106.0))
        assert source.wake.is_set() and source.extra_queries == 1
        source.on_observation(suspect(107.0))
        assert source.extra_queries == 1  # one already asked for, not yet polled
