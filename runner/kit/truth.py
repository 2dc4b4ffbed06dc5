"""The truth on the trusted side: a package's files imported here, and solutions run through a driver in float64.

A checker compares a submission's outputs with a float64 truth: the package's reference (or a classic
mistake's solution file) run here, on the CPU, by the same driver the sandbox runs, on the inputs cast to
float64. Runs are remembered (memo.FLOAT64_RUNS), so a truth computed once for the same inputs is not
computed again.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, SimpleNamespace

import torch

from . import memo, sandbox
from .api import Params, Tensors

Run = Callable[[ModuleType, Params, Tensors, SimpleNamespace], Tensors]


def load_module(path: Path, name: str) -> ModuleType:
    """Import the file at path under name (sandbox-side files find the kit as `kit`, as they do in the sandbox)."""
    sys.modules.setdefault("kit", sandbox)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_sibling(beside: str | Path, name: str) -> ModuleType:
    """Import the file name next to beside (a package file's __file__) under a name of its own."""
    path = Path(beside).resolve().parent / name
    return load_module(path, f"judge_module_{path.parent.name.replace('-', '_')}_{path.stem}")


def trusted_context() -> SimpleNamespace:
    """What a driver run on the trusted side (for the truth) gets as ctx."""
    return SimpleNamespace(device=torch.device("cpu"), rank=0, world_size=1, op_counts={}, collective_counts={},
                           WrongAnswer=ValueError, MemoryLimitExceeded=MemoryError)


def float64(inputs: Tensors) -> Tensors:
    """A copy of each input, in float64 where it is floating: a driver may write into what it is given (a
    cache's pools), and the judge may be sending the inputs to a sandbox meanwhile."""
    return {name: tensor.to(torch.float64, copy=True) if tensor.is_floating_point() else tensor.clone()
            for name, tensor in inputs.items()}


def run_in_float64(run: Run, solution: ModuleType, params: Params, inputs: Tensors) -> Tensors:
    """What a driver's run gives for solution on the inputs cast to float64, here on the CPU (detached; from
    memo.FLOAT64_RUNS when the same run was made on the same inputs before)."""
    def compute():
        with torch.enable_grad():
            return run(solution, params, float64(inputs), trusted_context())
    return memo.FLOAT64_RUNS.run(run, solution, params, inputs, compute)


_DRIVERS: dict[Path, Run] = {}


def run_by_driver(beside: str | Path, solution: ModuleType, params: Params, inputs: Tensors) -> Tensors:
    """What solution gives in float64, run here through the driver.py of the problem folder that holds the file
    beside (a package file's __file__): a truth from another solution than the reference (torch's own, say)."""
    folder = Path(beside).resolve().parent
    if folder not in _DRIVERS:
        _DRIVERS[folder] = load_module(folder / "driver.py", f"judge_kit_{folder.name.replace('-', '_')}_driver").run
    return run_in_float64(_DRIVERS[folder], solution, params, inputs)


__all__ = ["Run", "float64", "load_module", "load_sibling", "run_by_driver", "run_in_float64", "trusted_context"]
