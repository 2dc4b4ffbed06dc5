"""Distributed problems: several rank processes inside the one sandbox, behind one controller.

The controller (the harness the judge started) starts one process per rank when the judge asks (a `ranks`
request, before the load, so before any submission code has run in it), forwards the load and every request
to all ranks, and merges their answers: outputs come back named `name@rank`, statuses and observations are
combined. Each rank confines itself as it loads the
submission (confine.py), so no process the submission starts can join them. The ranks join a gloo
process group on loopback (the sandbox's network namespace has nothing else) with a timeout on every
collective, so a rank that never joins a collective becomes an error, not a hang; a rank that fails while
the others wait on it, or a group stuck with every rank asleep, ends the group at once and starts it again
(RankGroup), so that a wrong schedule costs a fraction of a second, not the timeout. A test may ask for a
world size other than the problem's (params["world_size"]); the ranks request names every size the run needs
and each gets its own group of ranks, all started before the first test.

On the CPU a rank is a fork of the controller, which has imported torch and paid its first-use costs, and has
run nothing else: a rank is ready in milliseconds instead of the second or two a fresh interpreter takes, and
each keeps only its own pipes (a submission loaded in a rank must not reach the controller's pipe to the
judge). On CUDA a rank is a fresh interpreter: the controller has initialised CUDA, which a fork cannot use.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import time
from typing import Any, Callable

from . import wire
from .limits import close_descriptors_but


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# A group is stuck when every thread of every rank sleeps at each look (every LOOK_S) for STILL_S, and their
# CPU time together grows no faster than IDLE_SHARE of a core a rank meanwhile (gloo's loop thread wakes on its
# own, about 0.3 % of a core, asleep in a receive). Nothing in the sandbox can wake them then but a collective's
# timeout (its network namespace holds only the ranks) or a timer the submission set: a deadlock, found in a
# tenth of the timeout. A rank kept from a core by a busy machine is runnable, not asleep, and a collective
# whose peers have all arrived moves bytes, which takes CPU: neither reads as stuck.
STILL_S = 0.5
LOOK_S = 0.05
IDLE_SHARE = 0.02
# How long the ranks of a stuck group have to answer once their connections are shut down (each then fails its
# wait as it would at the timeout, and the problem's own words for a timeout apply); a rank that has not
# answered by then is killed.
WAKE_S = 2.0
# What a stuck group's request answers: the ranks that had not answered, and the wait. The trusted side shows it on
# hidden tests too (runner/hidden.py): it says no more than which ranks failed to answer.
STUCK = ("{ranks} waited {still_s} s with every thread of every rank asleep: each waits on a send, a receive or a "
         "collective that no other rank will make (a deadlock), or sleeps")


def stuck_message(ranks: list[int]) -> str:
    named = f"rank {ranks[0]}" if len(ranks) == 1 else "ranks " + ", ".join(map(str, ranks))
    return STUCK.format(ranks=named, still_s=STILL_S)


HANDED_SOCKETS_MAX = 64  # a rank's sockets: one to each peer, its store client, and on rank 0 the store's own
ANSWER_TYPES = {"run": "result", "time": "timed"}  # each request's answer, as serve.py names it


class RankGroup:
    """world_size rank processes, started and joined in their group; the submission is loaded in each later.

    A request that one rank fails while others still wait on it ends every rank of the group at once (the others
    would otherwise wait out the collective timeout, seconds a test). A request that leaves the group stuck
    shuts down every connection of the group's ranks (on the CPU, where each rank hands its controller its
    sockets as it joins), so that each fails its wait as it would at the timeout and answers with what it
    recorded; elsewhere, or where a rank still does not answer, it is killed. Either way the group starts again and loads the submission again before the answer goes back, so that the next test meets
    ranks in the state the first test met them, whatever the failure left behind."""

    def __init__(self, world_size: int, settings: dict[str, Any], device: str, serve_rank: Callable[..., None]):
        self.world_size, self.settings, self.device, self.serve_rank = world_size, settings, device, serve_rank
        self.load: wire.Frame | None = None
        self.load_error: dict[str, Any] | None = None  # a reload's, answered for the next request
        self._start()

    def _start(self) -> None:
        port = free_port()
        self.ranks, self.pids = [], []
        self.sockets: list[socket.socket] = []  # every rank's, handed over as it joined (CPU only)
        handoffs = []
        timeout_s = float(self.settings.get("collective_timeout_s", 5))
        if self.device == "cpu":
            import torch.distributed  # noqa: F401  (imported once here rather than in every forked rank)
        for rank in range(self.world_size):
            request_read, request_write = os.pipe()
            response_read, response_write = os.pipe()
            if self.device == "cpu":
                ours, theirs = socket.socketpair()
                pid = _fork_rank(self.serve_rank, request_read, response_write, theirs.fileno(), rank,
                                 self.world_size, port, timeout_s)
                theirs.close()
                handoffs.append(ours)
            else:
                argv = [sys.executable, "-s", "-P", "-B", "-m", "harness", str(request_read), str(response_write),
                        self.device, str(rank), str(self.world_size), str(port), str(timeout_s)]
                pid = subprocess.Popen(argv, pass_fds=(request_read, response_write), stdin=subprocess.DEVNULL).pid
            os.close(request_read)
            os.close(response_write)
            self.pids.append(pid)
            self.ranks.append((wire.open_pipe(request_write, "w"), wire.open_pipe(response_read, "r")))
        for _, responses in self.ranks:
            wire.read_frame(responses)
        for handoff in handoffs:  # each rank handed its sockets over before it said it was ready
            with handoff:
                _, fds, _, _ = socket.recv_fds(handoff, 1, HANDED_SOCKETS_MAX)
            self.sockets += [socket.socket(fileno=fd) for fd in fds]

    def send_load(self, load: wire.Frame) -> None:
        """Send the submission to every rank; each imports it as soon as it reads it."""
        self.load = load
        for rank, (requests, _) in enumerate(self.ranks):
            wire.write_frame(requests, {**load.header, "world_size": self.world_size, "rank": rank}, {}, load.blobs)

    def answers(self) -> list[wire.Frame]:
        return [wire.read_frame(responses) for _, responses in self.ranks]

    def request(self, frame: wire.Frame) -> tuple[dict[str, Any], dict]:
        if self.load_error is not None:
            error, self.load_error = self.load_error, None
            return {"type": ANSWER_TYPES[frame.kind], "error": error}, {}
        for requests, _ in self.ranks:
            wire.write_frame(requests, frame.header, frame.tensors)
        frames, stuck = self._watched_answers()
        waiting = [rank for rank, answered in enumerate(frames) if answered is None]
        if stuck:
            self._wake(frames)
        answer, outputs = merge(frames)
        answer["type"] = ANSWER_TYPES[frame.kind]
        if stuck and (None in frames or answer.get("error", {}).get("status") == "runtime_error"):
            # What gloo says of a connection shut down is no help; which ranks waited is.
            answer["error"] = {"status": "runtime_error", "message": stuck_message(waiting)}
        if stuck or None in frames:
            self._restart()
        return answer, outputs

    def _watched_answers(self) -> tuple[list[wire.Frame | None], bool]:
        """Every rank's answer as it comes; None for the ranks still out once one has failed, and True with
        them when the group is stuck (STILL_S). Every rank's threads count, those that answered too: one
        finishing a send it did not wait for is moving bytes the others may be waiting on."""
        frames: list[wire.Frame | None] = [None] * self.world_size
        out = {responses.fileno(): rank for rank, (_, responses) in enumerate(self.ranks)}
        still_since, base = time.monotonic(), None
        while out:
            ready, _, _ = select.select(list(out), [], [], LOOK_S)
            for fd in ready:
                rank = out.pop(fd)
                frames[rank] = wire.read_frame(self.ranks[rank][1])
            if not out:
                break
            if any(frame is not None and frame.header.get("error") for frame in frames):
                return frames, False
            now, cpu_ns = time.monotonic(), _asleep_cpu_ns(self.pids)
            idle_ns = IDLE_SHARE * (now - still_since) * 1e9 * len(self.pids)
            if cpu_ns is None or base is None or cpu_ns - base > idle_ns:
                still_since, base = now, cpu_ns
            elif now - still_since >= STILL_S:
                return frames, True
        return frames, False

    def _wake(self, frames: list[wire.Frame | None]) -> None:
        """Shut down every connection of the group's ranks and read the answers that follow within WAKE_S."""
        for sock in self.sockets:
            try:
                sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        out = {responses.fileno(): rank for rank, (_, responses) in enumerate(self.ranks) if frames[rank] is None}
        until = time.monotonic() + WAKE_S
        while out and (left := until - time.monotonic()) > 0:
            for fd in select.select(list(out), [], [], left)[0]:
                rank = out.pop(fd)
                frames[rank] = wire.read_frame(self.ranks[rank][1])

    def _restart(self) -> None:
        """End every rank, start the group again and load the submission in it."""
        for pid in self.pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in self.pids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        for stream in [*(end for pair in self.ranks for end in pair), *self.sockets]:
            try:
                stream.close()
            except OSError:
                pass
        self._start()
        if self.load is not None:
            self.send_load(self.load)
            loaded, _ = merge(self.answers())
            self.load_error = loaded.get("error")


def _asleep_cpu_ns(pids: list[int]) -> int | None:
    """The CPU time of every thread of pids together, in nanoseconds, when every one of them sleeps; None when
    one runs, is runnable, or cannot be read (which never counts as still)."""
    total = 0
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
            for task in tasks:
                with open(f"/proc/{pid}/task/{task}/stat", "rb") as stat:
                    if stat.read().rpartition(b")")[2].split()[0] != b"S":
                        return None
                with open(f"/proc/{pid}/task/{task}/schedstat", "rb") as schedstat:
                    total += int(schedstat.read().split()[0])
        except (OSError, ValueError, IndexError):
            return None
    return total


def _fork_rank(serve_rank: Callable[..., None], request_fd: int, response_fd: int, handoff_fd: int, rank: int,
               world_size: int, port: int, timeout_s: float) -> int:
    """Start a rank as a fork of this controller and return its pid; in the child, serve as that rank and never
    return."""
    pid = os.fork()
    if pid != 0:
        return pid
    try:
        close_descriptors_but(0, 1, 2, request_fd, response_fd, handoff_fd)
        serve_rank(request_fd, response_fd, rank, world_size, port, timeout_s, handoff_fd)
    finally:
        os._exit(0)


def merge(frames: list[wire.Frame | None]) -> tuple[dict[str, Any], dict]:
    """One answer from every rank's: the first error, unions of findings, per-rank outputs and counts."""
    kind = next((frame.header.get("type") for frame in frames if frame), None)
    merged: dict[str, Any] = {"type": kind, "forbidden": [], "tamper": [], "modified_inputs": [], "op_counts": {}}
    outputs = {}
    for rank, frame in enumerate(frames):
        if frame is None:  # a rank ended because another failed first (RankGroup)
            continue
        header = frame.header
        if header.get("error") and "error" not in merged:
            merged["error"] = {**header["error"], "message": f"rank {rank}: {header['error']['message']}"}
        for key in ("forbidden", "tamper", "modified_inputs"):
            merged[key] += [item for item in header.get(key, []) if item not in merged[key]]
        merged["op_counts"][str(rank)] = header.get("op_counts", {})
        for key in ("peak_bytes", "time_ns", "cuda_peak_bytes", "cuda_base_bytes"):
            if header.get(key) is not None:
                merged[key] = max(merged.get(key, 0), header[key])
        if "times_ns" in header:
            previous = merged.get("times_ns") or [0] * len(header["times_ns"])
            merged["times_ns"] = [max(a, b) for a, b in zip(previous, header["times_ns"])]
        for name, tensor in frame.tensors.items():
            outputs[f"{name}@{rank}"] = tensor
    return merged, outputs


def serve_ranks(settings: wire.Frame, requests, responses, serve_rank: Callable[..., None]) -> None:
    """The controller's loop: one group per world size, every request answered by all its ranks.

    Every group is started and joined first, and said to be ready, before the load: until then only trusted code
    has run, so the time it took is the judge's, and the load's own time (the submission's import, in every rank
    at once) is the submission's alone. serve_rank(request_fd, response_fd, rank, world_size, port, timeout_s) is
    what a forked rank runs (the request loop's, passed in so that this module and the loop do not import each
    other)."""
    header = settings.header
    device = header.get("device", "cpu")
    default_size = int(header["world_size"])
    sizes = sorted({default_size, *map(int, header.get("world_sizes", []))})
    groups = {size: RankGroup(size, header, device, serve_rank) for size in sizes}
    wire.write_frame(responses, {"type": "ranks"})
    load = wire.read_frame(requests)
    for group in groups.values():
        group.send_load(load)
    answer, _ = merge([frame for group in groups.values() for frame in group.answers()])
    wire.write_frame(responses, {"type": "loaded", "forbidden": answer["forbidden"],
                                 **({"error": answer["error"]} if "error" in answer else {})})
    while True:
        try:
            frame = wire.read_frame(requests)
        except wire.WireError:
            return
        if frame.kind not in ("run", "time"):
            return
        size = int(frame.header.get("params", {}).get("world_size", default_size))
        if size not in groups:
            wire.write_frame(responses, {"type": frame.kind, "error": {
                "status": "internal_error", "message": f"no group of {size} ranks was started"}})
            continue
        answer, outputs = groups[size].request(frame)
        wire.write_frame(responses, answer, outputs)


def join_group(rank: int, world_size: int, port: int, timeout_s: float, handoff_fd: int | None = None) -> None:
    """Join the gloo group on loopback; every collective then fails after timeout_s instead of hanging.
    handoff_fd: a socket to the controller, which gets every socket of this process once joined (gloo connects
    every pair of ranks as the group starts), and is closed."""
    from datetime import timedelta

    import torch.distributed as dist

    os.environ.update(GLOO_SOCKET_IFNAME="lo", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world_size,
                            timeout=timedelta(seconds=timeout_s))
    if handoff_fd is not None:
        with socket.socket(fileno=handoff_fd) as handoff:
            sockets = [fd for fd in _own_sockets() if fd != handoff_fd]
            socket.send_fds(handoff, [b"s"], sockets[:HANDED_SOCKETS_MAX])


def _own_sockets() -> list[int]:
    """This process's descriptors that are sockets."""
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{name}").startswith("socket:"):
                found.append(int(name))
        except OSError:  # the listing's own descriptor, closed by now
            continue
    return found
