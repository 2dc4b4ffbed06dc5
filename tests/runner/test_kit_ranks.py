"""The ranks kind's trusted side: each rank's report read as hostile input, the [ranks] rules, and the kind's
checker judging crafted reports and outputs of a small package."""

import builtins
import itertools
import json
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from runner import compare, kit
from runner.kit import KitError, sandbox_ranks
from runner.kit.ranks import RanksChecker
from runner.kit.ranks_reports import MAX_ENTRIES, Collective, Expected, Malformed, read_report, read_reports
from runner.kit.ranks_rules import RESIDENT_SLACK_BYTES, collectives_message, holdings_message, parameters_message

GIVEN = frozenset({"fc1.weight", "fc2.bias"})
EXPECTED = Expected(frozenset({"setup", "forward0"}), GIVEN, parameters=True)
HOLDINGS = {"split": ["fc1.weight"], "whole": ["fc2.bias"], "share": "its 1/{size} share of fc1 (d={d})",
            "lesson": "Copy the shard."}
FORWARD = {"all_reduce": 1, "elements": "out", "sums": "the partial outputs", "why": "summed once"}
INPUTS = {"fc1.weight": torch.zeros(8, 4), "fc2.bias": torch.zeros(4)}  # 128 bytes split, 16 whole
FULL = {"fc1.weight": 128, "fc2.bias": 16}


def encoded(report) -> torch.Tensor:
    return torch.tensor(list(json.dumps(report).encode()), dtype=torch.uint8)


def honest(**changes):
    report = {"phases": {"setup": [], "forward0": [["c10d::allreduce_.default", 1, 12, 48]]},
              "held": {"bytes": 80, "given": [], "largest": [["w1", 64, None], ["b2", 16, None]], "resident": 4096},
              "alive": [],
              "parameters": 2}
    report.update(changes)
    return report


def read(report, expected=EXPECTED):
    return read_report(encoded(report) if isinstance(report, dict) else report, expected)


def test_an_honest_report_is_read_in_the_observers_terms():
    report = read(honest())
    assert report.phases == {"setup": [], "forward0": [Collective("c10d::allreduce_", 1, 12, 48)]}
    assert (report.held_bytes, report.parameters, report.alive) == (80, 2, [])
    assert (report.calls("all_reduce"), report.moved("all_reduce"), report.moved("all_reduce", "elements")) == \
        (1, 48, 12)


@pytest.mark.parametrize("tensor", [None, torch.zeros(3), torch.zeros(2, 2, dtype=torch.uint8),
                                    torch.tensor(list(b"{not json"), dtype=torch.uint8), encoded([1, 2])],
                         ids=["missing", "float", "two-dimensional", "not-json", "not-an-object"])
def test_a_report_that_is_not_a_json_object_is_malformed(tensor):
    with pytest.raises(Malformed):
        read(tensor)


@pytest.mark.parametrize("change", [
    {"phases": {"forward0": []}},  # a phase left out: what it issued would go unjudged
    {"phases": {"setup": [], "forward0": [["c10d::allreduce_.default", -1, 12, 48]]}},
    {"phases": {"setup": [], "forward0": [["c10d::allreduce_.default", True, 12, 48]]}},
    {"phases": {"setup": [], "forward0": [["c10d::allreduce_.default", 1, 1 << 60, 48]]}},
    {"phases": {"setup": [], "forward0": [[7, 1, 12, 48]]}},
    {"phases": {"setup": [], "forward0": [["c10d::allreduce_.default", 1, 12]]}},
    {"held": {"bytes": 80, "given": ["the caller's secret"], "largest": [], "resident": 0}},
    {"held": {"bytes": 80, "given": [], "largest": [["w1", 64, "not given"]], "resident": 0}},
    {"held": {"bytes": 80, "given": [], "largest": []}},  # the resident figure left out: its rule would go unread
    {"held": {"bytes": 80, "given": [], "largest": [], "resident": -1}},
    {"alive": ["fc1.weight"] * (MAX_ENTRIES + 1)},
    {"held": "nothing"},
    {"parameters": 2.5},
    {"parameters": None},  # a rule reads it: leaving it out cannot skip the rule
], ids=["missing-phase", "negative-count", "bool-count", "huge-count", "operator-not-a-name", "short-entry",
        "held-name-not-given", "largest-name-not-given", "resident-left-out", "resident-negative", "too-many-entries", "held-not-an-object",
        "parameters-not-a-count", "parameters-left-out"])
def test_a_report_with_a_field_not_as_the_observer_writes_it_is_malformed(change):
    with pytest.raises(Malformed):
        read(honest(**change))


def test_a_timeout_the_rules_read_must_be_a_flag():
    timeouts = Expected(frozenset({"call"}), timeouts=True)
    assert read({"phases": {"call": []}, "timed_out": True}, timeouts).timed_out
    for forged in ({"phases": {"call": []}}, {"phases": {"call": []}, "timed_out": 1}):
        with pytest.raises(Malformed):
            read(forged, timeouts)


def test_a_refusal_report_carries_only_the_exception_name():
    refusal = Expected(refusal=True)
    assert read({"phases": {}, "refused": "ValueError"}, refusal).refused == "ValueError"
    assert read({"refused": None}, refusal).refused is None
    with pytest.raises(Malformed):
        read({"refused": ["ValueError"]}, refusal)


def test_a_malformed_report_on_any_rank_fails_the_test_and_names_that_rank():
    got = {"observed@0": encoded(honest()), "observed@1": torch.zeros(4, dtype=torch.uint8)}
    message = read_reports(got, 2, EXPECTED)
    assert message.startswith("rank 1 of 2:") and "malformed" in message


def forward(seen, elements=12):
    seen = [Collective(operator, calls, moved, size) for operator, calls, moved, size in seen]
    return collectives_message("the forward pass", FORWARD, seen, {"out": elements}, "one all-reduce is enough")


def test_one_all_reduce_of_the_declared_elements_keeps_the_rule_whatever_api_issued_it():
    assert forward([("c10d::allreduce_", 1, 12, 48)]) is None
    assert forward([("_c10d_functional::all_reduce", 1, 12, 48), ("_c10d_functional::wait_tensor", 1, 12, 48)]) is None


def test_a_collective_of_another_family_is_named_and_refused():
    message = forward([("c10d::allgather_", 1, 24, 96), ("c10d::allreduce_", 1, 12, 48)])
    assert message == ("the forward pass issued c10d::allgather_ (an all-gather); all-reduce is the only collective it "
                       "may issue: one all-reduce is enough")
    message = forward([("c10d::scatter_", 1, 6, 24), ("_c10d_functional::irecv", 1, 6, 24)])
    assert "issued _c10d_functional::irecv (a receive), c10d::scatter_ (a scatter);" in message
    none = collectives_message("the window", {}, [Collective("c10d::barrier", 1, 0, 0)], {}, "nothing to sum")
    assert none == "the window issued c10d::barrier (a barrier); it may issue none: nothing to sum"


def test_a_phase_whose_others_are_any_allows_every_family_and_judges_only_those_it_names():
    seen = [Collective("c10d::scatter_", 2, 30, 120), Collective("c10d::broadcast_", 1, 4, 16),
            Collective("_c10d_functional::all_gather_into_tensor", 1, 8, 32), Collective("c10d::allreduce_", 3, 1, 4)]
    assert collectives_message("set-up", {"others": "any"}, seen, {}, "") is None
    counted = {**FORWARD, "others": "any"}
    assert collectives_message("the pass", counted, [*seen[:3], Collective("c10d::allreduce_", 1, 12, 48)],
                               {"out": 12}, "") is None
    message = collectives_message("the pass", counted, seen, {"out": 12}, "")
    assert message == "the pass issued 3 all-reduces; exactly one is expected: summed once"


def test_an_operator_name_torch_does_not_register_is_never_echoed():
    message = forward([("secret-hidden-input-1.25", 1, 12, 48)])
    assert "secret" not in message and "collectives this torch does not register" in message


def test_the_wrong_number_of_calls_is_counted_on_a_sample_test_and_not_on_a_hidden_one():
    seen = [("c10d::allreduce_", 2, 24, 96)]
    assert "issued 2 all-reduces; exactly one is expected: summed once" in forward(seen)
    with compare.values_hidden():
        message = forward(seen)
    assert "2" not in message and "another number of all-reduces" in message


def test_an_all_reduce_of_other_elements_is_refused():
    message = forward([("c10d::allreduce_", 1, 1, 4)])
    assert "all-reduce summed 1 element;" in message and "the partial outputs, 12 elements" in message


def test_a_phase_that_needs_none_refuses_any_and_any_allows_many():
    none = {"all_reduce": 0, "why": "when x does not require grad"}
    message = collectives_message("the backward pass", none, [Collective("c10d::allreduce_", 1, 3, 12)], {}, "")
    assert message == "the backward pass issued 1 all-reduce; none is needed when x does not require grad"
    assert collectives_message("load_full", {"all_reduce": "any"}, [Collective("c10d::allreduce_", 5, 3, 12)], {},
                               "") is None


def test_a_size_rule_in_bytes_or_at_most_words_its_limit_and_hides_the_figure_on_a_hidden_test():
    rule = {"all_reduce": "any", "bytes": "grads", "fewer": "moved {moved} of {limit}", "more": "over: {moved}"}
    seen = [Collective("c10d::allreduce_", 3, 10, 40)]
    assert collectives_message("the window", rule, seen, {"grads": 40}, "") is None
    assert collectives_message("the window", rule, seen, {"grads": 48}, "") == "moved 40 of 48"
    with compare.values_hidden():
        assert collectives_message("the window", rule, seen, {"grads": 32}, "") == "over: another number of"
    at_most = {"broadcast": "any", "elements": "most", "at_most": True, "more": "more than {limit}"}
    broadcasts = [Collective("c10d::broadcast_", 2, 10, 40)]
    assert collectives_message("the step", at_most, broadcasts, {"most": 12}, "") is None
    broadcasts = [Collective("c10d::broadcast_", 2, 13, 52)]
    assert collectives_message("the step", at_most, broadcasts, {"most": 12}, "") == "more than 12"


def holdings(report, limit=80):
    return holdings_message(read(report), HOLDINGS, {"d": 4, "size": 2}, limit, FULL, "load_full")


def test_a_share_within_the_limit_keeps_the_bytes_rule():
    assert holdings(honest()) is None  # 128 / 2 + 16 = 80 bytes allowed


def test_more_bytes_than_the_share_fails_with_the_limit_computed_here():
    message = holdings(honest(held={"bytes": 81, "given": [], "largest": [], "resident": 0}))
    assert "the module holds 81 bytes" in message and "the limit is 80 bytes, its 1/2 share of fc1 (d=4)" in message
    assert message.endswith(". Copy the shard.")
    with compare.values_hidden():
        assert "81" not in holdings(honest(held={"bytes": 81, "given": [], "largest": [["w1 81", 81, None]],
                                                 "resident": 0}))


def test_a_given_tensor_kept_alive_out_of_sight_counts_in_full():
    message = holdings(honest(held={"bytes": 16, "given": [], "largest": [], "resident": 0}, alive=["fc1.weight"]))
    assert "kept alive out of sight: the storage of the fc1.weight passed to load_full" in message


def test_a_given_tensor_held_within_the_share_is_still_an_alias_of_the_callers():
    message = holdings(honest(held={"bytes": 32, "given": ["fc2.bias"], "largest": [["b2", 16, "fc2.bias"]],
                                    "resident": 0}, alive=["fc2.bias"]))
    assert "aliases the caller's tensors" in message


def test_a_module_without_parameters_cannot_be_trained():
    assert "no parameters" in parameters_message(read(honest(parameters=0)))
    assert parameters_message(read(honest())) is None


def test_the_module_scenarios_truth_accumulates_gradients_over_the_calls_before_the_step():
    params = {"world_size": 2, "leading": [[2], [2]], "groups": [[0], [1]]}
    ones = torch.ones(2, 1)
    inputs = {f"g{g}.{name}": ones for g in (0, 1) for name in ("x0", "grad0", "x1", "grad1", "x_after_step")}
    weight = torch.tensor(3.0, dtype=torch.float64)
    truth = kit.module_truth(params, inputs, lambda w, x: x * w["w"], {"w": weight}, 0.5)
    assert torch.equal(truth["x.grad1@1"], torch.full((2, 1), 3.0, dtype=torch.float64))
    # dL/dw = 2 per call, two calls: w = 3 - 0.5 * 4, in each group alike, and the caller's weight untouched.
    assert torch.equal(truth["out_after_step@0"], truth["out_after_step@1"]) and weight.item() == 3.0
    assert torch.equal(truth["out_after_step@0"], torch.ones(2, 1, dtype=torch.float64))


# A small ranks package: two ranks each report the sum of x's rows, after one all-reduce of 3 elements.
SPEC = '''
import torch
from runner import kit

def inputs(params, generator):
    return {"x": torch.tensor([[1.0, 2.0, 3.0], [4.0, -5.0, 6.0]])}

def truth(params, inputs):
    return {"out": inputs["x"].double().sum(0)}

def steps(params):
    return [kit.RanksStep("the call", {"out": "the sum"}, {"call": "call"}, {"n": 3})]

def doubled(params, inputs):
    return {"out": 2 * inputs["x"].double().sum(0)}

def own_row(params, inputs):
    return kit.by_rank(params, lambda index, group, position: {"out": inputs["x"][group[position]].double()})
'''
RULES = '''
relative_tolerance = 1e-6
[ranks.phases.call]
says = "the call"
all_reduce = 1
elements = "n"
sums = "the rows"
why = "one sum of the rows"
'''
MISTAKES = '''
[[mistakes]]
spec = "doubled"
says = "it is the sum counted {size} times"

[[mistakes]]
spec = "own_row"
says = "it is rank {rank}'s own row"
'''
PARAMS = {"world_size": 2}
VERSIONS = itertools.count()


def package(tmp_path, rules=RULES, spec=SPEC, mistakes=MISTAKES):
    (tmp_path / "spec.py").write_text(textwrap.dedent(spec))
    (tmp_path / "reference.py").write_text("")
    declared = tomllib.loads(f"world_size = 2\n{mistakes}\n[ranks]\n{rules}")
    return SimpleNamespace(slug="sums", path=tmp_path, version=f"{next(VERSIONS):012d}", kind="ranks", interface={},
                           tolerance={}, mistakes=declared.get("mistakes", []), declared=declared)


def outputs(out=None, calls=1, elements=3, **report):
    out = torch.tensor([5.0, -3.0, 9.0]) if out is None else out
    observed = encoded({"phases": {"call": [["c10d::allreduce_.default", calls, elements, 4 * elements]]}, **report})
    return {**{f"out@{rank}": out.clone() for rank in (0, 1)}, **{f"observed@{rank}": observed for rank in (0, 1)}}


def judge(checker, got, params=PARAMS):
    inputs = checker.inputs(params, torch.Generator())
    return checker.check(params, inputs, got, outputs())


def test_a_ranks_package_missing_a_required_hook_or_with_one_of_another_shape_is_refused_at_load(tmp_path):
    with pytest.raises(KitError, match=r"spec.py must define steps\(params\)"):
        RanksChecker(package(tmp_path, spec=SPEC.replace("def steps(", "def stages(")))
    with pytest.raises(KitError, match=r"truth takes 1 positional parameters; the kit calls truth\(params, inputs\)"):
        RanksChecker(package(tmp_path, spec=SPEC.replace("def truth(params, inputs)", "def truth(params)")))
    with pytest.raises(KitError, match=r"the kit calls diagnose\(name, rank, params, inputs, got, truth\)"):
        diagnose = "\ndef diagnose(name, params, inputs, got, truth):\n    return ''\n"
        RanksChecker(package(tmp_path, spec=SPEC + diagnose))


def test_a_ranks_package_whose_rules_need_a_hook_or_whose_mistake_is_a_solution_is_refused_at_load(tmp_path):
    with pytest.raises(KitError, match=r"must define sent_bounds\(params, counted\)"):
        RanksChecker(package(tmp_path, rules=RULES + "[ranks.sent]\nevery_over = 'x'\n"))
    with pytest.raises(KitError, match=r"\[ranks.phases.call\] others = 'all'; the only value is \"any\""):
        RanksChecker(package(tmp_path, rules=RULES + "others = 'all'\n"))
    (tmp_path / "wrong.py").write_text("")
    with pytest.raises(KitError, match="each name a spec.py function"):
        RanksChecker(package(tmp_path, mistakes="[[mistakes]]\nsolution = 'wrong.py'\nsays = 'x'\n"))


def test_the_right_values_under_the_rules_pass(tmp_path):
    assert judge(RanksChecker(package(tmp_path)), outputs()) is None


def test_a_clean_report_cannot_pass_wrong_values(tmp_path):
    message = judge(RanksChecker(package(tmp_path)), outputs(torch.tensor([5.0, -3.0, 9.5])))
    assert message.startswith("rank 0 of 2, the call: the sum: 1 of 3 values differ")


def test_a_wrong_value_names_the_classic_mistake_it_reproduces_by_rank_or_for_every_rank(tmp_path):
    checker = RanksChecker(package(tmp_path))
    assert judge(checker, outputs(torch.tensor([10.0, -6.0, 18.0]))).endswith(" — it is the sum counted 2 times")
    got = outputs()
    got["out@1"] = torch.tensor([4.0, -5.0, 6.0])
    message = judge(checker, got)
    assert message.startswith("rank 1 of 2, the call: the sum:") and message.endswith(" — it is rank 1's own row")


def test_a_broken_phase_rule_explains_a_wrong_value_before_any_mistake(tmp_path):
    message = judge(RanksChecker(package(tmp_path)), outputs(torch.tensor([10.0, -6.0, 18.0]), calls=2))
    assert message.endswith(" — the call issued 2 all-reduces; exactly one is expected: one sum of the rows")


def test_with_the_right_values_each_phase_is_judged_by_its_rule(tmp_path):
    message = judge(RanksChecker(package(tmp_path)), outputs(elements=6))
    assert message == ("rank 0 of 2, the call: the call's all-reduce summed 6 elements; it must sum the rows, 3 "
                       "elements: an all-reduce of anything else leaves them to be moved some other way")


def test_a_malformed_report_fails_before_any_value_is_judged(tmp_path):
    got = outputs(torch.tensor([0.0, 0.0, 0.0]))
    got["observed@1"] = encoded({"phases": {}})
    assert judge(RanksChecker(package(tmp_path)), got).startswith("rank 1 of 2: the judge's record")


def test_a_replicated_output_must_be_the_same_on_every_rank_before_its_value_is_judged(tmp_path):
    got = outputs(torch.tensor([0.0, 0.0, 0.0]))
    got["out@1"] = torch.tensor([5.0, -3.0, 9.0])
    assert judge(RanksChecker(package(tmp_path)), got).startswith("rank 0 of 2, the call: the sum: 3 of 3 values")
    checker = RanksChecker(package(tmp_path, rules="replicated = \"{output} is not rank {first}'s\"\n" + RULES))
    assert judge(checker, got) == "rank 1 of 2, the call: the sum is not rank 0's"


def test_an_output_named_for_one_rank_is_judged_on_that_rank_alone(tmp_path):
    spec = SPEC.replace('{"out": "the sum"}', '{"out@1": "rank 1\'s sum"}')
    got = outputs()
    got["out@0"] = torch.zeros(3)
    assert judge(RanksChecker(package(tmp_path, spec=spec)), got) is None


def test_an_exact_output_must_equal_its_truth_to_the_last_bit(tmp_path):
    spec = SPEC.replace('{"n": 3})', '{"n": 3}, frozenset({"out"}))')
    checker = RanksChecker(package(tmp_path, spec=spec))
    assert judge(checker, outputs()) is None
    message = judge(checker, outputs(torch.tensor([5.0, -3.0, 9.000001])))
    assert message.startswith("rank 0 of 2, the call: the sum: 1 of 3 entries differ, the first at (2)")


def test_the_problems_own_check_comes_last_and_reads_the_validated_reports(tmp_path):
    spec = SPEC + ("\ndef check(params, inputs, got, truth, reports):\n"
                   "    return f\"{reports[1].calls('all_reduce')} call\"\n")
    checker = RanksChecker(package(tmp_path, spec=spec))
    assert judge(checker, outputs()) == "1 call"
    assert judge(checker, outputs(torch.zeros(3))).startswith("rank 0 of 2, the call: the sum:")


def test_a_refusal_is_judged_alone_where_the_group_does_not_divide_the_param(tmp_path):
    rules = RULES + ('[ranks.refusal]\ndivides = "n"\nraises = "ValueError"\n'
                     'says = "{n} rows on {size} ranks leave {remainder}"\n')
    checker = RanksChecker(package(tmp_path, rules=rules))
    refused, accepted = encoded({"refused": "ValueError"}), encoded({"refused": None})
    params = {"world_size": 2, "n": 3}
    assert judge(checker, {"observed@0": refused, "observed@1": refused}, params) is None
    assert judge(checker, {"observed@0": refused, "observed@1": accepted}, params) == \
        "rank 1 of 2, constructing: 3 rows on 2 ranks leave 1"


def test_a_timeout_on_any_rank_is_judged_first_in_the_problems_words(tmp_path):
    rules = RULES + '[ranks.timeout]\nsays = "unmatched"\nall_sending = "all sending"\n'
    checker = RanksChecker(package(tmp_path, rules=rules.replace("all_reduce = 1", "send = \"any\"\nrecv = \"any\"")
                                   .replace('elements = "n"\n', "")))
    sending = encoded({"phases": {"call": [["c10d::send.default", 2, 3, 12], ["c10d::recv_.default", 1, 3, 12]]},
                       "timed_out": True})
    waiting = encoded({"phases": {"call": [["c10d::recv_.default", 1, 3, 12]]}, "timed_out": False})
    got = {"out@0": torch.zeros(3), "out@1": torch.zeros(3)}
    assert judge(checker, {**got, "observed@0": sending, "observed@1": sending}) == "all sending"
    assert judge(checker, {**got, "observed@0": sending, "observed@1": waiting}) == "unmatched"


SENT = '''
[ranks.sent]
every_over = "every rank{verb} more than {most} bytes"
one_over = "rank {rank}{verb} more than {most} bytes"
under = "rank {rank}{verb} fewer than {fewest} bytes"
'''
BOUNDS = "\ndef sent_bounds(params, counted):\n    return (8, 12) if counted == 'process' else None\n"


def test_the_sent_rule_bounds_the_bytes_each_process_wrote_and_never_shows_them(tmp_path):
    checker = RanksChecker(package(tmp_path, rules=RULES + SENT, spec=SPEC + BOUNDS))
    assert checker.judges_sent_bytes and judge(checker, outputs()) is None
    assert checker.check_sent(PARAMS, {0: 10, 1: 12}) is None
    with compare.values_hidden():
        assert checker.check_sent(PARAMS, {0: 13, 1: 999}) == \
            "every rank's process wrote, counting every thread, more than 12 bytes"
        assert checker.check_sent(PARAMS, {0: 10, 1: 999}).startswith("rank 1's process wrote")
        assert checker.check_sent(PARAMS, {0: 7, 1: 10}) == \
            "rank 0's process wrote, counting every thread, fewer than 8 bytes"


def test_the_holdings_rule_takes_its_limit_from_the_spec_where_it_names_no_tensors(tmp_path):
    rules = RULES + ('[ranks.holdings]\nholder = "the optimizer"\nafter = "its steps"\n'
                     'share = "a 1/{size} share"\nlesson = "Shard it."\n')
    spec = SPEC + "\ndef holdings(params, inputs, size):\n    return 64 // size\n"
    checker = RanksChecker(package(tmp_path, rules=rules, spec=spec))
    kept = {"held": {"bytes": 32, "given": [], "largest": [], "resident": 0}, "alive": []}
    assert judge(checker, outputs(**kept)) is None
    kept["held"]["bytes"] = 33
    assert judge(checker, outputs(**kept)) == ("rank 0 of 2, after its steps: the optimizer holds 33 bytes of tensor "
                                               "storage; the limit is 32 bytes, a 1/2 share. Shard it.")
    # What the kernel counts: state the tensor walk cannot see (NumPy, frozen objects) grows the resident set.
    kept["held"] = {"bytes": 0, "given": [], "largest": [], "resident": 32 + RESIDENT_SLACK_BYTES}
    assert judge(checker, outputs(**kept)) is None
    kept["held"]["resident"] += 1
    assert judge(checker, outputs(**kept)) == (
        f"rank 0 of 2, after its steps: over its steps, this rank's resident memory grew by "
        f"{33 + RESIDENT_SLACK_BYTES} bytes, by the kernel's count, beyond the tensors the driver made: what the "
        f"optimizer keeps counts there in any form (NumPy arrays, Python objects, globals); the limit is 32 bytes, "
        f"a 1/2 share, plus {RESIDENT_SLACK_BYTES} bytes for the allocator's own. Shard it.")


def test_the_module_scenario_names_each_calls_outputs_and_phases_by_the_rules_it_declares():
    steps = kit.module_steps({"world_size": 2, "leading": [[3, 5]], "x_requires_grad": False}, 4, 0.1)
    assert [step.where for step in steps] == ["set-up", "x of shape (3, 5, 4) not requiring grad",
                                              "after one SGD step (lr=0.1)"]
    assert steps[1].phases == {"forward0": "forward", "backward0": "backward_without_grad"}
    assert list(steps[1].outputs) == ["x.after0", "out0"] and steps[1].exact == {"x.after0"}
    assert steps[1].counts == {"x": 60, "out": 60}


class _LookAlike(Exception):
    pass


_LookAlike.__name__ = _LookAlike.__qualname__ = "ValueError"


class _Indivisible(ValueError):
    pass


def test_a_refusal_is_recorded_only_for_an_exception_of_the_builtin_class_bound_before_the_submission_loaded(
        monkeypatch):
    ranks, observed = sandbox_ranks.observer(), {}
    monkeypatch.setattr(builtins, "ValueError", _LookAlike)  # what a submission can do at import

    def build(error):
        def raising():
            raise error("d_hidden does not split")
        return raising
    ranks.refusal(observed, build(_Indivisible), "ValueError")
    assert observed == {"refused": "ValueError"}
    ranks.refusal(observed, lambda: None, "ValueError")
    assert observed == {"refused": None}
    with pytest.raises(_LookAlike):
        ranks.refusal(observed, build(_LookAlike), "ValueError")


DRIVER_BETWEEN_PHASES = r"""
import json, sys
import torch, torch.distributed as dist
from torch import nn
from runner.kit import sandbox_ranks

dist.init_process_group("gloo", store=dist.FileStore(sys.argv[1], 1), rank=0, world_size=1)
ranks = sandbox_ranks.observer()


def gather():
    dist.all_gather([torch.empty(3)], torch.ones(3))


class Module(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(2))

    def load_full(self, fc1):
        dist.broadcast(self.w.data, 0)


reports = []
for run in range(2):
    observed = ranks.report()
    gather()  # the driver's own set-up before set_up(): not counted
    ranks.set_up(observed, Module, {"fc1.weight": torch.ones(2, 2), "fc1.bias": torch.ones(2)}, {"fc1": (2, 2)},
                 "load_full")
    gather()  # set-up is over: counts in the phase that follows
    ranks.during(observed, "forward0", lambda: None)
    gather()  # after the last phase: counts in it
    reports.append(json.loads(bytes(ranks.encoded(observed).tolist()).decode()))
    gather()  # after the report, before the next run's set_up(): not counted
print(json.dumps([report["phases"] for report in reports]))
# gloo's threads are stopped before the interpreter exits, so that none is torn down while it runs.
dist.destroy_process_group()
"""


def test_once_set_up_has_ended_the_drivers_own_thread_counts_between_phases_until_the_report(tmp_path):
    # A lazy output gathered as the driver reads it between two phases, or a finaliser the collector runs there,
    # issues its collectives on the driver's thread: after set-up they are judged, in the phase that follows.
    script = tmp_path / "between.py"
    script.write_text(DRIVER_BETWEEN_PHASES)
    process = subprocess.run([sys.executable, str(script), str(tmp_path / "store")], capture_output=True, text=True,
                             timeout=120, cwd=Path(__file__).resolve().parents[2])
    assert process.returncode == 0, process.stderr
    for phases in json.loads(process.stdout):
        assert phases == {"setup": [["c10d::broadcast_.default", 1, 2, 8]],
                          "forward0": [["c10d::allgather_.default", 2, 6, 24]]}


DRIVER_HOLDINGS_OUT_OF_THE_MODULE = r"""
import json, sys, types
import torch, torch.distributed as dist
from runner.kit import sandbox_ranks

dist.init_process_group("gloo", store=dist.FileStore(sys.argv[1], 1), rank=0, world_size=1)
ranks = sandbox_ranks.observer()
# Loaded as the harness loads a submission: its classes' __module__ is "solution".
solution = types.ModuleType("solution")
exec(compile('''
import numpy, torch
from torch import nn
KEPT, SCRATCH = [], {}

class Module(nn.Module):
    CACHE = []

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(2))

    def load_full(self, fc1):
        KEPT.append(fc1.weight.detach().clone())
        Module.CACHE.append(torch.zeros(3))
        SCRATCH["big"] = numpy.ones(1 << 20)  # 8 MiB, every page written
''', "solution.py", "exec"), vars(solution))
observed = ranks.report()
ranks.set_up(observed, solution.Module, {"fc1.weight": torch.ones(4, 4), "fc1.bias": torch.ones(4)}, {"fc1": (4, 4)},
             "load_full")
print(json.dumps(observed["held"]))
dist.destroy_process_group()
"""


def test_what_the_submissions_globals_and_class_attributes_keep_counts_and_the_resident_figure_sees_numpy(tmp_path):
    script = tmp_path / "holdings.py"
    script.write_text(DRIVER_HOLDINGS_OUT_OF_THE_MODULE)
    process = subprocess.run([sys.executable, str(script), str(tmp_path / "store")], capture_output=True, text=True,
                             timeout=120, cwd=Path(__file__).resolve().parents[2])
    assert process.returncode == 0, process.stderr
    held = json.loads(process.stdout)
    holders = {holder: size for holder, size, _ in held["largest"]}
    assert holders == {"global SCRATCH['big']": 8 << 20, "global KEPT[0]": 64, "Module.CACHE[0]": 12, "w": 8}
    assert held["bytes"] == (8 << 20) + 64 + 12 + 8
    assert held["resident"] >= 8 << 20


KEPT_AFTER_GATHERS = r"""
import sys, threading
import torch, torch.distributed as dist
from runner.kit import sandbox_ranks

rank, store_path, trials = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
dist.init_process_group("gloo", store=dist.FileStore(store_path, 2), rank=rank, world_size=2)
ranks, held = sandbox_ranks.observer(), []


class Recopying:
    # Holds 264 bytes, copied to fresh storage every millisecond by a thread of its own.
    def __init__(self):
        self.state, self.running = torch.zeros(66), True
        self.thread = threading.Thread(target=self.recopy)
        self.thread.start()

    def recopy(self):
        while self.running:
            self.state = self.state.clone()
            threading.Event().wait(0.001)


for trial in range(trials):
    observed, flat = {}, torch.randn(33)
    ranks.storages_from_now()
    pieces = [torch.empty_like(flat) for _ in range(2)]
    dist.all_gather(pieces, flat.clone())
    kept = torch.ones(8) if trial % 2 else None
    del pieces
    ranks.kept(observed, [])
    held.append(observed["held"]["bytes"])
observed = {}
ranks.storages_from_now()
recopying = Recopying()
ranks.kept(observed, [])
recopying.running = False
recopying.thread.join()
print(held, observed["held"]["bytes"])
"""


def test_what_an_optimizer_keeps_counts_without_a_collectives_outputs_that_gloo_has_not_yet_let_go(tmp_path):
    trials = 40
    # gloo's worker thread drops a collective's outputs just after the caller returns: once in five tries or so,
    # a single look right after the step still finds them, and charged a correct ZeRO step that gathers into
    # temporaries with bytes it does not keep.
    script = tmp_path / "kept.py"
    script.write_text(KEPT_AFTER_GATHERS)
    store = tmp_path / "store"
    processes = [subprocess.Popen([sys.executable, str(script), str(rank), str(store), str(trials)],
                                  stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2])
                 for rank in range(2)]
    for process in processes:
        out, _ = process.communicate(timeout=120)
        assert process.returncode == 0, out
        held, recopied = out.split("] ")
        assert json.loads(held + "]") == [32 if trial % 2 else 0 for trial in range(trials)]
        assert int(recopied) == 264
