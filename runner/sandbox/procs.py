"""Trusted-side views of processes through /proc: trees, resident memory, CPU time, and killing."""

from __future__ import annotations

import os
import signal
import time

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _stat_fields(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read().decode("ascii", "replace")
    except OSError:
        return None
    # The command name sits in parentheses and may itself hold spaces or parentheses.
    return raw[raw.rfind(")") + 2:].split()


def _all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def tree(root: int) -> list[int]:
    """root and all its descendants, by parent links (complete inside a pid namespace rooted there)."""
    children: dict[int, list[int]] = {}
    for pid in _all_pids():
        fields = _stat_fields(pid)
        if fields:
            children.setdefault(int(fields[1]), []).append(pid)
    found, pending = [], [root]
    while pending:
        pid = pending.pop()
        found.append(pid)
        pending.extend(children.get(pid, ()))
    return found


def parents(pids: list[int]) -> set[int]:
    """The parent pids of the given processes."""
    found = set()
    for pid in pids:
        fields = _stat_fields(pid)
        if fields:
            found.add(int(fields[1]))
    return found


def owned_by(uid: int) -> list[int]:
    """Every process whose real uid is uid."""
    pids = []
    for pid in _all_pids():
        try:
            with open(f"/proc/{pid}/status", "rb") as handle:
                for line in handle:
                    if line.startswith(b"Uid:"):
                        if int(line.split()[1]) == uid:
                            pids.append(pid)
                        break
        except (OSError, ValueError, IndexError):
            continue
    return pids


def rss_bytes(pids: list[int]) -> int:
    """The summed resident set of the given processes (shared pages counted once per process)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm", "rb") as handle:
                total += int(handle.read().split()[1]) * PAGE_SIZE
        except (OSError, ValueError, IndexError):
            continue
    return total


def proportional_bytes(pids: list[int]) -> int:
    """The summed proportional set size (shared pages split between their users): slower, but what a tree
    of forked processes really holds, where summed resident sets count shared pages many times over."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
                for line in handle:
                    if line.startswith(b"Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
        except (OSError, ValueError, IndexError):
            continue
    return total


def cpu_seconds(pids: list[int]) -> float:
    """User plus system CPU time of the given processes and of the children they have reaped."""
    ticks = 0
    for pid in pids:
        fields = _stat_fields(pid)
        if fields and len(fields) > 14:
            ticks += sum(int(value) for value in fields[11:15])
    return ticks / CLOCK_TICKS


def peak_rss_reset(pid: int) -> int | None:
    """Reset pid's peak resident set to its current one; that current size, or None if not permitted."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as handle:
            handle.write("5")
        return status_bytes(pid, "VmRSS")
    except OSError:
        return None


def status_bytes(pid: int, key: str) -> int | None:
    """A kB figure from /proc/<pid>/status (VmRSS, VmHWM...) in bytes."""
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(key.encode() + b":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def kill_all(pids: list[int]) -> None:
    """SIGKILL each pid, ignoring those already gone."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            continue


def kill_uid(uid: int, attempts: int = 20) -> list[int]:
    """SIGKILL every process of uid until none is left; the pids that remain (empty on success)."""
    remaining = owned_by(uid)
    for _ in range(attempts):
        if not remaining:
            break
        kill_all(remaining)
        time.sleep(0.01)
        remaining = owned_by(uid)
    return remaining


def thread_cpu_seconds(pids: list[int]) -> float:
    """CPU time of the live threads of the given processes, at nanosecond resolution (schedstat)."""
    total = 0
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/schedstat", "rb") as handle:
                    total += int(handle.read().split()[0])
            except (OSError, ValueError, IndexError):
                continue
    return total / 1e9
