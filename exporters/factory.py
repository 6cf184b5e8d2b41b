"""Builds the configured remote sinks (Slack, PagerDuty, Alertmanager, webhook) in one call.

A sink is configured when its key is set: `slack_webhook_url_file`, `pagerduty_routing_key_file`,
`alertmanager_url`, `webhook_url_file`. Secrets are read from their files here, once; a problem
is reported with the file's name, never its content.

    sinks = build_sinks(settings, node_name=node, node_is_reporting=lambda: node_index == 0)
    ...inside the running loop, before alerts flow:
    await start_sinks(sinks)
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import structlog

from exporters._http import HttpPoster
from exporters.alertmanager import AlertmanagerNotifier, alerts_url
from exporters.delivery import DeliveryConfig, DeliverySink, Notifier
from exporters.notify_policy import NotifyPolicy, skip_reason
from exporters.pagerduty import PagerDutyNotifier
from exporters.secrets import Scrubber, SecretFileError, read_secret_file, secret_file_is_shared
from exporters.slack import SlackNotifier
from exporters.webhook import WebhookNotifier
from monitor.clock import Clock
from monitor.errors import SettingsError
from monitor.model import AlertRecord
from monitor.settings import DeliverySettings, Settings

log = structlog.get_logger("rankwatch.delivery")

SINK_NAMES = ("slack", "pagerduty", "alertmanager", "webhook")


def _is_http_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def delivery_problems(delivery: DeliverySettings) -> list[str]:
    """Everything wrong with the [delivery] section, at once (for check-config)."""
    problems = []
    for key in ("warning_sinks", "critical_sinks"):
        for name in getattr(delivery, key):
            if name not in SINK_NAMES:
                problems.append(
                    f"delivery.{key}: unknown sink {name!r} (known: {', '.join(SINK_NAMES)})"
                )
    for key in ("slack_webhook_url_file", "pagerduty_routing_key_file", "webhook_url_file"):
        path = getattr(delivery, key)
        if not path:
            continue
        try:
            value = read_secret_file(path, f"delivery.{key}")
        except SecretFileError as exc:
            problems.append(str(exc))
            continue
        if key != "pagerduty_routing_key_file" and not _is_http_url(value):
            problems.append(f"delivery.{key}: {path} does not hold an http(s) URL")
    for key in ("alertmanager_url", "pagerduty_url", "generator_url"):
        url = getattr(delivery, key)
        if url and not _is_http_url(url):
            problems.append(f"delivery.{key}: not an http(s) URL: {url!r}")
    if delivery.retry_max_backoff_seconds < delivery.retry_initial_backoff_seconds:
        problems.append(
            "delivery.retry_max_backoff_seconds must be >= retry_initial_backoff_seconds"
        )
    return problems


def delivery_config(delivery: DeliverySettings) -> DeliveryConfig:
    return DeliveryConfig(
        coalesce_seconds=delivery.coalesce_seconds,
        queue_size=delivery.queue_size,
        give_up_seconds=delivery.max_attempts_seconds,
        initial_backoff_seconds=delivery.retry_initial_backoff_seconds,
        max_backoff_seconds=delivery.retry_max_backoff_seconds,
        retry_after_max_seconds=delivery.retry_after_max_seconds,
        attempt_timeout_seconds=delivery.request_timeout_seconds + 5.0,
    )


def build_sinks(
    settings: Settings,
    *,
    node_is_reporting: Callable[[], bool] | bool,
    node_name: str | None = None,
    state_dir: str | Path | None = None,
    clock: Clock | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> list[DeliverySink]:
    """One DeliverySink per configured remote sink; SettingsError lists every problem.

    `node_name` must be the node name the alert policy puts on records (default: the
    general.node_name setting, else the host name). `node_is_reporting` tells whether this
    node speaks for the job (see exporters.notify_policy.is_reporting_node); a callable is
    asked per alert, so the answer may change while the daemon runs.
    """
    delivery = settings.delivery
    problems = delivery_problems(delivery)
    if problems:
        raise SettingsError(problems)
    node = node_name or settings.general.node_name or socket.gethostname()
    root = Path(state_dir if state_dir is not None else settings.general.state_dir) / "delivery"
    secrets = _read_secrets(delivery)
    scrubber = Scrubber(secrets.values())
    timeout = delivery.request_timeout_seconds

    def poster(url: str) -> HttpPoster:
        return HttpPoster(url, timeout_seconds=timeout, scrubber=scrubber, transport=transport)

    notifiers: list[Notifier] = []
    if "slack" in secrets:
        notifiers.append(
            SlackNotifier(
                poster(secrets["slack"]), min_interval_seconds=delivery.slack_min_interval_seconds
            )
        )
    if "pagerduty" in secrets:
        notifiers.append(PagerDutyNotifier(poster(delivery.pagerduty_url), secrets["pagerduty"]))
    if delivery.alertmanager_url:
        notifiers.append(
            AlertmanagerNotifier(
                poster(alerts_url(delivery.alertmanager_url)),
                resend_interval_seconds=delivery.alertmanager_resend_seconds,
                generator_url=delivery.generator_url,
            )
        )
    if "webhook" in secrets:
        notifiers.append(WebhookNotifier(poster(secrets["webhook"])))

    policy = NotifyPolicy(
        node_name=node,
        notify_nodes=delivery.notify_nodes,
        warning_sinks=frozenset(delivery.warning_sinks),
        critical_sinks=frozenset(delivery.critical_sinks),
    )
    reporting = node_is_reporting if callable(node_is_reporting) else _constant(node_is_reporting)
    config = delivery_config(delivery)
    sinks = [
        DeliverySink(
            notifier,
            spool_dir=root / notifier.name,
            config=config,
            router=_router(policy, notifier, reporting),
            scrubber=scrubber,
            clock=clock,
        )
        for notifier in notifiers
    ]
    if sinks:
        log.info(
            "alert_sinks_configured",
            sinks=[f"{s.name}={s.notifier.endpoint}" for s in sinks],
            node=node,
            notify_nodes=delivery.notify_nodes,
        )
    return sinks


def settings_scrubber(delivery: DeliverySettings) -> Scrubber:
    """A scrubber that knows the configured secrets (those readable now), for everything else
    that shows alert text: the daemon's own `alert` log event, the console, the alert log."""
    known = []
    for path in (
        delivery.slack_webhook_url_file,
        delivery.pagerduty_routing_key_file,
        delivery.webhook_url_file,
    ):
        if path:
            try:
                known.append(read_secret_file(path, "secret"))
            except SecretFileError:
                continue
    return Scrubber(known)


async def start_sinks(sinks: Sequence[object]) -> None:
    """Start the delivery workers of the sinks that have them (spooled alerts go out now)."""
    for sink in sinks:
        if isinstance(sink, DeliverySink):
            await sink.start()


def _read_secrets(delivery: DeliverySettings) -> dict[str, str]:
    files = {
        "slack": ("slack_webhook_url_file", delivery.slack_webhook_url_file),
        "pagerduty": ("pagerduty_routing_key_file", delivery.pagerduty_routing_key_file),
        "webhook": ("webhook_url_file", delivery.webhook_url_file),
    }
    secrets = {}
    for sink, (key, path) in files.items():
        if not path:
            continue
        secrets[sink] = read_secret_file(path, f"delivery.{key}")
        if secret_file_is_shared(path):
            log.warning("secret_file_world_readable", setting=f"delivery.{key}", path=path)
    return secrets


def _constant(value: bool) -> Callable[[], bool]:
    return lambda: value


def _router(
    policy: NotifyPolicy, notifier: Notifier, reporting: Callable[[], bool]
) -> Callable[[AlertRecord, bool], str | None]:
    def route(record: AlertRecord, announced: bool) -> str | None:
        return skip_reason(
            policy,
            record,
            notifier.name,
            notifier.kind,
            node_is_reporting=reporting(),
            announced=announced,
        )

    return route
