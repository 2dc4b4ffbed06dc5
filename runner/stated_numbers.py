"""The numbers a statement states, held to its problem.toml.

Every statement has a "## Limits" section that gives the judge's numbers as `name = value` code spans (the
names of problem.toml): a limit of `[limits]`, a setting of the tolerance, or, on a bullet that starts with a
test's name in backticks, a param of that test. `disagreements(problem)` lists every span whose value is not
problem.toml's and every number the section must state but does not:

- the limits every run has (`time_cap_ms`, `wall_s`, `memory_ratio`, `memory_floor_bytes`,
  `sandbox_memory_bytes`), `time_ratio` where a test is timed, `memory_cap_bytes` where one is set and
  `collective_timeout_s`, `sent_ratio` and `sent_slack_bytes` where ranks run;
- the tolerance's settings, the kit's defaults where problem.toml sets none (`tolerance_of`), and for each
  output of a stateful problem that `[outputs]` compares by a rule of its own, a bullet that starts with
  "Output" and the output's name in backticks and states `exact = true`, or its `atol` and `rtol`;
- for each timed test, each test with a memory bound of its own (`MEMORY_PARAMS`), each extreme test (its
  name matches `problems.EXTREME_NAME`: `largest-…`, `longest-…`, `widest-…`, `large-…`, `huge-…` or `…overflow…`) and
  every test of a debugging problem: its sizes (every integer param, or list of integers, those of a table
  a debugging problem's model `config` included), its dtype, its memory bound where that is a figure, and its training
  targets (`min_<score>`, `max_<score>`); a debugging problem's tolerance is its `prediction_tolerance`. Every test
  of a kernel problem is stated too: its traffic bound is a formula of its sizes.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import fields
from typing import Any

from .kit import checks, training, wrapper
from .problems import Limits, Problem, TestSpec
from .promises import statement_sections

SECTION = "Limits"
# The params that give a test a memory bound of its own, beside the ratio every test has.
MEMORY_PARAMS = ("memory_bound", "plain_fraction")
_SPAN = re.compile(r"`([a-z_]+) = ([^`]+)`")
_TEST_LINE = re.compile(r"^[-*]\s+`([a-z0-9-]+)`")
_OUTPUT_LINE = re.compile(r"^[-*]\s+(?:\*\*)?Output `([^`]+)`")


def tolerance_of(problem: Problem) -> dict[str, Any]:
    """The tolerance's settings as the kind applies them: problem.toml's, else the kit's defaults (a kernel
    problem's `[kernel] max_block` among them, a bound its statement states beside the tolerance)."""
    if problem.kind == "ranks" and "relative_tolerance" in problem.declared["ranks"]:
        return {"relative_tolerance": problem.declared["ranks"]["relative_tolerance"]}
    if problem.kind in ("function", "module", "stateful", "ranks"):
        return {"reference_multiple": checks.REFERENCE_MULTIPLE, "rounding_units": checks.ROUNDING_UNITS,
                **problem.tolerance}
    if problem.kind == "wrapper":
        return {"relative_tolerance": wrapper.RELATIVE_TOLERANCE}
    if problem.kind == "sampler":
        return {"false_rejection": problem.declared["sampler"]["false_rejection"]}
    if problem.kind == "kernel":
        return {"reference_multiple": checks.REFERENCE_MULTIPLE, "rounding_units": checks.ROUNDING_UNITS,
                **problem.tolerance, **problem.declared.get("kernel", {})}
    if problem.kind == "debugging":
        return {"prediction_tolerance": problem.declared.get("training", {}).get(
            "prediction_tolerance", training.PREDICTION_TOLERANCE)}
    return {}


def limits_of(problem: Problem) -> dict[str, Any]:
    """The limits the statement must state, by their problem.toml names."""
    limits: Limits = problem.limits
    wanted = ["time_cap_ms", "wall_s", "memory_ratio", "memory_floor_bytes", "sandbox_memory_bytes"]
    if any(test.timed for test in problem.tests):
        wanted.append("time_ratio")
    if limits.memory_cap_bytes:
        wanted.append("memory_cap_bytes")
    if problem.world_size > 1:
        wanted += ["collective_timeout_s", "sent_ratio", "sent_slack_bytes"]
    known = {limit.name for limit in fields(Limits)}
    return {name: getattr(limits, name) for name in wanted if name in known}


def comparisons_of(problem: Problem) -> dict[str, dict[str, Any]]:
    """The outputs `[outputs]` compares by a rule of their own (exact, or atol and rtol), with that rule."""
    if problem.kind != "stateful":
        return {}
    return {name: {key: entry[key] for key in ("exact", "atol", "rtol") if key in entry}
            for name, entry in problem.declared.get("outputs", {}).items()
            if entry.get("exact") or "atol" in entry or "rtol" in entry}


def flat_params(test: TestSpec) -> dict[str, Any]:
    """A test's params, the entries of a debugging problem's model `config` among them as params of their own."""
    config = test.params.get("config", {})
    return {**(config if isinstance(config, dict) else {}),
            **{name: value for name, value in test.params.items() if name != "config"}}


def sizes_of(test: TestSpec, kind: str = "") -> dict[str, Any]:
    """A test's params the statement must state for it: its sizes, its dtype, its own memory bound, and for a
    problem of the debugging kind the sizes in its model's `config` and its targets (`min_<score>`,
    `max_<score>`)."""
    def integral(value):
        if isinstance(value, list):
            return bool(value) and all(integral(item) for item in value)
        return isinstance(value, int) and not isinstance(value, bool)
    def bound(name, value):  # a test's own memory bound, where it is a figure (not a switch)
        return name in MEMORY_PARAMS and not isinstance(value, bool)
    debugging = kind == "debugging"
    return {name: value for name, value in (flat_params(test) if debugging else test.params).items()
            if integral(value) or name == "dtype" or bound(name, value)
            or (debugging and name.startswith(training.TARGET))}


def stated_tests(problem: Problem) -> list[TestSpec]:
    """The tests whose numbers the statement must state: timed, memory-bound and extreme ones, and every test of
    a debugging problem (each has a target of its own) or a kernel problem (each has a traffic bound)."""
    return [test for test in problem.tests
            if problem.kind in ("debugging", "kernel") or test.timed or any(test.params.get(name) for name in MEMORY_PARAMS)
            or test.extreme]


def parse_value(text: str) -> Any:
    """A span's value as TOML reads it; a bare word (`float32`) is a string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text.strip()


def _equal(stated: Any, wanted: Any) -> bool:
    if isinstance(wanted, (int, float)) and not isinstance(wanted, bool) and isinstance(stated, (int, float)):
        return float(stated) == float(wanted)
    return stated == wanted


def _bullets(text: str) -> list[str]:
    """The section's lines, each bullet joined with its indented continuation lines."""
    joined: list[str] = []
    for line in text.splitlines():
        if joined and line.startswith((" ", "\t")) and line.strip():
            joined[-1] += " " + line.strip()
        else:
            joined.append(line)
    return joined


def disagreements(problem: Problem) -> list[str]:
    """What the statement's Limits section gets wrong or leaves out; empty when it states every number."""
    sections = statement_sections((problem.path / "statement.md").read_text())
    if SECTION not in sections:
        return [f'the statement has no "## {SECTION}" section']
    general: dict[str, list[Any]] = {}
    per_test: dict[str, dict[str, list[Any]]] = {}
    per_output: dict[str, dict[str, list[Any]]] = {}
    for line in _bullets(sections[SECTION]):
        named, output = _TEST_LINE.match(line.strip()), _OUTPUT_LINE.match(line.strip())
        spans = (per_test.setdefault(named.group(1), {}) if named else
                 per_output.setdefault(output.group(1), {}) if output else general)
        for name, value in _SPAN.findall(line):
            spans.setdefault(name, []).append(parse_value(value))
    found = []
    wanted = {**limits_of(problem), **tolerance_of(problem)}
    known = {limit.name for limit in fields(Limits)} | set(wanted)
    for name, values in general.items():
        if name not in known:
            found.append(f"`{name} = ...` is neither a limit nor a setting of the tolerance")
            continue
        found += [f"`{name} = {value}` but problem.toml has {wanted.get(name, getattr(problem.limits, name, None))!r}"
                  for value in values if not _equal(value, wanted.get(name, getattr(problem.limits, name, None)))]
    found += [f"missing `{name} = {value!r}`" for name, value in wanted.items() if name not in general]
    tests = {test.name: test for test in problem.tests}
    for name, spans in per_test.items():
        if name not in tests:
            found.append(f"a line names the test `{name}`, which problem.toml does not have")
            continue
        for key, values in spans.items():
            stated = flat_params(tests[name]).get(key)
            found += [f"`{name}`: `{key} = {value}` but its params have {stated!r}"
                      for value in values if not _equal(value, stated)]
    compared = comparisons_of(problem)
    for name, spans in per_output.items():
        if name not in compared:
            found.append(f"a line names the output `{name}`, which [outputs] compares by no rule of its own")
            continue
        for key, values in spans.items():
            found += [f"output `{name}`: `{key} = {value}` but [outputs] has {compared[name].get(key)!r}"
                      for value in values if not _equal(value, compared[name].get(key))]
    for name, rule in compared.items():
        found += [f"output `{name}`: missing `{key} = {value!r}`" for key, value in rule.items()
                  if key not in per_output.get(name, {})]
    for test in stated_tests(problem):
        found += [f"`{test.name}`: missing `{key} = {value!r}`" for key, value in sizes_of(test, problem.kind).items()
                  if key not in per_test.get(test.name, {})]
    return found


__all__ = ["MEMORY_PARAMS", "SECTION", "comparisons_of", "disagreements", "flat_params",
           "limits_of", "sizes_of", "stated_tests", "tolerance_of"]
