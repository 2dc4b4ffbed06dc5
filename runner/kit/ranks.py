"""The kit's trusted side for distributed problems: each rank's report (runner/kit/sandbox_ranks.py) read as
hostile input, and the checks such problems share, worded from the problem's declaration.

A problem declares in problem.toml's `[ranks]` what its own code would otherwise repeat (the table may hold
words of the problem's own too, such as its classic mistakes):

    setup = "load_full"                       # what the set-up call is named in messages
    divides = "d_hidden"                      # optional: a param the group's size must divide; where it does not,
    refused = "ValueError"                    #   set-up must raise this,
    refusal = "... {size} ... {remainder}"    #   or fail in these words (the test's params filled in)
    only = "..."                              # why the allowed collectives are the only ones
    step = "after one SGD step (lr=0.1)"      # the optimiser step, in messages
    after_step = "..."                        # why outputs that agreed before the step differ after it
    relative_tolerance = 1e-5                 # of each tensor's largest magnitude
    [ranks.holdings]                          # optional, the bytes rule: the given tensors a rank holds a share of
    split = ["fc1.weight"]                    #   a 1/world share of each
    whole = ["fc2.bias"]                      #   all of each
    share = "its 1/{world} share of ..."      #   in words; {world} and the test's params are filled in
    [ranks.phases.<rule>]                     # the collectives a phase may issue, by family (check_module
                                              # reads setup, forward, backward, backward_without_grad)
    all_reduce = 1                            #   exactly this many calls ("any": any number, 0: none)
    elements = "out"                          #   whose element count the calls move in all: "out" or "x"
    sums = "the partial outputs"              #   what those elements are
    why = "..."                               #   what the calls are for (or, for 0, why none is needed)

Every family not named in a rule is refused there. check_module judges a module that kit_ranks set up and
stepped on every rank, group by group, against the problem's float64 truth, naming its classic mistakes;
its parts (read_reports, check_setup, holdings_message, collectives_message, check_steps, close) serve
drivers of other shapes. The report's figures are the submission's to forge, so a report can fail a test
and never pass one, and on a hidden test a message shows no figure or name the report chose (any of them
could carry a hidden input out): only limits computed here and the operator names this torch registers.
"""

from __future__ import annotations

import functools
import json
import tomllib
from pathlib import Path
from typing import Any, Callable, NamedTuple

import torch
import torch.distributed  # noqa: F401  (registers the collective operators known_collectives lists)

from runner import compare

from .sandbox_ranks import NAMESPACES

MAX_REPORT_BYTES = 1 << 20
MAX_ENTRIES = 10_000
# Operators of the collective namespaces that move no data: waiting on a functional collective's result.
BOOKKEEPING = {"_c10d_functional::wait_tensor", "_c10d_functional::_wrap_tensor_autograd", "c10d::check_for_nan"}
# Each collective operator this torch registers, by the family a problem's rules name it by.
FAMILIES = {
    "all_reduce": {"c10d::allreduce_", "c10d::allreduce_coalesced_", "_c10d_functional::all_reduce",
                   "_c10d_functional::all_reduce_", "_c10d_functional::all_reduce_coalesced",
                   "_c10d_functional::all_reduce_coalesced_"},
    "all_gather": {"c10d::_allgather_base_", "c10d::allgather_", "c10d::allgather_coalesced_",
                   "c10d::allgather_into_tensor_coalesced_", "_c10d_functional::all_gather_into_tensor",
                   "_c10d_functional::all_gather_into_tensor_coalesced", "_c10d_functional::all_gather_into_tensor_out",
                   "_c10d_functional_autograd::all_gather_into_tensor"},
    "reduce_scatter": {"c10d::_reduce_scatter_base_", "c10d::reduce_scatter_", "c10d::reduce_scatter_tensor_coalesced_",
                       "_c10d_functional::reduce_scatter_tensor", "_c10d_functional::reduce_scatter_tensor_coalesced",
                       "_c10d_functional::reduce_scatter_tensor_out",
                       "_c10d_functional_autograd::reduce_scatter_tensor"},
    "all_to_all": {"c10d::alltoall_", "c10d::alltoall_base_", "_c10d_functional::all_to_all_single",
                   "_c10d_functional_autograd::all_to_all_single", "_dtensor::shard_dim_alltoall"},
    "broadcast": {"c10d::broadcast_", "_c10d_functional::broadcast", "_c10d_functional::broadcast_"},
    "send": {"c10d::send", "_c10d_functional::isend"},
    "recv": {"c10d::recv_", "c10d::recv_any_source_", "_c10d_functional::irecv"},
    "batch_p2p": {"_c10d_functional::batch_p2p_ops"},
    "reduce": {"c10d::reduce_"},
    "gather": {"c10d::gather_"},
    "scatter": {"c10d::scatter_"},
    "barrier": {"c10d::barrier", "c10d::monitored_barrier_"},
}
WORDS = {"all_reduce": ("all-reduce", "summed", "sum")}


class Malformed(Exception):
    """A rank's report is not what the kit's observer writes."""


class Report(NamedTuple):
    """One rank's report, validated: what its driver observed, in the driver's terms."""

    phases: dict  # {phase: [(operator, calls, elements, bytes)]}
    held_bytes: int = 0  # of every storage the module keeps after set-up
    held_given: list = []  # the given tensors whose storage the module keeps
    largest: list = []  # the largest storages kept: (where the module holds it, its bytes, the given tensor or None)
    alive: list = []  # the given tensors whose storage outlived the caller's references
    parameters: int = 0  # tensors in module.parameters() after set-up
    refused: str | None = None  # where a refusal is expected: the type of the exception set-up raised


@functools.cache
def _declared(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text()).get("ranks", {})


def declared(beside: str | Path) -> dict[str, Any]:
    """problem.toml's [ranks] table, of the problem folder that holds the file beside (a checker's __file__)."""
    return _declared(Path(beside).resolve().parent / "problem.toml")


def groups(params: dict) -> list[list[int]]:
    """The groups of global ranks that each run the problem together: params["groups"], or the whole world."""
    return params.get("groups", [list(range(params["world_size"]))])


def place(params: dict, group: list[int], rank: int, what: str) -> str:
    """Where a message is about: the rank, within its group when there are several, and what it was doing."""
    if "groups" in params:
        return (f"rank {rank} (rank {group.index(rank)} of the group of ranks {', '.join(map(str, group))}), "
                f"{what}")
    return f"rank {rank} of {len(group)}, {what}"


def read_reports(got: dict[str, torch.Tensor], params: dict, *, phases: set[str], given: set[str],
                 refusal: bool = False, name: str = "observed") -> dict[int, Report] | str:
    """Every rank's report `<name>@<rank>`, validated; or the message that fails the test on a malformed one."""
    world, reports = params["world_size"], {}
    for rank in range(world):
        try:
            reports[rank] = read_report(got.get(f"{name}@{rank}"), phases=phases, given=given, refusal=refusal)
        except Malformed as error:
            return (f"rank {rank} of {world}: the judge's record of what this rank observed came back malformed "
                    f"({error}); the submission changed the judge's driver")
    return reports


def read_report(tensor: torch.Tensor | None, *, phases: set[str], given: set[str], refusal: bool = False) -> Report:
    """The report a rank's driver sent, checked field by field; Malformed if any is not as the observer writes
    it. With refusal only `refused` is read; else the phases must be exactly `phases`, and with `given` the
    holdings name only those tensors."""
    if tensor is None or tensor.dtype != torch.uint8 or tensor.dim() != 1 or tensor.numel() > MAX_REPORT_BYTES:
        raise Malformed("missing, or not a byte string of a bounded size")
    try:
        report = json.loads(tensor.contiguous().numpy().tobytes().decode())
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Malformed("not JSON") from None
    if not isinstance(report, dict):
        raise Malformed("not an object")
    if refusal:
        if report.get("refused") is not None and not isinstance(report.get("refused"), str):
            raise Malformed("refused is neither an exception's name nor null")
        return Report({}, refused=_text(report["refused"], "refused") if report.get("refused") else None)
    seen = report.get("phases")
    if not isinstance(seen, dict) or set(seen) != phases:
        raise Malformed("the phases are not those the driver runs")
    seen = {phase: [(_text(operator, "an operator"), _count(calls, "a call count"), _count(elements, "elements"),
                     _count(size, "bytes")) for operator, calls, elements, size in _entries(entries, phase, 4)]
            for phase, entries in seen.items()}
    if not given:
        return Report(seen, parameters=_count(report.get("parameters"), "parameters"))
    held = report.get("held")
    if not isinstance(held, dict):
        raise Malformed("held is not an object")
    largest = [(_text(holder, "a holder"), _count(size, "a held size"), _given(name, given, "a held storage", True))
               for holder, size, name in _entries(held.get("largest"), "the largest held", 3)]
    return Report(seen, _count(held.get("bytes"), "held bytes"), _names(held.get("given"), given, "held given"),
                  largest, _names(report.get("alive"), given, "alive"), _count(report.get("parameters"), "parameters"))


def _entries(value, what, width=None):
    if not isinstance(value, list) or len(value) > MAX_ENTRIES or (width is not None and not all(
            isinstance(item, list) and len(item) == width for item in value)):
        raise Malformed(f"{what} is not a list of the observer's entries")
    return value


def _count(value, what):
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << 48:
        raise Malformed(f"{what} is not a count")
    return value


def _text(value, what):
    if not isinstance(value, str):
        raise Malformed(f"{what} is not a name")
    return value[:120]


def _given(value, given, what, may_be_none=False):
    if value not in given and not (may_be_none and value is None):
        raise Malformed(f"{what} names no tensor passed to set-up")
    return value


def _names(value, given, what):
    return sorted({_given(name, given, what) for name in _entries(value, what)})


@functools.cache
def known_collectives() -> frozenset[str]:
    """The collective operators this process's torch registers, by their names without an overload."""
    return frozenset(name for name in torch._C._dispatch_get_all_op_names() if name.split("::")[0] in NAMESPACES)


def family(operator: str) -> str | None:
    """The family of an operator the report names (without its overload), None for one that moves no data;
    an operator of no family is its own."""
    if operator in BOOKKEEPING:
        return None
    return next((name for name, members in FAMILIES.items() if operator in members), operator)


def collectives_message(phase: str, rule: dict[str, Any], seen: list, elements: dict[str, int],
                        only: str = "") -> str | None:
    """Why the collectives `seen` in a phase break `rule` (a [ranks.phases] table), or None. phase is what the
    message calls it ("the forward pass"); elements gives the element counts a rule's `elements` names."""
    moving = [(family(operator.rsplit(".", 1)[0]), operator.rsplit(".", 1)[0], calls, size)
              for operator, calls, size, _ in seen if family(operator.rsplit(".", 1)[0])]
    allowed = [name for name in FAMILIES if name in rule]
    others = sorted({operator for kind, operator, _, _ in moving if kind not in allowed})
    if others:
        named = [operator for operator in others if operator in known_collectives()]
        unknown = ["collectives this torch does not register"] if len(named) < len(others) else []
        listed = " and ".join(_words(name)[0] for name in allowed)
        allows = f"{listed} is the only collective this problem allows" if listed else "this problem allows none"
        return f"{phase} issued {', '.join(named + unknown)}; {allows}: {only}"
    reveal = compare.reveals_values()
    for kind in allowed:
        wanted, (noun, moved, move) = rule[kind], _words(kind)
        count = sum(calls for name, _, calls, _ in moving if name == kind)
        if wanted == "any":
            continue
        if count != wanted:
            issued = f"{count} {noun}{'' if count == 1 else 's'}" if reveal else \
                f"{noun}s" if not wanted else f"another number of {noun}s"
            expected = "none is needed" if not wanted else f"exactly {'one' if wanted == 1 else wanted} is expected:"
            return f"{phase} issued {issued}; {expected} {rule['why']}"
        total = sum(size for name, _, _, size in moving if name == kind)
        expected = elements.get(rule.get("elements"))
        if count and expected is not None and total != expected:
            amount = f"{total} element{'' if total == 1 else 's'}" if reveal else "another number of elements"
            return (f"{phase}'s {noun} {moved} {amount}; it must {move} {rule['sums']}, {expected} elements: "
                    f"{'an' if noun[0] in 'aeiou' else 'a'} {noun} of anything else leaves them to be moved some "
                    "other way")
    return None


def _words(kind: str) -> tuple[str, str, str]:
    """(the family's noun, what its calls did to elements, what they must do), for messages."""
    return WORDS.get(kind, (kind.replace("_", "-"), "moved", "move"))


def holdings_message(report: Report, declared: dict[str, Any], params: dict, inputs: dict[str, torch.Tensor],
                     world: int) -> str | None:
    """Why what a rank's module keeps after set-up breaks the bytes rule of declared["holdings"] or holds the
    caller's tensors, or None."""
    rule, setup = declared["holdings"], declared.get("setup", "set-up")
    full = {name: inputs[name].numel() * inputs[name].element_size() for name in (*rule["split"], *rule["whole"])}
    limit = sum(full[name] for name in rule["split"]) // world + sum(full[name] for name in rule["whole"])
    out_of_sight = [name for name in report.alive if name not in report.held_given]
    total = report.held_bytes + sum(full[name] for name in out_of_sight)
    holders = ""
    if compare.reveals_values():
        listed = [f"{holder}: {size} bytes" + (f", the storage of the {name} passed to {setup}" if name else "")
                  for holder, size, name in report.largest]
        listed += [f"{full[name]} bytes kept alive out of sight: the storage of the {name} passed to {setup}"
                   for name in out_of_sight]
        holders = f" ({'; '.join(listed)})"
    if total > limit:
        held = f"{total} bytes of tensor storage" if compare.reveals_values() else "more tensor storage than allowed"
        share = rule["share"].format(world=world, **params)
        return (f"the module holds {held}; the limit is {limit} bytes, {share}{holders}. A tensor keeps its whole "
                "storage alive: a slice of a full weight (and .contiguous() of a slice that is already contiguous) "
                "is a view of all of it; copy the shard instead (.clone(), or copy_ into a parameter of the shard's "
                "size)")
    if report.alive:
        return (f"after {setup} returned and the caller dropped what it passed, the module still keeps the storage "
                f"of {', '.join(report.alive)}{holders}: it aliases the caller's tensors, so changing them would "
                "change this module; copy what it needs")
    return None


def parameters_message(report: Report) -> str | None:
    """Why the module an optimiser is built from after set-up could not be trained, or None."""
    if report.parameters:
        return None
    return ("the module has no parameters; its trainable values must be nn.Parameters, so that an optimiser built "
            "from module.parameters() can train them")


def close(what: str, got: torch.Tensor | None, truth: torch.Tensor, relative: float, dtype: torch.dtype) -> str | None:
    """None when got, of the truth's shape in the judged dtype, is within relative of the truth's largest
    magnitude, else what differs."""
    mismatch = compare.layout(what, got, truth.to(dtype))
    if mismatch:
        return mismatch
    return compare.tensors(what, got.double(), truth, atol=_allowed(truth, relative), rtol=0)


def matches(value: torch.Tensor, alternative: torch.Tensor, relative: float) -> bool:
    """Whether value is, within the same tolerance, what a known alternative computation gives."""
    if value.shape != alternative.shape:
        return False
    return (value.double() - alternative).abs().max().item() <= _allowed(alternative, relative)


def _allowed(truth, relative):
    return relative * max(truth.abs().max().item(), 1e-30)


def check_steps(params: dict, inputs: dict, got: dict, reports: dict[int, Report], group: list[int], prefix: str,
                truth: dict[str, torch.Tensor], declared: dict[str, Any],
                diagnose: Callable[[str, int, int, torch.Tensor], str]) -> str | None:
    """The judged steps of kit_ranks' steps() on each rank of group, against the truth (`out<i>`, `x.grad<i>`,
    `out_after_step`): x untouched, the output, the input gradient (when x requires grad) and the collectives
    of each pass, call by call, then the output after the optimiser step. diagnose(name, call, position in the
    group, got) words a classic mistake a wrong value reproduces, or gives ""."""
    for call in range(len(params["leading"])):
        for position, rank in enumerate(group):
            message = _check_call(params, inputs, got, reports[rank].phases, group, rank, prefix, call, truth,
                                  declared, lambda name, value: diagnose(name, call, position, value))
            if message:
                return message
    out = truth["out_after_step"]
    for rank in group:
        message = close("the output", got.get(f"out_after_step@{rank}"), out, declared["relative_tolerance"],
                        inputs[f"{prefix}x_after_step"].dtype)
        if message:
            return f"{place(params, group, rank, declared['step'])}: {message} — {declared['after_step']}"
        message = collectives_message("the forward pass", declared["phases"]["forward"],
                                      reports[rank].phases["forward_after_step"], {"out": out.numel()},
                                      declared["only"])
        if message:
            return f"{place(params, group, rank, 'after the step, under no_grad')}: {message}"
    return None


def _check_call(params, inputs, got, phases, group, rank, prefix, call, truth, declared, diagnose) -> str | None:
    rules, relative, with_grad = declared["phases"], declared["relative_tolerance"], params.get("x_requires_grad", True)
    x, out = inputs[f"{prefix}x{call}"], truth[f"out{call}"]
    counts = {"x": x.numel(), "out": out.numel()}
    where = place(params, group, rank, f"x of shape {tuple(x.shape)}" + ("" if with_grad else " not requiring grad"))
    after = got.get(f"x.after{call}@{rank}")
    if compare.layout("x", after, x) or not torch.equal(after, x):
        return f"{where}: the call changed its input x in place; x must not be modified"
    name = f"out{call}@{rank}"
    message = close("the output", got.get(name), out, relative, x.dtype)
    if message:
        return f"{where}: {message}{diagnose(f'out{call}', got[name]) if name in got else ''}"
    backward = collectives_message("the backward pass", rules["backward" if with_grad else "backward_without_grad"],
                                   phases[f"backward{call}"], counts, declared["only"])
    name = f"x.grad{call}@{rank}"
    message = close("the input gradient x.grad", got.get(name), truth[f"x.grad{call}"], relative, x.dtype) \
        if with_grad else None
    if message:
        # A backward pass that broke its rule is the likeliest cause of a wrong gradient no mistake explains.
        diagnosis = diagnose(f"x.grad{call}", got[name]) if name in got else ""
        diagnosis = diagnosis or (f" ({backward})" if backward else "")
        return f"{where}: {message}{diagnosis}"
    message = collectives_message("the forward pass", rules["forward"], phases[f"forward{call}"], counts,
                                  declared["only"]) or backward
    return f"{where}: {message}" if message else None


def check_setup(reports: dict[int, Report], params: dict, inputs: dict, group: list[int],
                declared: dict[str, Any]) -> str | None:
    """The holdings (when declared), the parameters and the set-up's collectives of every rank of group, or None."""
    setup = declared.get("setup", "set-up")
    for rank in group:
        held = holdings_message(reports[rank], declared, params, inputs, len(group)) if "holdings" in declared else None
        message = held or parameters_message(reports[rank]) or collectives_message(
            setup, declared["phases"].get("setup", {}), reports[rank].phases["setup"], {}, declared["only"])
        if message:
            return f"{place(params, group, rank, f'after {setup}')}: {message}"
    return None


def step_inputs(params: dict, generator: torch.Generator, features: int) -> dict[str, torch.Tensor]:
    """The float64 inputs of kit_ranks' steps() for every group (`g<index>.` before each name): x<i> of the
    test's leading[i] dimensions and `features`, the output's weights grad<i> alike, and x_after_step of the
    first call's shape. Drawn per group, so that groups side by side compute different things."""
    drawn = {}
    for index in range(len(params.get("groups", [None]))):
        for call, leading in enumerate(params["leading"]):
            for name in ("x", "grad"):
                drawn[f"g{index}.{name}{call}"] = torch.randn(*leading, features, generator=generator,
                                                              dtype=torch.float64)
        drawn[f"g{index}.x_after_step"] = torch.randn(*params["leading"][0], features, generator=generator,
                                                      dtype=torch.float64)
    return drawn


def steps_truth(params: dict, inputs: dict[str, torch.Tensor], prefix: str, forward: Callable, weights: dict,
                learning_rate: float) -> dict[str, torch.Tensor]:
    """What steps() gives for the full model forward(weights, x) in float64: out<i> and x.grad<i> with the
    weights' gradients accumulated over the calls, as a rank's module accumulates them, then out_after_step
    after one SGD step."""
    weights = {name: tensor.double().requires_grad_() for name, tensor in weights.items()}
    found = {}
    with torch.enable_grad():
        for call in range(len(params["leading"])):
            x = inputs[f"{prefix}x{call}"].double().requires_grad_()
            out = forward(weights, x)
            (out * inputs[f"{prefix}grad{call}"].double()).sum().backward()
            found[f"out{call}"], found[f"x.grad{call}"] = out.detach(), x.grad
    with torch.no_grad():
        for weight in weights.values():
            weight -= learning_rate * weight.grad
        found["out_after_step"] = forward(weights, inputs[f"{prefix}x_after_step"].double())
    return found


def check_module(params: dict, inputs: dict, got: dict, declared: dict[str, Any],
                 truth: Callable[[int], dict[str, torch.Tensor]],
                 diagnose: Callable[[int, list[int]], Callable[[str, int, int, torch.Tensor], str]]) -> str | None:
    """A module set up and stepped by kit_ranks on every rank, judged group by group: every report, then (when
    declared["divides"] names a param the group's size does not divide) the refusal declared["refusal"]
    words, else check_setup and check_steps against truth(index) with diagnose(index, group)."""
    calls, size = range(len(params["leading"])), len(groups(params)[0])
    refusal = "divides" in declared and params[declared["divides"]] % size != 0
    phases = set() if refusal else {"setup", "forward_after_step",
                                    *(f"{kind}{call}" for call in calls for kind in ("forward", "backward"))}
    rule = declared.get("holdings", {"split": [], "whole": []})
    reports = read_reports(got, params, phases=phases, given={*rule["split"], *rule["whole"]}, refusal=refusal)
    if isinstance(reports, str):
        return reports
    for index, group in enumerate(groups(params)):
        if refusal:
            rank = next((rank for rank in group if reports[rank].refused != declared["refused"]), None)
            if rank is not None:
                words = declared["refusal"].format(size=size, remainder=params[declared["divides"]] % size, **params)
                return f"{place(params, group, rank, 'constructing')}: {words}"
            continue
        message = check_setup(reports, params, inputs, group, declared) or check_steps(
            params, inputs, got, reports, group, f"g{index}.", truth(index), declared, diagnose(index, group))
        if message:
            return message
    return None
