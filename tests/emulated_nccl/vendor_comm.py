"""A communication library rankwatch's frame table does not know.

With `RW_EMU_HOST_WAIT=vendor` the ranks wait for their collectives here, in a function no
rule recognises as a wait: every waiting rank looks like "user code" to the state table, and
only the sameness of their stacks (the odd one out) tells the waiting majority from the rank
holding them up.
"""

from __future__ import annotations

from tests.emulated_nccl.cuda_shim.torch.cuda import Stream


class Engine:
    @staticmethod
    def wait_for_peers(stream: Stream) -> None:
        """Block until the stream's launched collectives complete (inline, so that this is the
        innermost Python frame while it waits)."""
        pending = stream.take()
        if stream.hung:
            stream.hung_kernel.acquire()
        try:
            for work in pending:
                work.wait()
        except RuntimeError as error:
            stream.peer_failed(error)
            stream.hung_kernel.acquire()
        stream.finished()
