"""The kinds a problem declares in problem.toml (`kind = "..."`): for each, the package files it judges with, the
driver the sandbox runs, the trusted checker the judge asks, and the problem.toml tables it reads.

A kind is the kit's for every problem of it: a problem writes only what is its own (its inputs, how its object
is driven, its messages) in `spec.py` (and `driver.py` where the kind runs the package's own driver), through
the hooks the kind declares. `custom` remains for a problem no kind fits: its own `checker.py` and `driver.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType

from . import api
from .api import Checker, Package
from .kernel import KERNEL_TABLES, KernelChecker
from .kernel import driver_source as kernel_driver
from .ranks import RANKS_TABLES, RanksChecker
from .sampler import SAMPLER_TABLES, SamplerChecker
from .standard import STANDARD_TABLES, FunctionChecker, ModuleChecker
from .standard import driver_source as standard_driver
from .stateful import STATEFUL_TABLES, StatefulChecker
from .training import TRAINING_TABLES, TrainingChecker
from .training import driver_source as training_driver
from .truth import load_module
from .wrapper import WRAPPER_TABLES
from .wrapper import checker_for as wrapper_checker
from .wrapper import driver_source as wrapper_driver


@dataclass(frozen=True)
class Kind:
    """One kind of problem: what the package holds for it, and what the kit builds from it."""

    name: str
    summary: str
    files: tuple[str, ...]  # the package's own files that decide a verdict, besides problem.toml and reference.py
    checker: Callable[[Package], Checker]
    kit_driver: Callable[[Package], str] | None = None  # the driver the kit writes; None: the package's driver.py
    # The problem.toml tables the kind reads besides those of every problem (runner.problems.COMMON_TABLES), by
    # their keys: any other is refused when the package loads. An `[interface]` here names its `call` at least.
    tables: api.Table = field(default_factory=dict)

    def driver_source(self, package: Package) -> bytes:
        """The driver the sandbox runs for package."""
        if self.kit_driver is not None:
            return self.kit_driver(package).encode()
        return (package.path / "driver.py").read_bytes()


CUSTOM_HOOKS = (api.INPUTS, api.Hook("check", ("params", "inputs", "got", "expected"),
                                     "None when got is right, else what is wrong", required=True),
                api.PREPARE, api.MEMORY_LIMIT, api.CHECK_SENT)


class CustomChecker(api.CheckerBase):
    """A custom problem's checker.py, its hooks looked up once and checked against CUSTOM_HOOKS."""

    def __init__(self, package: Package):
        module: ModuleType = load_module(package.path / "checker.py",
                                         f"judge_checker_{package.slug.replace('-', '_')}_{package.version[:12]}")
        for name, hook in api.hooks_of(module, CUSTOM_HOOKS, f"{package.slug}/checker.py").items():
            setattr(self, name, hook)
        self.judges_sent_bytes = hasattr(module, "check_sent")


KINDS: dict[str, Kind] = {kind.name: kind for kind in (
    Kind("function", "a pure function, called as [interface] pins it, forward and backward", ("spec.py",),
         FunctionChecker, standard_driver, STANDARD_TABLES),
    Kind("module", "an nn.Module built with pinned arguments, the judge's weights copied in by name", ("spec.py",),
         ModuleChecker, standard_driver, STANDARD_TABLES),
    Kind("stateful", "an object built and driven by the package's driver, every output it reports judged by value",
         ("spec.py", "driver.py"), StatefulChecker, tables=STATEFUL_TABLES),
    Kind("wrapper", "a wrapper around blocks the kit builds, run through the kit's training scenario", ("spec.py",),
         wrapper_checker, wrapper_driver, WRAPPER_TABLES),
    Kind("sampler", "draws made by the package's driver, judged by their distribution against the laws spec.py gives",
         ("spec.py", "driver.py"), SamplerChecker, tables=SAMPLER_TABLES),
    Kind("ranks", "ranks in a process group, each rank's report judged by the [ranks] rules and its outputs by value",
         ("spec.py", "driver.py"), RanksChecker, tables=RANKS_TABLES),
    Kind("debugging", "a training script the user repairs, run on the judge's data; the weights it ends with judged "
         "by the problem's own model on held-out data the sandbox never sees", ("spec.py",), TrainingChecker,
         training_driver, TRAINING_TABLES),
    Kind("kernel", "Triton kernels and the host function that launches them, judged by value and, through Triton's "
         "interpreter, by the bytes they load and store", ("spec.py",), KernelChecker, kernel_driver, KERNEL_TABLES),
    Kind("custom", "anything else: the package's own checker.py and driver.py", ("checker.py", "driver.py"),
         CustomChecker),
)}


__all__ = ["CUSTOM_HOOKS", "CustomChecker", "KINDS", "Kind"]
