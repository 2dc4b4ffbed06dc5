"""The distributed kit's trusted side: each rank's report read as hostile input, and the shared checks."""

import json

import pytest
import torch

from runner import compare
from runner.kit import ranks

GIVEN = {"fc1.weight", "fc2.bias"}
PHASES = {"setup", "forward0"}
DECLARED = {
    "setup": "load_full", "only": "one all-reduce is enough",
    "holdings": {"split": ["fc1.weight"], "whole": ["fc2.bias"], "share": "its 1/{world} share of fc1 (d={d})"},
    "phases": {"setup": {"all_reduce": "any"},
               "forward": {"all_reduce": 1, "elements": "out", "sums": "the partial outputs", "why": "summed once"},
               "backward_without_grad": {"all_reduce": 0, "why": "when x does not require grad"}},
}
INPUTS = {"fc1.weight": torch.zeros(8, 4), "fc2.bias": torch.zeros(4)}  # 128 bytes split, 16 whole


def encoded(report) -> torch.Tensor:
    return torch.tensor(list(json.dumps(report).encode()), dtype=torch.uint8)


def honest(**changes):
    report = {"phases": {"setup": [], "forward0": [["c10d::allreduce_.default", 1, 12, 48]]},
              "held": {"bytes": 80, "given": [], "largest": [["w1", 64, None], ["b2", 16, None]]}, "alive": [],
              "parameters": 2}
    report.update(changes)
    return report


def read(report, **options):
    return ranks.read_report(encoded(report) if isinstance(report, dict) else report,
                             phases=options.get("phases", PHASES), given=GIVEN, refusal=options.get("refusal", False))


def test_an_honest_report_is_read_in_the_observers_terms():
    report = read(honest())
    assert report.phases == {"setup": [], "forward0": [("c10d::allreduce_.default", 1, 12, 48)]}
    assert (report.held_bytes, report.parameters, report.alive) == (80, 2, [])


@pytest.mark.parametrize("tensor", [None, torch.zeros(3), torch.zeros(2, 2, dtype=torch.uint8),
                                    torch.tensor(list(b"{not json"), dtype=torch.uint8), encoded([1, 2])],
                         ids=["missing", "float", "two-dimensional", "not-json", "not-an-object"])
def test_a_report_that_is_not_a_json_object_is_malformed(tensor):
    with pytest.raises(ranks.Malformed):
        read(tensor)


@pytest.mark.parametrize("change", [
    {"phases": {"forward0": []}},  # a phase left out: what it issued would go unjudged
    {"phases": {"setup": [], "forward0": [["c10d::allreduce_.default", -1, 12, 48]]}},
    {"phases": {"setup": [], "forward0": [["c10d::allreduce_.default", True, 12, 48]]}},
    {"phases": {"setup": [], "forward0": [["c10d::allreduce_.default", 1, 1 << 60, 48]]}},
    {"phases": {"setup": [], "forward0": [[7, 1, 12, 48]]}},
    {"phases": {"setup": [], "forward0": [["c10d::allreduce_.default", 1, 12]]}},
    {"held": {"bytes": 80, "given": ["the caller's secret"], "largest": []}},
    {"held": {"bytes": 80, "given": [], "largest": [["w1", 64, "not given"]]}},
    {"alive": ["fc1.weight"] * (ranks.MAX_ENTRIES + 1)},
    {"held": "nothing"},
    {"parameters": 2.5},
], ids=["missing-phase", "negative-count", "bool-count", "huge-count", "operator-not-a-name", "short-entry",
        "held-name-not-given", "largest-name-not-given", "too-many-entries", "held-not-an-object",
        "parameters-not-a-count"])
def test_a_report_with_a_field_not_as_the_observer_writes_it_is_malformed(change):
    with pytest.raises(ranks.Malformed):
        read(honest(**change))


def test_a_refusal_report_carries_only_the_exception_name():
    assert read({"phases": {}, "refused": "ValueError"}, refusal=True, phases=set()).refused == "ValueError"
    assert read({"refused": None}, refusal=True, phases=set()).refused is None
    with pytest.raises(ranks.Malformed):
        read({"refused": ["ValueError"]}, refusal=True, phases=set())


def test_a_malformed_report_on_any_rank_fails_the_test_and_names_that_rank():
    got = {"observed@0": encoded(honest()), "observed@1": torch.zeros(4, dtype=torch.uint8)}
    message = ranks.read_reports(got, {"world_size": 2}, phases=PHASES, given=GIVEN)
    assert message.startswith("rank 1 of 2:") and "malformed" in message


def forward(seen, elements=12):
    return ranks.collectives_message("the forward pass", DECLARED["phases"]["forward"], seen, {"out": elements},
                                     DECLARED["only"])


def test_one_all_reduce_of_the_declared_elements_keeps_the_rule_whatever_api_issued_it():
    assert forward([("c10d::allreduce_.default", 1, 12, 48)]) is None
    assert forward([("_c10d_functional::all_reduce.default", 1, 12, 48),
                    ("_c10d_functional::wait_tensor.default", 1, 12, 48)]) is None


def test_a_collective_of_another_family_is_named_and_refused():
    message = forward([("c10d::allgather_.default", 1, 24, 96), ("c10d::allreduce_.default", 1, 12, 48)])
    assert "issued c10d::allgather_" in message and "all-reduce is the only collective" in message


def test_an_operator_name_torch_does_not_register_is_never_echoed():
    message = forward([("secret-hidden-input-1.25.default", 1, 12, 48)])
    assert "secret" not in message and "collectives this torch does not register" in message


def test_the_wrong_number_of_calls_is_counted_on_a_sample_test_and_not_on_a_hidden_one():
    seen = [("c10d::allreduce_.default", 2, 24, 96)]
    assert "issued 2 all-reduces; exactly one is expected: summed once" in forward(seen)
    with compare.values_hidden():
        message = forward(seen)
    assert "2" not in message and "another number of all-reduces" in message


def test_an_all_reduce_of_other_elements_is_refused():
    message = forward([("c10d::allreduce_.default", 1, 1, 4)])
    assert "all-reduce summed 1 element;" in message and "the partial outputs, 12 elements" in message


def test_a_phase_that_needs_none_refuses_any_and_any_allows_many():
    none = DECLARED["phases"]["backward_without_grad"]
    message = ranks.collectives_message("the backward pass", none, [("c10d::allreduce_.default", 1, 3, 12)], {}, "")
    assert message == "the backward pass issued 1 all-reduce; none is needed when x does not require grad"
    assert ranks.collectives_message("load_full", DECLARED["phases"]["setup"],
                                     [("c10d::allreduce_.default", 5, 3, 12)], {}, "") is None


def holdings(report, world=2):
    return ranks.holdings_message(read(report), DECLARED, {"d": 4}, INPUTS, world)


def test_a_share_within_the_limit_keeps_the_bytes_rule():
    assert holdings(honest()) is None  # 128 / 2 + 16 = 80 bytes allowed


def test_more_bytes_than_the_share_fails_with_the_limit_computed_here():
    message = holdings(honest(held={"bytes": 81, "given": [], "largest": []}))
    assert "the module holds 81 bytes" in message and "the limit is 80 bytes, its 1/2 share of fc1 (d=4)" in message
    with compare.values_hidden():
        assert "81" not in holdings(honest(held={"bytes": 81, "given": [], "largest": [["w1 81", 81, None]]}))


def test_a_given_tensor_kept_alive_out_of_sight_counts_in_full():
    message = holdings(honest(held={"bytes": 16, "given": [], "largest": []}, alive=["fc1.weight"]))
    assert "kept alive out of sight: the storage of the fc1.weight passed to load_full" in message


def test_a_given_tensor_held_within_the_share_is_still_an_alias_of_the_callers():
    message = holdings(honest(held={"bytes": 32, "given": ["fc2.bias"], "largest": [["b2", 16, "fc2.bias"]]},
                              alive=["fc2.bias"]))
    assert "aliases the caller's tensors" in message


def test_a_module_without_parameters_cannot_be_trained():
    assert "no parameters" in ranks.parameters_message(read(honest(parameters=0)))
    assert ranks.parameters_message(read(honest())) is None


def test_a_forged_report_cannot_pass_wrong_values():
    """However clean the report, the values are judged against the truth computed here."""
    truth = {"out0": torch.ones(3, 4, dtype=torch.float64), "x.grad0": torch.ones(3, 4, dtype=torch.float64),
             "out_after_step": torch.ones(3, 4, dtype=torch.float64)}
    params = {"world_size": 1, "leading": [[3]], "x_requires_grad": False}
    declared = {**DECLARED, "relative_tolerance": 1e-5, "step": "after the step", "after_step": "why"}
    inputs = {"g0.x0": torch.zeros(3, 4), "g0.x_after_step": torch.zeros(3, 4)}
    report = read(honest(phases={"forward0": [["c10d::allreduce_.default", 1, 12, 48]], "backward0": [],
                                 "forward_after_step": [["c10d::allreduce_.default", 1, 12, 48]]}),
                  phases={"forward0", "backward0", "forward_after_step"})
    got = {"x.after0@0": torch.zeros(3, 4), "out0@0": torch.full((3, 4), 2.0), "out_after_step@0": torch.ones(3, 4)}
    message = ranks.check_steps(params, inputs, got, {0: report}, [0], "g0.", truth, declared, lambda *a: "")
    assert message.startswith("rank 0 of 1, x of shape (3, 4) not requiring grad: the output")
    got["out0@0"] = torch.ones(3, 4, dtype=torch.float64)
    assert "dtype float64, expected float32" in ranks.check_steps(params, inputs, got, {0: report}, [0], "g0.", truth,
                                                                  declared, lambda *a: "")
    got["out0@0"] = torch.ones(3, 4)
    assert ranks.check_steps(params, inputs, got, {0: report}, [0], "g0.", truth, declared, lambda *a: "") is None


def test_the_truth_of_the_steps_accumulates_gradients_over_the_calls_before_the_step():
    params = {"world_size": 1, "leading": [[2], [2]]}
    inputs = {"g.x0": torch.ones(2, 1), "g.grad0": torch.ones(2, 1), "g.x1": torch.ones(2, 1),
              "g.grad1": torch.ones(2, 1), "g.x_after_step": torch.ones(2, 1)}
    truth = ranks.steps_truth(params, inputs, "g.", lambda w, x: x * w["w"], {"w": torch.tensor(3.0)}, 0.5)
    assert torch.equal(truth["x.grad1"], torch.full((2, 1), 3.0, dtype=torch.float64))
    # dL/dw = 2 per call, two calls: w = 3 - 0.5 * 4.
    assert torch.equal(truth["out_after_step"], torch.ones(2, 1, dtype=torch.float64))
