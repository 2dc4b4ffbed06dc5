"""How the worker's settings and its warm pool become the judge's options (interview/judge/engine.py)."""

from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from interview.judge.engine import LANE_PROCESSES, lanes, sandbox_options, seed_key
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


KEY = bytes(range(32))


def test_the_seed_key_comes_from_the_variable_or_the_file_alike(settings, tmp_path):
    settings.JUDGE_SEED_KEY, settings.JUDGE_SEED_KEY_FILE = KEY.hex(), None
    assert seed_key() == KEY
    (tmp_path / "seed-key").write_text(KEY.hex() + "\n")  # as `openssl rand -hex 32 > seed-key` writes one
    settings.JUDGE_SEED_KEY, settings.JUDGE_SEED_KEY_FILE = None, str(tmp_path / "seed-key")
    assert seed_key() == KEY


def test_production_refuses_to_judge_without_the_deployments_seed_key(settings):
    settings.JUDGE_SEED_KEY = settings.JUDGE_SEED_KEY_FILE = None
    settings.PRODUCTION = True
    with pytest.raises(ImproperlyConfigured, match="must be set for a judge worker"):
        seed_key()


def test_a_default_install_lets_the_judge_keep_a_key_of_its_own(settings):
    settings.JUDGE_SEED_KEY = settings.JUDGE_SEED_KEY_FILE = None
    settings.PRODUCTION = False
    assert seed_key() is None


@pytest.mark.parametrize(("variable", "file_text", "refusal"), [
    ("ab" * 31, None, "31 bytes, fewer than 32"),
    ("not a key", None, "not hex"),
    (KEY.hex(), KEY.hex(), "not both"),
    (None, None, "cannot read it"),
])
def test_a_seed_key_that_is_not_one_is_refused(settings, tmp_path, variable, file_text, refusal):
    path = tmp_path / "seed-key"
    if file_text is not None:
        path.write_text(file_text)
    settings.JUDGE_SEED_KEY = variable
    settings.JUDGE_SEED_KEY_FILE = str(path) if file_text is not None or variable is None else None
    with pytest.raises(ImproperlyConfigured, match=refusal):
        seed_key()


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
