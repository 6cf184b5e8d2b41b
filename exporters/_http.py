"""Shared HTTP pieces for the notifiers: one POST helper, and the translation of everything
httpx can raise or answer into an `Outcome` (did it work, is a retry worth it).

This is the boundary: no httpx exception and no raw URL leaves this module. Error details are
scrubbed of the configured secrets (webhook URLs carry their credential in the path), and
response bodies are cut short before anyone can log them.
"""

from __future__ import annotations

import email.utils
import json
import logging
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from exporters.secrets import Scrubber
from monitor import __version__

USER_AGENT = f"rankwatch/{__version__}"
BODY_EXCERPT_CHARS = 200

# Reasons are Prometheus label values: a closed set.
REASON_RATE_LIMITED = "rate_limited"
REASON_SERVER_ERROR = "server_error"
REASON_TIMEOUT = "timeout"
REASON_CONNECT = "connect_error"
REASON_NETWORK = "network_error"
REASON_REJECTED = "rejected"
REASON_BAD_RESPONSE = "bad_response"
REASON_DEADLINE = "deadline"
REASONS = (
    REASON_RATE_LIMITED,
    REASON_SERVER_ERROR,
    REASON_TIMEOUT,
    REASON_CONNECT,
    REASON_NETWORK,
    REASON_REJECTED,
    REASON_BAD_RESPONSE,
    REASON_DEADLINE,
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The answer of one delivery attempt."""

    delivered: bool
    retryable: bool = False
    reason: str = ""  # one of REASONS when not delivered
    retry_after_seconds: float | None = None
    detail: str = ""  # human text, already scrubbed; safe to log
    status: int | None = None


DELIVERED = Outcome(delivered=True)


def failure(
    reason: str,
    detail: str,
    *,
    retryable: bool,
    status: int | None = None,
    retry_after_seconds: float | None = None,
) -> Outcome:
    return Outcome(
        delivered=False,
        retryable=retryable,
        reason=reason,
        retry_after_seconds=retry_after_seconds,
        detail=detail,
        status=status,
    )


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    headers: Mapping[str, str]
    body_excerpt: str  # first BODY_EXCERPT_CHARS characters, scrubbed


def parse_retry_after(value: str | None, now_wall: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date; None if absent
    or unreadable."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        now = time.time() if now_wall is None else now_wall
        seconds = when.timestamp() - now
    if math.isnan(seconds) or math.isinf(seconds):
        return None
    return max(0.0, seconds)


def describe_endpoint(url: str) -> str:
    """What may be said about an endpoint in logs: scheme and host only (paths and queries of
    webhook URLs are credentials)."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}"


def _url_secrets(url: str) -> list[str]:
    """The URL and its path (with query): an answer that echoes either must not be logged."""
    parts = urlsplit(url)
    tail = parts.path + (f"?{parts.query}" if parts.query else "")
    return [url] + [t for t in (tail, parts.path) if len(t) >= 8]


def outcome_for_status(
    reply: Reply, *, retry_statuses: frozenset[int] = frozenset({408, 429})
) -> Outcome:
    """The usual reading of a failed HTTP status: 429 and 5xx are worth a retry (429 with its
    Retry-After), other 4xx are permanent."""
    status = reply.status
    retry_after = parse_retry_after(reply.headers.get("retry-after"))
    detail = f"HTTP {status}: {reply.body_excerpt}".rstrip(": ")
    if status == 429 or status >= 500 or status in retry_statuses:
        reason = REASON_RATE_LIMITED if status == 429 else REASON_SERVER_ERROR
        return failure(
            reason, detail, retryable=True, status=status, retry_after_seconds=retry_after
        )
    return failure(REASON_REJECTED, detail, retryable=False, status=status)


def quiet_httpx_request_log() -> None:
    """httpx logs every request's full URL at INFO, and a webhook URL is a credential: keep
    httpx's own logger at WARNING or above, whatever the process's logging configuration."""
    httpx_log = logging.getLogger("httpx")
    if httpx_log.level < logging.WARNING:  # NOTSET (0) would inherit a later root level
        httpx_log.setLevel(logging.WARNING)


class HttpPoster:
    """POSTs JSON to one endpoint with bounded time, and never raises.

    The httpx client is created with the poster (its connections open on first use, inside
    the running loop) and closed by `aclose()`. Redirects are not followed: a webhook that
    redirects is misconfigured.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout_seconds: float,
        scrubber: Scrubber,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        quiet_httpx_request_log()
        self.url = url
        self.endpoint = describe_endpoint(url)
        self._timeout = timeout_seconds
        self._scrubber = scrubber
        for secret in _url_secrets(url):
            self._scrubber = self._scrubber.with_secret(secret)
        self._transport = transport
        # Built now, at start-up: creating the TLS context costs a few hundred milliseconds,
        # which would otherwise delay the first alert. Connections open on first use.
        self._client: httpx.AsyncClient | None = self._new_client()

    def _new_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            timeout=httpx.Timeout(self._timeout, connect=min(self._timeout, 5.0)),
            headers={"User-Agent": USER_AGENT},
            follow_redirects=False,
            transport=self._transport,
        )

    def _get_client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = self._new_client()
        return self._client

    async def post_json(
        self, body: Any, *, headers: Mapping[str, str] | None = None
    ) -> Reply | Outcome:
        """The reply, or a failure Outcome when no HTTP answer came back."""
        payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        all_headers = {"Content-Type": "application/json"}
        all_headers.update(headers or {})
        try:
            response = await self._get_client().post(self.url, content=payload, headers=all_headers)
        except httpx.TimeoutException as exc:
            return failure(REASON_TIMEOUT, self._say(exc, "timed out"), retryable=True)
        except httpx.ConnectError as exc:
            return failure(REASON_CONNECT, self._say(exc, "cannot connect"), retryable=True)
        except httpx.TransportError as exc:
            return failure(REASON_NETWORK, self._say(exc, "transport error"), retryable=True)
        except httpx.HTTPError as exc:  # anything else httpx raises, e.g. an invalid URL
            return failure(REASON_REJECTED, self._say(exc, "request failed"), retryable=False)
        excerpt = response.text[:BODY_EXCERPT_CHARS].strip()
        return Reply(
            status=response.status_code,
            headers={k.lower(): v for k, v in response.headers.items()},
            body_excerpt=self._scrubber.text(excerpt),
        )

    def _say(self, exc: Exception, what: str) -> str:
        # httpx messages may quote the URL; scrub them with the URL registered as a secret.
        message = str(exc).strip()
        text = f"{what} ({type(exc).__name__}" + (f": {message})" if message else ")")
        return self._scrubber.text(text)

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()
