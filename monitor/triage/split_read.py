"""One large log file read by several worker processes, with the result of one reader.

The file is cut at the line starts where the one-process reader's own chunked regions start
(`CHUNK_BYTES` boundaries, moved back to the last newline), so each worker sees exactly the
regions the single reader would have seen. Each worker scans its byte range with a fresh
extractor; the parent joins the pieces in order:

* line numbers are shifted by the lines of the pieces before;
* an event of a piece that the single reader would have attributed with an NCCL pid learned
  earlier in the file is attributed the same way (the pid table is replayed in order);
* the per-kind event cap is applied again over the joined emission order;
* a piece that ends inside a multi-line block (a traceback crossing the cut) is read again
  together with the next piece, so no block is ever split;
* the last 64 KiB and the tail lines are read once, from the last piece.

Anything unusual at the start (gzip, UTF-16, binary, a rankwatch alert log, a dump) and any
cut that would fall inside an overlong line make the caller read the file in one piece.
"""

from __future__ import annotations

import bisect
import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import BinaryIO

from monitor.parse.flight_recorder import looks_like_dump
from monitor.parse.log_events import EventKind, Level, LogEvent
from monitor.triage import reader as rd
from monitor.triage.reader import FileScan

SPLIT_MIN_BYTES = 64 << 20  # below this one reader is as fast as several


@dataclass
class Piece:
    """What one worker found in its byte range (line numbers local to the piece)."""

    start: int
    stop: int
    scan: FileScan
    lines: int = 0
    open_blocks: int = 0
    decode_fallbacks: int = 0
    overlong: int = 0
    tail: bytes = b""
    pid_ranks: dict[tuple[str, int], tuple[int, int]] = field(default_factory=dict)


def plan(path: str, size: int, parts: int, chunk: int | None = None) -> list[int] | None:
    """Cut points (byte offsets, first 0, last `size`) or None when the file must be read in
    one piece."""
    chunk = chunk or rd.CHUNK_BYTES
    if parts < 2 or size < max(2 * chunk, rd.TAIL_BYTES * 2):
        return None
    with open(path, "rb") as raw:
        head = raw.read(rd.BINARY_SNIFF_BYTES)
        if head[:2] == b"\x1f\x8b" or rd._looks_binary(head) or looks_like_dump(head) \
                or head.startswith((b"\xff\xfe", b"\xfe\xff")) or rd._looks_like_alert_log(head):
            return None
        cuts = [0]
        chunks = size // chunk
        for i in range(1, parts):
            m = round(i * chunks / parts)
            if m <= 0 or m * chunk >= size:
                continue
            raw.seek((m - 1) * chunk)
            before = raw.read(chunk)
            newline = before.rfind(b"\n")
            if newline < 0:
                continue
            cut = (m - 1) * chunk + newline + 1
            if m * chunk - cut >= rd.MAX_LINE_BYTES or cut <= cuts[-1]:
                continue
            cuts.append(cut)
    if size - cuts[-1] < rd.TAIL_BYTES or len(cuts) < 2:
        return None
    cuts.append(size)
    return cuts


class _PieceReader(rd._Reader):
    """The one-file reader over [start, stop), its reads aligned as the whole-file reader's."""

    def __init__(self, path: str, raw: BinaryIO, start: int, stop: int, last: bool,
                 chunk: int, hits: list[int] | None) -> None:
        super().__init__(FileScan(path=path, size_bytes=0), raw, None, gzipped=False)
        self.start, self.stop, self.last, self.chunk = start, stop, last, chunk
        self.hits = hits
        self.consumed = start

    def _chunks(self) -> Iterator[bytes]:
        self.raw.seek(self.start)
        # The whole-file reader's region that starts at `start` is the carry up to the next
        # chunk boundary plus one chunk.
        position = self.start
        first_end = (self.start // self.chunk + 1) * self.chunk
        if self.start % self.chunk:
            first_end += self.chunk
        end = first_end
        while position < self.stop:
            want = min(end, self.stop if self.last else end) - position
            data = self.raw.read(want)
            if not data:
                return
            position += len(data)
            yield data
            end = position + self.chunk

    def run_piece(self) -> Piece:
        carry = b""
        for chunk in self._chunks():
            buf = carry + chunk if carry else chunk
            self.consumed += len(chunk)
            self.base = self.consumed - len(buf)
            end = buf.rfind(b"\n") + 1
            if end == 0:
                carry = self._overlong(buf) if len(buf) >= rd.MAX_LINE_BYTES else buf
                continue
            self._region(buf, end)
            carry = buf[end:]
            if len(carry) >= rd.MAX_LINE_BYTES:
                carry = self._overlong(carry)
        if carry and self.last:
            self.base = self.consumed - len(carry)
            self._region(carry + b"\n", len(carry) + 1)
        open_blocks = self.extractor.open_blocks
        if self.last:
            for event in self.extractor.flush():
                self._keep(event)
        self.scan.prefixes |= self.extractor.prefixes_seen
        return Piece(self.start, self.stop, self.scan, self.line_no - 1, open_blocks,
                     self.decode_fallbacks, self.overlong, self.tail,
                     dict(self.extractor.pid_ranks))


def read_piece(path: str, start: int, stop: int, last: bool, chunk: int,
               hits: list[int] | None = None) -> Piece:
    with open(path, "rb") as raw:
        reader = _PieceReader(path, raw, start, stop, last, chunk, hits)
        reader.read_head(raw.read(rd.BINARY_SNIFF_BYTES))  # as the whole-file reader decides
        return reader.run_piece()


def _within(hits: list[int] | None, start: int, stop: int) -> list[int] | None:
    if hits is None:
        return None
    return hits[bisect.bisect_left(hits, start):bisect.bisect_left(hits, stop)]


def read_split(path: str, jobs: int, *, chunk: int | None = None,
               pool: object | None = None) -> FileScan | None:
    """Read one file in pieces on `jobs` processes; None when it must be read in one piece."""
    chunk = chunk or rd.CHUNK_BYTES
    try:
        size = os.path.getsize(path)
        cuts = plan(path, size, jobs, chunk)
    except OSError:
        return None
    if cuts is None:
        return None
    spans = list(itertools.pairwise(cuts))
    hits = rd.grep_hits(path, size)  # one pass here; each piece gets its share
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=jobs) as workers:
        futures = [workers.submit(read_piece, path, a, b, i == len(spans) - 1, chunk,
                                  _within(hits, a, b))
                   for i, (a, b) in enumerate(spans)]
        pieces = [f.result() for f in futures]
    # A piece that ends inside a block is read again with the next one (rare: a traceback
    # across a cut).
    joined: list[Piece] = []
    i = 0
    while i < len(pieces):
        piece = pieces[i]
        while piece.open_blocks and i + 1 < len(pieces):
            i += 1
            piece = read_piece(path, piece.start, pieces[i].stop, i == len(pieces) - 1, chunk,
                               _within(hits, piece.start, pieces[i].stop))
        joined.append(piece)
        i += 1
    return _join(path, size, joined)


def _join(path: str, size: int, pieces: list[Piece]) -> FileScan:
    scan = FileScan(path=path, size_bytes=size)
    kept: dict[EventKind, int] = {}
    pids: dict[tuple[str, int], tuple[int, int]] = {}
    offset = 0
    fallbacks = overlong = 0
    for piece in pieces:
        local = dict(pids)
        for event in piece.scan.events:
            event = _reattribute(event, local)
            if offset:
                event = replace(event, line=event.line + offset,
                                end_line=event.end_line + offset)
            count = kept.get(event.kind, 0)
            if count < rd.MAX_EVENTS_PER_KIND or event.level >= Level.FATAL:
                kept[event.kind] = count + 1
                scan.events.append(event)
        for key, value in piece.pid_ranks.items():
            known = pids.get(key)
            if known is None or value[0] > known[0]:
                pids[key] = value
        for kind, n in piece.scan.counts.items():
            scan.counts[kind] = scan.counts.get(kind, 0) + n
        scan.ranks |= piece.scan.ranks
        scan.declared_ranks |= piece.scan.declared_ranks
        scan.table_ranks |= piece.scan.table_ranks
        scan.declared_worlds |= piece.scan.declared_worlds
        scan.prefixes |= piece.scan.prefixes
        for context, attempts in piece.scan.retry_attempts.items():
            merged = scan.retry_attempts.setdefault(context, [])
            merged.extend(attempts[: rd.MAX_EVENTS_PER_KIND - len(merged)])
        for context, n in piece.scan.retry_exhausted.items():
            scan.retry_exhausted[context] = scan.retry_exhausted.get(context, 0) + n
        offset += piece.lines
        fallbacks += piece.decode_fallbacks
        overlong += piece.overlong
    scan.lines = offset
    scan.pid_ranks = pids
    # (every piece read the file's head as the whole-file reader does: its commands are one)
    scan.head_commands = pieces[0].scan.head_commands if pieces else []
    scan.events.sort(key=lambda e: (e.line, e.kind.value))
    finisher = rd._Reader(scan, None, None, gzipped=False)  # type: ignore[arg-type]
    finisher.tail = pieces[-1].tail
    finisher.decode_fallbacks, finisher.overlong = fallbacks, overlong
    finisher._parse_tail()
    finisher._notes()
    return scan


def _reattribute(event: LogEvent, pids: dict[tuple[str, int], tuple[int, int]]) -> LogEvent:
    """Replay the NCCL pid table as the one reader would have had it at this event."""
    fields = event.fields
    if "cuda_dev" not in fields or "host" not in fields or "pid" not in fields:
        return event
    key = (str(fields["host"]), event.int_field("pid") or 0)
    if event.kind is EventKind.NCCL_INIT:
        nranks, rank = fields.get("nranks"), fields.get("nccl_rank")
        if isinstance(nranks, int) and isinstance(rank, int):
            known = pids.get(key)
            if known is None or nranks > known[0]:
                pids[key] = (nranks, rank)
    if event.rank_origin not in (None, "nccl"):
        return event
    known = pids.get(key)
    rank, origin = (known[1], "nccl") if known is not None else (None, None)
    if (rank, origin) == (event.rank, event.rank_origin):
        return event
    return replace(event, rank=rank, rank_origin=origin)


__all__ = ["SPLIT_MIN_BYTES", "Piece", "plan", "read_piece", "read_split"]
