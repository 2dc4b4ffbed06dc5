"""bubblewrap command lines: what the sandbox sees, derived from the running interpreter.

Two shapes, chosen by who runs the judge:

- as root: an outer bwrap that keeps root only to create the namespaces and mounts and to hold
  CAP_SETUID/CAP_SETGID, then setpriv, which drops to the slot's own unprivileged uid with no capabilities
  and no_new_privs, then an inner unprivileged bwrap that adds the user namespace, --disable-userns and the
  seccomp filter. Linux ignores RLIMIT_NPROC for root, and a user namespace created by root still runs as
  kernel uid 0, so the drop to a real uid is what makes the process limit hold. The inner bwrap mounts no
  new /proc (the kernel refuses a nested proc mount under the outer one's masks): the pid namespace comes
  from the outer one.
- as anyone else: one unprivileged bwrap with every namespace, --disable-userns and the filter.
- the zygote's (runner/harness/zygote.py), as root: one bwrap with every namespace and the same view, keeping
  the capabilities its children need to build their own namespaces, mounts and uid, and no filter.

Only read-only binds of what Python and PyTorch need reach the sandbox: /usr and the loader's files, the
interpreter's prefixes and the site directories that hold torch and numpy, and the harness folder. Parent
directories of each bind are created 0755 explicitly, since bwrap would otherwise copy the source parents'
modes (0700 under /root or a CI checkout) and the unprivileged uid could not traverse them.
"""

from __future__ import annotations

import os
import sys
import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
LOADER_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives")
HARNESS_MOUNT = "/judge"
NVIDIA_SHARED_NODES = ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools")


@dataclass
class Layout:
    """What one sandbox is given: binds, devices, sizes and the process environment."""

    python: str
    harness_dir: str
    ro_paths: list[str]
    gpu_minor: int | None = None  # the GPU's node, /dev/nvidia<minor> (see gpus.py)
    tmp_bytes: int = 256 << 20
    shm_bytes: int = 256 << 20
    env: dict[str, str] = field(default_factory=dict)


def interpreter_paths() -> list[str]:
    """Directories the running interpreter and its torch and numpy installs need, outside /usr."""
    candidates = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
                  str(Path(os.path.realpath(sys.executable)).parent.parent)}
    for name in ("torch", "numpy"):
        spec = importlib.util.find_spec(name)
        if spec and spec.origin:
            candidates.add(str(Path(spec.origin).resolve().parent.parent))
    for entry in os.environ.get("LD_LIBRARY_PATH", "").split(":"):
        if entry and os.path.isabs(entry):
            candidates.add(entry)
    return minimal_roots(path for path in candidates if os.path.isdir(path))


def minimal_roots(paths) -> list[str]:
    """The given absolute paths without those inside another one, and without anything under /usr or /."""
    real = sorted({os.path.realpath(path) for path in paths})
    roots: list[str] = []
    for path in real:
        if path == "/" or any(_inside(path, system) for system in SYSTEM_DIRS):
            continue
        if not any(_inside(path, root) for root in roots):
            roots.append(path)
    return roots


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _parents(path: str) -> list[str]:
    parts = Path(path).parts[1:-1]
    return ["/" + "/".join(parts[: index + 1]) for index in range(len(parts))]


def _filesystem_args(layout: Layout) -> list[str]:
    args: list[str] = []
    for system in SYSTEM_DIRS:
        if os.path.islink(system):
            args += ["--symlink", os.readlink(system), system]
        elif os.path.isdir(system):
            args += ["--ro-bind", system, system]
    for loader_file in LOADER_FILES:
        args += ["--ro-bind-try", loader_file, loader_file]
    # The private mounts come before the binds: a bind under /tmp (a checkout in a `mktemp -d` directory)
    # must land on top of the sandbox's own /tmp, not vanish under it.
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--perms", "1777", "--size", str(layout.tmp_bytes), "--tmpfs", "/tmp"]
    args += ["--perms", "1777", "--size", str(layout.shm_bytes), "--tmpfs", "/dev/shm"]
    made: set[str] = set()
    binds = [(path, path) for path in layout.ro_paths] + [(layout.harness_dir, f"{HARNESS_MOUNT}/harness")]
    for source, destination in binds:
        for parent in _parents(destination):
            if parent not in made:
                made.add(parent)
                args += ["--perms", "0755", "--dir", parent]
        args += ["--ro-bind", source, destination]
    # Read-only hardware description: PyTorch's cpuinfo reads the core topology, gloo lists
    # /sys/bus/pci/devices, the NVIDIA driver reads its PCI devices. Nothing in it is writable by the uid.
    args += ["--ro-bind", "/sys", "/sys"]
    if layout.gpu_minor is not None:
        args += _gpu_args(layout.gpu_minor)
    return args


def _gpu_args(gpu_minor: int) -> list[str]:
    """The assigned GPU's device node and the driver's shared nodes."""
    args = ["--dev-bind", f"/dev/nvidia{gpu_minor}", f"/dev/nvidia{gpu_minor}"]
    for node in NVIDIA_SHARED_NODES:
        args += ["--dev-bind-try", node, node]
    return args


def _environment_args(layout: Layout) -> list[str]:
    args = ["--clearenv"]
    for name, value in sorted(layout.env.items()):
        args += ["--setenv", name, value]
    return args


NAMESPACES = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
ALWAYS = ["--die-with-parent", "--new-session", "--hostname", "judge", "--chdir", "/tmp"]


def harness_command(layout: Layout, fds: list[int]) -> list[str]:
    """The interpreter invocation that starts the harness inside the sandbox."""
    device = "cpu" if layout.gpu_minor is None else "cuda"
    return [layout.python, "-s", "-P", "-B", "-m", "harness", *map(str, fds), device]


def root_command(layout: Layout, uid: int, seccomp_fd: int, fds: list[int], bwrap: str = "bwrap",
                 setpriv: str = "setpriv") -> list[str]:
    """Outer privileged bwrap, setpriv down to uid, inner unprivileged bwrap, then the harness."""
    outer = [bwrap, *NAMESPACES, *ALWAYS, "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
             *_filesystem_args(layout), *_environment_args(layout)]
    drop = [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--no-new-privs"]
    inner = [bwrap, "--unshare-user", "--disable-userns", "--die-with-parent", "--dev-bind", "/", "/",
             "--chdir", "/tmp", "--seccomp", str(seccomp_fd)]
    return [*outer, *drop, *inner, *harness_command(layout, fds)]


def user_command(layout: Layout, seccomp_fd: int, fds: list[int], bwrap: str = "bwrap") -> list[str]:
    """One unprivileged bwrap with every namespace, then the harness."""
    return [bwrap, "--unshare-user", "--disable-userns", *NAMESPACES, *ALWAYS, *_filesystem_args(layout),
            *_environment_args(layout), "--seccomp", str(seccomp_fd), *harness_command(layout, fds)]


# What the zygote's children need to isolate themselves: namespaces and mounts, the loopback of a new
# network namespace, the slot's uid and gid, and clearing the capability bounding set.
ZYGOTE_CAPABILITIES = ("CAP_SYS_ADMIN", "CAP_NET_ADMIN", "CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP")


def zygote_command(layout: Layout, control_fd: int, seccomp_fd: int, bwrap: str = "bwrap") -> list[str]:
    """The privileged bwrap the zygote runs in, then the zygote; the seccomp program is its children's."""
    capabilities = ["--cap-drop", "ALL"] + [arg for name in ZYGOTE_CAPABILITIES for arg in ("--cap-add", name)]
    return [bwrap, *NAMESPACES, *ALWAYS, *capabilities, *_filesystem_args(layout), *_environment_args(layout),
            layout.python, "-s", "-P", "-B", "-m", "harness.zygote", str(control_fd), str(seccomp_fd)]


def under_private_mounts(layout: Layout) -> bool:
    """Whether a bind lands under /tmp or /dev/shm, which every child of the zygote mounts afresh over it."""
    return any(_inside(path, private) for path in layout.ro_paths for private in ("/tmp", "/dev/shm"))
