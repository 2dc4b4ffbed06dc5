"""How a judgement's processes are started and loaded: the user's and the reference's alike."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ..client import Harness
from ..problems import KIT_SANDBOX_MODULES, Problem, TestSpec
from ..sandbox import SandboxOptions, procs

# What imports torch._dynamo on first use (torch.optim's first step, torch.utils.checkpoint, torch.func's
# transforms, torch.compile, DistributedDataParallel's constructor, parallelize_module and DTensor, an operation
# on the meta device): a sandbox whose code or tests name one of these imports it before the load, so that no
# call is charged for it (about 110 MiB of a rank's resident set); every other sandbox is spared the cost. On the CPU the ranks of a distributed problem are forks of the process
# that imported it, so they start with it too, where each would import it again (docs/speed.md has the costs).
DYNAMO_USERS = re.compile(rb"optim|checkpoint|torch\.func|from torch import func|functorch|compile|_dynamo|"
                          rb"torch\.export|torch\.fx|pipelining|DistributedDataParallel|distributed\.tensor|DTensor|"
                          rb"\bmeta\b")
# The submission's import: its own budget, within the run's wall clock. The reference's load is the judge's.
LOAD_TIMEOUT_S = 10.0
REFERENCE_LOAD_TIMEOUT_S = LOAD_TIMEOUT_S + 30
# Starting a rank (on CUDA an interpreter and torch each) and joining its group: the judge's cost, before the load.
RANK_START_S = 20.0


def uses_dynamo(blobs: dict[str, bytes], tests: Sequence[TestSpec]) -> bool:
    """Whether the code a sandbox will run, or the parameters of its tests (a device to make tensors on),
    name something that imports torch._dynamo (the kit's own modules, which never do, aside)."""
    params = json.dumps([test.params for test in tests]).encode()
    return DYNAMO_USERS.search(params) is not None or any(
        DYNAMO_USERS.search(source) for name, source in blobs.items() if name.removeprefix("module:") not in KIT_SANDBOX_MODULES)


@dataclass(frozen=True)
class Sandboxes:
    """Where and how a judgement's processes run: started with the problem's limits, loaded with its settings."""

    problem: Problem
    device: str
    options: SandboxOptions
    threads: int
    gpu_index: int | None
    start_harness: Callable[..., Harness]

    def start(self) -> Harness:
        """A process, started on the calling thread: it dies with that thread (bubblewrap's --die-with-parent)."""
        return self.start_harness(self.options, memory_limit_bytes=self.problem.limits.sandbox_memory_bytes,
                                  threads=self.threads, gpu_index=self.gpu_index)

    def warm_up(self, harness: Harness, blobs: dict[str, bytes], tests: Sequence[TestSpec]) -> None:
        """Have harness import torch._dynamo before the load, where its code or tests will use it, and Triton for
        a kernel problem."""
        if uses_dynamo(blobs, tests):
            harness.warm_up_dynamo(self.device)
        if self.problem.kind == "kernel":
            harness.warm_up_triton(self.device)

    def start_ranks(self, harness: Harness, tests: Sequence[TestSpec]) -> dict[str, Any]:
        """Start harness's ranks, where the problem has them, before the load: only trusted code runs until they
        are up, so the time they take is the judge's. The settings the load then takes."""
        settings = self.load_settings(tests)
        harness.start_ranks(timeout_s=RANK_START_S * sum(settings["world_sizes"]), **settings)
        return settings

    def load_settings(self, tests: Sequence[TestSpec]) -> dict[str, Any]:
        """The ranks' and the load request's settings for a process that runs tests."""
        limits = self.problem.limits
        sizes = sorted({int(test.params.get("world_size", self.problem.world_size)) for test in tests})
        resource_limits = {"nproc": _nproc(), "nofile": 512, "fsize_bytes": 64 << 20, "core_bytes": 0,
                           "cpu_s": int(limits.wall_s) + 5}
        if self.device == "cpu":
            resource_limits["address_space_extra_bytes"] = limits.sandbox_memory_bytes
        else:
            # An address-space limit breaks CUDA's virtual reservations; the data segment is limited instead,
            # loosely, since what the driver maps privately is not known in advance. The watchdog is the
            # real bound on host memory.
            resource_limits["data_bytes"] = max(4 * limits.sandbox_memory_bytes, 32 << 30)
        # What the submission may not do (runner/harness/confine.py): start processes, since every problem runs
        # in the processes the harness starts (the ranks too, started before the load); hold memory outside the
        # watchdog's count in memfd or shared mappings, but on CUDA, whose driver may use them. A kernel
        # problem on CUDA compiles its kernels with Triton's compiler, which runs ptxas as a child process: allowed
        # there, inside the same sandbox, so that its CPU time and memory count as the submission's (on the CPU the
        # interpreter runs every kernel in this process, and processes stay refused).
        # Threads too, since what the harness counts inside the process is seen thread by thread, unless the
        # problem needs them (Problem.threads: the ranks') or the device does (a GPU run, the driver's).
        compiles = self.problem.kind == "kernel" and self.device == "cuda"
        confinement = {"processes": compiles, "shared_memory": self.device == "cuda",
                       "threads": self.problem.threads or self.device != "cpu"}
        return {"device": self.device, "forbidden": self.problem.forbidden, "limits": resource_limits,
                "confine": confinement,
                "entry_points": self.problem.entry_points, "world_size": self.problem.world_size,
                "collective_timeout_s": limits.collective_timeout_s, "world_sizes": sizes}


def _nproc() -> int:
    if os.geteuid() == 0:
        return 256
    # Without a uid of its own the sandbox shares the count with every process of this user.
    return len(procs.owned_by(os.geteuid())) * 8 + 256
