"""Hidden tests stay hidden: nothing a process holding hidden inputs prints, raises or reports comes back in
the verdict, and each judgement draws one of many hidden seeds, reproducibly when told which."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil

import pytest

from runner import JudgeError, load_problem, seeds
from runner.cache import ReferenceCache, key
from runner.harness.serve import describe
from runner.hidden import error_message, raised_at
from runner.problems import ProblemError
from runner.sandbox.process import HIDDEN_OUTPUT_NOTE, CapturedOutput

from .conftest import ATTACKS, FIXTURE_PROBLEMS, TEST_KEY, judge_for_tests, requires_bubblewrap

SEED_INDEX = 7
COLLECTOR = ATTACKS / "collect_hidden_inputs.py"


def _traceback_of(source: str) -> str:
    """The text the harness sends for an exception raised by source run as the submission's file."""
    try:
        exec(compile(source, "solution.py", "exec"), {"__name__": "solution"})
    except BaseException as error:  # noqa: BLE001
        return describe(error)
    raise AssertionError("the source raised nothing")


def test_a_builtin_exception_is_named_with_the_line_of_the_users_file_it_was_raised_at():
    text = _traceback_of("import torch\n\ndef f(x):\n    raise ValueError(f'secret {x}')\n\nf(1.2345)\n")
    assert raised_at(text, source_lines=6) == ("ValueError", 4)
    message = error_message("runtime_error", text, "during the call", 6)
    assert message == ("ValueError was raised during the call, at line 4 of your file; "
                       "hidden tests do not show error text")


def test_a_torch_exception_is_named_with_its_module():
    text = _traceback_of("import torch\ntorch.linalg.cholesky(-torch.eye(2))\n")
    kind, line = raised_at(text, source_lines=2)
    assert kind.startswith("torch.") and line == 2


def test_a_class_the_submission_made_up_is_not_named_and_neither_is_a_line_its_file_lacks():
    text = _traceback_of("\n" * 40 + "raise type('Secret_12345', (Exception,), {})('1.2345')\n")
    assert raised_at(text, source_lines=41) == (None, 41)
    assert raised_at(text, source_lines=10) == (None, None)
    message = error_message("runtime_error", text, "during the call", 10)
    assert "12345" not in message and message.startswith("an exception was raised during the call;")


def test_the_drivers_words_and_a_memory_error_keep_only_their_kind():
    assert error_message("wrong_answer", "x [1.2345] is wrong", "during a timed call", 5) == (
        "the problem's driver found the result wrong during a timed call; hidden tests do not show error text")
    message = error_message("memory_limit_exceeded", "MemoryError: 1.2345", "during the call", 5)
    assert message.startswith("memory ran out (MemoryError) during the call") and "1.2345" not in message


def test_output_after_the_seal_is_read_but_neither_kept_nor_counted():
    read_end, write_end = os.pipe()
    captured = CapturedOutput(os.fdopen(read_end, "rb"))
    os.write(write_end, b"sample output\n")
    captured.seal()
    for _ in range(3):  # more than the pipe holds at once, and more than is kept
        os.write(write_end, b"hidden 1.2345\n" * 2000)
        captured.drain()
    os.close(write_end)
    captured.drain()
    assert captured.ended
    assert captured.text() == f"sample output\n{HIDDEN_OUTPUT_NOTE}"


def test_a_stream_that_carried_nothing_before_the_seal_stays_empty_whatever_comes_after():
    read_end, write_end = os.pipe()
    captured = CapturedOutput(os.fdopen(read_end, "rb"))
    captured.seal()
    os.write(write_end, b"hidden 1.2345\n")
    os.close(write_end)
    captured.drain()
    assert captured.text() == ""


def test_a_problem_listing_a_sample_test_after_a_hidden_one_is_refused(tmp_path):
    package = tmp_path / "allreduce-sum"
    shutil.copytree(FIXTURE_PROBLEMS / "allreduce-sum", package)
    toml = package / "problem.toml"
    toml.write_text(toml.read_text() + '\n[[tests]]\nname = "late-sample"\nsample = true\nparams = {}\n')
    with pytest.raises(ProblemError, match="sample tests must come before the hidden ones"):
        load_problem("allreduce-sum", tmp_path)


def test_there_are_at_least_64_distinct_hidden_seeds_per_version_and_an_index_outside_them_is_refused():
    assert seeds.SEEDS_PER_VERSION >= 64
    assert len({seeds.hidden_seed(TEST_KEY, "v1", index) for index in range(seeds.SEEDS_PER_VERSION)}) == 64
    with pytest.raises(JudgeError, match="seed_index"):
        judge_for_tests("stable-softmax", b"", seed_index=seeds.SEEDS_PER_VERSION)


def test_a_drawn_index_is_reported_and_a_run_without_hidden_tests_reports_none():
    # A file refused before anything runs still says which seed its hidden tests would have used.
    drawn = judge_for_tests("stable-softmax", b"\0").seed_index
    assert 0 <= drawn < seeds.SEEDS_PER_VERSION
    assert judge_for_tests("stable-softmax", b"\0", seed_index=3).seed_index == 3
    assert judge_for_tests("stable-softmax", b"\0", tests="sample").seed_index is None


def _values(problem, test, seed: int) -> set[str]:
    """The printed forms of the test's input x, long enough not to turn up by chance."""
    inputs = problem.checker.inputs(test.params, seeds.generator(seed, test.name))
    return {repr(value) for value in inputs["x"].flatten().tolist() if len(repr(value)) >= 8}


def _hidden_values(problem) -> set[str]:
    seed = seeds.hidden_seed(TEST_KEY, problem.version, SEED_INDEX)
    return set().union(*(_values(problem, test, seed) for test in problem.tests if not test.sample))


def _everything_said(verdict) -> str:
    return json.dumps(verdict.to_json())


@pytest.fixture(scope="module")
def collected():
    return judge_for_tests("stable-softmax", COLLECTOR.read_bytes(), tests="all", seed_index=SEED_INDEX)


@pytest.mark.sandbox
@requires_bubblewrap
def test_no_hidden_input_comes_back_in_the_output_or_any_message(collected):
    said = _everything_said(collected)
    assert not [value for value in _hidden_values(load_problem("stable-softmax")) if value in said]
    assert collected.seed_index == SEED_INDEX


@pytest.mark.sandbox
@requires_bubblewrap
def test_the_sample_tests_output_is_kept_and_a_line_says_the_rest_is_not_shown(collected):
    problem = load_problem("stable-softmax")
    sample = next(test for test in problem.tests if test.sample)
    assert _values(problem, sample, seeds.sample_seed(problem.slug)) & set(collected.stdout.split(", "))
    for stream in (collected.stdout, collected.stderr):
        assert "INPUTS" in stream and stream.endswith(HIDDEN_OUTPUT_NOTE)


@pytest.mark.sandbox
@requires_bubblewrap
def test_hidden_failures_say_only_what_the_trusted_side_knows(collected):
    hidden_names = {test.name for test in load_problem("stable-softmax").tests if not test.sample}
    messages = {test.message for test in collected.tests if test.name in hidden_names}
    assert messages == {
        "ValueError was raised during the call, at line 22 of your file; hidden tests do not show error text",
        "an exception was raised during the call, at line 24 of your file; hidden tests do not show error text",
        "called an operator during the call; this problem forbids it",
    }


def _hidden_first():
    """stable-softmax with a hidden test before a sample one, which the loader refuses; the judge must not
    rely on the order to keep the hidden inputs in."""
    problem = load_problem("stable-softmax")
    hidden = next(test for test in problem.tests if not test.sample)
    sample = next(test for test in problem.tests if test.sample)
    return dataclasses.replace(problem, tests=[hidden, sample])


@pytest.mark.sandbox
@requires_bubblewrap
def test_what_was_stashed_during_a_hidden_test_is_not_shown_by_a_later_sample_test():
    problem = _hidden_first()
    verdict = judge_for_tests(problem, COLLECTOR.read_bytes(), tests="all", seed_index=SEED_INDEX)
    assert verdict.tests[1].status not in ("passed", "skipped")  # the sample test ran, with the stash to tell
    assert not [value for value in _hidden_values(problem) if value in _everything_said(verdict)]
    assert verdict.stdout == verdict.stderr == ""  # nothing was written before the hidden test


@pytest.mark.sandbox
@requires_bubblewrap
def test_the_exit_code_of_a_process_holding_hidden_inputs_is_not_shown():
    source = b"import os\n\ndef softmax(x, dim=-1):\n    os._exit(42)\n"
    verdict = judge_for_tests(_hidden_first(), source, tests="all", seed_index=SEED_INDEX)
    message = verdict.tests[0].message
    assert verdict.tests[0].status == "runtime_error" and "42" not in message
    assert message.startswith("the process ended before answering during this test; hidden tests do not show")


@pytest.mark.sandbox
@requires_bubblewrap
def test_judges_given_the_same_seed_index_see_the_same_hidden_inputs():
    problem = load_problem("stable-softmax")
    failing = b"def softmax(x, dim=-1):\n    raise ValueError('no')\n"
    cache = ReferenceCache()
    first = judge_for_tests(problem, failing, tests="all", seed_index=3, cache=cache)
    seed = seeds.hidden_seed(TEST_KEY, problem.version, 3)
    for test in problem.tests:
        drawn_from = seeds.sample_seed(problem.slug) if test.sample else seed
        assert cache.get(key(problem.version, "cpu", drawn_from, test.name, test.params)) is not None, test.name
    misses = cache.misses
    second = judge_for_tests(problem, failing, tests="all", seed_index=3, cache=cache)
    assert cache.misses == misses, "the second judge met inputs the first did not"
    other = judge_for_tests(problem, failing, tests="all", seed_index=4, cache=cache)
    hidden_count = sum(not test.sample for test in problem.tests)
    assert cache.misses == misses + hidden_count
    assert (first.seed_index, second.seed_index, other.seed_index) == (3, 3, 4)
