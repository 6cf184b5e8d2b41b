"""The fake RAS server follows the protocol notes: these tests hold it to them, so that the
client tests against it mean something."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_ras import (
    Event,
    FakeRasServer,
    JobShape,
    render_json,
    render_text_chunks,
    scenario,
)
from tests.ras_sample_models import SAMPLE_MODELS

SAMPLES = Path(__file__).parent / "data" / "ras" / "samples"


@pytest.mark.parametrize("name", sorted(SAMPLE_MODELS))
def test_fake_renders_every_reference_sample_byte_for_byte(name: str) -> None:
    """From a model of each sample's job, the fake's renderer produces the sample's exact bytes."""
    state, verbose, fmt = SAMPLE_MODELS[name]()
    if fmt == "json":
        rendered = render_json(state, elapsed=0.0)
    else:
        rendered = "".join(render_text_chunks(state, verbose=verbose, elapsed=0.0))
    assert rendered == (SAMPLES / name).read_text()


class Wire:
    """A raw client for poking the fake: send bytes, read with a timeout."""

    def __init__(self, port: int, host: str = "127.0.0.1") -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.settimeout(5)
        self.sock.connect((host, port))
        self.buffer = b""

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def line(self) -> bytes:
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise EOFError(self.buffer)
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def read_to_eof(self) -> bytes:
        data = self.buffer
        while chunk := self.sock.recv(65536):
            data += chunk
        self.buffer = b""
        return data

    def silent_for(self, seconds: float) -> bool:
        self.sock.settimeout(seconds)
        try:
            return self.sock.recv(1) == b""  # EOF counts as "said nothing" but closed
        except TimeoutError:
            return True
        finally:
            self.sock.settimeout(5)

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def server() -> Iterator[FakeRasServer]:
    with FakeRasServer(scenario(shape=JobShape(version="2.29.7"))) as srv:
        yield srv


def test_silent_until_spoken_to(server: FakeRasServer) -> None:
    """The server sends nothing on connect."""
    wire = Wire(server.port)
    assert wire.silent_for(0.3)
    wire.close()


def test_one_line_replies_and_case_rules(server: FakeRasServer) -> None:
    """Keywords ignore case, the client's protocol number is ignored, nothing is trimmed."""
    wire = Wire(server.port)
    wire.send(b"client protocol 99\r\n")
    assert wire.line() == b"SERVER PROTOCOL 2"
    wire.send(b"CLIENT PROTOCOL\n")
    assert wire.line() == b"ERROR: Unknown command CLIENT PROTOCOL"
    wire.send(b"STATUS  \n")
    assert wire.line() == b"ERROR: Unknown command STATUS  "
    wire.send(b"\n")
    assert wire.line() == b"ERROR: Unknown command "
    wire.send(b"TIMEOUT 5\nTIMEOUT -1\nTIMEOUT \nset format JSON\nSET FORMAT yaml\n")
    assert [wire.line() for _ in range(5)] == [
        b"OK", b"ERROR: Invalid timeout value -1", b"OK", b"OK", b"ERROR: Invalid format yaml"
    ]
    wire.send(b"MONITOR lifecycle,bogus\n")
    assert wire.line() == b"ERROR: Invalid event group 'bogus'"
    wire.close()


@pytest.mark.parametrize(
    ("version", "timeout_reply", "format_reply", "control_reply"),
    [
        ("2.24.3", b"ERROR: Invalid timeout value 2.5", b"ERROR: Unknown command SET FORMAT json",
         b"ERROR: Unknown command CONTROL PROFILER_MASK none"),
        ("2.28.7", b"ERROR: Invalid timeout value 2.5", b"OK",
         b"ERROR: Unknown command CONTROL PROFILER_MASK none"),
        ("2.31.2", b"OK", b"OK", b"OK"),
    ],
)
def test_commands_are_gated_by_version(
    version: str, timeout_reply: bytes, format_reply: bytes, control_reply: bytes
) -> None:
    """Older versions reject fractional timeouts and answer newer commands as unknown."""
    with FakeRasServer(scenario(shape=JobShape(version=version))) as srv:
        wire = Wire(srv.port)
        wire.send(b"TIMEOUT 2.5\nSET FORMAT json\nCONTROL PROFILER_MASK none\n")
        assert [wire.line() for _ in range(3)] == [timeout_reply, format_reply, control_reply]
        wire.close()


def test_report_comes_in_two_chunks_then_the_server_closes() -> None:
    """The first chunk stops inside the `Communicators...` line; the rest follows after the
    collection delay; then EOF."""
    shape = JobShape(collection_delay_seconds=0.4)
    with FakeRasServer(scenario(shape=shape)) as srv:
        wire = Wire(srv.port)
        wire.send(b"STATUS\n")
        time.sleep(0.2)
        wire.sock.settimeout(0.1)
        first = b""
        try:
            while chunk := wire.sock.recv(65536):
                first += chunk
        except TimeoutError:
            pass
        assert first.endswith(b"\nCommunicators...")
        wire.sock.settimeout(5)
        rest = wire.read_to_eof()
        assert rest.startswith(b" (0.4") and rest.endswith(b"Warnings\n========\n\n")
        wire.close()


def test_json_report_after_acknowledgements(server: FakeRasServer) -> None:
    """A pipelined conversation gets its acknowledgements, then the JSON document and EOF."""
    wire = Wire(server.port)
    wire.send(b"CLIENT PROTOCOL 2\nTIMEOUT 5\nSET FORMAT json\nSTATUS\n")
    data = wire.read_to_eof()
    assert data.startswith(b"SERVER PROTOCOL 2\nOK\nOK\n{\n")
    assert data.endswith(b"}\n")
    wire.close()


def test_a_full_buffer_without_newline_closes_silently(server: FakeRasServer) -> None:
    """A line that fills the 1024-byte buffer without a newline closes the connection."""
    wire = Wire(server.port)
    wire.send(b"X" * 1100)
    assert wire.read_to_eof() == b""
    wire.close()


def test_ipv6_loopback() -> None:
    """The server listens on ::1 when asked to."""
    with FakeRasServer(host="::1") as srv:
        wire = Wire(srv.port, "::1")
        wire.send(b"CLIENT PROTOCOL 2\n")
        assert wire.line() == b"SERVER PROTOCOL 2"
        wire.close()
        assert srv.address == f"[::1]:{srv.port}"


def test_scenario_goes_dead_after_n_queries() -> None:
    """A scenario changes over time: healthy, unresponsive for one query, then DEAD."""
    script = scenario(Event.DEAD, after_queries=2, culprit_ranks=(3,))
    states = [script(q, 0.0) for q in range(5)]
    peer_states = [s.comms[0].members[3].peer.state for s in states]
    assert peer_states == ["alive", "alive", "unresponsive", "dead", "dead"]
    counts = [s.comms[0].members[0].counts[4] for s in states]
    assert counts[0] < counts[1] < counts[2] == counts[3] == counts[4]


def test_scenario_can_trigger_on_time() -> None:
    """`after_seconds` triggers on the server's clock instead of the query count."""
    script = scenario(Event.HANG, after_seconds=5.0)
    early, late, later = script(0, 1.0), script(1, 6.0), script(2, 20.0)
    assert early.comms[0].members[0].counts != late.comms[0].members[0].counts
    assert late.comms[0].members[0].counts == later.comms[0].members[0].counts


def test_standalone_server_answers() -> None:
    """`python -m tests.fake_ras` serves the simulated endpoint and says it is simulated."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fake_ras", "--port", str(port), "--scenario", "dead",
         "--after", "1"],
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parent.parent,
    )
    try:
        assert proc.stdout is not None
        banner = proc.stdout.readline()
        assert "SIMULATED" in banner and str(port) in banner
        wire = Wire(port)
        wire.send(b"STATUS\n")
        assert wire.read_to_eof().startswith(b"NCCL version 2.29.7")
        wire.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
