"""The kernel kind: Triton kernels and the host function that launches them, judged by value and, where Triton's
interpreter runs them (every CPU judgement), by the bytes they move between global memory and the chip.

The submission defines `@triton.jit` kernels and the host function `[interface]` names, which only allocates
outputs and launches kernels. The kit's driver (sandbox_kernel.py) calls it as the function kind's driver does,
the interpreter checking every access and counting the bytes of each load and store. Judged here, in order:

- the host function called no PyTorch operator but allocation and views outside its launches (`host.operators`);
- every output, as the function kind judges it (runner/kit/standard.py), against spec.truth (the trusted side
  never imports Triton: the truth is the problem's own float64 computation, and a classic mistake is one of
  spec.mistakes, never a solution file run here);
- where the reference's run counted traffic, no load or store spanning a block wider than `[kernel] max_block`
  elements where the problem sets one, and the call's loads and stores each at most the test's bound,
  spec.traffic(params, inputs): {"load": (bytes, why), "store": (bytes, why)}; a count below what storing
  every output once, or reading every input once, takes is a report the submission changed.

The interpreter runs in the submission's process, so the counts are its claims, as the operator counts are
(docs/judge.md): a submission that patches the interpreter can lower them. The rules that make the host unable to
compute (kernels read only inputs and what kernels stored; every output element stored by a kernel) are the
driver's, and a broken one stops the call as a wrong answer or an illegal memory access.
"""

from __future__ import annotations

import torch

from runner import compare

from . import api, sandbox
from .api import Hook, KitError, Package, Params, Table, Tensors
from .reports import TAMPERED, scalar
from .standard import INTERFACE, FunctionChecker
from .values import SPEC_HOOKS, VALUE_TABLES

TRAFFIC = Hook("traffic", ("params", "inputs"), "the test's bounds on the bytes its kernels load and store: "
               '{"load": (bytes, why), "store": (bytes, why)}', required=True)
TRUTH = Hook(api.TRUTH.name, api.TRUTH.parameters, "the float64 truth of every output, computed with PyTorch (the "
             "trusted side never runs a kernel)", required=True)
KERNEL_HOOKS = tuple(TRUTH if hook.name == "truth" else hook for hook in SPEC_HOOKS) + (TRAFFIC,)
# problem.toml's tables a kernel problem reads: the function kind's interface (no gradients) and tolerance.
KERNEL_TABLES: Table = {**VALUE_TABLES, "interface": {key: INTERFACE[key] for key in ("call", "args", "kwargs",
                                                                                       "outputs")},
                        "kernel": {"max_block": None}}
TRAFFIC_KEYS = ("traffic.load", "traffic.store")
# What each `kernel.refused` code of the driver means (runner/kit/sandbox_kernel.py), in the judge's own words: on a
# hidden test these are all a message says, the driver's details being the submission's to forge.
REFUSALS = {
    1: "an input of the call had changed before a launch: the inputs must stay as they were given",
    2: "the host function changed memory a kernel had stored: the host function only allocates and launches, the "
       "kernels compute",
    3: "a kernel loaded memory that holds no input and that no kernel of this call had stored: the host function "
       "filled it (a .contiguous() copy, torch.zeros, NumPy work), or nothing ever wrote it. Kernels read the inputs "
       "as they are given, through their strides, and what kernels stored",
    4: "an output was never passed to a kernel: the host function made it itself, and every value of an output is "
       "stored by a kernel",
    5: "elements of an output were never stored by a kernel: the grid misses a block, or a mask drops lanes it "
       "should keep",
    6: "the host function changed an output after the last launch: every value of an output is stored by a kernel",
}


def driver_source(package: Package) -> str:
    """The driver the sandbox runs for a kernel problem: kit_kernel with the problem's `[interface]`."""
    return ('"""The kit\'s kernel driver (kit_kernel) for ' f'{package.slug}."""\n\nimport kit_kernel\n\n'
            f"INTERFACE = {dict(sorted(package.interface.items()))!r}\n\n\n"
            "def run(solution, params, inputs, ctx, _run=kit_kernel.run):\n"
            "    return _run(INTERFACE, solution, params, inputs, ctx)\n")


# spec.py's hooks that take the inputs, by the position of their params (inputs follow it).
VIEWED_HOOKS = {"truth": 0, "describe": 0, "check": 0, "memory_limit": 0, "traffic": 0, "mistakes": 0, "diagnose": 1,
                "magnitude": 1}


def _on_views(hook, at: int):
    def on_views(*args, **kwargs):
        args = list(args)
        args[at + 1] = sandbox.viewed(args[at], args[at + 1])
        return hook(*args, **kwargs)
    return on_views


def _words(report: torch.Tensor | None) -> str | None:
    """A text report of the driver (UTF-8, NUL-padded), or None where it is not one."""
    if report is None or report.dtype != torch.uint8 or report.dim() != 1:
        return None
    return bytes(report.tolist()).rstrip(b"\0").decode("utf-8", "replace")


class KernelChecker(FunctionChecker):
    """The kernel kind's checker."""

    hooks = KERNEL_HOOKS
    runs_reference = False

    def __init__(self, package: Package):
        if any("solution" in mistake for mistake in package.mistakes):
            raise KitError(f"{package.slug}: a kernel problem's [[mistakes]] are spec functions: the trusted side "
                           "never runs a kernel")
        super().__init__(package)
        # spec.py's hooks see the inputs as the host function does: a test's `views` taken (sandbox.viewed).
        for name, hook in list(self.own.items()):
            if name in VIEWED_HOOKS:
                self.own[name] = _on_views(hook, VIEWED_HOOKS[name])

    def spec_mistake(self, mistake, params: Params, inputs: Tensors) -> Tensors:
        return super().spec_mistake(mistake, params, sandbox.viewed(params, inputs))

    def run(self, solution, params, inputs, ctx):
        raise KitError(f"{self.package.slug}: the trusted side never runs a kernel; spec.truth gives the truth")

    def check(self, params: Params, inputs: Tensors, got: Tensors, expected: Tensors) -> str | None:
        code = scalar(got.get("kernel.refused"), torch.int64)
        if code != 0:
            if code not in REFUSALS:
                return f"{self.describe(params, inputs)}: {TAMPERED}"
            detail = _words(got.get("kernel.refused.text")) if compare.reveals_values() else None
            return f"{self.describe(params, inputs)}: {REFUSALS[code]}" + (f" ({detail})" if detail else "")
        host = _words(got.get("host.operators"))
        if host is None:
            return f"{self.describe(params, inputs)}: {TAMPERED}"
        if host:
            return (f"{self.describe(params, inputs)}: the host function called {host} outside its kernels; it may "
                    "only allocate outputs (torch.empty and the like), take views, and launch kernels: every value "
                    "is computed by a kernel")
        return super().check(params, inputs, got, expected) or self.traffic_problem(params, inputs, got, expected)

    def traffic_problem(self, params: Params, inputs: Tensors, got: Tensors, expected: Tensors) -> str | None:
        """The call's traffic against the test's bounds, where the reference's run counted it."""
        if not all(key in expected for key in TRAFFIC_KEYS):
            return None
        counted = {key: scalar(got.get(key), torch.int64) for key in TRAFFIC_KEYS}
        kernels = _words(got.get("traffic.kernels"))
        if None in counted.values() or kernels is None:
            return f"{self.describe(params, inputs)}: {TAMPERED}"
        # One-sided claims: every output is stored and every input read at least once, so a count below either is a
        # count the submission lowered.
        stored_once = sum(got[name].numel() * got[name].element_size() for name in self.outputs
                          if isinstance(got.get(name), torch.Tensor))
        given = sandbox.viewed(params, inputs)
        read_once = sum(given[name].numel() * given[name].element_size() for name in self.interface.get("args", [])
                        if isinstance(given.get(name), torch.Tensor))
        if counted["traffic.store"] < stored_once or counted["traffic.load"] < read_once:
            return f"{self.describe(params, inputs)}: {TAMPERED}"
        widest, most = scalar(got.get("traffic.widest"), torch.int64), self.package.declared.get("kernel", {}).get("max_block")
        if widest is None:
            return f"{self.describe(params, inputs)}: {TAMPERED}"
        if most is not None and widest > most:
            return (f"{self.describe(params, inputs)}: a kernel's tl.load or tl.store spans a block of {widest:,} "
                    f"elements; this problem's blocks hold at most {most:,} (as a GPU's registers do), so a row longer "
                    "than that is processed in a loop over blocks")
        bounds = self.own["traffic"](params, inputs)
        for key in TRAFFIC_KEYS:
            what = key.split(".")[1]
            bound, why = bounds[what]
            if counted[key] > bound:
                verb = "loaded from" if what == "load" else "stored to"
                return (f"{self.describe(params, inputs)}: the kernels {verb} global memory {counted[key]:,} bytes, "
                        f"over this test's bound of {bound:,} ({why}). {_per_kernel(kernels)}")
        return None


def _per_kernel(kernels: str) -> str:
    """Each kernel's loads, stores and launches, in words."""
    parts = []
    for line in kernels.splitlines():
        name, *numbers = line.rsplit(" ", 3)
        if len(numbers) == 3 and all(number.isdigit() for number in numbers):
            loads, stores, launches = (int(number) for number in numbers)
            parts.append(f"{name}: {loads:,} bytes loaded, {stores:,} stored, {launches} launch"
                         + ("es" if launches != 1 else ""))
    return f"By kernel: {'; '.join(parts)}." if parts else ""


__all__ = ["KERNEL_HOOKS", "KERNEL_TABLES", "TRAFFIC", "KernelChecker", "driver_source"]
