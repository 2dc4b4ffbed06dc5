"""The kit's standard checker for the function and module kinds, on the trusted side.

A problem of a standard kind writes no checker and no driver: problem.toml's `[interface]` says how the kit's
driver (runner/kit/sandbox.py, in the sandbox) calls the submission, and the problem's `spec.py` draws the
inputs. This checker judges what the driver reports, in this order, each failure in words that teach: the
module's tensors (module kind), every output present, of the reference's layout and not an input returned,
the output connected to autograd and every gradient present (tests with cotangents), then the values:
floating outputs against the float64 truth within checks.tolerance, integer and bool outputs exactly, and on a
wrong value the classic mistake it reproduces, from `[[mistakes]]`. spec.check, when defined, comes last.

The truth is the reference run here by the same driver in float64, unless spec.truth computes it.
"""

from __future__ import annotations

import builtins
import importlib.util
import itertools
import json
import re
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import torch

from runner import compare

from . import checks, memo, sandbox

STANDARD_KINDS = ("function", "module")
KINDS = (*STANDARD_KINDS, "custom")
# A name of one call's input or output in a test with `calls`.
CALL_NAME = re.compile(r"\d+/")
# An input position counts as reached by an output position when its gradient is above this share of the
# largest: a -inf mask gives exactly 0, a finite one such as -1e4 far less.
REACH_SHARE = 1e-6
# Device types a message names; any other reported one is "another device" (the name is the submission's).
KNOWN_DEVICES = {"cpu", "cuda", "meta", "mps", "xpu"}
TAMPERED = "no valid report of what it returned came back: the driver's report was removed or changed"
AGAIN = "as a later call, after the caller changed every entry of the first result in place"
# How close to a classic mistake's output a wrong output must be to be called that mistake: within this many
# tolerances, or this share of its distance from the truth.
MISTAKE_TOLERANCES, MISTAKE_SHARE = 4.0, 0.01


def load_module(path: Path, name: str) -> ModuleType:
    """Import the file at path under name (sandbox-side files find the kit as `kit`, as they do in the sandbox)."""
    sys.modules.setdefault("kit", sandbox)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def driver_source(slug: str, kind: str, interface: dict[str, Any]) -> str:
    """The driver the sandbox runs for a problem of a standard kind."""
    return (f'"""The kit\'s standard {kind} driver for {slug}, as problem.toml\'s [interface] pins the call."""\n\n'
            "import kit\n\n"
            f"KIND = {kind!r}\n"
            f"INTERFACE = {json.dumps(interface, sort_keys=True)}\n\n\n"
            "def run(solution, params, inputs, ctx, _run=kit.run_standard):\n"
            "    return _run(KIND, INTERFACE, solution, params, inputs, ctx)\n")


def trusted_context() -> SimpleNamespace:
    """What a driver run on the trusted side (for the truth) gets as ctx."""
    return SimpleNamespace(device=torch.device("cpu"), rank=0, world_size=1, op_counts={}, collective_counts={},
                           WrongAnswer=ValueError, MemoryLimitExceeded=MemoryError)


def float64(inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    return {name: tensor.to(torch.float64) if tensor.is_floating_point() else tensor
            for name, tensor in inputs.items()}


def run_in_float64(run, solution: ModuleType, params: dict, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """What a driver's run gives for solution on the inputs cast to float64, here on the CPU (detached; from
    memo.FLOAT64_RUNS when the same run was made on the same inputs before)."""
    def compute():
        with torch.enable_grad():
            return run(solution, params, float64(inputs), trusted_context())
    return memo.FLOAT64_RUNS.run(run, solution, params, inputs, compute)


class StandardChecker:
    """The checker module's interface (inputs, check, memory_limit) for a problem of a standard kind."""

    def __init__(self, path: Path, slug: str, kind: str, interface: dict[str, Any], tolerance: dict[str, float],
                 mistakes: list[dict[str, str]], version: str):
        self.path, self.kind, self.interface = path, kind, interface
        self.scale_by = list(tolerance.get("scale_by", []))
        self.allowance = {name: value for name, value in tolerance.items() if name != "scale_by"}
        prefix = f"judge_kit_{slug.replace('-', '_')}_{version[:12]}"
        self.spec = load_module(path / "spec.py", f"{prefix}_spec")
        self.reference = load_module(path / "reference.py", f"{prefix}_reference")
        self.mistakes = [(load_module(path / m["solution"], f"{prefix}_mistake_{i}"), m["says"])
                         for i, m in enumerate(mistakes) if "solution" in m]
        self.spec_mistakes = [m for m in mistakes if "spec" in m]
        self.outputs = list(interface.get("outputs", ["y"]))
        if hasattr(self.spec, "memory_limit"):
            self.memory_limit = self.spec.memory_limit

    def allowance_for(self, inputs: dict[str, torch.Tensor]) -> dict[str, float]:
        """The tolerance's settings for one call: problem.toml's, and the magnitude of the inputs it names."""
        scaled = [inputs[name].abs().max().item() for name in self.scale_by if inputs[name].numel()]
        return {**self.allowance, "magnitude": max([1.0, *scaled])}

    def inputs(self, params: dict, generator: torch.Generator) -> dict[str, torch.Tensor]:
        """spec.inputs of the test, or of each of its `calls` (named `<i>/<name>` for call i; the `module.`
        inputs, the one instance's tensors, are the first call's)."""
        if "calls" not in params:
            return self.spec.inputs(params, generator)
        drawn = {}
        for index, (call, _) in enumerate(self.each_call(params, {})):
            for name, tensor in self.spec.inputs(call, generator).items():
                shared = name.startswith(sandbox.MODULE_PREFIX)
                if not (shared and index):
                    drawn[name if shared else f"{index}/{name}"] = tensor
        return drawn

    @staticmethod
    def each_call(params: dict, *named: dict[str, torch.Tensor]):
        """(params, *named) of each call of a test (see sandbox.each_call): every dictionary of tensors cut to
        the call's own entries, without their prefix, and the shared ones (the module's tensors and reports)."""
        if "calls" not in params:
            yield params, *named
            return
        base = {name: value for name, value in params.items() if name != "calls"}
        for index, entry in enumerate(params["calls"]):
            prefix = f"{index}/"
            yield {**base, **entry}, *({name.removeprefix(prefix): tensor for name, tensor in tensors.items()
                                        if name.startswith(prefix) or not CALL_NAME.match(name)}
                                       for tensors in named)

    def _run(self, solution, params, inputs):
        return run_in_float64(lambda *a: sandbox.run_standard(self.kind, self.interface, *a), solution, params, inputs)

    def truth(self, params: dict, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        if hasattr(self.spec, "truth"):
            return memo.FLOAT64_RUNS.run(self.spec.truth, self.spec, params, inputs,
                                         lambda: self.spec.truth(params, inputs))
        return self._run(self.reference, params, inputs)

    def prepare(self, params: dict, inputs: dict[str, torch.Tensor]) -> None:
        """Compute ahead what check needs from the inputs alone, each call's truth (the judge does it beside the
        sandboxes' work; check then finds it in memo.FLOAT64_RUNS)."""
        for call_params, call_inputs in self.each_call(params, inputs):
            if "raises" not in call_params:
                self.truth(call_params, call_inputs)

    def describe(self, params: dict, inputs: dict[str, torch.Tensor]) -> str:
        if hasattr(self.spec, "describe"):
            return self.spec.describe(params, inputs)
        tensors = ", ".join(f"{name} of shape {tuple(inputs[name].shape)} {str(inputs[name].dtype).removeprefix('torch.')}"
                            for name in self.interface.get("args", []) if name in inputs)
        if self.kind == "module":
            built = ", ".join(repr(params[name]) for name in self.interface.get("init", []))
            keywords = [f"{name}={params[name]!r}" for name in self.interface.get("init_kwargs", []) if name in params]
            return f"{self.interface['call']}({', '.join([built, *keywords]) if keywords else built}) on {tensors}"
        return self.describe_function(params, inputs, tensors)

    def describe_function(self, params, inputs, tensors) -> str:
        """The call as run_function makes it: causal_mask(4, t_k=None, device=torch.device('meta')). A positional
        argument that is a test param shows its value only where values may be shown; keywords always do."""
        given = params.get("explicit_none")

        def value(name, hidden):
            if name in inputs or (hidden and not compare.reveals_values()):
                return name
            if name not in params:
                return "None"
            return f"torch.device({params[name]!r})" if name in params.get("as_device", []) else repr(params[name])
        args = list(itertools.takewhile(lambda name: name in inputs or name in params or given,
                                        self.interface.get("args", [])))
        parts = [f"{name}={value(name, True)}" if params.get("by_name") else value(name, True) for name in args]
        parts += [f"{name}={value(name, False)}" for name in self.interface.get("kwargs", [])
                  if name in params or given]
        call = f"{self.interface['call']}({', '.join(parts)})"
        if "default_device" in params:
            call += f" inside `with torch.device({params['default_device']!r})`"
        return f"{call} with {tensors}" if tensors else call

    def check(self, params: dict, inputs: dict[str, torch.Tensor], got: dict[str, torch.Tensor],
              expected: dict[str, torch.Tensor]) -> str | None:
        calls = list(self.each_call(params, inputs, got, expected))
        problem = self.module_problem(params, inputs, got, expected) if self.kind == "module" else None
        if problem:
            return f"{self.describe(*calls[0][:2])}: {problem}"
        for index, call in enumerate(calls):
            message = self.check_call(*call)
            if message:
                return f"{self.describe(*call[:2])}{self.history(calls, index)}: {message}"
        return None

    def history(self, calls, index) -> str:
        """Which call of several failed, and, on one module instance, what it ran on before."""
        if len(calls) == 1:
            return ""
        if self.kind != "module":
            return f" (call {index + 1} of {len(calls)})"
        args = self.interface.get("args", [])
        before = "; ".join(", ".join(f"{name} of shape {tuple(inputs[name].shape)}" for name in args)
                           for _, inputs, *_ in calls[:index])
        return f", call {index + 1} of one instance" + (f" (it ran on {before} before)" if index else "")

    def check_call(self, params, inputs, got, expected) -> str | None:
        """What is wrong with one call's outputs, or None."""
        if "raises" in params:
            return self.raise_problem(params, got)
        problem = self.output_problem(params, got, expected)
        if problem:
            return problem
        truth = self.truth(params, inputs)
        judged = [name for name in self.outputs if name in expected and not without_values(name, expected)]
        for name in judged + [name for name in expected if name.endswith(".grad")]:
            message = self.value_problem(name, got[name], expected[name], truth[name], inputs)
            if message:
                return f"{message}.{self.diagnosis(name, params, inputs, got, expected[name], truth)}"
        for name in self.outputs:
            message = self.again_problem(params, inputs, name, got, expected, truth)
            if message:
                return (f"{AGAIN}: {message}. The first result was right, so this call returned memory the caller had "
                        "already been given: every call must return a new tensor")
        own = getattr(self.spec, "check", None)
        return own(params, inputs, got, truth) if own else None

    def value_problem(self, name, got, expected, truth, inputs) -> str | None:
        """Floating outputs against the truth within the tolerance; integer and bool ones exactly."""
        if not expected.is_floating_point():
            return checks.check_exact(name, got, expected)
        return checks.check_close(name, got, expected, truth, **self.allowance_for(inputs))

    def again_problem(self, params, inputs, name, got, expected, truth) -> str | None:
        """With `fresh`: what is wrong with the same call's result after the caller changed the first one."""
        key = f"{name}.again"
        if key not in expected:
            return None
        if got.get(key) is None:
            return f"{key}: the call returned no torch.Tensor"
        if without_values(key, expected):
            return self.device_problem(params, key, got, expected) or compare.layout(key, got[key], expected[key])
        return self.device_problem(params, key, got, expected) or compare.layout(key, got[key], expected[key]) or \
            self.value_problem(key, got[key], expected[key], truth[name], inputs)

    def raise_problem(self, params, got) -> str | None:
        """With `raises`: what the call did instead of raising that built-in exception class, or None."""
        raised, matches = text(got.get("raised"), r"[A-Za-z0-9_.<>]*"), flag(got.get("raised.matches"))
        if raised is None or matches is None or (matches and not raised):
            return TAMPERED
        if matches:
            return None
        did = f"raised {exception_words(raised)}" if raised else "returned a result"
        because = f", since {params['because']}" if "because" in params else ""
        return f"it {did}; it must raise {params['raises']}{because}"

    def device_problem(self, params, name, got, expected) -> str | None:
        """Where output `name` was created, when that is not where the reference created it, or None."""
        if f"{name}.device" not in expected:
            return None
        on, wanted = text(got.get(f"{name}.device"), r"[a-z0-9_]*"), text(expected[f"{name}.device"], r"[a-z0-9_]*")
        if on is None:
            return TAMPERED
        if on == wanted:
            return None
        argument = self.interface.get("device")
        if argument and params.get(argument) is not None:
            where = f"the requested device ({params[argument]!r})"
        elif "default_device" in params:
            where = (f"the default device ({params['default_device']!r} inside `with torch.device(...)`), since "
                     f"{argument or 'device'}=None means the default device")
        else:
            where = f"the default device ({wanted})" if argument else f"the device of the inputs ({wanted})"
        return f"{name} was created on {on if on in KNOWN_DEVICES else 'another device'}; it must be created on {where}"

    def output_problem(self, params, got, expected) -> str | None:
        """What is wrong with the outputs before their values, in the words of the classic mistake."""
        for name in self.outputs:
            if name not in expected:
                continue
            if got.get(name) is None:
                result = "a tensor" if len(self.outputs) == 1 else f"a tuple ({', '.join(self.outputs)}) of tensors"
                return f"{name}: the call returned no torch.Tensor for it; it must return {result}"
            mismatch = self.device_problem(params, name, got, expected) or \
                compare.layout(name, got[name], expected[name])
            if mismatch:
                return mismatch
            aliased = flag(got.get(f"{name}.aliases"))
            if aliased is None:
                return "the driver's report is missing or malformed (was the driver changed?)"
            if aliased:
                return f"{name} is one of the inputs (or a view of its storage); the call must return a new tensor"
        reported = [name for name in expected if name.endswith((".grad", ".reach"))]
        if not reported:
            return None
        for name in self.outputs:
            if f"{name}.requires_grad" in expected:
                connected = flag(got.get(f"{name}.requires_grad"))
                if connected is None:
                    return "the driver's report is missing or malformed (was the driver changed?)"
                if not connected:
                    return (f"{name} does not require grad: it must stay connected to autograd (no .detach(), .data, "
                            ".item(), NumPy or torch.no_grad() on the way)")
        for name in reported:
            if got.get(name) is None and name.endswith(".grad"):
                leaf = name.removesuffix(".grad")
                return f"the outputs do not depend on {leaf}, so {name} is None"
            mismatch = compare.layout(name, got.get(name), expected[name])
            if mismatch:
                return mismatch
        return None

    def module_problem(self, params, inputs, got, expected) -> str | None:
        """What the driver's reports say is wrong with the module's tensors, or None."""
        names = sorted(name.removeprefix(sandbox.MODULE_PREFIX) for name in inputs
                       if name.startswith(sandbox.MODULE_PREFIX))
        for index, build in enumerate(params.get("builds", [])):
            problem = self.build_problem(build, names, got.get(f"build {index}"), expected[f"build {index}"])
            if problem:
                return problem
        report = got.get("module.report")
        if report is None or report.dtype != torch.int64 or tuple(report.shape) != (len(names) + 1, 2):
            return "the driver's report of the module's tensors is missing or malformed (was the driver changed?)"
        *rows, (is_module, others) = report.tolist()
        if is_module != 1:
            return f"{self.interface['call']}(...) built something that is not a torch.nn.Module"
        frozen = set(self.interface.get("frozen", []))
        found = []
        for name, (status, learnable) in zip(names, rows):
            if status == 0:
                found.append(f"{name} is missing")
            elif status != 1:
                found.append(f"{name} does not have the shape {tuple(inputs[sandbox.MODULE_PREFIX + name].shape)}")
            elif learnable and name in frozen:
                found.append(f"{name} is learnable, but it must be frozen (requires_grad=False)")
            elif not learnable and name not in frozen:
                found.append(f"{name} is not a learnable parameter (a buffer, or requires_grad=False)")
        if others:
            found.append(f"it has learnable parameters the interface does not have{other_names(got)}")
        if not found:
            return None
        wanted = ", ".join(f"{name} {tuple(inputs[sandbox.MODULE_PREFIX + name].shape)}"
                           + (" (frozen)" if name in frozen else "") for name in names)
        return f"{'; '.join(found)}. The module's tensors must be exactly {wanted}, by these names"

    def build_problem(self, build, names, report, expected) -> str | None:
        """What differs between the class built at another size and the reference built there, or None."""
        module = f"{self.interface['call']}({', '.join(map(repr, build))})"
        if report is None or report.dtype != torch.int64 or report.shape != expected.shape:
            return f"{module}: the driver's report of the module's tensors is missing or malformed"
        if torch.equal(report, expected):
            return None
        *rows, last = report.tolist()
        *wanted, _ = expected.tolist()
        if last[0] != 1:
            return f"{module} built something that is not a torch.nn.Module"
        for name, row, right in zip(names, rows, wanted):
            if row != right:
                shape = tuple(right[3:3 + right[2]])
                what = "is missing" if not row[0] else "is not learnable" if row[1] != right[1] \
                    else f"does not have the shape {shape}"
                return f"{module}: {name} {what}; built at this size it must hold {name} of shape {shape}"
        return f"{module}: it has learnable parameters the interface does not have"

    def candidates(self, name, params, inputs):
        """(what the mistake is, its output `name`) for each classic mistake: the [[mistakes]] solutions run here
        in float64, then those spec.mistakes(params, inputs) computes."""
        for solution, says in self.mistakes:
            try:
                yield says, self._run(solution, params, inputs).get(name)
            except Exception:  # noqa: BLE001 - a mistake that cannot run on these inputs is not this one
                continue
        for mistake in self.spec_mistakes:
            if all(params.get(key) == value for key, value in mistake.get("when", {}).items()):
                outputs = getattr(self.spec, mistake["spec"])(params, inputs, **mistake.get("with", {}))
                yield mistake["says"], outputs.get(name)
        if hasattr(self.spec, "mistakes"):
            for says, outputs in self.spec.mistakes(params, inputs):
                yield says, outputs.get(name)

    def reach_note(self, name, outputs, truth) -> str:
        """What the input gradient shows where output `name` depends on other input positions than the truth
        does, in the words of the interface's `reach` for the first such (output t, input s) pair."""
        reach, key = self.interface.get("reach"), f"{name}.reach"
        # A non-finite output gives a non-finite gradient, which shows nothing.
        if not reach or key not in outputs or key not in truth or not torch.isfinite(outputs[key]).all():
            return ""

        def seen(report):
            report = report.to(torch.float64)
            return report > REACH_SHARE * report.nan_to_num(nan=0.0, posinf=0.0).max()
        got, right = seen(outputs[key]), seen(truth[key])
        notes = []
        for wrong, words in ((got & ~right, reach["sees"]), (right & ~got, reach["misses"])):
            if wrong.any():
                t, s = (int(i) for i in wrong.nonzero()[0])
                notes.append(f"{words.format(t=t, s=s)} ({int(wrong.sum())} such pairs)")
        return f"The input gradient shows that {', and that '.join(notes)}." if notes else ""

    def diagnosis(self, name, params, inputs, outputs, expected, truth) -> str:
        """Why output `name` is wrong: what the input gradient shows (`reach`), spec.diagnose's hint, and
        " This is exactly what <mistake>." when it reproduces a classic mistake's output."""
        got = outputs[name]
        notes = [self.reach_note(name, outputs, truth)]
        if hasattr(self.spec, "diagnose"):
            notes.append(self.spec.diagnose(name, params, inputs, got, truth))
        right = truth[name]
        if got.is_floating_point():
            allowed = checks.tolerance(got.dtype, expected, right, **self.allowance_for(inputs))
            got64 = got.to(torch.float64)
            off_by = (got64 - right).abs().nan_to_num(nan=torch.inf).max().item()
            close = max(MISTAKE_TOLERANCES * allowed, MISTAKE_SHARE * off_by if off_by < torch.inf else 0.0)

            def reproduces(candidate):
                return not same(candidate, right, allowed) and same(got64, candidate, close)
        else:
            def reproduces(candidate):
                return (candidate.dtype == got.dtype and not torch.equal(candidate, right)
                        and torch.equal(candidate, got))
        for says, candidate in self.candidates(name, params, inputs):
            if candidate is not None and candidate.shape == right.shape and reproduces(candidate):
                notes.append(f"This is exactly what {says}.")
                break
        if any(notes):
            return "".join(f" {note}" for note in notes if note)
        if name.endswith(".grad"):
            # Outputs are judged before gradients, so here they were right.
            return (" The outputs are right but this gradient is not: check a hand-written backward, or anything "
                    "detached or computed outside autograd.")
        return ""


def without_values(name: str, expected: dict[str, torch.Tensor]) -> bool:
    """Whether the reference made output `name` on the meta device, where a tensor has no values to judge."""
    return text(expected.get(f"{name}.device"), r"[a-z0-9_]*") == "meta"


def text(report: torch.Tensor | None, allowed: str) -> str | None:
    """The ASCII text of a NUL-padded uint8 report whose characters all match allowed, else None."""
    if report is None or report.dtype != torch.uint8 or report.dim() != 1 or report.numel() > 256:
        return None
    value = bytes(report.tolist()).rstrip(b"\0").decode("latin-1")
    return value if re.fullmatch(allowed, value) else None


def exception_words(qualified: str) -> str:
    """A built-in exception by its name; any other class by its qualified name only where values may be shown
    (the name is the submission's to choose)."""
    module, _, name = qualified.rpartition(".")
    known = getattr(builtins, name, None)
    if module == "builtins" and isinstance(known, type) and issubclass(known, BaseException):
        return name
    return qualified if compare.reveals_values() else "an exception of another class"


def same(a: torch.Tensor, b: torch.Tensor, allowed: float) -> bool:
    """Equal within allowed where both are finite, and non-finite (inf of one sign, or NaN) at the same places."""
    a, b = a.to(torch.float64), b.to(torch.float64)
    finite = torch.isfinite(a)
    if not torch.equal(finite, torch.isfinite(b)) or not torch.equal(a[~finite].nan_to_num(), b[~finite].nan_to_num()):
        return False
    return bool(((a - b)[finite].abs() <= allowed).all())


def other_names(got: dict[str, torch.Tensor]) -> str:
    """" (w1.bias, w2.bias)": the names of the parameters the interface does not have, on a sample test only
    (a name is the submission's to choose, so on a hidden test it could carry inputs out)."""
    names = got.get("module.others")
    if not compare.reveals_values() or names is None or names.dtype != torch.uint8 or names.dim() != 1:
        return ""
    text = bytes(names.tolist()).decode("utf-8", "replace")
    return f" ({', '.join(part for part in text.split(',') if part)})" if text else ""


def flag(report: torch.Tensor | None) -> bool | None:
    """A driver's 0/1 report as a bool; None when it is missing or malformed."""
    if report is None or report.dtype != torch.int64 or report.shape != () or int(report) not in (0, 1):
        return None
    return bool(report)


_FOLDER_MODULES: dict[Path, tuple[Any, ModuleType]] = {}


def truth_by_reference(beside: str | Path, params: dict, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The reference's outputs in float64, run here through the driver of the problem folder that holds the
    file beside (a custom problem's driver.py): what a custom checker compares against."""
    folder = Path(beside).resolve().parent
    if folder not in _FOLDER_MODULES:
        unique = f"judge_kit_{folder.name.replace('-', '_')}"
        _FOLDER_MODULES[folder] = (load_module(folder / "driver.py", f"{unique}_driver").run,
                                   load_module(folder / "reference.py", f"{unique}_reference"))
    run, reference = _FOLDER_MODULES[folder]
    return run_in_float64(run, reference, params, inputs)
