"""Distributed problems: several rank processes inside the one sandbox, behind one controller.

The controller (the harness the judge started) starts one process per rank when the judge asks (a `ranks`
request, before the load, so before any submission code has run in it), forwards the load and every request
to all ranks, and merges their answers: outputs come back named `name@rank`, statuses and observations are
combined. Each rank confines itself as it loads the
submission (confine.py), so no process the submission starts can join them. The ranks join a gloo
process group on loopback (the sandbox's network namespace has nothing else) with a timeout on every
collective, so a rank that never joins a collective becomes an error, not a hang. A test may ask for a
world size other than the problem's (params["world_size"]); the ranks request names every size the run needs
and each gets its own group of ranks, all started before the first test.

On the CPU a rank is a fork of the controller, which has imported torch and paid its first-use costs, and has
run nothing else: a rank is ready in milliseconds instead of the second or two a fresh interpreter takes, and
each keeps only its own pipes (a submission loaded in a rank must not reach the controller's pipe to the
judge). On CUDA a rank is a fresh interpreter: the controller has initialised CUDA, which a fork cannot use.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from typing import Any, Callable

from . import wire
from .limits import close_descriptors_but


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RankGroup:
    """world_size rank processes, started and joined in their group; the submission is loaded in each later."""

    def __init__(self, world_size: int, settings: dict[str, Any], device: str, serve_rank: Callable[..., None]):
        port = free_port()
        self.world_size = world_size
        self.ranks = []
        timeout_s = float(settings.get("collective_timeout_s", 5))
        if device == "cpu":
            import torch.distributed  # noqa: F401  (imported once here rather than in every forked rank)
        for rank in range(world_size):
            request_read, request_write = os.pipe()
            response_read, response_write = os.pipe()
            if device == "cpu":
                _fork_rank(serve_rank, request_read, response_write, rank, world_size, port, timeout_s)
            else:
                argv = [sys.executable, "-s", "-P", "-B", "-m", "harness", str(request_read), str(response_write),
                        device, str(rank), str(world_size), str(port), str(timeout_s)]
                subprocess.Popen(argv, pass_fds=(request_read, response_write), stdin=subprocess.DEVNULL)
            os.close(request_read)
            os.close(response_write)
            self.ranks.append((wire.open_pipe(request_write, "w"), wire.open_pipe(response_read, "r")))
        for _, responses in self.ranks:
            wire.read_frame(responses)

    def send_load(self, load: wire.Frame) -> None:
        """Send the submission to every rank; each imports it as soon as it reads it."""
        for rank, (requests, _) in enumerate(self.ranks):
            wire.write_frame(requests, {**load.header, "world_size": self.world_size, "rank": rank}, {}, load.blobs)

    def answers(self) -> list[wire.Frame]:
        return [wire.read_frame(responses) for _, responses in self.ranks]

    def request(self, frame: wire.Frame) -> tuple[dict[str, Any], dict]:
        for requests, _ in self.ranks:
            wire.write_frame(requests, frame.header, frame.tensors)
        return merge(self.answers())


def _fork_rank(serve_rank: Callable[..., None], request_fd: int, response_fd: int, rank: int, world_size: int,
               port: int, timeout_s: float) -> None:
    """Start a rank as a fork of this controller; in the child, serve as that rank and never return."""
    if os.fork() != 0:
        return
    try:
        close_descriptors_but(0, 1, 2, request_fd, response_fd)
        serve_rank(request_fd, response_fd, rank, world_size, port, timeout_s)
    finally:
        os._exit(0)


def merge(frames: list[wire.Frame]) -> tuple[dict[str, Any], dict]:
    """One answer from every rank's: the first error, unions of findings, per-rank outputs and counts."""
    merged: dict[str, Any] = {"type": frames[0].header.get("type"), "forbidden": [], "tamper": [],
                              "modified_inputs": [], "op_counts": {}}
    outputs = {}
    for rank, frame in enumerate(frames):
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


def join_group(rank: int, world_size: int, port: int, timeout_s: float) -> None:
    """Join the gloo group on loopback; every collective then fails after timeout_s instead of hanging."""
    from datetime import timedelta

    import torch.distributed as dist

    os.environ.update(GLOO_SOCKET_IFNAME="lo", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world_size,
                            timeout=timedelta(seconds=timeout_s))
