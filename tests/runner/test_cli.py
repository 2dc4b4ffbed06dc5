"""The command line as other tools call it: exit codes, one JSON object, the contract's fields."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

from runner import load_problem

from .conftest import ATTACKS, ROOT, requires_bubblewrap

SOFTMAX = ROOT / "problems" / "stable-softmax"


def run_cli(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runner", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def test_list_names_the_problems():
    result = run_cli("list")
    assert result.returncode == 0
    assert "stable-softmax" in result.stdout


def test_list_as_json_gives_slugs_and_versions():
    problems = {p["slug"]: p for p in json.loads(run_cli("list", "--json").stdout)}
    assert problems["stable-softmax"]["needs"] == "any" and len(problems["stable-softmax"]["version"]) == 16


def test_an_unknown_problem_exits_non_zero_with_the_reason_on_stderr():
    result = run_cli("judge", "no-such-problem", str(SOFTMAX / "reference.py"), "--json")
    assert result.returncode == 2 and result.stdout == ""
    assert "no problem 'no-such-problem'" in result.stderr


def test_an_unreadable_solution_exits_non_zero():
    result = run_cli("judge", "stable-softmax", "/nonexistent/solution.py", "--json")
    assert result.returncode == 2 and result.stdout == ""
    assert "nonexistent" in result.stderr


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_asking_for_cuda_without_a_gpu_exits_non_zero():
    result = run_cli("judge", "stable-softmax", str(SOFTMAX / "reference.py"), "--device", "cuda", "--json")
    assert result.returncode == 2 and "no usable GPU" in result.stderr


def test_a_file_that_cannot_be_loaded_is_a_verdict_with_null_figures():
    result = run_cli("judge", "stable-softmax", str(ATTACKS / "null_bytes.py"), "--json")
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    assert verdict["verdict"] == "compile_error"
    assert verdict["time"] == {"user_ms": None, "reference_ms": None, "ratio": None}
    tests = len(load_problem("stable-softmax").tests)
    assert [t["status"] for t in verdict["tests"]] == ["compile_error"] + ["skipped"] * (tests - 1)


@pytest.mark.sandbox
@requires_bubblewrap
def test_judge_prints_one_json_verdict_with_the_contract_fields():
    result = run_cli("judge", "stable-softmax", str(SOFTMAX / "reference.py"), "--tests", "sample", "--json")
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    assert set(verdict) >= {"problem", "verdict", "tests", "device", "sandbox", "time", "memory", "stdout",
                            "stderr", "judge_version", "seed_index"}
    assert verdict["verdict"] == "accepted" and verdict["problem"] == "stable-softmax"
    assert verdict["device"] == "cpu" and verdict["sandbox"].startswith("bubblewrap+seccomp")
    assert [t["name"] for t in verdict["tests"]] == ["rows-last-dim", "large-magnitude", "middle-dim-float64"]
    for test in verdict["tests"]:
        assert set(test) == {"name", "status", "message", "time_ms", "peak_bytes", "why"}
        assert test["status"] == "passed" and test["time_ms"] > 0 and test["peak_bytes"] >= 0
    assert set(verdict["time"]) == {"user_ms", "reference_ms", "ratio"}
    assert set(verdict["memory"]) == {"user_peak_bytes", "reference_peak_bytes", "ratio"}


@pytest.mark.sandbox
@requires_bubblewrap
def test_a_wrong_answer_is_still_exit_zero_and_says_what_differed():
    result = run_cli("judge", "stable-softmax", str(SOFTMAX / "solutions" / "wrong" / "naive_exp.py"),
                     "--tests", "sample", "--json")
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    assert verdict["verdict"] == "wrong_answer"
    failing = verdict["tests"][1]
    assert failing["name"] == "large-magnitude" and "non-finite" in failing["message"]


@pytest.mark.sandbox
@requires_bubblewrap
def test_without_json_the_verdict_is_printed_for_people():
    result = run_cli("judge", "stable-softmax", str(SOFTMAX / "reference.py"), "--tests", "sample")
    assert result.returncode == 0
    assert result.stdout.startswith("stable-softmax: accepted")
