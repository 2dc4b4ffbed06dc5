"""The judge's version is a hash of the code that decides verdicts: any change to it is a new version, and a
change to what cannot change a verdict is not."""

import shutil

import grimp
import pytest

from runner import version
from runner.verdict import Verdict


@pytest.fixture
def runner_copy(tmp_path):
    copy = tmp_path / "runner"
    shutil.copytree(version.RUNNER_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def flip_one_byte(path):
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x20  # the newline at the end becomes "*"
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("trusted", ["compare.py", "testcase.py", "harness/serve.py", "kit/standard.py",
                                     "sandbox/memory.py"])
def test_one_byte_changed_in_a_file_that_decides_verdicts_is_a_new_version(runner_copy, trusted):
    before = version.judge_version(runner_copy)
    flip_one_byte(runner_copy / trusted)
    assert version.judge_version(runner_copy) != before


@pytest.mark.parametrize("neutral", sorted(version.NEUTRAL))
def test_a_change_to_a_file_that_cannot_change_a_verdict_keeps_the_version(runner_copy, neutral):
    before = version.judge_version(runner_copy)
    flip_one_byte(runner_copy / neutral)
    assert version.judge_version(runner_copy) == before


def test_a_new_module_or_a_renamed_one_is_a_new_version_and_compiled_caches_are_not(runner_copy):
    before = version.judge_version(runner_copy)
    (runner_copy / "__pycache__").mkdir(exist_ok=True)
    (runner_copy / "__pycache__" / "stale.py").write_text("x = 1\n")
    assert version.judge_version(runner_copy) == before
    (runner_copy / "compare.py").rename(runner_copy / "comparing.py")
    renamed = version.judge_version(runner_copy)
    assert renamed != before
    (runner_copy / "extra.py").write_text("")
    assert version.judge_version(runner_copy) != renamed


def test_a_verdict_carries_the_version_of_the_judge_that_made_it():
    assert version.current() == version.judge_version(version.RUNNER_DIR)
    assert len(version.current()) == 16 and int(version.current(), 16) >= 0
    assert Verdict(problem="p", verdict="accepted").judge_version == version.current()


def test_every_file_left_out_of_the_version_exists_and_no_file_that_decides_verdicts_imports_one():
    assert all((version.RUNNER_DIR / name).is_file() for name in version.NEUTRAL)
    graph = grimp.build_graph("runner", cache_dir=None)
    neutral = {"runner." + name.removesuffix(".py").replace("/", ".") for name in version.NEUTRAL}
    # verdict.py takes the version string from version.py, and nothing else.
    forbidden = neutral - {"runner.version"}
    for module in graph.modules - neutral:
        assert not graph.find_modules_directly_imported_by(module) & forbidden, module
