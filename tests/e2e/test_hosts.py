"""Workers on two machines: one deployment, one seed key, the same judge on either host.

Each "host" is a worker in namespaces of its own: a network namespace, joined to this one by a veth pair, as
a machine on a LAN is; a mount namespace in which a folder of its own is mounted over the state directory that
every host names alike (so each has its own slot locks and nothing else to share); and a host name of its own.
Both reach the one PostgreSQL and the one Redis of the test through this side's veth address. Those listen on
127.0.0.1 only, and a network namespace has a loopback of its own, so socat relays each from the veth address
to the loopback here, as the services' LAN address would serve them from another machine.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from interview.judge.worker import EXIT_MISCONFIGURED
from interview.models import Judgement, Status, Submission, WorkerHeartbeat, WorkerState
from interview.services.submissions import submissions_rejudge
from tests.e2e.conftest import finish_lines, submission
from tests.judging_support import SOFTMAX_REFERENCE, Worker, shared_database_url, wait_for
from tests.runner.conftest import IN_CI

pytestmark = [pytest.mark.e2e, pytest.mark.sandbox, pytest.mark.slow]

SEED_KEY = bytes(range(100, 132)).hex()

# The reference, slow to load (a judge long enough to be killed in the middle of), made wrong on every checked
# call whose input sums to an odd number of thousandths: which tests pass then depends on the inputs, and so, on
# the hidden tests, on the hidden seed (the judge keeps what a process prints once hidden inputs reach it to
# itself, so the statuses are what shows them). The sample tests' calls (public inputs, the same under any seed)
# and the timed test's (many inputs) stay right.
INPUT_DEPENDENT = """import time

time.sleep(2)

""" + SOFTMAX_REFERENCE + """

_right_softmax = softmax


def softmax(x, dim=-1):
    y = _right_softmax(x, dim)
    odd = int(abs(x.detach().double().sum().item()) * 1000) % 2
    checked_hidden = x.numel() < 512 * 256 and tuple(x.shape) not in ((4, 7), (3, 9), (2, 5, 3))
    return y + 1.0 if checked_hidden and odd else y
"""


def _can_make_namespaces() -> bool:
    return os.geteuid() == 0 and all(shutil.which(tool) for tool in ("ip", "unshare", "socat"))


requires_namespaces = pytest.mark.skipif(
    not IN_CI and not _can_make_namespaces(),
    reason="network namespaces need root, iproute2, util-linux's unshare and socat (under CI=true this fails instead)",
)


def _answers(address: str, port: int) -> bool:
    try:
        socket.create_connection((address, port), timeout=1).close()
    except OSError:
        return False
    return True


class Host:
    """A machine of its own for a worker: a network namespace on a veth pair, with the test's services relayed
    to this side's address, and a state folder mounted over the path every host names as its state directory."""

    def __init__(self, *, index: int, name: str, workdir: Path, state_dir: Path, ports: list[int]):
        self.name, self.state_dir = name, state_dir
        self.own_state = workdir / name / "state"
        self.own_state.mkdir(parents=True)
        tag = f"{os.getpid()}{index}"
        self.namespace, self.link = f"judge-host-{tag}", f"jh{tag}"
        # A /30 of its own in 10.231.0.0/16, by the test process's pid: this side's address, then the host's.
        base = 4 * (os.getpid() % 8192 * 2 + index)
        self.address = f"10.231.{base // 256}.{base % 256 + 1}"
        self.host_address = f"10.231.{base // 256}.{base % 256 + 2}"
        self.relays: list[subprocess.Popen] = []
        self.ports = ports
        # The one thing two machines never share that these hosts would: the uids their sandboxes run as, with
        # the kernel's per-uid counts (the sandbox's process limit) and a slot's kill of all its uid owns. A
        # host's slot locks are its own, so its uids must be too: a range no other test judges with (60000 the
        # default, 61000 the attacks, 62000 the pool, 63000 and 63500 the zygote), or a host would take a
        # neighbouring test's sandbox for one its own dead worker left behind, and kill it.
        self.uid_base = 64000 + 100 * index

    def __enter__(self) -> Host:
        inside = ["ip", "netns", "exec", self.namespace]
        for command in (
            ["ip", "netns", "add", self.namespace],
            ["ip", "link", "add", self.link, "type", "veth", "peer", "name", "eth0", "netns", self.namespace],
            ["ip", "addr", "add", f"{self.address}/30", "dev", self.link],
            ["ip", "link", "set", self.link, "up"],
            [*inside, "ip", "addr", "add", f"{self.host_address}/30", "dev", "eth0"],
            [*inside, "ip", "link", "set", "eth0", "up"],
            [*inside, "ip", "link", "set", "lo", "up"],
        ):
            subprocess.run(command, check=True, capture_output=True)
        for port in self.ports:
            self.relays.append(subprocess.Popen(
                ["socat", f"TCP-LISTEN:{port},bind={self.address},fork,reuseaddr", f"TCP:127.0.0.1:{port}"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            wait_for(lambda port=port: _answers(self.address, port), timeout=10, what=f"the relay of port {port}")
        return self

    def __exit__(self, *exc) -> None:
        for relay in self.relays:
            relay.kill()
            relay.wait()
        # Deleting the namespace deletes its end of the veth pair, and with it this one.
        subprocess.run(["ip", "netns", "del", self.namespace], capture_output=True)

    def url(self, url: str) -> str:
        """url, with its host replaced by this side's veth address, as the host reaches the service."""
        parts = urlsplit(url)
        netloc = parts.netloc.rsplit("@", 1)
        where = f"{self.address}:{parts.port}"
        return urlunsplit(parts._replace(netloc=f"{netloc[0]}@{where}" if len(netloc) == 2 else where))

    def launcher(self) -> list[str]:
        """The command line that runs a command on this host: in its network namespace, with a mount and a UTS
        namespace of its own, its own folder over the state directory and its own host name; each step execs
        the next, so the process started is the command itself."""
        script = 'mount --bind "$1" "$2" && hostname "$3" && shift 3 && exec "$@"'
        return ["ip", "netns", "exec", self.namespace, "unshare", "--mount", "--uts", "--propagation", "private",
                "sh", "-c", script, "host", str(self.own_state), str(self.state_dir), self.name]

    def worker(self, *, tmp_path: Path, content: Path, redis_url: str, **settings: str) -> Worker:
        """A worker on this host, on the shared database and Redis, with the deployment's settings."""
        return Worker(
            name=f"cpu@{self.name}", log=tmp_path / f"{self.name}.log", content=content,
            broker_url=self.url(redis_url), launcher=self.launcher(),
            # Two warm sandboxes: every judge in one lane, so its stdout is one process's.
            settings={"DATABASE_URL": self.url(shared_database_url()), "JUDGE_STATE_DIR": str(self.state_dir),
                      "JUDGE_SANDBOX_UID_BASE": str(self.uid_base), "JUDGE_POOL_SIZE": "2", **settings},
        )


@pytest.fixture
def hosts(tmp_path, redis_url, transactional_db):
    """Two hosts, alpha and beta, that reach the test's PostgreSQL and Redis over their veth pairs."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the hosts share the test's PostgreSQL (set DATABASE_URL)")
    state_dir = tmp_path / "judge-state"  # the path every host names; empty here, each mounts its own over it
    state_dir.mkdir()
    ports = [urlsplit(shared_database_url()).port, urlsplit(redis_url).port]
    with Host(index=0, name="alpha", workdir=tmp_path, state_dir=state_dir, ports=ports) as alpha, \
            Host(index=1, name="beta", workdir=tmp_path, state_dir=state_dir, ports=ports) as beta:
        yield alpha, beta


@pytest.fixture
def start_on(tmp_path, content, redis_url):
    """Start a worker on a host with these settings; each is stopped at the end."""
    started: list[Worker] = []

    def start(host: Host, **settings: str) -> Worker:
        worker = host.worker(tmp_path=tmp_path, content=content, redis_url=redis_url, **settings).start()
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


def judged_on(pk: int, alpha: Worker, beta: Worker) -> tuple[Worker, Worker]:
    """(the worker that finished this submission, the other)."""
    return (alpha, beta) if finish_lines(pk, alpha) else (beta, alpha)


def statuses(judgement: Judgement) -> list[tuple[str, str]]:
    return list(judgement.tests.order_by("index").values_list("name", "status"))


@requires_namespaces
@pytest.mark.takes_minutes
def test_two_hosts_with_one_seed_key_judge_alike_and_one_killed_mid_judge_loses_nothing(
    api, hosts, start_on, web_publishes_to, redis_url, tmp_path
):
    web_publishes_to(redis_url)
    alpha_host, beta_host = hosts
    alpha = start_on(alpha_host, JUDGE_SEED_KEY=SEED_KEY)
    beta = start_on(beta_host, JUDGE_SEED_KEY=SEED_KEY)
    for worker in (alpha, beta):
        worker.wait_ready(timeout=300)
        # The process started is the worker itself (every launcher step execs), with the host's name.
        heartbeat = WorkerHeartbeat.objects.get(name=worker.name)
        assert heartbeat.pid == worker.process.pid
    # Not reachable from a host: its loopback is its own, so the services come only through the veth pair.
    assert subprocess.run([*alpha_host.launcher(), "redis-cli", "-p", str(urlsplit(redis_url).port), "ping"],
                          capture_output=True, text=True).stdout.strip() != "PONG"

    # Spread over both: each worker takes one message at a time, and holds it while it judges.
    first, second = api.submit(INPUT_DEPENDENT, tests="all"), api.submit(INPUT_DEPENDENT, tests="all")
    for pk in (first, second):
        result = api.wait_judged(pk, log=lambda: alpha.log() + beta.log())
        assert result["status"] == "finished" and result["verdict"] in ("accepted", "wrong_answer"), result
    assert {judged_on(first, alpha, beta)[0].name, judged_on(second, alpha, beta)[0].name} == {alpha.name, beta.name}

    # Killed mid-judge: the host that took it dies with its sandbox; the other judges it once the lease expires.
    third = api.submit(INPUT_DEPENDENT, tests="all")
    judging = wait_for(lambda: submission(third).status == Status.RUNNING and submission(third), timeout=120,
                       what="the third submission to be running", interval=0.05)
    victim, survivor = (alpha, beta) if judging.worker.startswith("alpha ") else (beta, alpha)
    assert judging.worker.split(" ")[0] in ("alpha", "beta")
    victim.kill()
    result = api.wait_judged(third, log=survivor.log)
    assert (result["status"], result["attempts"]) == ("finished", 2), result
    for pk in (first, second, third):
        assert finish_lines(pk, alpha, beta) == 1, f"submission {pk} was judged more or less than once"

    # Re-judged on the other host: the same seed index, the same hidden inputs, the same verdict.
    judged_by_victim = first if judged_on(first, alpha, beta)[0] is victim else second
    assert submissions_rejudge(submissions=Submission.objects.filter(pk=judged_by_victim)) == 1
    api.wait_judged(judged_by_victim, log=survivor.log)
    before, again = Judgement.objects.filter(submission_id=judged_by_victim).order_by("pk")
    assert finish_lines(judged_by_victim, victim) == 1 and finish_lines(judged_by_victim, survivor) == 1
    assert before.seed_index is not None and again.seed_index == before.seed_index
    assert again.verdict == before.verdict
    assert statuses(again) == statuses(before)
    # ... and the statuses do show the hidden inputs: another seed's differ (unless, one time in thousands, its
    # sums have the same parities on every hidden test).
    other = Judgement.objects.get(submission_id=second if judged_by_victim == first else first)
    if other.seed_index != before.seed_index:
        assert statuses(other) != statuses(before)

    # Each host kept its own state: its own slot locks, and no seed key of its own.
    for host in hosts:
        kept = {path.name for path in host.own_state.iterdir()}
        assert "slots" in kept and "seed.key" not in kept, kept
    assert not any((tmp_path / "judge-state").iterdir()), "the hosts' state folders were not their own"


@requires_namespaces
def test_a_production_worker_without_the_deployments_seed_key_refuses_its_queues(hosts, start_on):
    worker = start_on(hosts[0], DJANGO_ENV="production", DJANGO_SECRET_KEY="x" * 50)
    assert worker.process.wait(timeout=120) == EXIT_MISCONFIGURED
    assert "MISCONFIGURED" in worker.log() and "JUDGE_SEED_KEY" in worker.log()
    assert WorkerHeartbeat.objects.get(name=worker.name).state == WorkerState.REFUSED
