"""Per-sandbox cgroups on a delegated cgroup v2 subtree, exercised on a fake tree of plain files (the machines
the suite runs on have no delegated subtree; the kernel's files are written here by hand)."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from runner.sandbox import SandboxOptions, start
from runner.sandbox.cgroup import FILE_CACHE_HEADROOM_BYTES, CgroupUnavailable, Delegated
from runner.sandbox.process import MEMORY


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (tmp_path / "cgroup.subtree_control").write_text("")
    return tmp_path


def test_opening_the_subtree_enables_the_controllers_its_children_need(tree):
    Delegated(tree)
    assert (tree / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"


def test_a_directory_that_is_not_cgroup_v2_is_refused(tmp_path):
    with pytest.raises(CgroupUnavailable, match="not a cgroup v2 directory"):
        Delegated(tmp_path)


def test_a_subtree_without_the_memory_controller_is_refused(tree):
    (tree / "cgroup.controllers").write_text("cpu pids\n")
    with pytest.raises(CgroupUnavailable, match="memory"):
        Delegated(tree)


def test_a_sandbox_group_gets_its_limits_before_anything_joins(tree):
    group = Delegated(tree).create(memory_limit_bytes=256 << 20, pids_max=64)
    assert group.path.parent == tree
    # The page cache of the libraries the sandbox maps is charged too; the watchdog judges what is not cache.
    assert (group.path / "memory.max").read_text() == str((256 << 20) + FILE_CACHE_HEADROOM_BYTES)
    assert (group.path / "pids.max").read_text() == "64"
    assert not (group.path / "cgroup.procs").exists()


def test_the_first_process_joins_the_group_before_it_runs_the_command(tree):
    group = Delegated(tree).create(memory_limit_bytes=1 << 30)
    result = subprocess.run(group.join_command(["/bin/sh", "-c", "echo $$"]), capture_output=True, text=True,
                            check=True)
    # exec keeps the pid, so the pid the group recorded is the command's own.
    assert (group.path / "cgroup.procs").read_text().strip() == result.stdout.strip()


def test_figures_are_read_from_the_groups_files(tree):
    group = Delegated(tree).create(memory_limit_bytes=1 << 30)
    (group.path / "memory.current").write_text("123456\n")
    (group.path / "memory.peak").write_text("234567\n")
    (group.path / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    (group.path / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n")
    assert group.memory_bytes() == 123456
    assert group.peak_bytes() == 234567
    assert group.oom_kills() == 1
    assert group.cpu_seconds() == 2.5


def test_what_the_group_holds_leaves_out_the_page_cache_of_the_files_it_read(tree):
    group = Delegated(tree).create(memory_limit_bytes=1 << 30)
    (group.path / "memory.stat").write_text(
        "anon 1000\nfile 900000000\nkernel 30\nshmem 200\nsock 4\nfile_mapped 800000000\n")
    assert group.held_bytes() == 1234


def test_a_kernel_without_memory_peak_reports_none(tree):
    group = Delegated(tree).create(memory_limit_bytes=1 << 30)
    assert group.peak_bytes() is None and group.oom_kills() == 0 and group.cpu_seconds() == 0


def test_closing_kills_what_is_left_then_removes_the_group(tree):
    group = Delegated(tree).create(memory_limit_bytes=1 << 30)
    (group.path / "cgroup.kill").write_text("")
    (group.path / "cgroup.events").write_text("populated 0\nfrozen 0\n")
    assert group.close() is False  # a fake tree keeps its files, so the directory stays
    assert (group.path / "cgroup.kill").read_text() == "1"
    for name in os.listdir(group.path):
        os.unlink(group.path / name)
    assert group.close() is True and not group.path.exists()


def test_a_sandbox_in_a_group_joins_it_and_is_killed_for_what_the_group_holds(tree):
    process, _ = start(SandboxOptions(mode="plain", cgroup_root=tree), memory_limit_bytes=256 << 20)
    try:
        (group,) = [path for path in tree.iterdir() if path.is_dir()]
        # The shell that joins the group execs the sandbox's command, so the pid it wrote is the process's.
        deadline = time.monotonic() + 10
        while not _joined(group):
            assert time.monotonic() < deadline, "the sandbox never joined its group"
            time.sleep(0.01)
        assert _joined(group) == str(process.pid)
        # What only the kernel's count sees (here: 300 MiB of shared memory the processes do not map).
        (group / "memory.stat").write_text(f"anon 0\nshmem {300 << 20}\nsock 0\nkernel 0\n")
        process.process.wait(timeout=10)
        assert process.cause == MEMORY
    finally:
        process.close()


def _joined(group) -> str:
    procs_file = group / "cgroup.procs"
    return procs_file.read_text().strip() if procs_file.exists() else ""
