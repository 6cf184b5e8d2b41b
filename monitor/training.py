"""For training scripts to import (rankwatch's one public API for them): let rankwatch read
this process's stack under Yama `ptrace_scope=1`, without root.

With `kernel.yama.ptrace_scope=1` (the default on Ubuntu and many distributions) a process may
read another's memory only if it is that process's ancestor, holds CAP_SYS_PTRACE, or was named
by it with `prctl(PR_SET_PTRACER, pid)`; the name then covers that pid and all its descendants.
In wrap mode rankwatch starts the job, but py-spy (rankwatch's child) is a sibling of the ranks,
not their ancestor, so it is refused. A training script can opt in:

    from monitor.training import allow_rankwatch
    allow_rankwatch()

at the top of the script, before the DataLoader starts its workers. It names the nearest
ancestor that is rankwatch (else any process of the same user) as allowed tracer, for this
process and, through an at-fork hook, for every process it forks later (DataLoader workers:
Yama does not pass the permission on to children). Workers started with the spawn or forkserver
method import the script again, so the call at the top covers them too.

Where Yama is absent or set to 0 the call changes nothing and returns False.
"""

from __future__ import annotations

import ctypes
import itertools
import os
from pathlib import Path

PR_SET_PTRACER = 0x59616D61
PR_SET_PTRACER_ANY = -1  # (unsigned long)-1 in the kernel headers

_registered = False


def allow_rankwatch(tracer_pid: int | None = None, *, proc_root: str = "/proc") -> bool:
    """Allow rankwatch (or `tracer_pid` and its descendants) to read this process and its future
    children. Returns True when Yama accepted the exception, False when it does not apply."""
    global _registered
    tracer = tracer_pid if tracer_pid is not None else find_rankwatch(os.getpid(), Path(proc_root))
    target = tracer if tracer is not None else PR_SET_PTRACER_ANY
    applied = _set_ptracer(target)
    if not _registered:
        _registered = True
        os.register_at_fork(after_in_child=lambda: _set_ptracer(target))
    return applied


def find_rankwatch(pid: int, proc_root: Path) -> int | None:
    """The nearest ancestor of `pid` whose command line is `rankwatch ...` or `-m monitor`."""
    current = _parent(pid, proc_root)
    while current is not None and current > 1:
        try:
            argv = (proc_root / str(current) / "cmdline").read_bytes().split(b"\0")
        except OSError:
            return None
        words = [os.path.basename(a.decode(errors="replace")) for a in argv if a]
        if "rankwatch" in words or _runs_module(words, "monitor"):
            return current
        current = _parent(current, proc_root)
    return None


def _runs_module(words: list[str], module: str) -> bool:
    return any(a == "-m" and b == module for a, b in itertools.pairwise(words))


def _parent(pid: int, proc_root: Path) -> int | None:
    try:
        stat = (proc_root / str(pid) / "stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rfind(")") + 2 :].split()[1])


def _set_ptracer(tracer: int) -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    arg = ctypes.c_ulong(tracer & ((1 << 64) - 1)) if tracer < 0 else ctypes.c_ulong(tracer)
    zero = ctypes.c_ulong(0)
    # Without Yama the kernel answers EINVAL: there is nothing to allow.
    return bool(libc.prctl(PR_SET_PTRACER, arg, zero, zero, zero) == 0)
