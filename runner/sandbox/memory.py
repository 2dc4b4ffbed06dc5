"""What a sandbox holds outside its processes' resident sets, as the trusted side reads it.

Resident and proportional sets (procs.py) count the pages mapped into a process. A sandbox can also hold
memory that is mapped nowhere, and the watchdog (process.py) adds what is measurable of it to the same
budget, `sandbox_memory_bytes`:

- its tmpfs mounts (/tmp and /dev/shm, and the tmpfs bubblewrap builds / and /dev on): the blocks in use,
  and a charge per inode in use, since an empty file, a directory or an extended attribute costs the kernel
  memory that no block count shows (3 KiB per empty file, measured on Linux 6.18);
- its network namespace's TCP and UDP sockets: the bytes queued, sent and not yet acknowledged or received
  and not yet read. Loopback TCP alone lets one connection queue several MiB.

The rest is refused or bounded in the sandbox itself (runner/harness/confine.py): memfd, System V IPC, POSIX
message queues and shared mappings are refused, pipes keep their 64 KiB, and Unix sockets their
default buffers, within the open-file limit. A tmpfs file that is also mapped is counted twice, in the
resident set and here; nothing a judged program does maps one.
"""

from __future__ import annotations

import os

from .procs import ProcView

TMPFS_INODE_BYTES = 4 << 10
SOCKET_TABLES = ("tcp", "tcp6", "udp", "udp6")
TCP_LISTEN = b"0A"
# Reading /proc/<pid>/net/tcp walks the kernel's whole established-connection hash table, whichever namespace
# asks, which at one look per watchdog tick costs a large share of a core per sandbox (docs/speed.md);
# sockstat counts a namespace's sockets per protocol at once, so a table is read only when its protocol has a
# socket there.
SOCKET_COUNTS = {"tcp": ("sockstat", b"TCP:"), "udp": ("sockstat", b"UDP:"),
                 "tcp6": ("sockstat6", b"TCP6:"), "udp6": ("sockstat6", b"UDP6:")}


class MemoryMounts:
    """The sandbox's tmpfs mounts, held open from outside through its own root: their use, in bytes.

    Opened while only trusted code has run in the sandbox: the mount points are the ones bubblewrap made,
    and a mount point cannot be renamed or removed from inside.
    """

    def __init__(self, view: ProcView):
        self.fds: list[int] = []
        # The view is the sandbox's /proc, so its parent is the sandbox's root; pid 1 is its init.
        for mount_point in _tmpfs_mount_points(view.read("1/mountinfo") or b""):
            try:
                self.fds.append(os.open(".." + mount_point, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC,
                                        dir_fd=view.fd))
            except OSError:
                continue

    def held_bytes(self) -> int:
        total = 0
        for fd in self.fds:
            try:
                usage = os.fstatvfs(fd)
            except OSError:
                continue
            total += (usage.f_blocks - usage.f_bfree) * usage.f_frsize
            total += (usage.f_files - usage.f_ffree) * TMPFS_INODE_BYTES
        return total

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds = []


def _tmpfs_mount_points(mountinfo: bytes) -> list[str]:
    """The mount points of the writable tmpfs mounts in a mountinfo listing, as its process's root sees them
    (a read-only one, such as the host's /sys/fs/cgroup seen through /sys, holds nothing of the sandbox's)."""
    found = []
    for line in mountinfo.splitlines():
        fields, _, rest = line.partition(b" - ")
        fields = fields.split()
        if len(fields) >= 6 and rest.split()[:1] == [b"tmpfs"] and b"ro" not in fields[5].split(b","):
            # mountinfo escapes space, tab, newline and backslash as octal.
            point = fields[4].decode("unicode_escape", "replace")
            found.append(point.rstrip("/") or "/")
    return found


def socket_queue_bytes(view: ProcView) -> int:
    """Bytes queued in the TCP and UDP sockets of the network namespace of the view's pid 1."""
    total = 0
    counts = {name: view.read(f"1/net/{name}") for name in ("sockstat", "sockstat6")}
    for table in SOCKET_TABLES:
        if _sockets_in_use(counts, table) == 0:
            continue
        for line in (view.read(f"1/net/{table}") or b"").splitlines()[1:]:
            fields = line.split()
            # A listening socket's queue fields count connections waiting to be accepted, not bytes; each
            # of those is listed on its own line.
            if len(fields) < 5 or table.startswith("tcp") and fields[3] == TCP_LISTEN:
                continue
            sent, _, received = fields[4].partition(b":")
            try:
                total += int(sent, 16) + int(received, 16)
            except ValueError:
                continue
    return total


def _sockets_in_use(counts: dict[str, bytes | None], table: str) -> int | None:
    """How many sockets of table's protocol the namespace has, from its sockstat line ("TCP: inuse 3 ..."); None
    when the file or the figure cannot be read, so that the table is read after all."""
    name, label = SOCKET_COUNTS[table]
    for line in (counts[name] or b"").splitlines():
        fields = line.split()
        if fields[:1] == [label] and b"inuse" in fields[:-1]:
            try:
                return int(fields[fields.index(b"inuse") + 1])
            except ValueError:
                return None
    return None
