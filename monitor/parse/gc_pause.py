"""Pausing Python's cyclic garbage collector while a large tree of plain objects is built."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused(pause: bool = True) -> Iterator[None]:
    """Hold off cyclic collection for the block. Building hundreds of thousands of containers
    (a large JSON reply, an unpickled dump) triggers collections that rescan every object built
    so far, again and again; plain data forms no cycles, so collecting after the block frees
    the same memory. Only the caller that turned the collector off turns it back on, so nested
    and concurrent pauses are safe, and a collector the program disabled stays disabled."""
    pause = pause and gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if pause:
            gc.enable()
