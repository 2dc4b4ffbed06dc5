"""One running sandbox, seen from the trusted side: its pipes, a memory and deadline watchdog, capped output
capture, and a kill that leaves nothing behind."""

from __future__ import annotations

import os
import queue
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

import torch

from ..harness import wire
from . import procs

OUTPUT_KEPT_BYTES = 16 << 10
WATCH_INTERVAL_S = 0.02

MEMORY = "memory"
DEADLINE = "deadline"
PROTOCOL = "protocol"


class Ended(Exception):
    """The sandbox stopped answering: it exited, was killed, or broke the frame format."""

    def __init__(self, cause: str | None, detail: str):
        super().__init__(detail)
        self.cause = cause
        self.detail = detail


@dataclass
class CapturedOutput:
    """The start of a stream, and how much more there was."""

    kept: bytearray
    total: int = 0

    def text(self) -> str:
        excerpt = self.kept.decode("utf-8", "replace")
        if self.total > len(self.kept):
            excerpt += f"\n[... {self.total - len(self.kept)} more bytes not kept]"
        return excerpt


class SandboxProcess:
    """A harness process in its sandbox; every method is called from one trusted thread."""

    def __init__(self, make_argv: Callable[[int, int], list[str]], *, extra_fds: tuple[int, ...] = (),
                 memory_limit_bytes: int, kill_uid: int | None = None, env: dict[str, str] | None = None,
                 cwd: str | None = None, max_payload_bytes: int = wire.DEFAULT_MAX_PAYLOAD_BYTES,
                 on_close: Callable[[], None] | None = None):
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        self._kill_uid = kill_uid
        self._on_close = on_close
        self.memory_limit_bytes = memory_limit_bytes
        self.peak_tree_bytes = 0
        self.cause: str | None = None
        self.deadline: float | None = None
        self.allowance_s = 0.0
        self.harness_pid: int | None = None
        self._frames: queue.Queue = queue.Queue()
        self._stopped = threading.Event()
        # The harness is told its pipe ends' numbers on its command line; they keep them across exec.
        self.process = subprocess.Popen(
            make_argv(request_read, response_write), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=env, cwd=cwd, start_new_session=True,
            pass_fds=(request_read, response_write, *extra_fds),
        )
        os.close(request_read)
        os.close(response_write)
        self._requests = wire.open_pipe(request_write, "w")
        self._responses = wire.open_pipe(response_read, "r")
        self.stdout = CapturedOutput(bytearray())
        self.stderr = CapturedOutput(bytearray())
        self._threads = [
            threading.Thread(target=_capture, args=(self.process.stdout, self.stdout), daemon=True),
            threading.Thread(target=_capture, args=(self.process.stderr, self.stderr), daemon=True),
            threading.Thread(target=self._read_frames, args=(max_payload_bytes,), daemon=True),
            threading.Thread(target=self._watch, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def pids(self) -> list[int]:
        """Every process of this sandbox still alive (the pid namespace makes the tree complete)."""
        return procs.tree(self.process.pid) if self.process.poll() is None else []

    def send(self, header: dict[str, Any], tensors: dict[str, torch.Tensor] | None = None,
             blobs: dict[str, bytes] | None = None, *, timeout_s: float) -> None:
        """Write one request; Ended if the sandbox is gone or does not take it before timeout_s."""
        self.deadline = time.monotonic() + timeout_s
        self.allowance_s = timeout_s
        try:
            wire.write_frame(self._requests, header, tensors, blobs)
        except (BrokenPipeError, ValueError, OSError):
            self._raise_ended()

    def receive(self, *, timeout_s: float, allowance_s: float | None = None) -> wire.Frame:
        """The next frame from the harness; Ended on exit, kill, deadline or a malformed frame."""
        self.deadline = time.monotonic() + timeout_s
        self.allowance_s = timeout_s if allowance_s is None else allowance_s
        try:
            item = self._frames.get(timeout=timeout_s + 5)
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
        self._stopped.set()
        raise Ended(self.cause, self._describe_exit())

    def _describe_exit(self) -> str:
        code = self.process.returncode
        if self.cause == MEMORY:
            return f"killed for memory: the sandbox's processes held over {self.memory_limit_bytes >> 20} MiB"
        if self.cause == DEADLINE:
            return f"killed: still running when its {self.allowance_s:.1f} s of wall clock ran out"
        if code is not None and code < 0:
            return f"the process was killed by signal {-code}"
        if code is not None and code > 128:
            return f"the process was killed by signal {code - 128}"
        return f"the process exited with code {code} before answering"

    def _read_frames(self, max_payload_bytes: int) -> None:
        while True:
            try:
                first = self._responses.read(1)
                if not first:
                    self._frames.put(None)
                    return
                self._frames.put(wire.read_frame(_Prefixed(first, self._responses), max_payload_bytes))
            except wire.WireError as error:
                self._frames.put(error)
                return
            except (OSError, ValueError):
                self._frames.put(None)
                return

    def _watch(self) -> None:
        while not self._stopped.wait(WATCH_INTERVAL_S):
            if self.process.poll() is not None:
                return
            tree = procs.tree(self.process.pid)
            held = procs.rss_bytes(tree)
            if held > self.memory_limit_bytes:
                # Resident sets overcount pages shared after a fork; only the precise figure may kill.
                held = procs.proportional_bytes(tree)
            self.peak_tree_bytes = max(self.peak_tree_bytes, held)
            if held > self.memory_limit_bytes:
                self.kill(MEMORY)
            elif self.deadline is not None and time.monotonic() > self.deadline:
                self.kill(DEADLINE)

    def kill(self, cause: str | None = None) -> None:
        """Kill every process of the sandbox; the first cause given is the one kept."""
        if cause and not self.cause:
            self.cause = cause
        procs.kill_all(procs.tree(self.process.pid))
        if self._kill_uid is not None:
            procs.kill_uid(self._kill_uid)

    def close(self) -> None:
        """Stop the harness for good and release everything; safe to call twice."""
        if self.process.poll() is None:
            self.kill()
        self.process.wait()
        self._stopped.set()
        if self._kill_uid is not None:
            procs.kill_uid(self._kill_uid)
        for stream in (self._requests, self._responses):
            try:
                stream.close()
            except OSError:
                pass
        for thread in self._threads:
            thread.join(timeout=5)
        if self._on_close:
            on_close, self._on_close = self._on_close, None
            on_close()


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


def _capture(stream, captured: CapturedOutput) -> None:
    for chunk in iter(lambda: stream.read1(1 << 16), b""):
        captured.total += len(chunk)
        room = OUTPUT_KEPT_BYTES - len(captured.kept)
        if room > 0:
            captured.kept += chunk[:room]
    stream.close()

