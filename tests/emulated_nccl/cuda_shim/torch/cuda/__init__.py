"""A CPU stand-in for the part of torch.cuda a training loop waits in.

On a real NCCL job the host does not block inside `all_reduce`: it launches the kernel on the
stream and goes on, and blocks later in `torch.cuda.synchronize()` (or `.item()`, which syncs).
The emulated job launches gloo collectives asynchronously onto a `Stream` and waits here, so
py-spy shows its host in `synchronize (.../torch/cuda/__init__.py)` like a CUDA job's.

Every wait is one C call made from the frame that py-spy should show on top.
"""

from __future__ import annotations

import _thread
from collections.abc import Callable
from typing import Any


class Stream:
    """The rank's one stream: work launched and not yet waited for, and whether a kernel on it
    never finishes (then nothing queued behind it runs, and every wait blocks forever)."""

    def __init__(
        self, on_complete: Callable[[int], None], on_peer_failure: Callable[[], None]
    ) -> None:
        self._pending: list[Any] = []  # torch Work handles (None: a launch that needs no wait)
        self._taken = 0
        self._on_complete = on_complete
        self._on_peer_failure = on_peer_failure
        # Held while a kernel never ends: acquiring it is how a host waits on that GPU.
        self.hung_kernel = _thread.allocate_lock()
        self.hung = False
        self.raise_on_peer_failure = False

    def launch(self, work: Any) -> None:
        self._pending.append(work)

    def take(self) -> list[Any]:
        """The launched work a wait must finish (handles of collectives that need one)."""
        pending, self._pending = self._pending, []
        self._taken = len(pending)
        return [w for w in pending if w is not None]

    def finished(self) -> None:
        self._on_complete(self._taken)

    def hang(self) -> None:
        """A kernel that never ends is now at the head of the stream."""
        if not self.hung:
            self.hung = True
            self.hung_kernel.acquire()

    def peer_failed(self, error: RuntimeError) -> None:
        """A peer's transport broke (it died). NCCL flags the communicator and its kernels keep
        spinning, so the host goes on waiting (or, if so configured, the error surfaces)."""
        if self.raise_on_peer_failure:
            raise error
        self._on_peer_failure()
        self.hang()


def synchronize(stream: Stream) -> None:
    """Wait until every kernel launched on the stream has finished."""
    pending = stream.take()
    if stream.hung:
        stream.hung_kernel.acquire()  # the GPU never gets past the hung kernel
    try:
        for work in pending:
            work.wait()
    except RuntimeError as error:
        stream.peer_failed(error)
        stream.hung_kernel.acquire()
    stream.finished()
