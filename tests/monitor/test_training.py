"""The opt-in that lets rankwatch read a rank's stack under Yama ptrace_scope=1."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from monitor.training import find_rankwatch

REPO = Path(__file__).resolve().parents[2]


def test_finds_the_nearest_rankwatch_ancestor() -> None:
    """A process started (indirectly) by a process named rankwatch finds that process."""
    probe = textwrap.dedent(
        """
        import os, sys
        sys.path.insert(0, sys.argv[1])
        from pathlib import Path
        from monitor.training import find_rankwatch
        print(find_rankwatch(os.getpid(), Path("/proc")), os.getppid())
        """
    )
    script = f'{sys.executable} -c "$0" "$1"; true'
    done = subprocess.run(
        ["bash", "-c", f'exec -a rankwatch bash -c \'{script}\' "$0" "$1"', probe, str(REPO)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    found, parent = done.stdout.split()
    assert found == parent


def test_no_rankwatch_ancestor_gives_none() -> None:
    """Outside rankwatch (this test run) nothing is found."""
    assert find_rankwatch(os.getpid(), Path("/proc")) is None


def test_allow_is_harmless_and_covers_forked_children() -> None:
    """allow_rankwatch() never raises (False where Yama is absent), and children forked after
    it run the same call through the at-fork hook without failing."""
    program = textwrap.dedent(
        """
        import os, sys
        sys.path.insert(0, sys.argv[1])
        from monitor.training import allow_rankwatch
        applied = allow_rankwatch()
        yama = os.path.exists("/proc/sys/kernel/yama/ptrace_scope")
        assert applied == yama, (applied, yama)
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        print("ok", os.waitstatus_to_exitcode(status))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", program, str(REPO)], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split() == ["ok", "0"], done.stderr
