"""How the worker's settings and its warm pool become the judge's options (interview/judge/engine.py)."""

from pathlib import Path

import pytest

from interview.judge.engine import LANE_PROCESSES, lanes, sandbox_options
from runner import SandboxOptions
from runner.pool import WarmPool
from tests.runner.conftest import requires_bubblewrap


def test_a_delegated_cgroup_directory_is_passed_to_the_sandbox(settings):
    settings.JUDGE_CGROUP_ROOT = "/sys/fs/cgroup/sandboxes"
    assert sandbox_options().cgroup_root == Path("/sys/fs/cgroup/sandboxes")


def test_without_one_the_sandbox_is_measured_through_procfs_alone(settings):
    settings.JUDGE_CGROUP_ROOT = None
    assert sandbox_options().cgroup_root is None


def test_production_requires_the_real_sandbox(settings):
    settings.PRODUCTION = True
    assert sandbox_options().require is True


@pytest.mark.sandbox
@requires_bubblewrap
def test_a_second_lane_is_asked_for_only_while_the_pool_holds_every_process_it_takes():
    full, empty = WarmPool(SandboxOptions(mode="bubblewrap", require=True), size=LANE_PROCESSES), WarmPool(
        SandboxOptions(mode="bubblewrap", require=True), size=0)
    try:
        assert lanes(empty) == 1
        assert full.wait_full(180)
        assert lanes(full) == 2
        full.start_harness(full.options, memory_limit_bytes=1 << 30, threads=1, gpu_index=None).close()
        assert lanes(full) == 1  # one lent: a second lane would start a process cold
    finally:
        full.close()
        empty.close()
