"""A cgroup per sandbox, where the worker has a delegated cgroup v2 subtree (SandboxOptions.cgroup_root).

Without one (the default, and the machines CI runs on) a sandbox is measured through its own procfs and
stopped by the memory watchdog (process.py). With one, each sandbox runs in a child group of its own, and
the kernel does what the watchdog can only approximate:

- memory.max bounds every page charged to the group: anonymous memory, tmpfs and POSIX shared memory, memfd,
  System V segments, socket buffers; memory.events counts the OOM kills, so a kill reads as a memory verdict;
- pids.max bounds the tasks (threads included) the sandbox may hold at once;
- cpu.stat's usage_usec counts the CPU time of every task that ever ran in the group, exited ones included.

The sandbox's first process joins the group before it executes anything (join_command), so nothing of it
ever runs outside. The watchdog judges the group's unreclaimable memory (held_bytes) against the sandbox's
limit, beside what it reads through procfs; memory.max sits FILE_CACHE_HEADROOM_BYTES above that limit, since
memory.current also counts the page cache of the libraries the sandbox maps, which the kernel reclaims first.
The group is killed and removed when the sandbox closes.
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

CONTROLLERS = ("memory", "pids", "cpu")
FILE_CACHE_HEADROOM_BYTES = 1 << 30
# Every task of a sandbox at once, threads included: bubblewrap's two, the harness, the ranks of a distributed
# problem and their threads (gloo's, torch's).
TASKS_MAX = 512
EMPTY_TIMEOUT_S = 10.0


class CgroupUnavailable(Exception):
    """The delegated subtree named cannot hold sandboxes (not cgroup v2, not writable, a controller missing)."""


class Delegated:
    """The delegated subtree: a cgroup v2 directory this process may create children in."""

    def __init__(self, root: Path):
        self.root = Path(root)
        controllers = _read(self.root / "cgroup.controllers")
        if controllers is None:
            raise CgroupUnavailable(f"{self.root} is not a cgroup v2 directory (no cgroup.controllers)")
        missing = [name for name in CONTROLLERS if name not in controllers.split()]
        if missing:
            raise CgroupUnavailable(f"{self.root} does not offer the {', '.join(missing)} controller(s)")
        enabled = (_read(self.root / "cgroup.subtree_control") or "").split()
        wanted = [name for name in CONTROLLERS if name not in enabled]
        if wanted:
            try:
                _write(self.root / "cgroup.subtree_control", " ".join(f"+{name}" for name in wanted))
            except OSError as error:
                raise CgroupUnavailable(f"cannot enable {', '.join(wanted)} under {self.root}: {error}") from None

    def create(self, *, memory_limit_bytes: int, pids_max: int = TASKS_MAX) -> SandboxGroup:
        """A new child group for one sandbox, its limits set before anything joins it."""
        path = self.root / f"sandbox-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            path.mkdir()
            _write(path / "memory.max", str(int(memory_limit_bytes) + FILE_CACHE_HEADROOM_BYTES))
            # Past memory.max the group's tasks are OOM-killed rather than pushed into swap, which would hide
            # the excess from memory.current.
            if (path / "memory.swap.max").exists():
                _write(path / "memory.swap.max", "0")
            _write(path / "pids.max", str(int(pids_max)))
        except OSError as error:
            raise CgroupUnavailable(f"cannot create a sandbox group under {self.root}: {error}") from None
        return SandboxGroup(path)


class SandboxGroup:
    """One sandbox's group: what its first process joins, and what the trusted side reads of it."""

    def __init__(self, path: Path):
        self.path = path

    def join_command(self, argv: list[str]) -> list[str]:
        """argv, run by a shell that first moves itself into the group, so every process it starts is inside."""
        return ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', str(self.path / "cgroup.procs"), *argv]

    def memory_bytes(self) -> int:
        """Bytes charged to the group now (memory.current), the page cache of the files it read included."""
        return int(_read(self.path / "memory.current") or 0)

    def held_bytes(self) -> int:
        """What the group holds that the kernel cannot reclaim: anonymous memory, shared memory and tmpfs
        (memfd and System V segments among it), socket buffers and kernel memory, from memory.stat. The page
        cache of the interpreter and torch's libraries, which memory.current also counts, is left out."""
        stat = _keyed(_read(self.path / "memory.stat"))
        kernel = stat.get("kernel", stat.get("kernel_stack", 0) + stat.get("pagetables", 0)
                          + stat.get("slab_unreclaimable", 0))
        return stat.get("anon", 0) + stat.get("shmem", 0) + stat.get("sock", 0) + kernel

    def peak_bytes(self) -> int | None:
        """The most ever charged to the group (memory.peak, on kernels that have it)."""
        peak = _read(self.path / "memory.peak")
        return int(peak) if peak is not None else None

    def oom_kills(self) -> int:
        """How many of the group's tasks the kernel killed for its memory.max."""
        return _keyed(_read(self.path / "memory.events")).get("oom_kill", 0)

    def cpu_seconds(self) -> float:
        """CPU time of every task that ever ran in the group, exited ones included."""
        return _keyed(_read(self.path / "cpu.stat")).get("usage_usec", 0) / 1e6

    def close(self) -> bool:
        """Kill whatever is left in the group and remove it; False if it could not be removed (logged by the
        caller's sweep: a group left behind holds no process, only its counters)."""
        if (self.path / "cgroup.kill").exists():
            try:
                _write(self.path / "cgroup.kill", "1")
            except OSError:
                pass
        deadline = time.monotonic() + EMPTY_TIMEOUT_S
        while _keyed(_read(self.path / "cgroup.events")).get("populated", 0) and time.monotonic() < deadline:
            time.sleep(0.01)
        try:
            self.path.rmdir()
        except OSError:
            return False
        return True


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _write(path: Path, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _keyed(text: str | None) -> dict[str, int]:
    """The `name value` lines of a cgroup file such as cpu.stat or memory.events."""
    found = {}
    for line in (text or "").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            found[parts[0]] = int(parts[1])
    return found


__all__ = ["CgroupUnavailable", "Delegated", "SandboxGroup"]
