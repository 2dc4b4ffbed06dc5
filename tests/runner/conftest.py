"""Fixtures for the runner's tests: where things are, and a judge wired for tests."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from runner import JudgeOptions, Problem, SandboxOptions, judge
from runner.cache import ReferenceCache
from runner.check import header_field
from runner.client import Harness
from runner.problems import read_expectation

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_PROBLEMS = Path(__file__).resolve().parent / "problems"
ATTACKS = Path(__file__).resolve().parent / "attacks"
TEST_KEY = b"k" * 32
SHARED_CACHE = ReferenceCache()


def bubblewrap_works() -> bool:
    from runner.sandbox import _bubblewrap_problem, _tool

    return shutil.which("bwrap") is not None and _bubblewrap_problem(
        _tool(None, "bwrap"), _tool(None, "setpriv"), os.geteuid() == 0) is None


# Where CI runs (CI=true), the sandbox is part of what the suite proves: there a missing or broken bubblewrap
# fails the sandbox tests instead of skipping them.
IN_CI = os.environ.get("CI", "").lower() == "true"
requires_bubblewrap = pytest.mark.skipif(not IN_CI and not bubblewrap_works(),
                                         reason="bubblewrap does not work here (under CI=true this fails instead)")


def forks_from_a_zygote() -> bool:
    """Whether this checkout's sandboxes fork from a zygote: as root, with the interpreter outside /tmp and
    /dev/shm, which each forked child mounts afresh (runner/sandbox/bwrap.py, under_private_mounts); a checkout
    under /tmp starts every sandbox cold."""
    from runner.sandbox import bwrap

    private = bwrap.under_private_mounts(bwrap.Layout(python=sys.executable, harness_dir="",
                                                      ro_paths=bwrap.interpreter_paths()))
    return os.geteuid() == 0 and not private


requires_a_zygote = pytest.mark.skipif(not forks_from_a_zygote(),
                                       reason="sandboxes fork from a zygote only as root, from a checkout outside /tmp")


def judge_for_tests(problem: Problem | str, source: bytes | str, *, on_event=None, **options):
    """runner.judge with a fixed seed key, a cache shared by the session, and the real sandbox required;
    options are JudgeOptions fields."""
    options.setdefault("sandbox", SandboxOptions(mode="bubblewrap", require=True))
    options.setdefault("device", "cpu")
    options.setdefault("cache", SHARED_CACHE)
    return judge(problem, source, JudgeOptions(secret_key=TEST_KEY, **options), on_event=on_event)


class Started:
    """start_harness that counts the processes a judge starts."""

    def __init__(self):
        self.count = 0

    def __call__(self, *args, **kwargs):
        self.count += 1
        return Harness(*args, **kwargs)


def sandbox_uid(verdict) -> int | None:
    """The uid a verdict's sandbox ran as, when it had one of its own."""
    match = re.search(r"\(uid (\d+)\)", verdict.sandbox)
    return int(match.group(1)) if match else None


__all__ = ["ATTACKS", "FIXTURE_PROBLEMS", "IN_CI", "ROOT", "Started", "bubblewrap_works", "header_field", "judge_for_tests",
           "read_expectation", "requires_bubblewrap"]
