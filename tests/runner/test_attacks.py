"""Hostile submissions: each file in attacks/ declares the verdict it must get, and no attack may leave a
trace on the machine: no process of its sandbox uid, no file outside the sandbox, no secret read.

An attack's header: `# expect:` its verdict, `# message:` a phrase the failing test's message (with its why) holds,
`# tests:` sample or all (sample by default), `# problem:` the problem it attacks (stable-softmax by default),
`# device:` cuda for one that needs a GPU, `# sandbox-memory-mib:` a smaller sandbox memory limit than the
problem's, for an attack that fills it (on a busy machine, filling 2 GiB can outlast a call's wall clock),
`# threads: allowed` to judge the problem as one whose submissions may start threads (the ranks' problems, and
every problem on a GPU), for an attack on what the judge observes across threads."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from runner import SandboxOptions, load_problem
from runner.check import said
from runner.sandbox import procs, zygote
from runner.sandbox.process import wait_released

from .conftest import (ATTACKS, header_field, judge_for_tests, read_expectation, requires_a_zygote,
                       requires_bubblewrap, sandbox_uid)

# The first test's setup judges every attack, one after another (the module's fixture): minutes, not the
# suite's five-minute bound for one test.
pytestmark = [pytest.mark.sandbox, pytest.mark.slow, pytest.mark.takes_minutes, requires_bubblewrap,
              pytest.mark.timeout(3000)]

CPU_ATTACKS = sorted(p for p in ATTACKS.glob("*.py") if header_field(p, "device") in (None, "cpu"))
CANARIES = [Path("/runner-attack-canary"), Path("/usr/runner-attack-canary"), Path("/etc/runner-attack-canary"),
            Path("/tmp/runner-pickle-pwned"), Path(os.sys.prefix) / "runner-attack-canary"]
SECRETS = {"DJANGO_SECRET_KEY": "attack-canary-secret", "DATABASE_URL": "postgres://canary@127.0.0.1/db",
           "REDIS_URL": "redis://127.0.0.1:6379/9"}


# Attacks whose tests read what a full run reports after the first failure; the rest stop there, as
# `runner check` does: the verdict is the first failing test's either way.
JUDGED_TO_THE_END = {"exit_during_call.py", "collect_hidden_inputs.py"}


def _problem_for(path: Path):
    problem = load_problem(header_field(path, "problem") or "stable-softmax")
    if mib := header_field(path, "sandbox-memory-mib"):
        problem = replace(problem, limits=replace(problem.limits, sandbox_memory_bytes=int(mib) << 20))
    if header_field(path, "threads") == "allowed":
        problem = replace(problem, threads=True)
    return problem


def _judge_attacks(paths: list[Path], uid_base: int) -> dict:
    """Judge paths one after another with uids of their own, so a survivor is this run's, not a neighbour's."""
    results = {}
    for index, path in enumerate(paths):
        if index == 1:
            results["zygotes before"] = dict(zygote._zygotes)
        verdict = judge_for_tests(_problem_for(path), path.read_bytes(),
                                  tests=header_field(path, "tests") or "sample",
                                  stop_at_first_failure=path.name not in JUDGED_TO_THE_END,
                                  sandbox=SandboxOptions(mode="bubblewrap", require=True, uid_base=uid_base))
        uid = sandbox_uid(verdict)
        # A judge returns once its sandboxes are killed; they finish exiting, and hand their uid back, after.
        wait_released()
        results[path] = {"verdict": verdict, "uid": uid,
                         "left_running": procs.owned_by(uid) if uid is not None else []}
    return results


@pytest.fixture(scope="module")
def outcomes():
    """Every CPU attack judged, one at a time (a fork bomb or a spinning thread beside another attack would eat
    into that one's wall clock), with secrets in the judge's own environment."""
    for canary in CANARIES:
        canary.unlink(missing_ok=True)
    saved = {name: os.environ.get(name) for name in SECRETS}
    os.environ.update(SECRETS)
    try:
        results = _judge_attacks(CPU_ATTACKS, uid_base=61000)
        results["zygotes"] = dict(zygote._zygotes)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return results


def test_there_are_at_least_twenty_attacks():
    assert len(list(ATTACKS.glob("*.py"))) >= 20


@pytest.mark.parametrize("path", CPU_ATTACKS, ids=lambda p: p.stem)
def test_attack_gets_its_declared_verdict_and_leaves_nothing_behind(path, outcomes):
    expected, message = read_expectation(path.read_bytes())
    outcome = outcomes[path]
    verdict = outcome["verdict"]
    failing = [t for t in verdict.tests if t.status not in ("passed", "skipped")]
    assert verdict.verdict == expected, f"{path.name}: {verdict.verdict}: {failing[:1]}"
    if message:
        assert any(message in words for t in failing for words in said(t)), \
            f"{path.name}: {[(t.message, t.why) for t in failing]}"
    assert verdict.verdict != "internal_error"
    if verdict.sandbox.startswith("none"):
        assert verdict.verdict == "compile_error"
    else:
        assert outcome["uid"] is not None and outcome["uid"] != 0, verdict.sandbox
    assert outcome["left_running"] == [], f"processes of uid {outcome['uid']} survived the run"
    assert not [c for c in CANARIES if c.exists()], "a file appeared outside the sandbox"


@requires_a_zygote
def test_every_attack_ran_forked_from_one_zygote_that_outlived_them_all(outcomes):
    """An attack that broke the zygote would leave the ones after it to cold starts, and their verdicts would not
    show it."""
    words = [outcomes[path]["verdict"].sandbox for path in CPU_ATTACKS]
    assert [w for w in words if not w.startswith("none") and "forked from a zygote" not in w] == []
    assert outcomes["zygotes"] == outcomes["zygotes before"]
    assert [z for z in outcomes["zygotes"].values() if z.broken or z._process.poll() is not None] == []


def test_a_flood_of_output_is_capped(outcomes):
    verdict = outcomes[ATTACKS / "output_flood.py"]["verdict"]
    assert len(verdict.stdout) < 20_000 and "more bytes not kept" in verdict.stdout
    assert len(verdict.stderr) < 20_000 and "more bytes not kept" in verdict.stderr


def test_a_fake_result_printed_by_the_submission_is_not_taken(outcomes):
    verdict = outcomes[ATTACKS / "exit_zero_fake_result.py"]["verdict"]
    assert '"verdict": "accepted"' in verdict.stdout
    assert verdict.verdict == "runtime_error"


def test_tests_after_a_fatal_failure_are_skipped(outcomes):
    verdict = outcomes[ATTACKS / "exit_during_call.py"]["verdict"]
    assert [t.status for t in verdict.tests] == ["runtime_error", "skipped", "skipped"]


def test_the_pickle_sent_up_the_pipe_was_never_loaded(outcomes):
    assert outcomes[ATTACKS / "malicious_pickle.py"]["verdict"].verdict == "runtime_error"
    assert not Path("/tmp/runner-pickle-pwned").exists()
