"""What the ranks of the emulated job publish, and how the RAS server and tests read it.

Everything lives in one directory (`RW_EMU_DIR`):

* `counts.bin`: one fixed 64-byte slot per rank (8 little-endian int64) in a file every rank maps
  into memory; each rank writes only its own slot, so no locking is needed (aligned 8-byte stores
  are not torn). Fields: pid, Broadcast launched, AllReduce launched, ops issued by the host, ops
  completed, communicator state, async error, last update (monotonic ns).
* `rank-<r>.json`: the rank's static identity (pid, host, GPU, world size), written once.
* `fault.json`: when and where the injected fault began (wall and monotonic clocks).

"Launched" is what NCCL's RAS counts (a collective counts when its kernel is launched on the
stream); "issued" is what the host asked for; "completed" is what finished. They differ exactly
where a real NCCL job's would: a hung kernel keeps later launches from reaching the stream.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import struct
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

MAX_RANKS = 64
SLOT = struct.Struct("<8q")
COUNTS_FILE = "counts.bin"
FAULT_FILE = "fault.json"

# Communicator state, as RAS reports it.
COMM_NONE = 0  # no communicator yet (or destroyed): the process answers without it
COMM_INIT = 1
COMM_RUNNING = 2
COMM_FINALIZE = 3


@dataclass(frozen=True)
class RankCounts:
    rank: int
    pid: int
    broadcast: int
    allreduce: int
    issued: int
    completed: int
    comm_state: int
    async_error: int
    updated_ns: int

    @property
    def launched(self) -> int:
        """Every collective NCCL counts (Broadcast + AllReduce here)."""
        return self.broadcast + self.allreduce


@dataclass(frozen=True)
class RankInfo:
    rank: int
    pid: int
    host: str
    gpu: int
    world: int
    local_rank: int


@dataclass(frozen=True)
class FaultRecord:
    fault: str
    rank: int
    pid: int
    step: int
    wall: float
    monotonic: float
    launched: int  # the rank's launched count when the fault began


class CountsSlot:
    """One rank's writable slot in counts.bin."""

    def __init__(self, directory: Path, rank: int) -> None:
        if not 0 <= rank < MAX_RANKS:
            raise ValueError(f"rank {rank} outside 0..{MAX_RANKS - 1}")
        path = directory / COUNTS_FILE
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if os.fstat(fd).st_size < MAX_RANKS * SLOT.size:
                os.ftruncate(fd, MAX_RANKS * SLOT.size)
            self._map = mmap.mmap(fd, MAX_RANKS * SLOT.size)
        finally:
            os.close(fd)
        self._offset = rank * SLOT.size
        self.rank = rank
        self.values = [os.getpid(), 0, 0, 0, 0, COMM_NONE, 0, time.monotonic_ns()]
        self._flush()

    def _flush(self) -> None:
        self.values[7] = time.monotonic_ns()
        SLOT.pack_into(self._map, self._offset, *self.values)

    def bump(
        self, *, broadcast: int = 0, allreduce: int = 0, issued: int = 0, completed: int = 0
    ) -> None:
        self.values[1] += broadcast
        self.values[2] += allreduce
        self.values[3] += issued
        self.values[4] += completed
        self._flush()

    def set_state(self, comm_state: int | None = None, async_error: int | None = None) -> None:
        if comm_state is not None:
            self.values[5] = comm_state
        if async_error is not None:
            self.values[6] = async_error
        self._flush()

    @property
    def launched(self) -> int:
        return self.values[1] + self.values[2]


def read_counts(directory: Path) -> dict[int, RankCounts]:
    """Every slot a rank has written (pid non-zero), by rank."""
    try:
        data = (directory / COUNTS_FILE).read_bytes()
    except FileNotFoundError:
        return {}
    out: dict[int, RankCounts] = {}
    for rank in range(min(MAX_RANKS, len(data) // SLOT.size)):
        values = SLOT.unpack_from(data, rank * SLOT.size)
        if values[0]:
            out[rank] = RankCounts(rank, *values)
    return out


def write_json(path: Path, payload: dict[str, Any]) -> None:
    """Atomic write: readers see the old file or the new one, never half of one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(payload))
    os.replace(tmp, path)


def write_rank_info(directory: Path, info: RankInfo) -> None:
    write_json(directory / f"rank-{info.rank}.json", asdict(info))


def read_rank_infos(directory: Path) -> dict[int, RankInfo]:
    out: dict[int, RankInfo] = {}
    for path in sorted(directory.glob("rank-*.json")):
        with contextlib.suppress(OSError, ValueError, TypeError):
            info = RankInfo(**json.loads(path.read_text()))
            out[info.rank] = info
    return out


def write_fault(directory: Path, record: FaultRecord) -> None:
    path = directory / FAULT_FILE
    if not path.exists():  # the first rank to fault owns the record (network_hang: all do)
        write_json(path, asdict(record))


def read_fault(directory: Path) -> FaultRecord | None:
    try:
        return FaultRecord(**json.loads((directory / FAULT_FILE).read_text()))
    except (OSError, ValueError, TypeError):
        return None


def process_state(pid: int) -> str:
    """The kernel's one-letter state of a process (R, S, D, T, t, Z...), or "" when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return ""
    return stat[stat.rfind(b")") + 2 :][:1].decode()
