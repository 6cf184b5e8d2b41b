"""Real HTTP servers on 127.0.0.1 that answer as Slack, PagerDuty or a webhook would.

`Receiver` records every POST (receive time, path, headers, JSON body) and answers from a
script: a list of responses used in order, then a default. `SilentServer` accepts TCP
connections and never answers. `free_port()` gives a port nobody listens on (connection
refused) that a Receiver can later take.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Response:
    status: int
    body: str = ""
    headers: tuple[tuple[str, str], ...] = ()


SLACK_OK = Response(200, "ok")
SLACK_INVALID_PAYLOAD = Response(400, "invalid_payload")
SLACK_SERVER_ERROR = Response(500, "rollup_error")
PD_ACCEPTED = Response(
    202, json.dumps({"status": "success", "message": "Event processed", "dedup_key": "x"})
)
PD_BAD_REQUEST = Response(
    400, json.dumps({"status": "invalid event", "message": "Event object is invalid"})
)
PD_SERVER_ERROR = Response(502, "bad gateway")


def rate_limited(retry_after: str = "1", body: str = "rate_limited") -> Response:
    return Response(429, body, (("Retry-After", retry_after),))


@dataclass(frozen=True)
class Received:
    at: float  # time.monotonic() when the request was read
    path: str
    headers: dict[str, str]
    raw: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.raw)


class Receiver:
    def __init__(
        self,
        script: list[Response] | None = None,
        default: Response = SLACK_OK,
        port: int = 0,
        responder: Callable[[Received], Response] | None = None,
    ) -> None:
        self._script = list(script or [])
        self._default = default
        self._responder = responder
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self.requests: list[Received] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                item = Received(
                    time.monotonic(),
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    raw,
                )
                response = receiver._record(item)
                body = response.body.encode()
                self.send_response(response.status)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                for name, value in response.headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _record(self, item: Received) -> Response:
        with self._arrived:
            self.requests.append(item)
            self._arrived.notify_all()
            if self._responder is not None:
                return self._responder(item)
            if self._script:
                return self._script.pop(0)
            return self._default

    def set_default(self, response: Response) -> None:
        with self._lock:
            self._default = response

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def wait_for(self, count: int, timeout: float = 30.0) -> list[Received]:
        """Block until at least `count` requests arrived; return them all."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while len(self.requests) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"expected {count} requests within {timeout} s, got {len(self.requests)}"
                    )
                self._arrived.wait(left)
            return list(self.requests)

    def snapshot(self) -> list[Received]:
        with self._lock:
            return list(self.requests)

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


class SilentServer:
    """Listens, lets the kernel accept connections, and never reads or answers."""

    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)

    @property
    def port(self) -> int:
        return int(self._sock.getsockname()[1])

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self) -> SilentServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self._sock.close()


def free_port() -> int:
    """A loopback port with no listener right now (connecting to it is refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
