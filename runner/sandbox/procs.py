"""Trusted-side views of processes through procfs: trees, resident memory, CPU time, priority, and killing.

Every reading goes through a ProcView, a procfs instance held open by a directory descriptor: the host's
`/proc`, or a sandbox's own, reached as `/proc/<its pid-namespace init>/root/proc`. A sandbox's own procfs
lists the processes of its pid namespace and nothing else, so observing a sandbox costs a few reads of its
own processes rather than a scan of every process on the host, and is just as complete (the listing comes
from the kernel's pid table of that namespace; nothing inside can leave it). Pids read through a view are
numbered as that view numbers them; signals and scheduling calls take host pids.
"""

from __future__ import annotations

import os
import signal
import time

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
CAP_SYS_NICE = 23


class ProcView:
    """One procfs instance, held open, so the view cannot silently turn into another namespace's."""

    def __init__(self, path: str = "/proc"):
        self.fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)

    @property
    def device(self) -> int:
        """The procfs instance's device number: a pid namespace's own procfs differs from the host's."""
        return os.fstat(self.fd).st_dev

    def pids(self) -> list[int]:
        """Every process this procfs lists."""
        return [int(name) for name in self._listing(".") if name.isdigit()]

    def tasks(self, pid: int) -> list[str]:
        """The thread ids of pid, as names under its task directory."""
        return self._listing(f"{pid}/task")

    def _listing(self, relative: str) -> list[str]:
        # Listed through a descriptor of its own: os.listdir on a shared one reads from, and rewinds, the
        # offset every duplicate shares, so two threads listing at once (the memory watch and a CPU sample)
        # each saw part of the directory, often none of it.
        try:
            fd = os.open(relative, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=self.fd)
        except OSError:
            return []
        try:
            return os.listdir(fd)
        except OSError:
            return []
        finally:
            os.close(fd)

    def read(self, relative: str) -> bytes | None:
        """A whole procfs file, or None when it is gone or unreadable."""
        try:
            fd = os.open(relative, os.O_RDONLY | os.O_CLOEXEC, dir_fd=self.fd)
        except OSError:
            return None
        try:
            chunks = []
            while chunk := os.read(fd, 1 << 16):
                chunks.append(chunk)
            return b"".join(chunks)
        except OSError:
            return None
        finally:
            os.close(fd)

    def write(self, relative: str, data: bytes) -> bool:
        try:
            fd = os.open(relative, os.O_WRONLY | os.O_CLOEXEC, dir_fd=self.fd)
        except OSError:
            return False
        try:
            os.write(fd, data)
            return True
        except OSError:
            return False
        finally:
            os.close(fd)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


HOST = ProcView()


def namespace_view(init_pid: int) -> ProcView | None:
    """The procfs of the pid namespace whose init is init_pid (a host pid), or None while that process
    still sees the host's (before its new root is in place) or cannot be inspected."""
    try:
        view = ProcView(f"/proc/{init_pid}/root/proc")
    except OSError:
        return None
    if view.device == HOST.device or not view.pids():
        view.close()
        return None
    return view


def _stat_fields(pid: int, view: ProcView = HOST) -> list[str] | None:
    raw = view.read(f"{pid}/stat")
    if raw is None:
        return None
    text = raw.decode("ascii", "replace")
    # The command name sits in parentheses and may itself hold spaces or parentheses.
    return text[text.rfind(")") + 2:].split()


def exists(pid: int, view: ProcView = HOST) -> bool:
    """Whether pid is a process of the view (a zombie still is, until its parent reaps it)."""
    return _stat_fields(pid, view) is not None


def tree(root: int) -> list[int]:
    """root and all its host descendants, by parent links, from a scan of every process on the host."""
    children: dict[int, list[int]] = {}
    for pid in HOST.pids():
        fields = _stat_fields(pid)
        if fields:
            children.setdefault(int(fields[1]), []).append(pid)
    found, pending = [], [root]
    while pending:
        pid = pending.pop()
        found.append(pid)
        pending.extend(children.get(pid, ()))
    return found


def children(pid: int) -> list[int]:
    """The host pids of pid's children, from each of its threads' children lists (no scan of the host).

    The kernel's lists are exact only while no child exits during the read, so this serves trusted
    processes alone (a sandbox before any submission reaches it), never the observation of a submission.
    """
    found = []
    for task in HOST.tasks(pid):
        raw = HOST.read(f"{pid}/task/{task}/children")
        found += [int(child) for child in (raw or b"").split()]
    return found


def descendants(root: int) -> list[int]:
    """root and its descendants through children(); for trusted process trees only (see children())."""
    found, pending = [], [root]
    while pending:
        pid = pending.pop()
        found.append(pid)
        pending.extend(children(pid))
    return found


def parents(pids: list[int], view: ProcView = HOST) -> set[int]:
    """The parent pids of the given processes."""
    found = set()
    for pid in pids:
        fields = _stat_fields(pid, view)
        if fields:
            found.add(int(fields[1]))
    return found


def owned_by(uid: int) -> list[int]:
    """Every host process whose real uid is uid."""
    pids = []
    for pid in HOST.pids():
        raw = HOST.read(f"{pid}/status")
        if raw is None:
            continue
        for line in raw.splitlines():
            if line.startswith(b"Uid:"):
                try:
                    if int(line.split()[1]) == uid:
                        pids.append(pid)
                except (ValueError, IndexError):
                    pass
                break
    return pids


def rss_bytes(pids: list[int], view: ProcView = HOST) -> int:
    """The summed resident set of the given processes (shared pages counted once per process)."""
    total = 0
    for pid in pids:
        raw = view.read(f"{pid}/statm")
        try:
            total += int(raw.split()[1]) * PAGE_SIZE
        except (AttributeError, ValueError, IndexError):
            continue
    return total


def proportional_bytes(pids: list[int], view: ProcView = HOST) -> int:
    """The summed proportional set size (shared pages split between their users): slower, but what a tree
    of forked processes really holds, where summed resident sets count shared pages many times over."""
    total = 0
    for pid in pids:
        for line in (view.read(f"{pid}/smaps_rollup") or b"").splitlines():
            if line.startswith(b"Pss:"):
                try:
                    total += int(line.split()[1]) * 1024
                except (ValueError, IndexError):
                    pass
                break
    return total


def stat_clocks_ns(pid: int, view: ProcView = HOST) -> tuple[int, int] | None:
    """(own, reaped) CPU time of pid in nanoseconds: its user plus system time, exited threads included, and
    that of the children it has reaped; each of the four /proc/<pid>/stat fields is rounded down to a tick
    (1/CLOCK_TICKS s, 10 ms), so each figure is up to two ticks short."""
    fields = _stat_fields(pid, view)
    try:
        ticks = [int(value) for value in fields[11:15]]
    except (TypeError, ValueError):
        return None
    if len(ticks) < 4:
        return None
    scale = 1_000_000_000 // CLOCK_TICKS
    return (ticks[0] + ticks[1]) * scale, (ticks[2] + ticks[3]) * scale


def thread_clocks(pid: int, view: ProcView = HOST) -> dict[int, tuple[int, bool]]:
    """Each live thread of pid, by thread id: its CPU time in nanoseconds (schedstat, exact up to the last
    scheduler tick while it runs) and whether it is runnable. A thread that exits takes its clock along."""
    found = {}
    for task in view.tasks(pid):
        raw = view.read(f"{pid}/task/{task}/schedstat")
        stat = view.read(f"{pid}/task/{task}/stat") or b""
        try:
            found[int(task)] = int(raw.split()[0]), stat[stat.rfind(b")") + 2:][:1] == b"R"
        except (AttributeError, ValueError, IndexError):
            continue
    return found


def run_delay_ns(pid: int, view: ProcView = HOST) -> int | None:
    """How long pid's main thread has stood runnable waiting for a CPU, in nanoseconds (schedstat's second
    field); None once it is gone."""
    raw = view.read(f"{pid}/schedstat")
    try:
        return int(raw.split()[1])
    except (AttributeError, ValueError, IndexError):
        return None


def process_clock_ns(host_pid: int) -> int | None:
    """The CPU clock of a whole process by its host pid: every thread's time, exited threads included, in
    nanoseconds (clock_gettime on the process's CPU clock id, which Linux lets any process read); None once
    it is gone. The pid may be reused after that: the caller makes sure it was not (a pidfd)."""
    # MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED) in the kernel's posix-timers.h.
    try:
        return time.clock_gettime_ns((~host_pid << 3) | 2)
    except OSError:
        return None


def host_pid(pid: int, candidates: list[int]) -> int | None:
    """The host pid, among candidates, of the process numbered pid in its innermost pid namespace (the last
    number of its NSpid line), as a sandbox's own procfs numbers it: the namespace just below the host's for
    a bubblewrap sandbox, one below its zygote's for a forked one."""
    for candidate in candidates:
        for line in (HOST.read(f"{candidate}/status") or b"").splitlines():
            if line.startswith(b"NSpid:"):
                numbers = line.split()[1:]
                if len(numbers) > 1 and numbers[-1] == str(pid).encode():
                    return candidate
                break
    return None


def peak_rss_reset(pid: int, view: ProcView = HOST) -> int | None:
    """Reset pid's peak resident set to its current one; that current size, or None if not permitted."""
    if not view.write(f"{pid}/clear_refs", b"5"):
        return None
    return status_bytes(pid, "VmRSS", view)


def status_bytes(pid: int, key: str, view: ProcView = HOST) -> int | None:
    """A kB figure from /proc/<pid>/status (VmRSS, VmHWM...) in bytes."""
    prefix = key.encode() + b":"
    for line in (view.read(f"{pid}/status") or b"").splitlines():
        if line.startswith(prefix):
            try:
                return int(line.split()[1]) * 1024
            except (ValueError, IndexError):
                return None
    return None


def children_in(pid: int, view: ProcView) -> list[int]:
    """The processes whose parent is pid, from a scan of the view's stat files, in the order the namespace
    numbered them (a sandbox's pid namespace is new and numbers its processes as they start)."""
    return sorted(child for child in view.pids() if (_stat_fields(child, view) or [None, None])[1] == str(pid))


def written_bytes(pid: int, view: ProcView = HOST) -> int | None:
    """The bytes pid has passed to write(2)-like calls so far (wchar of /proc/<pid>/io: pipes, files and
    sockets written with write, writev and their kin), or None when it cannot be read."""
    for line in (view.read(f"{pid}/io") or b"").splitlines():
        if line.startswith(b"wchar:"):
            try:
                return int(line.split()[1])
            except (ValueError, IndexError):
                return None
    return None


def kill_all(pids: list[int]) -> None:
    """SIGKILL each host pid, ignoring those already gone."""
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


def can_raise_priority() -> bool:
    """Whether this process may move another process back from SCHED_IDLE (CAP_SYS_NICE; root has it)."""
    for line in (HOST.read("self/status") or b"").splitlines():
        if line.startswith(b"CapEff:"):
            return bool(int(line.split()[1], 16) >> CAP_SYS_NICE & 1)
    return False


def set_normal_priority(pids: list[int]) -> None:
    """Put every thread of the given host processes under the normal scheduling policy."""
    for pid in pids:
        for task in HOST.tasks(pid):
            try:
                os.sched_setscheduler(int(task), os.SCHED_OTHER, os.sched_param(0))
            except (ProcessLookupError, PermissionError):
                continue
