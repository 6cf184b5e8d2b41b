"""Reading a job user's files as root never reads what the user could not."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from monitor.sources.user_file import (
    RefusedFile,
    UserIdentity,
    choose_strategy,
    may_access,
    open_user_file,
)

NOBODY = UserIdentity.lookup(65534)
needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="impersonating another user needs root (the daemon runs as root)"
)


@pytest.fixture
def job_dir() -> Iterator[Path]:
    """A work dir the job user may write, next to a root-only secret; outside pytest's own
    0700 temporary tree so that the job user can reach it."""
    tmp_path = Path(tempfile.mkdtemp(prefix="rankwatch-safe-open-"))
    tmp_path.chmod(0o755)
    secret = tmp_path / "secret"
    secret.write_text("root only\n")
    secret.chmod(0o600)
    work = tmp_path / "work"
    work.mkdir()
    work.chmod(0o777)
    public = work / "public.out"
    public.write_text("step 1\n")
    public.chmod(0o644)
    yield tmp_path
    shutil.rmtree(tmp_path)


@needs_root
@pytest.mark.parametrize("strategy", ["auto", "as_user", "nofollow"])
def test_planted_symlink_to_root_only_file_is_refused(job_dir: Path, strategy: str) -> None:
    """A symlink the user planted at the output path, pointing at a root-only file, is
    refused and the refusal names the path and why."""
    planted = job_dir / "work" / "slurm-42.out"
    planted.symlink_to(job_dir / "secret")
    with pytest.raises(RefusedFile) as info:
        open_user_file(str(planted), NOBODY, strategy)
    assert info.value.reason in ("permission_denied", "symlink")
    assert str(planted) in str(info.value)
    # and as root without a user the same file would have been readable: the guard mattered
    assert (job_dir / "secret").read_text() == "root only\n"


@needs_root
def test_as_user_follows_symlinks_the_user_may_read(job_dir: Path) -> None:
    """With the user's rights, a symlink to a file the user can read is fine (e.g. a
    /home that is a link to a parallel file system)."""
    link = job_dir / "work" / "link.out"
    link.symlink_to(job_dir / "work" / "public.out")
    with open_user_file(str(link), NOBODY, "as_user") as handle:
        assert handle.read() == b"step 1\n"


@needs_root
def test_as_user_refusal_reason_is_permission(job_dir: Path) -> None:
    """Opened with the user's rights, the root-only file fails as the user's open would."""
    with pytest.raises(RefusedFile) as info:
        open_user_file(str(job_dir / "secret"), NOBODY, "as_user")
    assert info.value.reason == "permission_denied"
    assert "nobody" in str(info.value)


@needs_root
def test_as_user_leaves_other_threads_with_root_rights(job_dir: Path) -> None:
    """Per-thread credentials: while and after a file is opened as the user, the calling
    thread and others still read root-only files."""
    results: list[str] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            results.append((job_dir / "secret").read_text())

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for _ in range(20):
            with open_user_file(str(job_dir / "work" / "public.out"), NOBODY, "as_user"):
                pass
    finally:
        stop.set()
        thread.join()
    assert results and set(results) == {"root only\n"}
    assert (job_dir / "secret").read_text() == "root only\n"
    assert os.geteuid() == 0


@needs_root
def test_auto_picks_as_user_for_root() -> None:
    """Running as root, another user's files are opened with that user's rights."""
    assert choose_strategy(NOBODY) == "as_user"
    assert choose_strategy(None) == "direct"
    assert choose_strategy(UserIdentity.lookup(os.geteuid())) == "direct"


def test_nofollow_refuses_every_symlink(tmp_path: Path) -> None:
    """The walk strategy refuses a symlink in any component, even to a readable file."""
    real = tmp_path / "real"
    real.mkdir()
    (real / "f.out").write_text("x")
    (tmp_path / "linkdir").symlink_to(real)
    me = UserIdentity.lookup(os.geteuid())
    with pytest.raises(RefusedFile) as info:
        open_user_file(str(tmp_path / "linkdir" / "f.out"), me, "nofollow")
    assert info.value.reason == "symlink"
    assert str(tmp_path / "linkdir") in str(info.value)
    with open_user_file(str(real / "f.out"), me, "nofollow") as handle:
        assert handle.read() == b"x"


def test_nofollow_checks_directory_search_permission(tmp_path: Path) -> None:
    """A file inside a directory the user may not enter is refused by the walk."""
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "f.out").write_text("x")
    (locked / "f.out").chmod(0o644)
    locked.chmod(0o700)
    tmp_path.chmod(0o755)
    stranger = UserIdentity(uid=54321, gid=54321, groups=(54321,), name="stranger")
    with pytest.raises(RefusedFile) as info:
        open_user_file(str(locked / "f.out"), stranger, "nofollow")
    assert info.value.reason == "permission_denied"
    assert "may not enter" in str(info.value)


@pytest.mark.parametrize("strategy", ["direct", "nofollow"])
def test_non_regular_files_are_refused(tmp_path: Path, strategy: str) -> None:
    """A FIFO or device at the output path is never read (it could block or have effects)."""
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    me = UserIdentity.lookup(os.geteuid())
    for path in (str(fifo), "/dev/null"):
        with pytest.raises(RefusedFile) as info:
            open_user_file(path, me, strategy)
        assert info.value.reason == "not_regular_file"


def test_missing_file_and_relative_path() -> None:
    """A missing file and a relative path are refused with their own reasons."""
    with pytest.raises(RefusedFile) as missing:
        open_user_file("/nonexistent/slurm-1.out", None)
    assert missing.value.reason == "not_found"
    with pytest.raises(RefusedFile) as relative:
        open_user_file("slurm-1.out", None)
    assert relative.value.reason == "unsafe_path"


def test_nofollow_refuses_dotdot() -> None:
    """'..' is refused by the walk rather than resolved lexically."""
    with pytest.raises(RefusedFile) as info:
        open_user_file("/tmp/../etc/passwd", NOBODY, "nofollow")
    assert info.value.reason == "unsafe_path"


def test_may_access_owner_group_other() -> None:
    """Permission bits are read in owner, then group, then other order."""
    user = UserIdentity(uid=1000, gid=100, groups=(100, 200))

    def st(uid: int, gid: int, mode: int) -> os.stat_result:
        return os.stat_result((mode, 0, 0, 1, uid, gid, 0, 0, 0, 0))

    assert may_access(st(1000, 0, 0o400), user, 4)
    assert not may_access(st(1000, 0, 0o044), user, 4)  # owner bits decide for the owner
    assert may_access(st(0, 200, 0o040), user, 4)
    assert not may_access(st(0, 300, 0o040), user, 4)
    assert may_access(st(0, 300, 0o004), user, 4)
    assert not may_access(st(0, 300, 0o003), user, 4)
    assert may_access(st(0, 300, 0o001), user, 1)
