"""Output stream source: the job's stdout/stderr (wrap mode) or followed files (attach mode).

Reading happens in a thread per stream so that a slow terminal or a busy event loop never
delays the job: in wrap mode each chunk is written through to our own stdout/stderr the moment
it is read (no added buffering, `\\r` progress bars intact), then split into lines and handed
to the bus as one OutputChunk per read.

Robustness: partial lines are kept until their end arrives; `\\r` ends a line as `\\n` does
(tqdm bars); invalid UTF-8 is replaced and counted; a line longer than `max_line_bytes` is cut
and the rest discarded up to the next line end (counted); followed files are waited for,
survive truncation (start again at 0) and rotation (finish the old file, open the new one).
"""

from __future__ import annotations

import asyncio
import os
import re
import select
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import structlog

from monitor.model import (
    MetricFamilyData,
    Observation,
    OutputChunk,
    OutputLine,
    SourceState,
    counter,
)
from monitor.runner import Emit

log = structlog.get_logger("rankwatch.stream")

READ_SIZE = 65536
EMIT_SECONDS = 0.1  # the longest a line waits for the detectors (the passthrough never waits)
EMIT_LINES = 4096


@dataclass
class StreamStats:
    lines: int = 0
    bytes: int = 0
    truncated: int = 0
    invalid_utf8: int = 0
    rotations: int = 0
    truncations: int = 0


class LineSplitter:
    """Bytes in, complete lines out. Pure; one instance per stream."""

    def __init__(self, max_line_bytes: int, stats: StreamStats | None = None) -> None:
        self.max_line_bytes = max_line_bytes
        self.stats = stats or StreamStats()
        self._pending = bytearray()
        self._discarding = False  # inside an over-long line whose head was already emitted

    def feed(self, data: bytes) -> list[str]:
        self.stats.bytes += len(data)
        out: list[str] = []
        if self._discarding:
            end = _first_line_end(data)
            if end < 0:
                return out  # still inside the over-long line
            data = data[end + 1 :]
            self._discarding = False
        cut = max(data.rfind(b"\n"), data.rfind(b"\r"))
        if cut < 0:
            self._keep_partial(data, out)
            return out
        head, tail = data[: cut + 1], data[cut + 1 :]
        if self._pending:
            head = bytes(self._pending) + head
            self._pending.clear()
        out.extend(self._decode_lines(head))
        self._keep_partial(tail, out)
        return out

    def flush(self) -> list[str]:
        """End of stream: whatever is pending is a last line."""
        self._discarding = False
        if not self._pending:
            return []
        data = bytes(self._pending)
        self._pending.clear()
        return self._decode_lines(data)

    def _keep_partial(self, data: bytes, out: list[str]) -> None:
        if not data:
            return
        room = self.max_line_bytes - len(self._pending)
        if len(data) <= room:
            self._pending += data
            return
        # Over-long line with no end in sight: emit its head now, drop the rest up to its end.
        head = bytes(self._pending) + data[:room]
        self._pending.clear()
        self.stats.truncated += 1
        out.extend(self._decode_lines(head))
        self._discarding = True

    def _decode_lines(self, data: bytes) -> list[str]:
        text = data.decode("utf-8", errors="replace")
        if "\ufffd" in text:
            self.stats.invalid_utf8 += text.count("\ufffd")
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = [line for line in text.split("\n") if line]
        limit = self.max_line_bytes
        if len(data) > limit:
            for i, line in enumerate(lines):
                if len(line.encode("utf-8", errors="replace")) > limit:
                    lines[i] = line.encode("utf-8", errors="replace")[:limit].decode(
                        "utf-8", errors="ignore"
                    )
                    self.stats.truncated += 1
        self.stats.lines += len(lines)
        return lines


def _first_line_end(data: bytes) -> int:
    ends = [i for i in (data.find(b"\n"), data.find(b"\r")) if i >= 0]
    return min(ends) if ends else -1


# --- rank attribution ------------------------------------------------------------------
# Launcher prefixes, outermost first (reference/log-patterns.md §1). Only a leading `[` or a
# digit can start one, so most lines skip the regular expressions entirely.
_BRACKET_PREFIX = re.compile(
    r"^\[(?:rank(?P<rank>\d+)\]:"
    r"|(?P<role>[A-Za-z_]+)(?P<local>\d+)\]:"
    r"|(?P<mpijob>\d+),(?P<mpirank>\d+)\]<(?:stdout|stderr)>:"
    r"|(?P<host>[\w.\-]+):(?P<hostlocal>\d+)\]:)"
)
_SRUN_LABEL = re.compile(r"^\s*(?P<task>\d+): ")
_HOST_PREFIX = re.compile(r"^(?P<host>[\w.\-]+): ")


@dataclass(frozen=True)
class Attribution:
    srun_label: bool = False
    host_prefix: bool = False
    default_rank: int | None = None  # a one-rank job: unprefixed lines are that rank's


def attribute(line: str, how: Attribution) -> OutputLine:
    """Find the rank a line belongs to from its launcher prefix; keep the text whole."""
    if not how.host_prefix and not how.srun_label:
        # Fast paths for the two commonest shapes: no prefix at all, and c10's "[rankN]:".
        if not line.startswith("["):
            return OutputLine(how.default_rank, line)
        if line.startswith("[rank"):
            end = line.find("]:", 5, 12)
            if end > 5 and line[5:end].isdigit():
                return OutputLine(int(line[5:end]), line)
    text = line
    if how.host_prefix:
        found = _HOST_PREFIX.match(text)
        if found:
            text = text[found.end() :]
    rank: int | None = None
    if how.srun_label:
        found = _SRUN_LABEL.match(text)
        if found:
            rank = int(found.group("task"))
            text = text[found.end() :]
    if text.startswith("["):
        # Apply repeatedly: "[default3]:[rank3]:..." — the innermost global rank wins.
        for _ in range(3):
            found = _BRACKET_PREFIX.match(text)
            if not found:
                break
            if found.group("rank") is not None:
                rank = int(found.group("rank"))
            elif found.group("local") is not None:
                rank = int(found.group("local"))
            elif found.group("mpirank") is not None:
                rank = int(found.group("mpirank"))
            elif found.group("hostlocal") is not None:
                rank = int(found.group("hostlocal"))
            text = text[found.end() :]
    if rank is None:
        rank = how.default_rank
    return OutputLine(rank, line)


# --- readers -----------------------------------------------------------------------------
@dataclass
class _Reader:
    name: str
    max_line_bytes: int
    attribution: Attribution
    stats: StreamStats = field(default_factory=StreamStats)

    def __post_init__(self) -> None:
        self.splitter = LineSplitter(self.max_line_bytes, self.stats)

    def chunk(self, at: float, lines: list[str]) -> OutputChunk | None:
        if not lines:
            return None
        how = self.attribution
        return OutputChunk(at, self.name, tuple(attribute(line, how) for line in lines))

    def metric_families(self) -> list[MetricFamilyData]:
        s, n = self.stats, (self.name,)
        return [
            counter(
                "output_lines", "Lines read from the job's output.", ("stream",), [(n, s.lines)]
            ),
            counter(
                "output_bytes", "Bytes read from the job's output.", ("stream",), [(n, s.bytes)]
            ),
            counter(
                "output_lines_truncated",
                "Lines cut at stream.max_line_bytes.",
                ("stream",),
                [(n, s.truncated)],
            ),
            counter(
                "output_invalid_utf8",
                "Invalid UTF-8 sequences replaced while decoding.",
                ("stream",),
                [(n, s.invalid_utf8)],
            ),
            counter(
                "output_reopens",
                "Followed files reopened, by reason (rotated, truncated).",
                ("stream", "reason"),
                [((self.name, "rotated"), s.rotations), ((self.name, "truncated"), s.truncations)],
            ),
        ]


class PipeStream(_Reader):
    """Reads a pipe from the wrapped child; writes every chunk through to `passthrough_fd`."""

    def __init__(
        self,
        name: str,
        fd: int,
        passthrough_fd: int | None,
        max_line_bytes: int,
        attribution: Attribution,
        monotonic: Callable[[], float],
    ) -> None:
        super().__init__(name, max_line_bytes, attribution)
        self.fd = fd
        self.passthrough_fd = passthrough_fd
        self._monotonic = monotonic
        self.eof = threading.Event()

    async def run(self, emit: Emit) -> None:
        loop = asyncio.get_running_loop()

        def safe_emit(obs: Observation) -> None:
            try:
                loop.call_soon_threadsafe(emit, obs)
            except RuntimeError:  # loop closed: we are shutting down
                pass

        thread = threading.Thread(
            target=self._pump, args=(safe_emit,), name=f"stream-{self.name}", daemon=True
        )
        thread.start()
        await asyncio.to_thread(self.eof.wait)

    def _pump(self, emit: Emit) -> None:
        # The job's bytes go through at once; the lines for the detectors are handed over at
        # most every EMIT_SECONDS (a waiting batch is sent when the pipe goes quiet), so a
        # chatty job wakes the detector loop a few times a second, not once per write.
        pending: list[str] = []
        last_emit = self._monotonic()

        def flush() -> None:
            nonlocal last_emit
            chunk = self.chunk(self._monotonic(), pending)
            pending.clear()
            last_emit = self._monotonic()
            if chunk is not None:
                emit(chunk)

        try:
            while True:
                if pending:
                    wait = max(0.0, last_emit + EMIT_SECONDS - self._monotonic())
                    try:
                        ready, _, _ = select.select([self.fd], [], [], wait)
                    except InterruptedError:
                        continue
                    except (OSError, ValueError):
                        break
                    if not ready:
                        flush()
                        continue
                try:
                    data = os.read(self.fd, READ_SIZE)
                except InterruptedError:
                    continue
                except OSError:
                    break
                if not data:
                    break
                if self.passthrough_fd is not None:
                    _write_all(self.passthrough_fd, data)
                pending.extend(self.splitter.feed(data))
                if len(pending) >= EMIT_LINES or self._monotonic() - last_emit >= EMIT_SECONDS:
                    flush()
            pending.extend(self.splitter.flush())
            flush()
        finally:
            try:
                os.close(self.fd)
            except OSError:
                pass
            self.eof.set()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except InterruptedError:
            continue
        except OSError:
            return  # our own stdout went away; keep watching the job regardless
        view = view[written:]


Opener = Callable[[str], int]


def default_opener(path: str) -> int:
    return os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)


class FollowedFile(_Reader):
    """Follows a file by path (tail -F semantics): waits for it, survives rotation/truncation."""

    def __init__(
        self,
        path: str,
        max_line_bytes: int,
        attribution: Attribution,
        poll_seconds: float,
        monotonic: Callable[[], float],
        opener: Opener = default_opener,
        from_start: bool = True,
        name: str | None = None,
    ) -> None:
        super().__init__(name or os.path.basename(path), max_line_bytes, attribution)
        self.path = path
        self.poll_seconds = poll_seconds
        self._monotonic = monotonic
        self._opener = opener
        self._from_start = from_start
        self.stop_event = threading.Event()
        self.last_error: str | None = None
        self.refused: str | None = None

    async def run(self, emit: Emit) -> None:
        loop = asyncio.get_running_loop()

        def safe_emit(obs: Observation) -> None:
            try:
                loop.call_soon_threadsafe(emit, obs)
            except RuntimeError:
                pass

        thread = threading.Thread(
            target=self._follow, args=(safe_emit,), name=f"follow-{self.name}", daemon=True
        )
        thread.start()
        try:
            await asyncio.to_thread(thread.join)
        finally:
            self.stop_event.set()

    def stop(self) -> None:
        self.stop_event.set()

    def _open(self) -> tuple[int, os.stat_result] | None:
        try:
            fd = self._opener(self.path)
        except FileNotFoundError as exc:
            self.last_error = f"{type(exc).__name__}: {exc.strerror or exc}"
            return None  # not created yet: wait for it quietly
        except OSError as exc:
            self.last_error = f"{type(exc).__name__}: {exc.strerror or exc}"
            reason = exc.strerror or str(exc)
            self.refused = reason if self.path in reason else f"{self.path}: {reason}"
            return None
        st = os.fstat(fd)
        if not self._from_start:
            os.lseek(fd, 0, os.SEEK_END)
            self._from_start = True  # only the first open starts at the end
        return fd, st

    def _follow(self, emit: Emit) -> None:
        fd: int | None = None
        ident: tuple[int, int] | None = None
        reported: str | None = None
        while not self.stop_event.is_set():
            if fd is None:
                opened = self._open()
                if opened is None:
                    if self.refused and self.refused != reported:
                        # Blind is not healthy: a file we may not read makes the source DOWN.
                        reported = self.refused
                        log.warning("output_file_refused", path=self.path, reason=self.refused)
                        emit(SourceState(self._monotonic(), self.name, False, self.refused))
                    self.stop_event.wait(self.poll_seconds)
                    continue
                if reported is not None:
                    reported = None
                    emit(SourceState(self._monotonic(), self.name, True, ""))
                self.refused = None
                fd, opened_stat = opened
                ident = (opened_stat.st_dev, opened_stat.st_ino)
            got = self._drain(fd, emit)
            if got:
                continue
            # No new data: has the file been truncated or replaced under us?
            st: os.stat_result | None
            try:
                st = os.stat(self.path)
            except OSError:
                st = None
            position = os.lseek(fd, 0, os.SEEK_CUR)
            if st is not None and (st.st_dev, st.st_ino) != ident:
                self._drain(fd, emit)  # finish the rotated-away file first
                self._emit(emit, self.splitter.flush())
                os.close(fd)
                fd = None
                self.stats.rotations += 1
                continue
            if st is not None and st.st_size < position:
                self._emit(emit, self.splitter.flush())
                os.lseek(fd, 0, os.SEEK_SET)
                self.stats.truncations += 1
                continue
            self.stop_event.wait(self.poll_seconds)
        if fd is not None:
            self._drain(fd, emit)
            self._emit(emit, self.splitter.flush())
            os.close(fd)

    def _drain(self, fd: int, emit: Emit) -> bool:
        got = False
        while True:
            try:
                data = os.read(fd, READ_SIZE)
            except BlockingIOError:
                return got
            except OSError as exc:
                self.last_error = str(exc)
                return got
            if not data:
                return got
            got = True
            self._emit(emit, self.splitter.feed(data))

    def _emit(self, emit: Emit, lines: list[str]) -> None:
        chunk = self.chunk(self._monotonic(), lines)
        if chunk is not None:
            emit(chunk)
