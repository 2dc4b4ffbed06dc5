"""Sandboxes forked from a zygote, seen from the trusted side: a process that has imported torch once
(runner/harness/zygote.py) forks each sandbox from that state, ready in milliseconds where a harness started
afresh spends a second or two of CPU on `import torch`.

A zygote serves one layout (the view, the environment, torch's threads): one per layout this process judges
with, started on first use and kept while this process lives, and while any of its children is held. It
exits when its socket's end here closes (this process exiting, or the last reference to it dropped), and
takes every child with it. Before its first child it forks a probe, which builds the whole isolation of a
sandbox as uid nobody and exits: a zygote whose probe fails is not used, and sandboxes start cold then, as
they do wherever no zygote can serve (runner/sandbox/__init__.py says where). A zygote that stops answering is
retired (its children, if it lives, run on) and another is started only after a while.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import select
import signal
import socket
import subprocess
import threading
import time
from typing import Callable

from . import bwrap, procs, seccomp
from .process import CapturedOutput

# Starting a zygote is a fresh interpreter importing torch, as a harness started cold is (client.py).
READY_TIMEOUT_S = 180.0
# A fork takes milliseconds; the first asking for torch._dynamo waits for the zygote to import it (client.py).
SPAWN_TIMEOUT_S = 120.0
PROBE_TIMEOUT_S = 60.0
PROBE_UID = 65534
RETRY_S = 300.0
MAX_MESSAGE_BYTES = 1 << 16

logger = logging.getLogger(__name__)


class ZygoteUnavailable(Exception):
    """No zygote can fork this sandbox: it would not start, its probe failed, or it stopped answering."""


class Zygote:
    """One zygote process and the socket to it; fork() may be called from any thread."""

    def __init__(self, layout: bwrap.Layout, bwrap_path: str):
        # Whether children are to find torch._dynamo imported: set once a harness of this zygote was asked to
        # import it (client.Harness.warm_up_dynamo); the zygote imports it before its next fork.
        self.dynamo = False
        self.broken: str | None = None
        self._lock = threading.Lock()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        seccomp_fd = seccomp.program_fd()
        argv = bwrap.zygote_command(layout, theirs.fileno(), seccomp_fd, bwrap_path)
        try:
            self._process = _in_a_thread_of_its_own(lambda: subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                start_new_session=True, pass_fds=(theirs.fileno(), seccomp_fd)))
        except OSError as error:
            ours.close()
            raise ZygoteUnavailable(f"the zygote could not start: {error}") from None
        finally:
            theirs.close()
            os.close(seccomp_fd)
        self._socket = ours
        self._stderr = CapturedOutput(self._process.stderr)
        threading.Thread(target=self._stderr.pump, name="zygote-stderr", daemon=True).start()
        try:
            self._socket.settimeout(READY_TIMEOUT_S)
            if not self._socket.recv(MAX_MESSAGE_BYTES):
                raise ZygoteUnavailable(f"the zygote exited before it was ready: {self._stderr_text()}")
            self._socket.settimeout(SPAWN_TIMEOUT_S)
            self._probe()
        except OSError as error:
            self.close()
            raise ZygoteUnavailable(f"the zygote did not get ready: {error}") from None
        except BaseException:
            self.close()
            raise

    def launch(self, *, uid: int, tmp_bytes: int, shm_bytes: int,
               idle: bool = False) -> Callable[[int, int], ForkedProcess]:
        """SandboxProcess's launch for a child of this zygote as uid; idle: under SCHED_IDLE until raised."""
        settings = {"uid": uid, "tmp_bytes": tmp_bytes, "shm_bytes": shm_bytes, "idle": idle}
        return lambda request_read, response_write: self.fork(settings, request_read, response_write)

    def fork(self, settings: dict, request_read: int, response_write: int) -> ForkedProcess:
        """A new child, given the harness's ends of its pipes; ZygoteUnavailable if the zygote cannot fork it."""
        stdout_read, stdout_write = os.pipe()
        stderr_read, stderr_write = os.pipe()
        status_read, status_write = os.pipe()
        try:
            pidfd = self._ask({**settings, "dynamo": self.dynamo},
                              [request_read, response_write, stdout_write, stderr_write, status_write])
        except BaseException:
            for fd in (stdout_read, stderr_read, status_read):
                os.close(fd)
            raise
        finally:
            for fd in (stdout_write, stderr_write, status_write):
                os.close(fd)
        return ForkedProcess(self, pidfd, status_read, stdout_read, stderr_read)

    def close(self) -> None:
        """End the zygote, and with it every child it forked."""
        self._socket.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            procs.kill_all(procs.tree(self._process.pid))

    def _ask(self, request: dict, fds: list[int]) -> int:
        with self._lock:
            if self.broken:
                raise ZygoteUnavailable(self.broken)
            try:
                socket.send_fds(self._socket, [json.dumps(request).encode()], fds)
                message, received, _, _ = socket.recv_fds(self._socket, MAX_MESSAGE_BYTES, 1,
                                                          socket.MSG_CMSG_CLOEXEC)
            except OSError as error:
                # Its children, if it still runs, keep running: it is only no longer asked.
                self.broken = f"the zygote stopped answering ({error}): {self._stderr_text()}"
                raise ZygoteUnavailable(self.broken) from None
        answer = json.loads(message) if message else {"error": f"the zygote has exited: {self._stderr_text()}"}
        if "error" in answer or len(received) != 1:
            for fd in received:
                os.close(fd)
            self.broken = f"the zygote could not fork: {answer.get('error')}"
            raise ZygoteUnavailable(self.broken)
        return received[0]

    def _probe(self) -> None:
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        try:
            child = self.fork({"uid": PROBE_UID, "tmp_bytes": 1 << 20, "shm_bytes": 1 << 20, "probe": True},
                              request_read, response_write)
        finally:
            for fd in (request_read, request_write, response_read, response_write):
                os.close(fd)
        try:
            code = child.wait(PROBE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            procs.kill_all(procs.tree(child.pid))
            code = child.wait()
        # Every process of the child has exited once its monitor has: what they wrote is all in the pipe.
        written = child.stderr.read().decode(errors="replace")[-2000:]
        for stream in (child.stdout, child.stderr):
            stream.close()
        if code != 0:
            raise ZygoteUnavailable(f"a sandbox forked from the zygote did not start (status {code}): {written}"
                                    f"{self._stderr_text()}")

    def _stderr_text(self) -> str:
        self._stderr.drain()
        return self._stderr.text()[-2000:]


class ForkedProcess:
    """A child of the zygote, held as a subprocess.Popen is: its monitor by a pidfd, since the zygote and not
    this process is its parent, and its exit status as the monitor writes it on the status pipe before it
    exits (none written: the monitor was killed)."""

    def __init__(self, zygote: Zygote, pidfd: int, status_fd: int, stdout_fd: int, stderr_fd: int):
        self.zygote = zygote
        self._pidfd = pidfd
        self._status_fd = status_fd
        os.set_blocking(status_fd, False)
        self.pid = _pid_of(pidfd)
        self.stdout = os.fdopen(stdout_fd, "rb", buffering=0)
        self.stderr = os.fdopen(stderr_fd, "rb", buffering=0)
        self.returncode: int | None = None
        self._lock = threading.Lock()

    def poll(self) -> int | None:
        return self._ended_within(0)

    def wait(self, timeout: float | None = None) -> int:
        code = self._ended_within(timeout)
        if code is None:
            raise subprocess.TimeoutExpired("a sandbox forked from the zygote", timeout)
        return code

    def _ended_within(self, timeout: float | None) -> int | None:
        """The exit status once the monitor has exited, waiting up to timeout for it; else None."""
        with self._lock:
            if self.returncode is None and select.select([self._pidfd], [], [], timeout)[0]:
                try:
                    written = os.read(self._status_fd, 64)
                except BlockingIOError:
                    written = b""
                self.returncode = int(written) if written.strip() else -signal.SIGKILL
                os.close(self._pidfd)
                os.close(self._status_fd)
            return self.returncode


def _pid_of(pidfd: int) -> int:
    """The host pid a pidfd refers to (its fdinfo names it as this process's pid namespace numbers it)."""
    with open(f"/proc/self/fdinfo/{pidfd}") as info:
        for line in info:
            if line.startswith("Pid:"):
                return int(line.split()[1])
    raise ZygoteUnavailable("the kernel does not name a pidfd's process")


def _in_a_thread_of_its_own(start: Callable[[], subprocess.Popen]) -> subprocess.Popen:
    """start() in a thread that then waits for the process it started: bubblewrap's --die-with-parent follows
    the thread that started it, and the zygote serves every thread of this process, whichever asked first."""
    started: queue.Queue = queue.Queue()

    def keep() -> None:
        try:
            process = start()
        except BaseException as error:  # noqa: BLE001 - handed to the caller
            started.put(error)
            return
        started.put(process)
        process.wait()

    threading.Thread(target=keep, name="zygote", daemon=True).start()
    result = started.get()
    if isinstance(result, BaseException):
        raise result
    return result


_zygotes: dict[tuple, Zygote] = {}
_unavailable: dict[tuple, tuple[float, str]] = {}
_registry_lock = threading.Lock()


def _forget_in_a_forked_child() -> None:
    """A fork of this process (a Celery pool process, say) would share each zygote's socket with its parent,
    and requests and answers of the two would cross: the fork starts zygotes of its own."""
    global _registry_lock
    _registry_lock = threading.Lock()
    _zygotes.clear()
    _unavailable.clear()


os.register_at_fork(after_in_child=_forget_in_a_forked_child)


def for_layout(layout: bwrap.Layout, bwrap_path: str) -> Zygote:
    """The zygote serving this layout, started if none is; ZygoteUnavailable where none can be (after a failure,
    not tried again for RETRY_S)."""
    key = (layout.python, layout.harness_dir, tuple(layout.ro_paths), tuple(sorted(layout.env.items())),
           bwrap_path)
    with _registry_lock:
        found = _zygotes.get(key)
        if found is not None and not found.broken:
            return found
        if found is not None:
            del _zygotes[key]
            _give_up(key, found.broken)
        failed = _unavailable.get(key)
        if failed is not None and time.monotonic() - failed[0] < RETRY_S:
            raise ZygoteUnavailable(failed[1])
        try:
            found = _zygotes[key] = Zygote(layout, bwrap_path)
        except ZygoteUnavailable as error:
            _give_up(key, str(error))
            raise
        _unavailable.pop(key, None)
        return found


def _give_up(key: tuple, why: str) -> None:
    _unavailable[key] = (time.monotonic(), why)
    logger.warning("Sandboxes start cold for %.0f s: %s", RETRY_S, why)
