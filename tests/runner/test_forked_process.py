"""A child of the zygote as the trusted side holds it (runner/sandbox/zygote.py, ForkedProcess): its exit status
comes from the pipe its monitor writes before it exits, and a monitor that wrote none was killed. And a fork of
the judging process never shares its parent's zygotes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from runner.sandbox.zygote import ForkedProcess

WRITES_STATUS = "import os, sys, time; time.sleep(float(sys.argv[2])); os.write(int(sys.argv[1]), b'3\\n')"


def _forked(seconds: float) -> tuple[ForkedProcess, subprocess.Popen]:
    """A stand-in monitor: a process of this one (the zygote's would not be), held only as ForkedProcess holds it."""
    status_read, status_write = os.pipe()
    stdout_read, stdout_write = os.pipe()
    stderr_read, stderr_write = os.pipe()
    monitor = subprocess.Popen([sys.executable, "-c", WRITES_STATUS, str(status_write), str(seconds)],
                               pass_fds=(status_write,), stdout=stdout_write, stderr=stderr_write)
    for fd in (status_write, stdout_write, stderr_write):
        os.close(fd)
    return ForkedProcess(None, os.pidfd_open(monitor.pid), status_read, stdout_read, stderr_read), monitor


def test_the_status_is_the_one_the_monitor_wrote():
    process, monitor = _forked(0)
    try:
        assert process.pid == monitor.pid
        assert process.wait(30) == 3 and process.poll() == 3 and process.returncode == 3
    finally:
        monitor.wait()
        process.stdout.close()
        process.stderr.close()


def test_a_monitor_killed_before_it_wrote_a_status_reads_as_killed():
    process, monitor = _forked(60)
    try:
        assert process.poll() is None
        with pytest.raises(subprocess.TimeoutExpired):
            process.wait(0.05)
        monitor.kill()
        assert process.wait(30) == -signal.SIGKILL
    finally:
        monitor.wait()
        process.stdout.close()
        process.stderr.close()


def test_a_fork_of_the_judging_process_starts_zygotes_of_its_own():
    from runner.sandbox import zygote

    zygote._zygotes["a key"] = object()
    try:
        child = os.fork()
        if child == 0:
            os._exit(0 if zygote._zygotes == {} else 1)
        _, status = os.waitpid(child, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        del zygote._zygotes["a key"]
