"""The kit's checkers for the function and module kinds, on the trusted side.

A problem of these kinds writes no checker and no driver: problem.toml's `[interface]` says how the kit's
driver (runner/kit/sandbox.py, in the sandbox) calls the submission, and the problem's `spec.py` draws the
inputs. The checker judges what the driver reports, in this order, each failure in words that teach: the
module's tensors (module kind), every output present, of the reference's layout and not an input returned,
the output connected to autograd and every gradient present (tests with cotangents), then the values
(values.ValueChecker), and the problem's own spec.check last.
"""

from __future__ import annotations

import re

import torch

from runner import compare
from runner.verdict import with_why

from . import sandbox
from .api import Package, Params, Table, Tensors
from .calls import AGAIN, describe_function, raise_problem
from .reports import MALFORMED, TAMPERED, device_of, flag, names_reported, without_values
from .values import VALUE_TABLES, ValueChecker

# A name of one call's input or output in a test with `calls`.
CALL_NAME = re.compile(r"\d+/")
# An input position counts as reached by an output position when its gradient is above this share of the
# largest: a -inf mask gives exactly 0, a finite one such as -1e4 far less.
REACH_SHARE = 1e-6
# Device types a message names; any other reported one is "another device" (the name is the submission's).
KNOWN_DEVICES = {"cpu", "cuda", "meta", "mps", "xpu"}
# problem.toml's `[interface]`, how the kit's driver (sandbox.py) calls the submission; `[interface.reach]` sets
# every key but `output`, which defaults to the first output.
REACH_KEYS = ("output", "input", "dim", "up_to", "sees", "misses")
INTERFACE: Table = {**dict.fromkeys(("call", "args", "kwargs", "outputs", "grad", "device", "records_graph",
                                     "may_alias", "init", "init_kwargs", "frozen", "state")),
                    "reach": dict.fromkeys(REACH_KEYS)}
STANDARD_TABLES: Table = {**VALUE_TABLES, "interface": INTERFACE}


def driver_source(package: Package) -> str:
    """The driver the sandbox runs for a problem of a standard kind."""
    return (f'"""The kit\'s standard {package.kind} driver for {package.slug}, as problem.toml\'s [interface] pins the '
            'call."""\n\nimport kit\n\n'
            f"KIND = {package.kind!r}\n"
            f"INTERFACE = {dict(sorted(package.interface.items()))!r}\n\n\n"
            "def run(solution, params, inputs, ctx, _run=kit.run_standard):\n"
            "    return _run(KIND, INTERFACE, solution, params, inputs, ctx)\n")


class FunctionChecker(ValueChecker):
    """The function kind's checker: a pure function called as `[interface]` pins it."""

    def __init__(self, package: Package):
        super().__init__(package)
        self.interface = package.interface
        self.outputs = list(self.interface.get("outputs", ["y"]))

    def run(self, solution, params, inputs, ctx):
        return sandbox.run_standard(self.package.kind, self.interface, solution, params, inputs, ctx)

    def inputs(self, params: Params, generator: torch.Generator) -> Tensors:
        """spec.inputs of the test, or of each of its `calls` (named `<i>/<name>` for call i; the `module.`
        inputs, the one instance's tensors, are the first call's)."""
        if "calls" not in params:
            return super().inputs(params, generator)
        drawn = {}
        for index, (call, _) in enumerate(self.each_call(params, {})):
            for name, tensor in super().inputs(call, generator).items():
                shared = name.startswith(sandbox.MODULE_PREFIX)
                if not (shared and index):
                    drawn[name if shared else f"{index}/{name}"] = tensor
        return drawn

    @staticmethod
    def each_call(params: Params, *named: Tensors):
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

    def prepare(self, params: Params, inputs: Tensors) -> None:
        """Each call's truth, computed ahead (the judge does it beside the sandboxes' work)."""
        for call_params, call_inputs in self.each_call(params, inputs):
            if "raises" not in call_params:
                self.truth(call_params, call_inputs)

    def describe(self, params: Params, inputs: Tensors) -> str:
        if "describe" in self.own:
            return self.own["describe"](params, inputs)
        return describe_function(self.interface, params, inputs, self.tensors_words(inputs))

    def tensors_words(self, inputs: Tensors) -> str:
        return ", ".join(f"{name} of shape {tuple(inputs[name].shape)} {str(inputs[name].dtype).removeprefix('torch.')}"
                         for name in self.interface.get("args", []) if name in inputs)

    def check(self, params: Params, inputs: Tensors, got: Tensors, expected: Tensors) -> str | None:
        calls = list(self.each_call(params, inputs, got, expected))
        for index, call in enumerate(calls):
            message = self.check_call(*call)
            if message:
                return f"{self.describe(*call[:2])}{self.history(calls, index)}: {message}"
        return None

    def history(self, calls, index) -> str:
        """Which call of several failed."""
        return "" if len(calls) == 1 else f" (call {index + 1} of {len(calls)})"

    def check_call(self, params, inputs, got, expected) -> str | None:
        """What is wrong with one call's outputs, or None."""
        if "raises" in params:
            return raise_problem(params, got)
        problem = self.output_problem(params, got, expected)
        if problem:
            return problem
        truth = self.truth(params, inputs)
        judged = [name for name in self.outputs if name in expected and not without_values(name, expected)]
        for name in judged + [name for name in expected if name.endswith(".grad")]:
            message = self.value_problem(name, got[name], expected[name], truth[name], inputs, params)
            if message:
                return f"{message}.{self.function_diagnosis(name, params, inputs, got, expected, truth)}"
        for name in self.outputs:
            message = self.again_problem(params, inputs, name, got, expected, truth)
            if message:
                return with_why(f"{AGAIN}: {message}. The first result was right, so this call returned memory the "
                                "caller had already been given", "Every call returns a new tensor")
        own = self.own.get("check")
        return own(params, inputs, got, truth) if own else None

    def function_diagnosis(self, name, params, inputs, outputs, expected, truth) -> str:
        """The shared diagnosis after what the input gradient shows (`reach`); a gradient that is wrong after
        right outputs says where to look when nothing else is known."""
        found = self.diagnosis(name, params, inputs, outputs, expected, truth, self.reach_note(name, outputs, truth))
        if not found and name.endswith(".grad"):
            # Outputs are judged before gradients, so here they were right.
            return (" The outputs are right but this gradient is not: check a hand-written backward, or anything "
                    "detached or computed outside autograd.")
        return found

    def again_problem(self, params, inputs, name, got, expected, truth) -> str | None:
        """With `fresh`: what is wrong with the same call's result after the caller changed the first one."""
        key = f"{name}.again"
        if key not in expected:
            return None
        if got.get(key) is None:
            return f"{key}: the call returned no torch.Tensor"
        if f"{key}.aliases" in expected:
            shared = flag(got.get(f"{key}.aliases"))
            if shared is None:
                return MALFORMED
            if shared:
                return (f"{key} shares storage with the first result (or an input), whatever values it was given "
                        "back, so the caller's change to the first result was undone under it")
        laid_out = self.device_problem(params, key, got, expected) or compare.layout(key, got[key], expected[key])
        if laid_out or without_values(key, expected):
            return laid_out
        return self.value_problem(key, got[key], expected[key], truth[name], inputs, params)

    def device_problem(self, params, name, got, expected) -> str | None:
        """Where output `name` was created, when that is not where the reference created it, or None."""
        if f"{name}.device" not in expected:
            return None
        on, wanted = device_of(name, got), device_of(name, expected)
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
            mismatch = self.device_problem(params, name, got, expected) or compare.layout(name, got[name], expected[name])
            if mismatch:
                return mismatch
            aliased = flag(got.get(f"{name}.aliases"))
            if aliased is None:
                return MALFORMED
            if aliased and name not in self.interface.get("may_alias", []):
                return f"{name} is one of the inputs (or a view of its storage); the call must return a new tensor"
        return self.gradient_problem(got, expected)

    def gradient_problem(self, got, expected) -> str | None:
        """With cotangents: an output cut off from autograd, or a gradient missing or of the wrong layout."""
        reported = [name for name in expected if name.endswith((".grad", ".reach"))]
        for name in self.outputs if reported else []:
            if f"{name}.requires_grad" in expected:
                connected = flag(got.get(f"{name}.requires_grad"))
                if connected is None:
                    return MALFORMED
                if not connected:
                    return with_why(f"{name} does not require grad: it is not connected to autograd",
                                    "An output stays connected to the inputs: no .detach(), .data, .item(), NumPy or "
                                    "torch.no_grad() on the way")
        for name in reported:
            if got.get(name) is None and name.endswith(".grad"):
                return f"the outputs do not depend on {name.removesuffix('.grad')}, so {name} is None"
            mismatch = compare.layout(name, got.get(name), expected[name])
            if mismatch:
                return mismatch
        return None

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


class ModuleChecker(FunctionChecker):
    """The module kind's checker: an nn.Module built with pinned arguments, the judge's weights copied in by name."""

    def describe(self, params: Params, inputs: Tensors) -> str:
        if "describe" in self.own:
            return self.own["describe"](params, inputs)
        built = ", ".join(repr(params[name]) for name in self.interface.get("init", []))
        keywords = [f"{name}={params[name]!r}" for name in self.interface.get("init_kwargs", []) if name in params]
        return (f"{self.interface['call']}({', '.join([built, *keywords]) if keywords else built}) on "
                f"{self.tensors_words(inputs)}")

    def check(self, params: Params, inputs: Tensors, got: Tensors, expected: Tensors) -> str | None:
        problem = self.module_problem(params, inputs, got, expected)
        if problem:
            return f"{self.describe(*next(self.each_call(params, inputs)))}: {problem}"
        return super().check(params, inputs, got, expected) or self.methods_problem(params, inputs, got, expected)

    def methods_problem(self, params: Params, inputs: Tensors, got: Tensors, expected: Tensors) -> str | None:
        """With `methods`: what is wrong after each method called, in order (its learnable tensors, then each
        tensor and output the reference reported after it, by value)."""
        call, truth = self.describe(params, inputs), self.truth(params, inputs)
        learnable = [name.removeprefix(sandbox.MODULE_PREFIX) for name in sorted(inputs)
                     if name.startswith(sandbox.MODULE_PREFIX)]
        frozen = self.interface.get("frozen", [])
        for index, method in enumerate(params.get("methods", []), 1):
            after = f" after {method}() #{index}"
            if not flag(got.get("learnable" + after)):
                hint = self.own["diagnose"]("learnable" + after, params, inputs, None, truth) \
                    if "diagnose" in self.own else ""
                return (f"{call}:{after}, the learnable parameters are not exactly "
                        f"{', '.join(name for name in learnable if name not in frozen)}"
                        + (f" with {', '.join(frozen)} frozen" if frozen else "") + (f": {hint}" if hint else ""))
            for name in [key for key in expected if key.endswith(after) and not key.startswith("learnable")]:
                message = self.value_problem(name, got[name], expected[name], truth[name], inputs, params) \
                    if name in got else f"{name}: missing"
                if message:
                    return f"{call}: {message}.{self.diagnosis(name, params, inputs, got, expected, truth)}"
        return None

    def history(self, calls, index) -> str:
        """Which call of one instance failed, and what it ran on before."""
        if len(calls) == 1:
            return ""
        args = self.interface.get("args", [])
        before = "; ".join(", ".join(f"{name} of shape {tuple(inputs[name].shape)}" for name in args)
                           for _, inputs, *_ in calls[:index])
        return f", call {index + 1} of one instance" + (f" (it ran on {before} before)" if index else "")

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
            named = names_reported(got.get("module.others"))
            found.append("it has learnable parameters the interface does not have"
                         + (f" ({', '.join(named)})" if named else ""))
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


__all__ = ["INTERFACE", "REACH_KEYS", "STANDARD_TABLES", "FunctionChecker", "ModuleChecker", "driver_source"]
