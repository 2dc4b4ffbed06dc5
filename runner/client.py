"""The trusted side of one harness process: start it, load a submission, send cases, observe each request.

Each request is bracketed by what the trusted side can see for itself: wall time, CPU time of the whole
sandbox (every thread and process, exited ones included; see sandbox.cputime), and the harness process's
peak resident memory, reset before the request (writing 5 to /proc/<pid>/clear_refs) and read after it
(VmHWM), as growth during the request and as the level above the process's size before the submission was
loaded; on a distributed problem, the bytes each rank process wrote (/proc/<pid>/io). All of it is read through
the sandbox's own procfs (see sandbox.procs), a few files per process.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import torch

from .harness import wire
from .sandbox import Ended, SandboxOptions, cputime, procs, start
from .sandbox.process import PROTOCOL, in_background
from .sandbox.zygote import ForkedProcess

READY_TIMEOUT_S = 180.0  # a cold disk cache can make `import torch` take over 20 s
# Importing torch._dynamo takes seconds of CPU, far more on a busy machine (docs/speed.md).
WARM_TIMEOUT_S = 60.0
MAX_RESPONSE_BYTES = 256 << 20
MAX_MESSAGE_CHARS = 8000
# A figure (bytes, nanoseconds) is at most what a signed 64-bit counter holds, which a float holds too: the
# judge divides and compares figures, and a larger integer would overflow that arithmetic.
MAX_FIGURE = (1 << 63) - 1
# Names in one of an answer's lists: at most one per operator or per input, so far fewer than this; of them the
# judge keeps the first few, each cut short.
MAX_LISTED = 4096
LISTED_KEPT = 20
NAME_KEPT_CHARS = 200
# What a harness may report as a test's failure; anything else in an answer is a broken protocol.
REPORTABLE = {"loaded": {"compile_error"},
              "result": {"runtime_error", "memory_limit_exceeded", "wrong_answer"},
              "timed": {"runtime_error", "memory_limit_exceeded", "wrong_answer"}}


def checked_answer(header: dict[str, Any], expected_type: str, timed_calls: int | None = None) -> dict[str, Any]:
    """The fields of an untrusted answer the judge reads, each checked for type and bounds before anything
    else looks at it; Ended if any is malformed. Nothing else of the header is kept."""

    def broken(why: str):
        return Ended(PROTOCOL, f"the process sent a malformed answer ({why})")

    kind = header.get("type")
    if kind != expected_type:
        shown = repr(kind[:40]) if isinstance(kind, str) else f"{type(kind).__name__}-typed"
        raise broken(f"a {shown} frame where a {expected_type!r} one was due")
    answer: dict[str, Any] = {"type": expected_type}
    for key in ("forbidden", "tamper", "modified_inputs"):
        values = header.get(key, [])
        if not isinstance(values, list) or len(values) > MAX_LISTED or not all(isinstance(v, str) for v in values):
            raise broken(f"{key} is not a list of at most {MAX_LISTED} names")
        answer[key] = [storable(v[:NAME_KEPT_CHARS]) for v in values[:LISTED_KEPT]]
    error = header.get("error")
    if error is not None:
        status = error.get("status") if isinstance(error, dict) else None
        # The type first: a list or an object as the status cannot even be looked up in a set.
        if not isinstance(status, str) or status not in REPORTABLE[expected_type] \
                or not isinstance(error.get("message"), str):
            raise broken("an error with a status the harness cannot report")
        answer["error"] = {"status": status, "message": storable(error["message"][-MAX_MESSAGE_CHARS:])}
    for key in ("peak_bytes", "time_ns", "cuda_peak_bytes", "cuda_base_bytes"):
        value = header.get(key)
        if value is not None and not wire.is_count(value, MAX_FIGURE):
            raise broken(f"{key} is not a byte or nanosecond count below 2**63")
        answer[key] = value
    if expected_type == "result" and "error" not in answer and (answer["time_ns"] is None
                                                                 or answer["peak_bytes"] is None):
        # A harness measures every call it makes; an answer without either figure was not written by one.
        raise broken("a result without its time_ns and peak_bytes")
    if expected_type == "timed" and "error" not in answer:
        times = header.get("times_ns")
        if not isinstance(times, list) or len(times) != timed_calls or not all(
                wire.is_count(t, MAX_FIGURE) for t in times):
            raise broken("times_ns is not one count below 2**63 per timed call")
        answer["times_ns"] = times
    return answer

# The most of a rank's file-backed resident pages gained during a request (or since the load) that its memory
# figures leave out: the code its calls run, faulted in for the first time (Harness._memory_figures). The most a
# correct solution's first call gained was about 70 MiB (DDP, pipelining and DTensor's first use).
RANK_CODE_PAGES_BYTES = 128 << 20


def storable(text: str) -> str:
    """Text from the sandbox as any store and terminal can keep it: lone surrogates (which UTF-8 cannot
    encode) and NUL characters (which PostgreSQL's text cannot hold) replaced."""
    return text.encode("utf-8", "replace").decode("utf-8").replace("\0", "\ufffd")


@dataclass
class Observed:
    """What the trusted side saw of one request."""

    wall_s: float
    cpu_s: float  # the whole sandbox's, from before the request was sent until it settled after the answer
    # The most any process running the submission (the harness, or each rank of the request's group) grew during
    # the request (its peak resident set less its size before), plus the growth of what the sandbox held outside
    # its processes meanwhile (tmpfs files and socket queues, the watchdog's peak over its 20 ms looks).
    rss_growth_bytes: int | None
    # The same peaks less each process's size before the submission was loaded, plus what the sandbox holds
    # outside its processes beyond what it held then.
    rss_level_bytes: int | None = None
    # Distributed problems: what each rank process of the request's group wrote during it, by rank (see
    # Harness.rank_pids); None when the problem has no ranks or they could not all be read.
    written_bytes: dict[int, int] | None = None


class Harness:
    """A started harness process, ready for one submission."""

    def __init__(self, options: SandboxOptions, *, memory_limit_bytes: int, threads: int, gpu_index: int | None,
                 idle: bool = False):
        self.process, self.sandbox = start(options, memory_limit_bytes=memory_limit_bytes, threads=threads,
                                           gpu_index=gpu_index, max_response_bytes=MAX_RESPONSE_BYTES, idle=idle)
        self.harness_pid: int | None = None
        self._view = procs.HOST
        self.clock: cputime.SandboxClock | None = None
        # The resident set of each process that runs the submission (the harness's, and each rank's by pid) just
        # before it was loaded, and what the sandbox held outside its processes then: memory touched at import,
        # and kept, counts against every later call.
        self.rss_base_bytes: dict[int, int | None] = {}
        self.file_base_bytes: dict[int, int | None] = {}  # each rank's file-backed resident pages then
        self.outside_base_bytes = 0
        # The most the judge has allowed this process to hold so far (runner/testcase.py, trusted_peak).
        self.memory_allowance_bytes = 0
        self.timed_requests = 0  # how many timed requests it was sent (runner/testcase.py: the first warms up)
        self.ready: dict[str, Any] = {}
        # Distributed problems: each group's rank processes by world size, in rank order (see rank_pids).
        self.rank_pids: dict[int, list[int]] = {}
        self.default_world_size = 1
        # Whether torch._dynamo was imported before the load (warm_up_dynamo), and whether the judge asked for it.
        self.dynamo_warm = self.dynamo_used = False
        # Called once, as closing begins: how a warm pool learns that the judge it lent this process to is done.
        self.on_done: Callable[[], None] | None = None

    def wait_ready(self, timeout_s: float = READY_TIMEOUT_S) -> None:
        """Block until the harness has imported torch; no submission code has run yet. Idempotent, so a
        harness started ahead of time (a warm pool) can be handed to a judge already ready."""
        if self.ready:
            return
        self.ready = self.process.receive(timeout_s=timeout_s).header
        view, pids = self.process.processes()
        leaves = [pid for pid in pids if pid not in procs.parents(pids, view)]
        self._view, self.harness_pid = view, (max(leaves) if leaves else None)
        # Only trusted code has run, so the kernel's children lists can name the harness's host pid.
        host_pid = self.harness_pid if view is procs.HOST else (
            procs.host_pid(self.harness_pid, procs.descendants(self.process.pid)) if self.harness_pid else None)
        self.clock = cputime.SandboxClock(self.process.processes, self.harness_pid, host_pid)
        if self.harness_pid:
            harness_pid = self.harness_pid
            self.process.run_delay_ns = lambda: procs.run_delay_ns(harness_pid, view)

    def warm_up_dynamo(self, device: str, *, timeout_s: float = WARM_TIMEOUT_S, ahead: bool = False) -> None:
        """Before the load: have the harness import torch._dynamo and run a checkpointed backward (see
        runner/harness/serve.py, warm_up_dynamo), unless it has. ahead: a warm pool asks before any judge has
        the process, which does not make it used. Only trusted code has run when it is asked."""
        self.dynamo_used = self.dynamo_used or not ahead
        if self.dynamo_warm:
            return
        answer = self.process.request({"type": "warm", "device": device}, timeout_s=timeout_s).header
        if answer.get("type") != "warmed":
            raise RuntimeError(f"the harness did not warm up: {answer}")
        self.dynamo_warm = True
        if isinstance(self.process.process, ForkedProcess):
            # The zygote imports it too before its next fork, so that later sandboxes find it paid.
            self.process.process.zygote.dynamo = True

    def warm_up_triton(self, device: str, *, timeout_s: float = WARM_TIMEOUT_S) -> None:
        """Before the load, for a kernel problem: have the harness import Triton and launch one kernel through
        its interpreter (runner/harness/serve.py, warm_up_triton). Only trusted code has run when it is asked."""
        answer = self.process.request({"type": "warm", "device": device, "triton": True}, timeout_s=timeout_s).header
        if answer.get("type") != "warmed":
            raise RuntimeError(f"the harness did not warm up: {answer}")

    def start_ranks(self, *, timeout_s: float, **settings: Any) -> None:
        """A distributed problem's rank processes, started before the load (nothing to do on another): the time
        they take is the judge's, and the pids found are those of processes only trusted code has run in."""
        self.default_world_size = int(settings.get("world_size", 1))
        if self.default_world_size == 1:
            return
        answer = self.process.request({"type": "ranks", **settings}, timeout_s=timeout_s).header
        if answer.get("type") != "ranks":
            raise RuntimeError(f"the harness did not start its ranks: {answer}")
        if self.harness_pid:
            self.rank_pids = self._find_ranks(sorted({self.default_world_size, *settings.get("world_sizes", [])}))

    def load(self, blobs: dict[str, bytes], *, timeout_s: float, **settings: Any) -> dict[str, Any]:
        """Send the submission (after start_ranks); the harness's answer (compile errors and forbidden calls at
        import)."""
        if self.harness_pid:
            for pid in (self.harness_pid, *(pid for group in self.rank_pids.values() for pid in group)):
                self.rss_base_bytes[pid] = procs.status_bytes(pid, "VmRSS", self._view)
                self.file_base_bytes[pid] = procs.status_bytes(pid, "RssFile", self._view)
        self.outside_base_bytes = self.process.outside_bytes
        answer = self.process.request({"type": "load", **settings}, blobs=blobs, timeout_s=timeout_s).header
        return checked_answer(answer, "loaded")

    def _find_ranks(self, sizes: list[int]) -> dict[int, list[int]]:
        """The rank processes, which the harness forks at the load one group at a time, in ascending world
        size and rank order (runner/harness/ranks.py): the sandbox's pid namespace numbers them in that order,
        which no code in them can change. Nothing if the count is not what the groups make (a rank that
        failed to start): then no rank's figures are known."""
        children = procs.children_in(self.harness_pid, self._view)
        if len(children) != sum(sizes):
            return {}
        found, start = {}, 0
        for size in sizes:
            found[size], start = children[start:start + size], start + size
        return found

    def _find_restarted(self, size: int) -> None:
        """The ranks of the group of size that the controller started again after a failure, before it answered
        (runner/harness/ranks.py, RankGroup): the harness's children that are in no other group, in the order
        the namespace numbered them. None of them if the count is not the group's: no figure of theirs is known
        then (a test that needs one cannot pass). Their memory is held from here on against their size now,
        which counts the load again: what a failed test's ranks held went with them."""
        others = {pid for group_size, group in self.rank_pids.items() if group_size != size for pid in group}
        found = [pid for pid in procs.children_in(self.harness_pid, self._view) if pid not in others]
        self.rank_pids[size] = found if len(found) == size else []
        for pid in self.rank_pids[size]:
            self.rss_base_bytes[pid] = procs.status_bytes(pid, "VmRSS", self._view)
            self.file_base_bytes[pid] = procs.status_bytes(pid, "RssFile", self._view)

    def _written(self, pids: list[int]) -> list[int | None]:
        return [procs.written_bytes(pid, self._view) for pid in pids]

    def request(self, header: dict[str, Any], tensors: dict[str, torch.Tensor], *,
                timeout_s: float) -> tuple[wire.Frame, Observed]:
        """One request, its answer type-checked, and what the trusted side observed around it."""
        cpu_before = self.cpu_sample()
        ranks = self.rank_pids.get(int(header.get("params", {}).get("world_size", self.default_world_size)), [])
        running = [self.harness_pid, *ranks] if self.harness_pid else []
        rss_before = {pid: procs.peak_rss_reset(pid, self._view) for pid in running}
        files_before = {pid: procs.status_bytes(pid, "RssFile", self._view) for pid in ranks}
        outside_before = self.process.outside_peak_reset()
        written_before = self._written(ranks)
        started = time.monotonic()
        frame = self.process.request(header, tensors, timeout_s=timeout_s)
        wall = time.monotonic() - started
        if ranks and not all(procs.exists(pid, self._view) for pid in ranks):
            self._find_restarted(int(header.get("params", {}).get("world_size", self.default_world_size)))
        # Every rank wrote its answer to the controller before the controller answered: the counts are final.
        written = None
        if ranks:
            pairs = list(zip(written_before, self._written(ranks)))
            if all(before is not None and after is not None for before, after in pairs):
                written = {rank: after - before for rank, (before, after) in enumerate(pairs)}
        peaks = {pid: procs.status_bytes(pid, "VmHWM", self._view) for pid in running}
        files_after = {pid: procs.status_bytes(pid, "RssFile", self._view) for pid in ranks}
        cpu_s = self.cpu_since(cpu_before)
        growth, level = self._memory_figures(rss_before, peaks, outside_before, files_before, files_after)
        expected_type = "timed" if header["type"] == "time" else "result"
        frame.header = checked_answer(frame.header, expected_type, header.get("iterations"))
        return frame, Observed(wall_s=wall, cpu_s=cpu_s, rss_growth_bytes=growth, rss_level_bytes=level,
                               written_bytes=written)

    def _memory_figures(self, before: dict[int, int | None], peaks: dict[int, int | None], outside_before: int,
                        files_before: dict[int, int | None],
                        files_after: dict[int, int | None]) -> tuple[int | None, int | None]:
        """The request's growth and level (see Observed), or None for each where a figure could not be read.

        A rank is a fork of the harness, and a fork maps none of the parent's library code until it runs it: its
        first calls fault in pages of torch's libraries, tens of MiB that are file-backed, no memory of the
        submission's. A rank's figures leave out the file-backed pages it gained (RssFile, which only grows with
        code run), up to RANK_CODE_PAGES_BYTES, so that a mapping of a large file cannot hide a larger peak."""

        def code_pages(pid: int, since: dict[int, int | None]) -> int:
            if pid not in files_after or files_after[pid] is None or since.get(pid) is None:
                return 0
            return min(RANK_CODE_PAGES_BYTES, max(0, files_after[pid] - since[pid]))

        outside_peak = max(self.process.outside_peak_bytes, self.process.outside_bytes)
        growths = [peaks[pid] - before[pid] - code_pages(pid, files_before) for pid in peaks
                   if peaks[pid] is not None and before[pid] is not None]
        if not growths or len(growths) != len(peaks):
            return None, None
        growth = max(growths) + max(0, outside_peak - outside_before)
        bases = [peaks[pid] - self.rss_base_bytes[pid] - code_pages(pid, self.file_base_bytes) for pid in peaks
                 if self.rss_base_bytes.get(pid) is not None]
        if len(bases) != len(peaks):
            return growth, None
        return growth, max(bases) + max(0, outside_peak - self.outside_base_bytes)

    def cpu_sample(self) -> cputime.Sample | None:
        """The sandbox's clocks now, for cpu_since (None before the harness is ready)."""
        return self.clock.sample() if self.clock else None

    def cpu_since(self, before: cputime.Sample | None) -> float:
        """The sandbox's CPU seconds since the sample before, once it has settled."""
        if before is None or self.clock is None:
            return 0.0
        return cputime.seconds_between(before, self.clock.sample(settle=True))

    def output(self) -> tuple[str, str]:
        return self.process.output()

    def close_in_background(self) -> None:
        """close() in a thread of its own: a process that held torch takes tens of milliseconds to exit, and
        nothing of the verdict waits for that (the sandbox is killed already; its uid waits)."""
        self._done()
        in_background(self.close)

    def close(self) -> None:
        self._done()
        self.process.close()
        if self.clock:
            self.clock.close()

    def _done(self) -> None:
        done, self.on_done = self.on_done, None
        if done is not None:
            done()
