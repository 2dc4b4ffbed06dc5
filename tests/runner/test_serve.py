"""How the harness reports what a driver raises: the driver's own verdicts keep their message verbatim."""

import torch

from runner.harness.serve import Context, classify


def test_a_driver_wrong_answer_is_reported_with_its_message():
    assert classify(Context.WrongAnswer("rank 1: x.grad is None")) == {
        "status": "wrong_answer", "message": "rank 1: x.grad is None"}


def test_a_driver_memory_rule_is_a_memory_verdict_with_its_message_and_no_traceback():
    error = Context.MemoryLimitExceeded("rank 0 holds 7152 bytes; the limit is 3624")
    assert classify(error) == {"status": "memory_limit_exceeded",
                               "message": "rank 0 holds 7152 bytes; the limit is 3624"}


def test_running_out_of_memory_is_a_memory_verdict_and_other_errors_are_runtime_errors():
    assert classify(MemoryError())["status"] == "memory_limit_exceeded"
    try:
        torch.ones(2, 3) @ torch.ones(2, 3)
    except RuntimeError as error:
        found = classify(error)
    assert found["status"] == "runtime_error" and "cannot be multiplied" in found["message"]
