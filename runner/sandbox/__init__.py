"""Starting harness processes in the strongest isolation this machine allows.

- bubblewrap, as root: namespaces, read-only binds, seccomp, and a dedicated unprivileged uid per slot
  (`uid_base + slot`, one slot per concurrent sandbox, held with a lock file), so the process limit counts
  only that sandbox's processes and everything the uid owns can be killed at the end.
- bubblewrap, as an ordinary user: the same, in a user namespace, under the worker's own uid.
- forked from a zygote, as root on the CPU: the same isolation and uid per slot, built by a child of a process
  that has imported torch once (zygote.py), so a sandbox is ready in milliseconds; where a zygote cannot serve
  (no root, a GPU, a delegated cgroup, a bind under /tmp, or it would not start), the cold start above.
- plain process: where bubblewrap is missing or does not work; only the limits the harness sets on itself
  (rlimits), the wall clock and the memory watchdog apply. `require=True` refuses this mode.
"""

from __future__ import annotations

import fcntl
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import bwrap, cgroup, gpus, procs, seccomp, zygote
from .process import Ended, SandboxProcess, command

HARNESS_DIR = str(Path(__file__).resolve().parent.parent / "harness")
PLAIN = "plain-process (no isolation: rlimits, wall clock and memory watchdog only)"
FORKED = ", forked from a zygote"

__all__ = ["Ended", "SandboxOptions", "SandboxProcess", "SandboxUnavailable", "describe", "start"]


class SandboxUnavailable(Exception):
    """The isolation asked for cannot be had on this machine."""


def default_state_dir() -> Path:
    """Where slot locks and the seed key live unless the caller says otherwise."""
    return Path.home() / ".local" / "state" / "interview-runner"


@dataclass(frozen=True)
class SandboxOptions:
    """How submissions are isolated; the web app passes its own, tests and the CLI the defaults."""

    mode: str = "auto"  # auto | bubblewrap | plain
    require: bool = False
    uid_base: int = 60000
    slots: int = 64
    bwrap: str | None = None
    setpriv: str | None = None
    state_dir: Path = field(default_factory=default_state_dir)
    tmp_bytes: int = 256 << 20
    shm_bytes: int = 256 << 20
    # A delegated cgroup v2 subtree: each sandbox then runs in a group of its own there (cgroup.py), whose
    # counts the watchdog and the CPU figures read beside procfs. None: procfs alone.
    cgroup_root: Path | None = None
    # Fork sandboxes from a zygote where one can serve (zygote.py); False: every sandbox starts cold.
    zygote: bool = True


def _tool(explicit: str | None, name: str) -> str | None:
    return explicit if explicit else shutil.which(name, path="/usr/bin:/bin:/usr/sbin:/sbin:" + os.environ.get("PATH", ""))


@functools.cache
def _bubblewrap_problem(bwrap_path: str | None, setpriv_path: str | None, as_root: bool) -> str | None:
    """None if a minimal sandbox of the kind start() builds runs here, else why not."""
    if not bwrap_path:
        return "bubblewrap (bwrap) is not installed"
    if as_root and not setpriv_path:
        return "setpriv (util-linux) is not installed"
    layout = bwrap.Layout(python="/usr/bin/true", harness_dir=HARNESS_DIR, ro_paths=_tool_dirs(bwrap_path, setpriv_path))
    seccomp_fd = seccomp.program_fd()
    try:
        if as_root:
            argv = bwrap.root_command(layout, 65534, seccomp_fd, [], bwrap_path, setpriv_path)
        else:
            argv = bwrap.user_command(layout, seccomp_fd, [], bwrap_path)
        argv = argv[: argv.index("/usr/bin/true") + 1]
        result = subprocess.run(argv, capture_output=True, timeout=30, pass_fds=(seccomp_fd,))
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap could not start: {error}"
    finally:
        os.close(seccomp_fd)
    if result.returncode != 0:
        return f"bubblewrap does not work here: {result.stderr.decode(errors='replace').strip()[:300]}"
    return None


def _tool_dirs(*paths: str | None) -> list[str]:
    """Directories of bundled tools (outside /usr) that the inner sandbox must see too."""
    return bwrap.minimal_roots(os.path.dirname(os.path.realpath(p)) for p in paths if p)


def describe(options: SandboxOptions) -> str:
    """What start() would isolate with, in the words the verdict's `sandbox` field uses."""
    chosen = _choose(options)
    if chosen == "plain":
        return PLAIN
    if os.geteuid() == 0:
        return f"bubblewrap+seccomp{FORKED if options.zygote else ''} (uid {options.uid_base}+slot)"
    return f"bubblewrap+seccomp (user namespace, uid {os.geteuid()})"


def _choose(options: SandboxOptions) -> str:
    if options.mode not in ("auto", "bubblewrap", "plain"):
        raise ValueError(f"unknown sandbox mode {options.mode!r}")
    if options.mode == "plain":
        if options.require:
            raise SandboxUnavailable("the plain-process mode was asked for, but a real sandbox is required")
        return "plain"
    problem = _bubblewrap_problem(_tool(options.bwrap, "bwrap"), _tool(options.setpriv, "setpriv"), os.geteuid() == 0)
    if problem is None:
        return "bubblewrap"
    if options.mode == "bubblewrap" or options.require:
        raise SandboxUnavailable(f"refusing to judge without the sandbox: {problem}")
    return "plain"


class _Slot:
    """A uid reserved for one sandbox, across processes, with an exclusive lock file."""

    def __init__(self, options: SandboxOptions):
        lock_dir = options.state_dir / "slots"
        lock_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        for index in range(options.slots):
            fd = os.open(lock_dir / f"{index}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.fd = fd
            self.uid = options.uid_base + index
            # A worker that died mid-run may have left the uid's processes behind.
            procs.kill_uid(self.uid)
            return
        raise SandboxUnavailable(f"all {options.slots} sandbox slots are in use")

    def release(self) -> None:
        procs.kill_uid(self.uid)
        os.close(self.fd)


def _environment(python_path: str, threads: int, gpu: gpus.Gpu | None, home: str) -> dict[str, str]:
    env = {
        "PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8", "PYTHONPATH": python_path,
        "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1",
        "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads),
        # Importing torch._dynamo makes its compiler's cache folder, named after the user by default: a fixed
        # name keeps a fresh sandbox's files the same whichever uid it runs as.
        "TORCHINDUCTOR_CACHE_DIR": f"{home}/torchinductor",
    }
    if os.environ.get("LD_LIBRARY_PATH"):
        env["LD_LIBRARY_PATH"] = os.environ["LD_LIBRARY_PATH"]
    if gpu is not None:
        env.update(CUDA_VISIBLE_DEVICES=gpu.cuda_visible, CUDA_DEVICE_ORDER="PCI_BUS_ID")
    else:
        # Without a GPU a Triton kernel runs through Triton's interpreter (the kernel kind). The switch is read when
        # triton.language is imported, which torch._dynamo may do before any kernel problem's driver loads, so it is
        # set for the whole process (a zygote's included) from its start.
        env["TRITON_INTERPRET"] = "1"
    return env


def start(options: SandboxOptions, *, memory_limit_bytes: int, threads: int = 1, gpu_index: int | None = None,
          max_response_bytes: int = 256 << 20, idle: bool = False) -> tuple[SandboxProcess, str]:
    """A new harness process and the words that describe its isolation; idle: under SCHED_IDLE until
    SandboxProcess.raise_priority()."""
    try:
        gpu = None if gpu_index is None else gpus.gpu(gpu_index)
    except gpus.GpuNotFound as error:
        raise SandboxUnavailable(str(error)) from None
    group = _group(options, memory_limit_bytes)
    try:
        return _start(options, memory_limit_bytes, threads, gpu, max_response_bytes, idle, group)
    except BaseException:
        if group is not None:
            group.close()
        raise


def _group(options: SandboxOptions, memory_limit_bytes: int) -> cgroup.SandboxGroup | None:
    if options.cgroup_root is None:
        return None
    try:
        return cgroup.Delegated(options.cgroup_root).create(memory_limit_bytes=memory_limit_bytes)
    except cgroup.CgroupUnavailable as error:
        raise SandboxUnavailable(str(error)) from None


def _start(options: SandboxOptions, memory_limit_bytes: int, threads: int, gpu: gpus.Gpu | None,
           max_response_bytes: int, idle: bool, group: cgroup.SandboxGroup | None) -> tuple[SandboxProcess, str]:
    if _choose(options) == "plain":
        return _start_plain(memory_limit_bytes, threads, gpu, max_response_bytes, idle, group), PLAIN
    bwrap_path = _tool(options.bwrap, "bwrap")
    setpriv_path = _tool(options.setpriv, "setpriv")
    layout = bwrap.Layout(
        python=sys.executable, harness_dir=HARNESS_DIR,
        ro_paths=bwrap.minimal_roots(bwrap.interpreter_paths() + _tool_dirs(bwrap_path, setpriv_path)),
        gpu_minor=gpu.minor if gpu else None, tmp_bytes=options.tmp_bytes, shm_bytes=options.shm_bytes,
        env=_environment(bwrap.HARNESS_MOUNT, threads, gpu, "/tmp"),
    )
    seccomp_fd = seccomp.program_fd()
    try:
        if os.geteuid() != 0:
            process = SandboxProcess(
                command(lambda *fds: bwrap.user_command(layout, seccomp_fd, list(fds), bwrap_path),
                        extra_fds=(seccomp_fd,), idle=idle, group=group),
                memory_limit_bytes=memory_limit_bytes, max_payload_bytes=max_response_bytes, pid_namespace=True,
                group=group)
            return process, f"bubblewrap+seccomp (user namespace, uid {os.geteuid()})"
        slot = _Slot(options)
        try:
            process = _forked(options, layout, bwrap_path, gpu, group, slot.uid,
                              dict(memory_limit_bytes=memory_limit_bytes, kill_uid=slot.uid,
                                   max_payload_bytes=max_response_bytes, on_close=slot.release, pid_namespace=True),
                              idle)
            if process is not None:
                return process, f"bubblewrap+seccomp{FORKED} (uid {slot.uid})"
            process = SandboxProcess(
                command(lambda *fds: bwrap.root_command(layout, slot.uid, seccomp_fd, list(fds), bwrap_path,
                                                        setpriv_path),
                        extra_fds=(seccomp_fd,), idle=idle, group=group),
                memory_limit_bytes=memory_limit_bytes, kill_uid=slot.uid, max_payload_bytes=max_response_bytes,
                on_close=slot.release, pid_namespace=True, group=group)
        except BaseException:
            slot.release()
            raise
        return process, f"bubblewrap+seccomp (uid {slot.uid})"
    finally:
        os.close(seccomp_fd)


def _forked(options: SandboxOptions, layout: bwrap.Layout, bwrap_path: str, gpu: gpus.Gpu | None,
            group: cgroup.SandboxGroup | None, uid: int, watched: dict, idle: bool) -> SandboxProcess | None:
    """A sandbox forked from the zygote of its layout as uid (watched: SandboxProcess's settings), or None where
    the cold start must serve: a CUDA run (a CUDA context cannot be forked, and a child would have to set up
    its own anyway), a delegated cgroup (which the first process joins before it runs anything), a bind under
    the /tmp or /dev/shm each child mounts afresh, or no zygote to be had (zygote.py logs why)."""
    if not options.zygote or gpu is not None or group is not None or bwrap.under_private_mounts(layout):
        return None
    try:
        launch = zygote.for_layout(layout, bwrap_path).launch(uid=uid, tmp_bytes=options.tmp_bytes,
                                                              shm_bytes=options.shm_bytes, idle=idle)
        return SandboxProcess(launch, **watched)
    except zygote.ZygoteUnavailable:
        return None


def _start_plain(memory_limit_bytes: int, threads: int, gpu: gpus.Gpu | None,
                 max_response_bytes: int, idle: bool, group: cgroup.SandboxGroup | None) -> SandboxProcess:
    home = tempfile.mkdtemp(prefix="judge-")
    env = _environment(str(Path(HARNESS_DIR).parent), threads, gpu, home)
    layout = bwrap.Layout(sys.executable, HARNESS_DIR, [], gpu.minor if gpu else None)
    return SandboxProcess(
        command(lambda *fds: bwrap.harness_command(layout, list(fds)), env=env, cwd=home, idle=idle, group=group),
        memory_limit_bytes=memory_limit_bytes, max_payload_bytes=max_response_bytes,
        on_close=lambda: shutil.rmtree(home, ignore_errors=True), group=group)
