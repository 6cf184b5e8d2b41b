"""Saved NCCL RAS STATUS replies: a file that holds one (the `ncclras` client's output, text or
JSON, or a reply captured off the RAS port with the socket's own lines before it) told apart
from a log, and read with the same parsers the live source uses."""

from __future__ import annotations

from dataclasses import dataclass

from monitor.parse.ras_json import parse_json
from monitor.parse.ras_model import RasReport
from monitor.parse.ras_text import parse_text

# What a reply starts with once the socket's exchange (`SERVER PROTOCOL 2`, `OK`) and any
# capture note are passed over: the text report's banner, or the JSON document's first key
_TEXT_BANNER = b"NCCL version "
_JSON_KEY = b'"nccl_version"'
MAX_REPLY_BYTES = 64 << 20  # a reply for tens of thousands of ranks is a few MiB


@dataclass(frozen=True)
class RasReply:
    """One saved reply: where it came from, and what it says."""

    source: str
    report: RasReport


def looks_like_reply(head: bytes) -> bool:
    """Whether a file's first bytes are a RAS STATUS reply (text or JSON)."""
    lines = head.splitlines()[:8]
    return any(line.startswith(_TEXT_BANNER) and b" compiled with CUDA " in line
               for line in lines) or (
        any(line.lstrip().startswith(b"{") for line in lines) and _JSON_KEY in head[:512])


def read_reply(source: str, data: bytes) -> RasReply:
    """One reply, text or JSON. Never raises: damage is counted in the report's `faults`."""
    start = data.find(_TEXT_BANNER)
    brace = data.find(b"{")
    if brace != -1 and (start == -1 or brace < start):
        return RasReply(source, parse_json(data))
    # a capture's or the socket's lines before the banner are no part of the report
    return RasReply(source, parse_text(data[start:] if start > 0 else data))
