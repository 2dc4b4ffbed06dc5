"""Every form of memory a submission can hold counts against the one sandbox limit, or is refused.

Each form tries to hold three times a small limit (512 MiB; the sandbox's tmpfs mounts made larger than
that, so their own size stops nothing), while a thread samples the host's /proc/meminfo. A sandbox is
always freed when the run ends, so only what the host held during the run says anything: its shared memory
(Shmem), the memory held neither by processes' anonymous pages nor by the page cache (kernel buffers and
shared memory, which other tests' processes barely move), and MemAvailable, each against a benign run.
"""

from __future__ import annotations

import shutil
import threading
from dataclasses import dataclass

import pytest

from runner import SandboxOptions, load_problem

from .conftest import ROOT, judge_for_tests, requires_bubblewrap

pytestmark = [pytest.mark.sandbox, pytest.mark.slow, requires_bubblewrap]

LIMIT = 512 << 20
ATTEMPT = 3 * LIMIT
# What a sandbox may overshoot its limit by before the watchdog, every 20 ms, sees it; and for
# MemAvailable, which every other process on the machine moves too, twice that.
SLACK = 512 << 20
SANDBOX = SandboxOptions(mode="bubblewrap", require=True, tmp_bytes=2 * ATTEMPT, shm_bytes=2 * ATTEMPT)

HEAD = '''
import ctypes, mmap, os, signal, socket, time
import torch

ATTEMPT = {attempt}
CHUNK = b"\\x01" * (1 << 20)
libc = ctypes.CDLL(None, use_errno=True)
_held = []


def _refused(call):
    raise OSError(ctypes.get_errno(), f"{{call}}: {{os.strerror(ctypes.get_errno())}}")


def _fill(end):
    end.setblocking(False)
    try:
        while True:
            end.send(CHUNK)
    except BlockingIOError:
        pass


def _files(folder):
    for index in range(ATTEMPT // (48 << 20)):
        fd = os.open(f"{{folder}}/held{{index}}", os.O_CREAT | os.O_WRONLY, 0o600)
        for _ in range(48):
            os.write(fd, CHUNK)
        os.close(fd)
'''

TAIL = '''

def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    if not _held:
        _held.append(None)
        _hold()
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
'''

FORMS = {
    "memfd written, never mapped": '''
def _hold():
    for _ in range(ATTEMPT // (48 << 20)):
        fd = os.memfd_create("held")
        for _ in range(48):
            os.write(fd, CHUNK)
        _held.append(fd)
''',
    "System V shared memory, detached": '''
def _hold():
    libc.shmat.restype = ctypes.c_void_p
    for _ in range(ATTEMPT // (64 << 20)):
        segment = libc.shmget(0, ctypes.c_size_t(64 << 20), 0o1600)
        if segment < 0:
            _refused("shmget")
        address = libc.shmat(segment, None, 0)
        ctypes.memset(address, 1, 64 << 20)
        libc.shmdt(ctypes.c_void_p(address))
''',
    "files in /dev/shm": '''
def _hold():
    _files("/dev/shm")
''',
    "files in /tmp": '''
def _hold():
    _files("/tmp")
''',
    "empty files in /tmp": '''
def _hold():
    for index in range(ATTEMPT // 3072):
        os.close(os.open(f"/tmp/empty{index}", os.O_CREAT | os.O_WRONLY, 0o600))
''',
    "System V message queues": '''
def _hold():
    message = (ctypes.c_long * 1025)(1)
    for _ in range(ATTEMPT // 16384):
        queue = libc.msgget(0, 0o1600)
        if queue < 0:
            _refused("msgget")
        while libc.msgsnd(queue, message, ctypes.c_size_t(8192), 0o4000) == 0:
            pass
''',
    "POSIX message queues": '''
def _hold():
    librt = ctypes.CDLL("librt.so.1", use_errno=True)
    for index in range(ATTEMPT // 8192):
        if librt.mq_open(f"/held{index}".encode(), os.O_CREAT | os.O_RDWR | os.O_NONBLOCK, 0o600, None) < 0:
            _refused("mq_open")
''',
    "shared anonymous mapping, pages dropped": '''
def _hold():
    region = mmap.mmap(-1, ATTEMPT)
    for offset in range(0, ATTEMPT, 4096):
        region[offset] = 1
    region.madvise(mmap.MADV_DONTNEED)
    _held.append(region)
''',
    "/dev/zero mapped shared and written": '''
def _hold():
    fd = os.open("/dev/zero", os.O_RDWR)
    region = mmap.mmap(fd, ATTEMPT, mmap.MAP_SHARED)
    for offset in range(0, ATTEMPT, 4096):
        region[offset] = 1
    region.madvise(mmap.MADV_DONTNEED)
    _held.append(region)
''',
    "Unix socket pairs, buffers as large as allowed": '''
def _hold():
    for _ in range(240):
        pair = socket.socketpair()
        _held.append(pair)
        for end in pair:
            try:
                end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, ATTEMPT // 240)
            except PermissionError:
                pass
            _fill(end)
''',
    "TCP connections on loopback, never read": '''
def _hold():
    server = socket.create_server(("127.0.0.1", 0), backlog=256)
    _held.append(server)
    for _ in range(230):
        ends = (socket.create_connection(server.getsockname()), server.accept()[0])
        _held.extend(ends)
        for end in ends:
            _fill(end)
''',
    "pipes, as large as allowed": '''
def _hold():
    import fcntl
    for _ in range(240):
        read_end, write_end = os.pipe()
        _held.append((read_end, write_end))
        try:
            fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 1 << 20)
        except PermissionError:
            pass
        os.set_blocking(write_end, False)
        try:
            while True:
                os.write(write_end, CHUNK)
        except BlockingIOError:
            pass
''',
    "a child with SIGCHLD ignored": '''
def _hold():
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    if os.fork() == 0:
        held = bytearray(ATTEMPT)
        time.sleep(30)
        os._exit(0)
    time.sleep(5)
''',
}


@dataclass
class HostPeaks:
    """The most the host held during a run beyond what it held just before, in bytes."""

    shared: int = 0
    outside_processes: int = 0
    unavailable: int = 0


class HostSampler:
    """Samples /proc/meminfo every 5 ms from a thread while its body runs."""

    def __enter__(self):
        self.baseline = _meminfo()
        self.peaks = HostPeaks()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.wait(0.005):
            now = _meminfo()
            self.peaks.shared = max(self.peaks.shared, now["Shmem"] - self.baseline["Shmem"])
            self.peaks.outside_processes = max(self.peaks.outside_processes,
                                               _outside_processes(now) - _outside_processes(self.baseline))
            self.peaks.unavailable = max(self.peaks.unavailable, self.baseline["MemAvailable"] - now["MemAvailable"])

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def _meminfo() -> dict[str, int]:
    values = {}
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            name, _, rest = line.partition(":")
            values[name] = int(rest.split()[0]) * 1024
    return values


def _outside_processes(meminfo: dict[str, int]) -> int:
    """Memory in use that is neither a process's anonymous pages nor the page cache of files: shared memory,
    kernel buffers (pipes, sockets, message queues), slab, page tables."""
    file_cache = meminfo["Cached"] - meminfo["Shmem"] + meminfo["Buffers"]
    return meminfo["MemTotal"] - meminfo["MemFree"] - meminfo["AnonPages"] - file_cache


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    """stable-softmax with a 512 MiB sandbox and time to fill it on a busy machine."""
    folder = tmp_path_factory.mktemp("problems") / "stable-softmax"
    shutil.copytree(ROOT / "problems" / "stable-softmax", folder)
    toml = folder / "problem.toml"
    text = toml.read_text()
    for old, new in (("sandbox_memory_bytes = 2147483648", f"sandbox_memory_bytes = {LIMIT}"),
                     ("time_cap_ms = 1000", "time_cap_ms = 10000")):
        assert old in text
        text = text.replace(old, new)
    toml.write_text(text)
    return load_problem("stable-softmax", folder.parent)


@pytest.fixture(scope="module")
def benign(problem) -> HostPeaks:
    """What the host holds for a run that holds nothing: the first run caches the reference's results, so the
    second, measured, has the user's process alone, as every run of a form has."""
    reference = problem.source("reference.py")
    assert judge_for_tests(problem, reference, tests="sample", sandbox=SANDBOX).verdict == "accepted"
    with HostSampler() as sampler:
        assert judge_for_tests(problem, reference, tests="sample", sandbox=SANDBOX).verdict == "accepted"
    return sampler.peaks


@pytest.mark.parametrize("form", sorted(FORMS))
def test_no_form_of_memory_lets_the_sandbox_hold_much_more_than_its_limit(problem, benign, form):
    source = HEAD.format(attempt=ATTEMPT) + FORMS[form] + TAIL
    with HostSampler() as sampler:
        verdict = judge_for_tests(problem, source, tests="sample", sandbox=SANDBOX)
    held = sampler.peaks
    failing = [t for t in verdict.tests if t.status not in ("passed", "skipped")]
    summary = (f"{form}: {verdict.verdict} {failing[:1]}; the host held {held.shared >> 20} MiB more shared "
               f"memory, {held.outside_processes >> 20} MiB more outside processes and {held.unavailable >> 20} "
               f"MiB less available (a benign run: {benign.shared >> 20}, {benign.outside_processes >> 20}, "
               f"{benign.unavailable >> 20} MiB)")
    assert verdict.verdict != "internal_error", summary
    assert held.shared - benign.shared <= LIMIT + SLACK, summary
    assert held.outside_processes - benign.outside_processes <= LIMIT + SLACK, summary
    assert held.unavailable - benign.unavailable <= LIMIT + 2 * SLACK, summary
    print(summary)


def test_a_form_refused_says_why_in_words_a_user_can_act_on(problem):
    verdict = judge_for_tests(problem, HEAD.format(attempt=ATTEMPT) + FORMS["a child with SIGCHLD ignored"] + TAIL,
                              tests="sample", sandbox=SANDBOX)
    assert verdict.verdict == "runtime_error", verdict.tests
    assert "runs in this one process" in verdict.tests[0].message
