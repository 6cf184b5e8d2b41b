"""Opening a job user's files from a daemon that runs as root, without reading for the user
what the user could not read.

The job's output path is chosen by the user: a symlink planted at `slurm-42.out` pointing to
`/etc/shadow` must not make a root sidecar read (and then quote in alerts) a root-only file.

Two strategies, picked by `open_user_file(..., strategy="auto")`:

* `as_user` (root, Linux): the open happens in a short-lived thread whose *filesystem*
  credentials (fsuid, fsgid, supplementary groups) are the job user's. The kernel then answers
  exactly as it would for the user: symlinks, ACLs, SELinux, and NFS with root squash included.
  fsuid and the raw `setgroups` system call change only the calling thread (glibc's wrappers
  for setuid/setgroups would change every thread), and a non-zero fsuid drops the thread's
  CAP_DAC_* capabilities, so the daemon's other threads keep root's rights.
* `nofollow` (not root, or an architecture whose system call numbers we do not know): walk the
  path one component at a time with `openat(O_NOFOLLOW)`, refuse any symbolic link, and check
  the permission bits of every directory and the file against the user's uid and groups.

Either way only regular files are returned (a FIFO or device is refused), and a refusal raises
`RefusedFile` with a bounded `reason` and a message that names the path and the user.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import platform
import pwd
import stat
import threading
from dataclasses import dataclass
from typing import BinaryIO

from monitor.errors import RankwatchError

# Raw system call numbers for setgroups (per thread, unlike the glibc wrapper).
_SETGROUPS_SYSCALL = {"x86_64": 116, "aarch64": 159, "ppc64le": 81}

REASONS = (
    "symlink",
    "permission_denied",
    "not_found",
    "not_regular_file",
    "unsafe_path",
    "open_failed",
)


class RefusedFile(RankwatchError):
    """A file was not opened on the user's behalf. `reason` is one of REASONS."""

    def __init__(self, path: str, reason: str, detail: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"refused to read {path}: {detail}")


@dataclass(frozen=True)
class UserIdentity:
    """The job user whose rights bound what the daemon may read."""

    uid: int
    gid: int
    groups: tuple[int, ...]
    name: str = ""

    @classmethod
    def lookup(cls, uid: int, gid: int | None = None) -> UserIdentity:
        """The user's primary and supplementary groups from the passwd/group databases."""
        try:
            entry = pwd.getpwuid(uid)
        except KeyError:
            primary = gid if gid is not None else uid
            return cls(uid=uid, gid=primary, groups=(primary,), name=str(uid))
        primary = gid if gid is not None else entry.pw_gid
        try:
            groups = tuple(sorted(set(os.getgrouplist(entry.pw_name, primary))))
        except OSError:
            groups = (primary,)
        return cls(uid=uid, gid=primary, groups=groups, name=entry.pw_name)

    def describe(self) -> str:
        return f"user {self.name or self.uid} (uid {self.uid})"


def choose_strategy(user: UserIdentity | None) -> str:
    """`direct` when no other user is involved, `as_user` for root, else `nofollow`."""
    if user is None or user.uid == os.geteuid():
        return "direct"
    if os.geteuid() == 0 and platform.machine() in _SETGROUPS_SYSCALL:
        return "as_user"
    return "nofollow"


def open_user_file(path: str, user: UserIdentity | None, strategy: str = "auto") -> BinaryIO:
    """Open `path` for reading as `user` would be allowed to; raise RefusedFile otherwise."""
    if not path.startswith("/"):
        raise RefusedFile(path, "unsafe_path", "the path is not absolute")
    chosen = choose_strategy(user) if strategy == "auto" else strategy
    if chosen == "direct" or user is None:
        fd = _open_direct(path)
    elif chosen == "as_user":
        fd = _open_as_user(path, user)
    elif chosen == "nofollow":
        fd = _open_nofollow(path, user)
    else:
        raise ValueError(f"unknown strategy {strategy!r}")
    try:
        _require_regular(path, os.fstat(fd))
    except RefusedFile:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb", buffering=0)


_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def _open_direct(path: str) -> int:
    try:
        _require_regular(path, os.stat(path))
        return os.open(path, _READ_FLAGS)
    except OSError as exc:
        raise _translate(path, exc, None) from exc


def _require_regular(path: str, st: os.stat_result) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise RefusedFile(path, "not_regular_file", "it is not a regular file")


def _translate(path: str, exc: OSError, user: UserIdentity | None) -> RefusedFile:
    who = user.describe() if user else "this process"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return RefusedFile(path, "permission_denied", f"{who} may not read it")
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return RefusedFile(path, "not_found", "no such file")
    if exc.errno == errno.ELOOP:
        return RefusedFile(path, "symlink", "it is a symbolic link")
    return RefusedFile(path, "open_failed", f"{exc.strerror or exc}")


# ---------------------------------------------------------------------------------------
# as_user: per-thread filesystem credentials


class _Credentials:
    def __init__(self) -> None:
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.setgroups_nr = _SETGROUPS_SYSCALL[platform.machine()]

    def set_fs_ids(self, uid: int, gid: int, groups: tuple[int, ...]) -> None:
        array = (ctypes.c_uint * max(1, len(groups)))(*groups)
        if self.libc.syscall(self.setgroups_nr, ctypes.c_size_t(len(groups)), array) != 0:
            raise OSError(ctypes.get_errno(), "setgroups failed")
        self.libc.setfsgid(gid)
        self.libc.setfsuid(uid)
        # setfsuid returns the previous value and cannot report failure; a second call with
        # the same id returns the current one, which must now be the user's.
        if self.libc.setfsuid(uid) != uid or self.libc.setfsgid(gid) != gid:
            raise OSError(errno.EPERM, "setfsuid/setfsgid did not take effect")


_credentials: _Credentials | None = None
_credentials_lock = threading.Lock()


def _get_credentials() -> _Credentials:
    global _credentials
    with _credentials_lock:
        if _credentials is None:
            _credentials = _Credentials()
        return _credentials


def _open_as_user(path: str, user: UserIdentity) -> int:
    creds = _get_credentials()
    outcome: list[int | BaseException] = []

    def worker() -> None:
        # This thread's credentials never go back to root: it opens one file and ends.
        try:
            creds.set_fs_ids(user.uid, user.gid, user.groups)
            # stat first so that a FIFO or device is never opened, even by the user's rights
            _require_regular(path, os.stat(path))
            outcome.append(os.open(path, _READ_FLAGS))
        except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
            outcome.append(exc)

    thread = threading.Thread(target=worker, name="rankwatch-open-as-user", daemon=True)
    thread.start()
    thread.join()
    result = outcome[0] if outcome else RuntimeError("open thread died")
    if isinstance(result, int):
        return result
    if isinstance(result, RefusedFile):
        raise result
    if isinstance(result, OSError):
        raise _translate(path, result, user) from result
    raise RefusedFile(path, "open_failed", f"opening as {user.describe()} failed: {result}")


# ---------------------------------------------------------------------------------------
# nofollow: openat walk and permission bits


def may_access(st: os.stat_result, user: UserIdentity, want: int) -> bool:
    """Whether the permission bits grant `want` (a mask of 4=read, 2=write, 1=search)."""
    if user.uid == 0:
        return True
    if st.st_uid == user.uid:
        bits = (st.st_mode >> 6) & 7
    elif st.st_gid in user.groups or st.st_gid == user.gid:
        bits = (st.st_mode >> 3) & 7
    else:
        bits = st.st_mode & 7
    return bits & want == want


def _open_nofollow(path: str, user: UserIdentity) -> int:
    parts = [part for part in path.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise RefusedFile(path, "unsafe_path", "the path contains '..'")
    if not parts:
        raise RefusedFile(path, "not_regular_file", "it is a directory")
    dir_fd = os.open("/", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for depth, name in enumerate(parts):
            here = "/" + "/".join(parts[:depth])
            if not may_access(os.fstat(dir_fd), user, 1):
                raise RefusedFile(
                    path, "permission_denied", f"{user.describe()} may not enter {here}"
                )
            try:
                st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except OSError as exc:
                raise _translate(path, exc, user) from exc
            if stat.S_ISLNK(st.st_mode):
                link = "/" + "/".join(parts[: depth + 1])
                raise RefusedFile(path, "symlink", f"{link} is a symbolic link")
            last = depth == len(parts) - 1
            if last:
                _require_regular(path, st)
                if not may_access(st, user, 4):
                    raise RefusedFile(
                        path, "permission_denied", f"{user.describe()} may not read it"
                    )
                try:
                    return os.open(name, _READ_FLAGS | os.O_NOFOLLOW, dir_fd=dir_fd)
                except OSError as exc:
                    raise _translate(path, exc, user) from exc
            try:
                next_fd = os.open(
                    name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd
                )
            except OSError as exc:
                raise _translate(path, exc, user) from exc
            os.close(dir_fd)
            dir_fd = next_fd
        raise AssertionError("unreachable")  # pragma: no cover
    finally:
        with contextlib.suppress(OSError):
            os.close(dir_fd)
