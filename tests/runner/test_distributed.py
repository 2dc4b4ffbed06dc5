"""Distributed problems: ranks inside one sandbox, gloo on loopback, collectives counted."""

import pytest

from runner import load_problem

from .conftest import FIXTURE_PROBLEMS, judge_for_tests, requires_bubblewrap

pytestmark = [pytest.mark.sandbox, pytest.mark.slow, requires_bubblewrap]

PROBLEM = load_problem("allreduce-sum", FIXTURE_PROBLEMS)


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
