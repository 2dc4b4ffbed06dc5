"""One running sandbox, seen from the trusted side: its pipes, a memory and deadline watchdog, capped output
capture, and a kill that leaves nothing behind.

A bubblewrap sandbox has a pid namespace of its own. Once its init is up, the sandbox is observed through
that namespace's procfs (see procs.ProcView) and killed by killing its init, which takes every process of
the namespace with it; the init's pidfd says when the last of them is gone.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import select
import signal
import subprocess
import threading
import time
from typing import Any, BinaryIO, Callable, Protocol

import torch

from ..harness import wire
from . import cgroup, memory, procs

OUTPUT_KEPT_BYTES = 16 << 10
HIDDEN_OUTPUT_NOTE = "[output written during hidden tests is not shown]"
WATCH_INTERVAL_S = 0.02
# Until its first request only trusted code has run in a sandbox: a warm pool's harness waits there, watched
# this much less often, so that an idle worker costs next to nothing.
WATCH_INTERVAL_BEFORE_REQUESTS_S = 1.0
NAMESPACE_EXIT_TIMEOUT_S = 10.0
# Proportional sets cost a walk of every mapping of every process (smaps_rollup): with many forked ranks, each
# mapping torch, tens of milliseconds of system CPU a look, which every 20 ms kept a core busy for as long as the
# summed resident sets stood over the limit (docs/speed.md). The watchdog spends at most this share of its time
# reading them.
PROPORTIONAL_SHARE = 0.1
# A request's wall clock leaves out the time the harness's serving thread stood runnable while other processes
# held every CPU (its schedstat run delay): on a machine busy with other work, a call that fits its allowance
# alone still gets it. At most this many allowances are left out, so that nothing a submission does to its own
# thread (busy threads or children of its own beside it) stretches a request without end.
MOST_WAITING_LEFT_OUT = 2.0

MEMORY = "memory"
DEADLINE = "deadline"
PROTOCOL = "protocol"


class Ended(Exception):
    """The sandbox stopped answering: it exited, was killed, or broke the frame format."""

    def __init__(self, cause: str | None, detail: str):
        super().__init__(detail)
        self.cause = cause
        self.detail = detail


class ProportionalSets:
    """A sandbox's summed proportional sets, read afresh whenever they could decide a kill, and otherwise no
    more often than PROPORTIONAL_SHARE of the time allows.

    Between reads the figure is the last one read plus what the resident sets grew by since (a page a process
    maps anew adds at most itself to the proportional sum), and never less than the last one read. Only a fresh
    figure is returned over the limit: an estimate that passes it is read afresh at once. What the estimate
    misses, a shared page written after a fork (the writer's copy is new memory that no resident set shows),
    the next read sees, at most 1 / PROPORTIONAL_SHARE times a read's cost later.
    """

    def __init__(self):
        self.read_bytes = 0  # the last figure read
        self.resident_then = 0  # the summed resident sets when it was read
        self.next_read = 0.0  # when a figure under the limit is next read afresh (time.monotonic)

    def bytes(self, pids: list[int], view: procs.ProcView, resident: int, limit: int) -> int:
        estimate = self.read_bytes + max(0, resident - self.resident_then)
        if estimate <= limit and time.monotonic() < self.next_read:
            return estimate
        started = time.thread_time()
        self.read_bytes, self.resident_then = procs.proportional_bytes(pids, view), resident
        cost = time.thread_time() - started
        self.next_read = time.monotonic() + max(WATCH_INTERVAL_S, cost / PROPORTIONAL_SHARE)
        return self.read_bytes


class CapturedOutput:
    """One output pipe of the sandbox, read as it fills: the start of what came through, and how much.

    Its thread reads whatever the pipe holds whenever it holds some; drain() reads the rest of what the pipe
    holds now, under the same lock, so text() right after a drain has everything written so far without
    waiting for the pipe's end (which comes only when the last process holding it has exited).

    Once sealed (as the first hidden test begins), what comes later is still read, so a writer never blocks
    on a full pipe, but neither kept nor counted: a hidden test's output, its size included, could carry
    the hidden inputs out. text() then ends with a line saying so when anything came before, whatever came
    after (an empty stream stays empty, so a page shows no output where none was written before).
    """

    def __init__(self, stream):
        self._stream = stream
        self._fd = stream.fileno()
        os.set_blocking(self._fd, False)
        self._lock = threading.Lock()
        self.kept = bytearray()
        self.total = 0
        self.ended = False
        self.sealed = False

    def pump(self) -> None:
        """Read until the pipe's end (the thread's body)."""
        poller = select.poll()
        poller.register(self._fd, select.POLLIN | select.POLLHUP)
        while not self.ended:
            poller.poll()
            self.drain()
        self._stream.close()

    def drain(self) -> None:
        with self._lock:
            self._drain_locked()

    def seal(self) -> None:
        """Keep what the pipe has brought so far, and nothing after."""
        with self._lock:
            self._drain_locked()
            self.sealed = True

    def _drain_locked(self) -> None:
        while not self.ended:
            try:
                chunk = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self.ended = True
                return
            if self.sealed:
                continue
            self.total += len(chunk)
            room = OUTPUT_KEPT_BYTES - len(self.kept)
            if room > 0:
                self.kept += chunk[:room]

    def text(self) -> str:
        with self._lock:
            # NUL is valid output but no text column of PostgreSQL can hold it.
            excerpt = self.kept.decode("utf-8", "replace").replace("\0", "\ufffd")
            notes = []
            if self.total > len(self.kept):
                notes.append(f"[... {self.total - len(self.kept)} more bytes not kept]")
            if self.sealed and self.total:
                notes.append(HIDDEN_OUTPUT_NOTE)
            if notes and excerpt and not excerpt.endswith("\n"):
                excerpt += "\n"
            return excerpt + "\n".join(notes)


class Launched(Protocol):
    """The first process of a sandbox as the trusted side holds it: a subprocess.Popen of a command (see
    command()), or a child of the zygote (zygote.ForkedProcess)."""

    pid: int
    returncode: int | None
    stdout: BinaryIO
    stderr: BinaryIO

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...


def command(make_argv: Callable[[int, int], list[str]], *, extra_fds: tuple[int, ...] = (),
            env: dict[str, str] | None = None, cwd: str | None = None, idle: bool = False,
            group: cgroup.SandboxGroup | None = None) -> Callable[[int, int], Launched]:
    """A sandbox started by running a command: make_argv(request_read, response_write) names the harness's pipe
    ends on its command line, which they keep across exec. idle: start it under SCHED_IDLE (a warm pool's
    refill), for SandboxProcess.raise_priority() to undo later. group: the cgroup the command joins before it
    runs anything."""

    def launch(request_read: int, response_write: int) -> subprocess.Popen:
        argv = make_argv(request_read, response_write)
        with _scheduling(idle=idle):
            return subprocess.Popen(
                group.join_command(argv) if group else argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, env=env, cwd=cwd, start_new_session=True,
                pass_fds=(request_read, response_write, *extra_fds),
            )

    return launch


class SandboxProcess:
    """A harness process in its sandbox; every method is called from one trusted thread."""

    def __init__(self, launch: Callable[[int, int], Launched], *, memory_limit_bytes: int,
                 kill_uid: int | None = None, max_payload_bytes: int = wire.DEFAULT_MAX_PAYLOAD_BYTES,
                 on_close: Callable[[], None] | None = None, pid_namespace: bool = False,
                 group: cgroup.SandboxGroup | None = None):
        """launch(request_read, response_write): the sandbox's first process, given the harness's ends of its
        two pipes (closed here once it has them).
        pid_namespace: that process builds a pid namespace whose init is its one child (bubblewrap, the zygote).
        group: a cgroup of its own (cgroup.py), whose counts the watchdog reads too."""
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        self._kill_uid = kill_uid
        self._on_close = on_close
        self._pid_namespace = pid_namespace
        self._view: procs.ProcView | None = None
        self._init_pidfd: int | None = None
        self._attach_lock = threading.Lock()
        self.memory_limit_bytes = memory_limit_bytes
        self.peak_tree_bytes = 0
        # What the sandbox holds outside its processes (its tmpfs mounts and socket queues, memory.py) at the
        # watchdog's last look, and the most since outside_peak_reset(): a request's share of the budget.
        self.outside_bytes = 0
        self.outside_peak_bytes = 0
        self.cause: str | None = None
        self.deadline: float | None = None
        self.allowance_s = 0.0
        # The serving thread's run delay in nanoseconds (procs.run_delay_ns), once the harness is found; the
        # figure when the current request was sent, and what the last look found it waited since.
        self.run_delay_ns: Callable[[], int | None] | None = None
        self._run_delay_base: int | None = None
        self.waited_s = 0.0
        self._frames: queue.Queue = queue.Queue()
        self._stopped = threading.Event()
        self._requested = threading.Event()
        self._wake_watch = threading.Event()  # set by the first request and by the end, to end a long wait
        self.group = group
        try:
            self.process = launch(request_read, response_write)
        except BaseException:
            os.close(request_write)
            os.close(response_read)
            raise
        finally:
            os.close(request_read)
            os.close(response_write)
        self._requests = wire.open_pipe(request_write, "w")
        self._responses = wire.open_pipe(response_read, "r")
        self.stdout = CapturedOutput(self.process.stdout)
        self.stderr = CapturedOutput(self.process.stderr)
        self._threads = [
            threading.Thread(target=self.stdout.pump, daemon=True),
            threading.Thread(target=self.stderr.pump, daemon=True),
            threading.Thread(target=self._read_frames, args=(max_payload_bytes,), daemon=True),
            threading.Thread(target=self._watch, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def ended(self) -> bool:
        """Whether the sandbox has exited or been killed."""
        return self.cause is not None or self.process.poll() is not None

    def processes(self) -> tuple[procs.ProcView, list[int]]:
        """Every live process of this sandbox, and the view that numbers them: the sandbox's own procfs once
        its pid namespace is up, else the host's (a plain process, or the first moments of a start)."""
        if self.process.poll() is not None:
            return procs.HOST, []
        view = self._namespace()
        if view is not None:
            return view, view.pids()
        return procs.HOST, procs.tree(self.process.pid)

    def _namespace(self) -> procs.ProcView | None:
        if self._view is not None or not self._pid_namespace:
            return self._view
        with self._attach_lock:
            if self._view is None:
                # The monitor bubblewrap has one child, the namespace's init, which lives as long as the sandbox.
                found = procs.children(self.process.pid)
                if len(found) != 1:
                    return None
                try:
                    pidfd = os.pidfd_open(found[0])
                except OSError:
                    return None
                view = procs.namespace_view(found[0])
                if view is None:
                    os.close(pidfd)
                    return None
                self._init_pidfd, self._view = pidfd, view
        return self._view

    def output(self) -> tuple[str, str]:
        """The start of stdout and stderr, with everything the pipes hold now: once the sandbox is killed,
        all it wrote, without waiting for its processes to finish exiting."""
        for captured in (self.stdout, self.stderr):
            captured.drain()
        return self.stdout.text(), self.stderr.text()

    def hide_output_from_now(self) -> None:
        """Keep stdout and stderr as far as the pipes have brought them, and drop what comes later: called as
        the first hidden test's request is about to go (the harness flushes the submission's streams
        before each answer, so every earlier test's output is in the pipes by then)."""
        for captured in (self.stdout, self.stderr):
            captured.seal()

    def raise_priority(self) -> None:
        """Every thread of the sandbox under the normal policy again, after an idle start (only trusted code
        has run by then, so its process tree is read from the kernel's children lists)."""
        procs.set_normal_priority(procs.descendants(self.process.pid))

    def send(self, header: dict[str, Any], tensors: dict[str, torch.Tensor] | None = None,
             blobs: dict[str, bytes] | None = None, *, timeout_s: float) -> None:
        """Write one request; Ended if the sandbox is gone or does not take it before timeout_s."""
        self.deadline = time.monotonic() + timeout_s
        self.allowance_s = timeout_s
        self._run_delay_base, self.waited_s = (self.run_delay_ns() if self.run_delay_ns else None), 0.0
        if not self._requested.is_set():
            self._requested.set()
            self._wake_watch.set()
        try:
            wire.write_frame(self._requests, header, tensors, blobs)
        except (BrokenPipeError, ValueError, OSError):
            self._raise_ended()

    def receive(self, *, timeout_s: float, allowance_s: float | None = None) -> wire.Frame:
        """The next frame from the harness; Ended on exit, kill, deadline or a malformed frame."""
        self.deadline = time.monotonic() + timeout_s
        self.allowance_s = timeout_s if allowance_s is None else allowance_s
        try:
            item = self._frames.get(timeout=timeout_s + MOST_WAITING_LEFT_OUT * self.allowance_s + 5)
        except queue.Empty:
            self.kill(DEADLINE)
            self._raise_ended()
        self.deadline = None
        if isinstance(item, wire.Frame):
            return item
        if isinstance(item, wire.WireError):
            self.kill(PROTOCOL)
            raise Ended(PROTOCOL, f"the process sent something that is not a judge frame ({item})")
        self._raise_ended()

    def request(self, header: dict[str, Any], tensors: dict[str, torch.Tensor] | None = None,
                blobs: dict[str, bytes] | None = None, *, timeout_s: float) -> wire.Frame:
        """send, then receive, under one deadline."""
        started = time.monotonic()
        self.send(header, tensors, blobs, timeout_s=timeout_s)
        return self.receive(timeout_s=max(0.0, timeout_s - (time.monotonic() - started)), allowance_s=timeout_s)

    def _raise_ended(self):
        self.process.wait()
        self._stop_watching()
        if self.cause is None and self.group is not None and self.group.oom_kills():
            self.cause = MEMORY
        raise Ended(self.cause, self._describe_exit())

    def _describe_exit(self) -> str:
        code = self.process.returncode
        if self.cause == MEMORY:
            return f"killed for memory: the sandbox's processes held over {self.memory_limit_bytes >> 20} MiB"
        if self.cause == DEADLINE:
            waited = f", not counting the {self.waited_s:.1f} s it waited for a busy CPU" if self.waited_s >= 0.1 else ""
            return f"killed: still running when its {self.allowance_s:.1f} s of wall clock ran out{waited}"
        if code is not None and code < 0:
            return f"the process was killed by signal {-code}"
        if code is not None and code > 128:
            return f"the process was killed by signal {code - 128}"
        return f"the process exited with code {code} before answering"

    def _read_frames(self, max_payload_bytes: int) -> None:
        """Queue each frame as it comes. The last item queued says why reading stopped: None when the pipe
        ended, a WireError when the sandbox broke the format. Nothing it reads can make it raise: a reader that
        died would leave receive() waiting until the deadline, and a broken frame would pass for slowness."""
        while True:
            try:
                first = self._responses.read(1)
            except (OSError, ValueError):  # the stream was closed under the reader (close())
                first = b""
            if not first:
                self._frames.put(None)
                return
            try:
                frame = wire.read_frame(_Prefixed(first, self._responses), max_payload_bytes)
            except Exception as error:  # noqa: BLE001 - whatever a frame makes the decoder raise is the frame's fault
                if not isinstance(error, wire.WireError):
                    error = wire.WireError(f"a frame the reader could not decode ({type(error).__name__})")
                # A frame cut short because the judge killed the sandbox ends as the kill's cause says.
                self._frames.put(None if self.cause else error)
                return
            if not self._frames.empty():
                # A harness answers each request once, and the judge reads the answer before it sends the next
                # request; frames sent ahead would pile up here, each as large as the payload limit allows.
                self._frames.put(wire.WireError("a frame came before the judge had read the one before it"))
                return
            self._frames.put(frame)

    def _watch(self) -> None:
        """Every 20 ms: everything the sandbox holds (memory.py) against its limit, and the deadline."""
        mounts: memory.MemoryMounts | None = None
        proportional = ProportionalSets()
        try:
            while not self._pause_watch():
                if self.process.poll() is not None:
                    return
                view, pids = self.processes()
                outside = 0
                if view is not procs.HOST:
                    # Opened on the first look into the namespace, long before any submission code runs.
                    mounts = mounts or memory.MemoryMounts(view)
                    outside = mounts.held_bytes() + memory.socket_queue_bytes(view)
                    self.outside_bytes = outside
                    self.outside_peak_bytes = max(self.outside_peak_bytes, outside)
                resident = procs.rss_bytes(pids, view)
                held = resident + outside
                if self.group is not None:
                    # The kernel's count sees what procfs cannot (pipe and Unix socket buffers, kernel memory).
                    held = max(held, self.group.held_bytes())
                if held > self.memory_limit_bytes:
                    # Resident sets overcount pages shared after a fork; only the precise figure may kill.
                    held = proportional.bytes(pids, view, resident, self.memory_limit_bytes - outside) + outside
                    if self.group is not None:
                        held = max(held, self.group.held_bytes())
                self.peak_tree_bytes = max(self.peak_tree_bytes, held)
                if held > self.memory_limit_bytes:
                    self.kill(MEMORY)
                elif self.deadline is not None and time.monotonic() > self.deadline \
                        and time.monotonic() > self.deadline + self._waited_s():
                    self.kill(DEADLINE)
        finally:
            if mounts is not None:
                mounts.close()

    def _waited_s(self) -> float:
        """How long the serving thread has waited for a CPU since the request was sent, up to the most left out
        of its wall clock (MOST_WAITING_LEFT_OUT)."""
        now = self.run_delay_ns() if self.run_delay_ns and self._run_delay_base is not None else None
        if now is not None:
            self.waited_s = min(max(0, now - self._run_delay_base) / 1e9, MOST_WAITING_LEFT_OUT * self.allowance_s)
        return self.waited_s

    def outside_peak_reset(self) -> int:
        """Start a new peak of what the sandbox holds outside its processes from the watchdog's last look;
        that look's figure."""
        self.outside_peak_bytes = self.outside_bytes
        return self.outside_bytes

    def _pause_watch(self) -> bool:
        """Wait for the watch's next look; True once the sandbox has ended."""
        if self._requested.is_set():
            return self._stopped.wait(WATCH_INTERVAL_S)
        self._wake_watch.wait(WATCH_INTERVAL_BEFORE_REQUESTS_S)
        return self._stopped.is_set()

    def _stop_watching(self) -> None:
        self._stopped.set()
        self._wake_watch.set()

    def kill(self, cause: str | None = None) -> None:
        """Kill every process of the sandbox; the first cause given is the one kept."""
        if cause and not self.cause:
            self.cause = cause
        if self._init_pidfd is not None:
            # However a process of the namespace detached itself (setsid, double fork), its init's death
            # takes it along. The monitor outside is left to reap the init and exit: killed first, it would
            # leave the init a zombie for the host's init to collect.
            with contextlib.suppress(ProcessLookupError, OSError):
                signal.pidfd_send_signal(self._init_pidfd, signal.SIGKILL)
            return
        procs.kill_all(procs.tree(self.process.pid))
        if self._kill_uid is not None:
            procs.kill_uid(self._kill_uid)

    def close(self) -> None:
        """Stop the harness for good and release everything; safe to call twice.

        When it returns, no process of the sandbox is left. Sweeping its uid once more and handing the uid
        back (on_close) happen in the background: the uid is not given to another sandbox before then.
        """
        if self.process.poll() is None:
            self.kill()
        try:
            self.process.wait(timeout=NAMESPACE_EXIT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            procs.kill_all(procs.tree(self.process.pid))
            self.process.wait()
        self._stop_watching()
        swept = False
        if self._init_pidfd is not None:
            # The init's exit completes only once every other process of its namespace has exited.
            swept = bool(select.select([self._init_pidfd], [], [], NAMESPACE_EXIT_TIMEOUT_S)[0])
        if not swept and self._kill_uid is not None:
            procs.kill_uid(self._kill_uid)
        for stream in (self._requests, self._responses):
            try:
                stream.close()
            except OSError:
                pass
        for thread in self._threads:
            thread.join(timeout=5)
        # Only now that the watchdog has stopped: it may still have been about to signal through the pidfd.
        if self._init_pidfd is not None:
            os.close(self._init_pidfd)
            self._init_pidfd = None
        if self._view is not None:
            self._view.close()
        if self.group is not None:
            self.group.close()
        on_close, self._on_close = self._on_close, None
        kill_uid, self._kill_uid = self._kill_uid, None
        if on_close is not None or kill_uid is not None:
            in_background(lambda: _release(kill_uid, on_close))


def _release(kill_uid: int | None, on_close: Callable[[], None] | None) -> None:
    if kill_uid is not None:
        procs.kill_uid(kill_uid)
    if on_close is not None:
        on_close()


_releasing: set[threading.Thread] = set()
_releasing_lock = threading.Lock()


def in_background(job: Callable[[], None]) -> None:
    """Run job in a thread of its own that wait_released() waits for (the interpreter's exit does)."""

    def run() -> None:
        try:
            job()
        finally:
            with _releasing_lock:
                _releasing.discard(threading.current_thread())

    thread = threading.Thread(target=run, name="sandbox-release", daemon=True)
    # Started under the lock, so wait_released() never finds it in the set before it has started.
    with _releasing_lock:
        _releasing.add(thread)
        thread.start()


@atexit.register
def wait_released(timeout_s: float = 10.0) -> None:
    """Block until every sandbox closed so far is gone and has handed its uid back (what a short-lived
    process's exit waits for, and what a test waits for before it looks for leftovers)."""
    deadline = time.monotonic() + timeout_s
    while True:
        with _releasing_lock:
            pending = next(iter(_releasing), None)
        if pending is None or time.monotonic() > deadline:
            return
        pending.join(timeout=max(0.0, deadline - time.monotonic()))


@contextlib.contextmanager
def _scheduling(*, idle: bool):
    """Run the body with this thread under SCHED_IDLE when asked, since a child forked meanwhile inherits the
    policy; restoring it needs CAP_SYS_NICE (see procs.can_raise_priority)."""
    if not idle:
        yield
        return
    policy, param = os.sched_getscheduler(0), os.sched_getparam(0)
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    try:
        yield
    finally:
        os.sched_setscheduler(0, policy, param)


class _Prefixed:
    """A stream with one byte already taken from it put back in front."""

    def __init__(self, first: bytes, stream):
        self._pending = first
        self._stream = stream

    def read(self, count: int) -> bytes:
        if self._pending:
            head, self._pending = self._pending[:count], self._pending[count:]
            return head
        return self._stream.read(count)
