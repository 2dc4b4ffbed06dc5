"""How the worker's settings become the judge's sandbox options (interview/judge/engine.py)."""

from pathlib import Path

from interview.judge.engine import sandbox_options


def test_a_delegated_cgroup_directory_is_passed_to_the_sandbox(settings):
    settings.JUDGE_CGROUP_ROOT = "/sys/fs/cgroup/sandboxes"
    assert sandbox_options().cgroup_root == Path("/sys/fs/cgroup/sandboxes")


def test_without_one_the_sandbox_is_measured_through_procfs_alone(settings):
    settings.JUDGE_CGROUP_ROOT = None
    assert sandbox_options().cgroup_root is None


def test_production_requires_the_real_sandbox(settings):
    settings.PRODUCTION = True
    assert sandbox_options().require is True
