"""Distributed problems: ranks inside one sandbox, gloo on loopback, collectives counted."""

import ast
import shutil
import time

import pytest

from runner import load_problem
from runner.harness.ranks import stuck_message
from runner.hidden import stuck_ranks
from runner.judging.sandboxes import LOAD_TIMEOUT_S

from .conftest import ATTACKS, FIXTURE_PROBLEMS, judge_for_tests, requires_bubblewrap

pytestmark = [pytest.mark.sandbox, pytest.mark.slow, requires_bubblewrap]

PROBLEM = load_problem("allreduce-sum", FIXTURE_PROBLEMS)
ELEMENTS = 1 << 16
FRAMING_BYTES = 16 << 10  # answer headers and gloo's own messages


def test_the_reference_is_accepted_at_every_world_size_the_tests_ask_for():
    verdict = judge_for_tests(PROBLEM, PROBLEM.source("reference.py"), tests="all")
    assert verdict.verdict == "accepted", verdict.tests
    assert [t.name for t in verdict.tests] == ["two-ranks", "three-ranks"]


@pytest.mark.parametrize("path", [p for p, _, _ in PROBLEM.solutions()[1:]], ids=lambda p: p.stem)
def test_each_solution_gets_its_declared_verdict(path):
    _, expected, message = next(s for s in PROBLEM.solutions() if s[0] == path)
    verdict = judge_for_tests(PROBLEM, path.read_bytes(), tests="sample")
    assert verdict.verdict == expected, verdict.tests
    if message:
        assert message in verdict.tests[0].message


def test_a_rank_holds_no_pipe_but_its_own():
    """A rank is forked from its controller on the CPU: were the controller's pipes to the judge left open in
    it, a submission could answer for the whole sandbox. (It cannot look into its controller's descriptors
    to compare: the judge's Landlock ruleset keeps it out of processes outside its own domain.)"""
    source = b'''import os
import torch
import torch.distributed as dist


def reduce_sum(x: torch.Tensor) -> torch.Tensor:
    links = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            links.append(os.readlink(f"/proc/self/fd/{fd}"))
        except FileNotFoundError:  # the listing's own descriptor, closed by now
            pass
    # Pipes held at one end only: its own request and response pipes, and the sandbox's stdout and stderr
    # (gloo's wake-up pipes are held at both ends).
    pipes = sorted(link for link in links if link.startswith("pipe:") and links.count(link) == 1)
    if len(pipes) != 4:
        raise RuntimeError(f"rank {dist.get_rank()} holds the pipes {pipes}, not its own two and stdout and stderr")
    total = x.clone()
    dist.all_reduce(total)
    return total
'''
    verdict = judge_for_tests(PROBLEM, source, tests="all")
    assert verdict.verdict == "accepted", verdict.tests


def test_the_bytes_each_rank_sends_are_read_from_outside_its_process(tmp_path):
    """The kernel's count of what each rank process wrote during the call, less the tensors it answered with,
    reaches a checker's check_sent by rank: here rank 0 writes 1 MiB more than its all-reduce needs."""
    package = tmp_path / "allreduce-sum"
    shutil.copytree(FIXTURE_PROBLEMS / "allreduce-sum", package)
    toml = package / "problem.toml"
    toml.write_text(toml.read_text().replace("params = { n = 5, world_size = 2 }",
                                             f"params = {{ n = {ELEMENTS}, world_size = 2 }}"))
    with open(package / "checker.py", "a") as checker:
        checker.write("\n\ndef check_sent(params, sent):\n    return 'sent ' + repr(sorted(sent.items()))\n")
    source = b'''import os
import torch
import torch.distributed as dist


def reduce_sum(x):
    if dist.get_rank() == 0:
        with open("/dev/null", "wb") as sink:
            sink.write(bytes(1 << 20))
    total = x.clone()
    dist.all_reduce(total)
    return total
'''
    verdict = judge_for_tests(load_problem("allreduce-sum", tmp_path), source, tests="sample")
    message = verdict.tests[0].message
    assert verdict.verdict == "wrong_answer" and message.startswith("sent "), verdict.tests
    sent = dict(ast.literal_eval(message.removeprefix("sent ")))
    # Two ranks' all-reduce sends each rank's whole tensor once; the answered sum itself is not counted.
    tensor_bytes = 4 * ELEMENTS
    assert tensor_bytes <= sent[1] < tensor_bytes + FRAMING_BYTES, sent
    # The two ranks' framing differs by a few bytes (the digits of the figures in each answer's header).
    assert abs(sent[0] - sent[1] - (1 << 20)) < FRAMING_BYTES, sent


def test_ranks_of_a_submission_that_names_ddp_start_with_dynamo_imported():
    """DistributedDataParallel's constructor imports torch._dynamo (seconds of CPU): the controller imports it
    before it forks the ranks, once, rather than every rank paying for it inside a test."""
    source = b'''import sys
import torch.distributed as dist

# Would wrap a model in torch.nn.parallel.DistributedDataParallel. (The module's name is spelled in two
# parts: written whole, it alone would have the controller import it.)
if "torch._dyn" "amo" not in sys.modules:
    raise RuntimeError("this rank would import it itself")


def reduce_sum(x):
    total = x.clone()
    dist.all_reduce(total)
    return total
'''
    verdict = judge_for_tests(PROBLEM, source, tests="sample")
    assert verdict.verdict == "accepted", verdict.tests


def test_a_sleep_at_import_is_held_to_the_loads_own_timeout_however_many_ranks_start_first():
    """ring-allreduce starts nine ranks (groups of 2, 3 and 4) for its user and as many for its reference; their
    start is the judge's, and the submission's import in all of them at once gets only its own timeout."""
    problem = load_problem("ring-allreduce")
    started = time.monotonic()
    verdict = judge_for_tests(problem, (ATTACKS / "ring_allreduce_sleep_at_import.py").read_bytes(), tests="all")
    took = time.monotonic() - started
    assert verdict.verdict == "time_limit_exceeded", verdict.tests[0]
    assert "while the file was loaded" in verdict.tests[0].message
    assert LOAD_TIMEOUT_S < took < problem.limits.wall_s / 2, took


def _twice_two_ranks(tmp_path):
    """allreduce-sum with a second test on the two-rank group after its sample test (n = 5, then n = 6)."""
    package = tmp_path / "allreduce-sum"
    shutil.copytree(FIXTURE_PROBLEMS / "allreduce-sum", package)
    with open(package / "problem.toml", "a") as toml:
        toml.write('\n[[tests]]\nname = "two-ranks-again"\nparams = { n = 6, world_size = 2 }\n')
    return load_problem("allreduce-sum", tmp_path)


FAILS_ON_FIVE = '''import torch
import torch.distributed as dist


def reduce_sum(x):
    if x.numel() == 5:
        {fault}
    total = x.clone()
    dist.all_reduce(total)
    return total
'''


def test_a_rank_that_fails_ends_its_peers_wait_and_the_next_test_meets_the_group_started_again(tmp_path):
    """Rank 1 raises while rank 0 waits in the all-reduce: the test's error is rank 1's own, not rank 0's
    collective timeout (3 s here, on every such test), and the same group's next test, on ranks started and
    loaded again, passes with every figure the trusted side reads of them (the bytes each sent among them)."""
    problem = _twice_two_ranks(tmp_path)
    fault = 'if dist.get_rank() == 1:\n            raise ValueError("rank one gives up")'
    verdict = judge_for_tests(problem, FAILS_ON_FIVE.replace("{fault}", fault).encode(), tests="all")
    statuses = {test.name: test.status for test in verdict.tests}
    assert statuses == {"two-ranks": "runtime_error", "three-ranks": "passed", "two-ranks-again": "passed"}, \
        verdict.tests
    message = verdict.tests[0].message
    assert "rank 1" in message and "rank one gives up" in message and "Timed out" not in message, message


def test_a_deadlock_is_found_with_every_rank_asleep_on_a_sample_and_a_hidden_test(tmp_path):
    """Both ranks receive from each other first: nothing can wake them but the collective timeout. The group
    is seen asleep, the test fails naming the ranks that waited, the hidden test in words the trusted side
    checked, and the group is started again for the test after it."""
    problem = _twice_two_ranks(tmp_path)
    fault = "dist.recv(torch.empty(1), 1 - dist.get_rank())"
    for_sample = FAILS_ON_FIVE.replace("{fault}", fault)
    verdict = judge_for_tests(problem, for_sample.encode(), tests="all")
    assert [test.status for test in verdict.tests] == ["runtime_error", "passed", "passed"], verdict.tests
    assert verdict.tests[0].message.startswith("ranks 0, 1 waited 0.5 s with every thread"), verdict.tests[0]
    hidden = judge_for_tests(problem, for_sample.replace("== 5", "== 6").encode(), tests="all")
    assert [test.status for test in hidden.tests] == ["passed", "passed", "runtime_error"], hidden.tests
    assert "ranks 0, 1 waited 0.5 s" in hidden.tests[2].message, hidden.tests[2]


def test_a_stuck_message_is_shown_on_a_hidden_test_only_word_for_word():
    assert stuck_ranks(stuck_message([0, 2])) == [0, 2]
    assert stuck_ranks(stuck_message([1])) == [1]
    assert stuck_ranks(stuck_message([1]) + " and the hidden input was 0.25") is None
    assert stuck_ranks("rank 1 waited 0.5 s, and x[0] = 3.5") is None
