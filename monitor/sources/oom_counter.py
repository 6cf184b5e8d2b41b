"""The kernel's OOM-kill counter of a process's memory cgroup (v1 `memory.oom_control`,
v2 `memory.events`): a rank killed by SIGKILL while that counter rose was killed by the OOM
killer, however much memory the node as a whole had left."""

from __future__ import annotations

from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")


def memory_cgroup(pid: int, root: Path = CGROUP_ROOT) -> Path | None:
    """The directory of the process's memory cgroup, or None when it cannot be found."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return None
    v2: str | None = None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _id, controllers, path = parts
        if "memory" in controllers.split(","):
            candidate = root / "memory" / path.lstrip("/")
            return candidate if candidate.is_dir() else None
        if controllers == "":
            v2 = path
    if v2 is not None:
        candidate = root / v2.lstrip("/")
        return candidate if (candidate / "memory.events").exists() else None
    return None


def oom_kills(cgroup: Path) -> int | None:
    """How many processes the OOM killer has killed in this cgroup (None: unreadable)."""
    for name in ("memory.events", "memory.oom_control"):
        try:
            text = (cgroup / name).read_text()
        except OSError:
            continue
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
    return None
