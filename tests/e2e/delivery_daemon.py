"""A small stand-in daemon for crash tests: builds the real sinks with build_sinks(), submits
alert records, and keeps delivering until SIGTERM (clean close) or SIGKILL (crash).

    python -m tests.e2e.delivery_daemon --state-dir D --pagerduty-url URL \
        --routing-key-file F --slack-url-file F --submit firing,resolved

Prints `STATUS {json}` lines (delivery stats per sink) whenever they change.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys

from exporters.delivery import DeliverySink
from exporters.factory import build_sinks, start_sinks
from monitor.settings import DeliverySettings, GeneralSettings, Settings
from tests.delivery_support.records import job_record, resolved

RECORDS = {"firing": job_record("gpu001"), "resolved": resolved(job_record("gpu001"))}


def status_line(sinks: list[DeliverySink]) -> str:
    return json.dumps(
        {
            s.name: {
                "delivered": s.stats.delivered,
                "retries": sum(s.stats.retries.values()),
                "failed": sum(s.stats.failed.values()),
                "skipped": s.stats.skipped,
            }
            for s in sinks
        },
        sort_keys=True,
    )


async def main(args: argparse.Namespace) -> None:
    settings = Settings(
        general=GeneralSettings(state_dir=args.state_dir, node_name="gpu001"),
        delivery=DeliverySettings(
            slack_webhook_url_file=args.slack_url_file,
            pagerduty_routing_key_file=args.routing_key_file,
            pagerduty_url=args.pagerduty_url,
            coalesce_seconds=0.0,
            slack_min_interval_seconds=0.0,
            retry_initial_backoff_seconds=0.1,
            retry_max_backoff_seconds=0.3,
            request_timeout_seconds=2.0,
        ),
    )
    sinks = build_sinks(settings, node_is_reporting=True)
    await start_sinks(sinks)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    for name in filter(None, args.submit.split(",")):
        for s in sinks:
            s.submit(RECORDS[name])
        print(f"SUBMITTED {name}", flush=True)
        await asyncio.sleep(0.3)
    last = ""
    while not stop.is_set():
        line = status_line(sinks)
        if line != last:
            print(f"STATUS {line}", flush=True)
            last = line
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=0.05)
    for s in sinks:
        await s.aclose(2.0)
    print(f"STATUS {status_line(sinks)}", flush=True)
    print("STOPPED", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--state-dir", required=True)
    parser.add_argument("--pagerduty-url", required=True)
    parser.add_argument("--routing-key-file", required=True)
    parser.add_argument("--slack-url-file", required=True)
    parser.add_argument("--submit", default="")
    asyncio.run(main(parser.parse_args()))
    sys.exit(0)
