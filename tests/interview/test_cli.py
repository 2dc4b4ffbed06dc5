"""The command-line client against the site served over HTTP: its arguments, its output and every error's exit status.

The client runs in this process (its main() with argv), the site in the live server's thread; the judge's work
is done by the worker's own services, a step at each of the client's pauses between polls, so that each test
lands between two polls. tests/e2e/test_cli.py runs the client as a program against a real worker.
"""

import io
import os
import socketserver
import stat
import subprocess
import sys
import threading
import tomllib
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from interview import cli
from interview.judge.engine import Outcome, TestOutcome
from interview.judge.runs import submission_claim, submission_finish, submission_give_back, submission_test_record
from interview.models import ApiToken, Submission
from interview.services.accounts import api_token_create
from tests.interview.factories import ProblemFactory, SubmissionFactory, UserFactory
from tests.judging_support import free_port

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
SOURCE = "def solve(x):\n    return x\n"


@dataclass
class Ran:
    status: int
    out: str
    err: str


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A user's own configuration folder and working folder."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def run(home, capsys, monkeypatch):
    def run(*argv: str, stdin: str = "") -> Ran:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        status = cli.main(list(argv))
        captured = capsys.readouterr()
        return Ran(status, captured.out, captured.err)

    return run


@pytest.fixture
def ada():
    return UserFactory(username="ada")


@pytest.fixture
def problem():
    return ProblemFactory(slug="mhsa", title="Multi-head attention", needs="cpu",
                          statement_markdown="# Multi-head attention\n\nWrite it.\n")


@pytest.fixture
def token(ada):
    return api_token_create(user=ada, name="laptop").token


@pytest.fixture
def logged_in(run, live_server, token):
    assert run("login", live_server.url, stdin=token + "\n").status == cli.ACCEPTED


def judge_steps(monkeypatch, *steps):
    """Each of the client's pauses between polls does the next step of the judge's work on the one submission."""
    remaining = list(steps)

    def pause():
        if remaining:
            remaining.pop(0)(Submission.objects.order_by("pk").last())

    monkeypatch.setattr(cli, "pause", pause)


def outcome(verdict: str, tests: list[TestOutcome]) -> Outcome:
    return Outcome(verdict=verdict, tests=tests, device="cpu", device_name="", torch_version="2.13.0+cpu",
                   sandbox="bubblewrap", judge_version="1.0", problem_version="0123456789abcdef", time_user_ms=12.5,
                   time_reference_ms=10.0, time_ratio=1.25, memory_user_peak_bytes=3 << 20,
                   memory_reference_peak_bytes=2 << 20, memory_ratio=1.5, stdout="", stderr="")


PASSED = [TestOutcome(0, "small", "passed", "", 1.5, 4096), TestOutcome(1, "large", "passed", "", 2.5, 8192),
          TestOutcome(2, "timed", "passed", "", 12.5, 3 << 20)]


class Judge:
    """The worker's side, step by step: claim, record each test, finish."""

    def __init__(self, verdict: str, tests: list[TestOutcome]):
        self.verdict, self.tests, self.claim = verdict, tests, None

    def steps(self):
        def take(submission):
            self.claim = submission_claim(submission_id=submission.pk)

        def record(index):
            return lambda submission: submission_test_record(claim=self.claim, test=self.tests[index])

        def finish(submission):
            submission_finish(claim=self.claim, outcome=outcome(self.verdict, self.tests))

        return [take, *(record(index) for index in range(len(self.tests))), finish]


# ---- login, logout -------------------------------------------------------------------------------------


def test_login_checks_the_token_with_the_server_and_keeps_it_readable_by_its_owner_alone(run, live_server, token, home):
    ran = run("login", live_server.url + "/accounts/profile/", stdin=token + "\n")
    assert ran.status == 0, ran.err
    kept = home / "config" / "interview-trainer" / "credentials.json"
    assert f"Logged in to {live_server.url} as ada. The token is kept in {kept}, readable by you alone." in ran.out
    assert token not in ran.out + ran.err
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700
    assert kept.read_text() == f'{{"url": "{live_server.url}", "token": "{token}", "username": "ada"}}\n'
    assert os.listdir(kept.parent) == ["credentials.json"]


def test_a_wrong_token_is_refused_at_login_and_nothing_is_kept(run, live_server, home):
    ran = run("login", live_server.url, stdin="itk_mistyped\n")
    assert ran.status == cli.AUTH
    assert f"{live_server.url} refused the token: it is mistyped, or it was revoked" in ran.err
    assert not (home / "config" / "interview-trainer" / "credentials.json").exists()


def test_login_without_a_token_or_with_an_address_that_is_none_is_a_usage_error(run, live_server):
    assert run("login", live_server.url, stdin="\n").status == cli.USAGE
    ran = run("login", "ftp://example.org", stdin="itk_x\n")
    assert (ran.status, ran.err) == (cli.USAGE, "interview: error: 'ftp://example.org' is not a site's address: give "
                                                "one such as https://trainer.example.org\n")


def test_login_where_no_server_answers_says_it_cannot_reach_it(run):
    ran = run("login", f"http://127.0.0.1:{free_port()}", stdin="itk_x\n")
    assert ran.status == cli.UNREACHABLE and "cannot reach http://127.0.0.1:" in ran.err


def test_login_to_a_server_that_is_not_the_sites_api_says_so(run):
    class Page(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<html><body>Welcome to a blog</body></html>")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        ran = run("login", f"http://127.0.0.1:{server.server_port}", stdin="itk_x\n")
    finally:
        server.shutdown()
    assert ran.status == cli.UNREACHABLE
    assert "does not answer as the trainer's API (GET /api/me: 200, an answer that is not the API's JSON: <html>" in ran.err


def test_login_to_a_port_that_does_not_speak_http_says_it_cannot_reach_it(run):
    class Banner(socketserver.BaseRequestHandler):
        def handle(self):
            self.request.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")

    server = socketserver.TCPServer(("127.0.0.1", 0), Banner)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        ran = run("login", f"http://127.0.0.1:{server.server_address[1]}", stdin="itk_x\n")
    finally:
        server.shutdown()
        server.server_close()
    assert ran.status == cli.UNREACHABLE and "cannot reach http://127.0.0.1:" in ran.err


def test_an_address_is_kept_as_its_scheme_and_host_and_plain_http_is_quiet_only_on_this_machine():
    assert cli.site_url("trainer.example.org/accounts/profile/") == "https://trainer.example.org"
    assert [cli._is_local(host) for host in ("localhost", "127.0.0.1", "::1", "10.0.0.2", "example.org")] == [
        True, True, True, False, False]


def test_logout_forgets_the_token_and_says_it_still_works_until_revoked(run, live_server, logged_in, home):
    ran = run("logout")
    assert ran.status == 0 and f"It still works until it is revoked on {live_server.url}/accounts/profile/." in ran.out
    assert not (home / "config" / "interview-trainer" / "credentials.json").exists()
    assert run("logout").out == "Not logged in.\n"


def test_every_command_but_login_needs_a_login_first(run, problem):
    Path("solution.py").write_text(SOURCE)
    for argv in (("pull", "mhsa"), ("run", "mhsa", "solution.py"), ("submit", "mhsa", "solution.py")):
        ran = run(*argv)
        assert (ran.status, ran.err) == (cli.AUTH, "interview: error: not logged in: run `interview login URL` first\n")


def test_a_revoked_token_says_to_log_in_again(run, live_server, logged_in, problem):
    ApiToken.objects.all().delete()
    ran = run("pull", "mhsa")
    assert ran.status == cli.AUTH
    assert f"the server refused the token (invalid or revoked API token): log in again with `interview login " \
           f"{live_server.url}`" in ran.err


# ---- pull ------------------------------------------------------------------------------------------------


def test_pull_writes_the_statement_and_the_starter_into_a_folder_named_after_the_problem(run, live_server, logged_in,
                                                                                          problem, home):
    ran = run("pull", "mhsa")
    assert ran.status == 0, ran.err
    assert (home / "mhsa" / "solution.py").read_text() == problem.starter_code
    readme = (home / "mhsa" / "README.md").read_text()
    assert readme.startswith("# Multi-head attention\n\nWrite it.\n\n---\n")
    assert f"{live_server.url}/problems/mhsa/ (version 0123456789abcdef)" in readme
    assert "interview run mhsa mhsa/solution.py" in ran.out
    assert run("pull", "mhsa", "--into", "elsewhere").status == 0 and (home / "elsewhere" / "solution.py").exists()


def test_pull_never_overwrites_work_unless_forced_and_then_writes_nothing_else(run, logged_in, problem, home):
    run("pull", "mhsa")
    solution = home / "mhsa" / "solution.py"
    solution.write_text("# my work\n")
    (home / "mhsa" / "README.md").unlink()
    ran = run("pull", "mhsa")
    assert ran.status == cli.USAGE
    assert "mhsa/solution.py already there with other contents; nothing was written (--force replaces it)" in ran.err
    assert solution.read_text() == "# my work\n" and not (home / "mhsa" / "README.md").exists()
    # The same contents again are no conflict.
    solution.write_text(problem.starter_code)
    assert run("pull", "mhsa").status == 0
    solution.write_text("# my work\n")
    assert run("pull", "mhsa", "--force").status == 0 and solution.read_text() == problem.starter_code


def test_an_unknown_problem_is_named_with_where_the_list_is(run, live_server, logged_in, problem):
    Path("solution.py").write_text(SOURCE)
    for argv in (("pull", "nope"), ("submit", "nope", "solution.py")):
        ran = run(*argv)
        assert (ran.status, ran.err) == (
            cli.USAGE, f"interview: error: no problem 'nope' at {live_server.url}: the list is at "
                       f"{live_server.url}/problems/\n")
    ran = run("pull", "../admin")
    assert ran.status == cli.USAGE and "'../admin' is not a problem's name" in ran.err


# ---- run, submit -----------------------------------------------------------------------------------------


def test_a_missing_or_unreadable_file_is_refused_before_anything_is_sent(run, logged_in, problem):
    ran = run("submit", "mhsa", "missing.py")
    assert (ran.status, ran.err) == (cli.USAGE, "interview: error: no file missing.py\n")
    Path("latin1.py").write_bytes(b"# caf\xe9\n")
    assert run("run", "mhsa", "latin1.py").err == "interview: error: latin1.py is not UTF-8 text\n"
    assert not Submission.objects.exists()


def test_submit_says_each_test_as_it_lands_then_the_verdict_the_figures_and_the_link(
    run, live_server, logged_in, problem, monkeypatch, embedded_queue
):
    Path("solution.py").write_text(SOURCE)
    judge = Judge("accepted", PASSED)
    seen = []
    steps = judge.steps()
    # After each step, what the client has said so far: each test's line must be out before the next lands.
    judge_steps(monkeypatch, *[lambda submission, step=step: (seen.append(len(sys.stdout.getvalue().splitlines())),
                                                             step(submission)) for step in steps])
    ran = run("submit", "mhsa", "solution.py")
    submission = Submission.objects.get()
    assert ran.status == 0, ran.err
    assert (submission.source, submission.suite) == (SOURCE, "all")
    assert ran.out.splitlines() == [
        f"Submission #{submission.pk}: mhsa, all tests.",
        "Queued: number 1 in the CPU queue. No CPU worker is running right now; it will be judged once one starts.",
        "Running 3 tests. No CPU worker is running right now; it will be judged once one starts.",
        "  passed                small  1.500 ms  4.00 KiB",
        "  passed                large  2.500 ms  8.00 KiB",
        "  passed                timed  12.5 ms  3.00 MiB",
        "Accepted: all 3 tests passed.",
        "Time: 1.25× the reference's (12.5 ms vs 10.0 ms), the only accepted submission on CPU with this figure so "
        "far.",
        "Memory: 1.50× the reference's (3.00 MiB vs 2.00 MiB), the only accepted submission on CPU with this "
        "figure so far.",
        f"{live_server.url}/submissions/{submission.pk}/",
    ]
    assert seen == [2, 3, 4, 5, 6]  # one new line after each step: the state, then each test as it landed


def test_an_accepted_submission_says_where_it_stands(run, live_server, logged_in, problem, monkeypatch,
                                                      embedded_queue):
    for ratio in (1.0, 2.0, 3.0, 3.0):
        SubmissionFactory(problem=problem, verdict="accepted", time_ratio=ratio, memory_ratio=1.5, device="cpu",
                          user=UserFactory(username="bo"))
    Path("solution.py").write_text(SOURCE)
    judge_steps(monkeypatch, *Judge("accepted", PASSED).steps())
    lines = run("submit", "mhsa", "solution.py").out.splitlines()
    assert "Time: 1.25× the reference's (12.5 ms vs 10.0 ms), faster than 75% of the 4 other accepted submissions " \
           "on CPU." in lines
    assert "Memory: 1.50× the reference's (3.00 MiB vs 2.00 MiB), less memory than 0% of the 4 other accepted " \
           "submissions on CPU." in lines


def test_a_wrong_run_exits_1_with_the_first_failure_and_its_message(run, live_server, logged_in, problem, monkeypatch,
                                                                    embedded_queue):
    Path("solution.py").write_text(SOURCE)
    tests = [TestOutcome(0, "small", "passed", "", 1.5, 4096),
             TestOutcome(1, "large", "wrong_answer", "output differs at [0, 3]\n" + "detail\n" * 20, 2.0, 4096),
             TestOutcome(2, "timed", "skipped", "", None, None)]
    judge_steps(monkeypatch, *Judge("wrong_answer", tests).steps())
    ran = run("run", "mhsa", "solution.py")
    assert ran.status == cli.NOT_ACCEPTED
    assert Submission.objects.get().suite == "sample"
    lines = ran.out.splitlines()
    assert "  wrong answer          large  2.000 ms  4.00 KiB" in lines
    assert "      output differs at [0, 3]" in lines and "      … 9 more lines on the submission's page" in lines
    assert "  skipped               timed  —  —" in lines
    assert "Wrong answer: 1 of 3 tests passed; first failure: large." in lines
    assert lines[-1].endswith("/submissions/%d/" % Submission.objects.get().pk)


def test_a_failure_with_a_why_says_how_to_open_it_and_why_opens_it_counting_it_as_a_hint(
        run, live_server, logged_in, problem, monkeypatch, embedded_queue):
    Path("solution.py").write_text(SOURCE)
    rule = "The threshold applies to the global norm over all gradients together."
    tests = [TestOutcome(0, "small", "passed", "", 1.5, 4096),
             TestOutcome(1, "clipping", "wrong_answer", "w0 differs. This is exactly what clipping each gradient "
                                                        "by its own norm gives.", 2.0, 4096, why=rule)]
    judge_steps(monkeypatch, *Judge("wrong_answer", tests).steps())
    ran = run("submit", "mhsa", "solution.py")
    submission = Submission.objects.get()
    assert rule not in ran.out
    assert f"Why it failed: `interview why {submission.pk} 1` (it counts as a hint)." in ran.out.splitlines()
    opened = run("why", str(submission.pk), "1")
    assert opened.status == cli.ACCEPTED
    assert opened.out.splitlines() == [f"clipping: {rule}", "(1 why opened on this problem; each counts as a hint.)"]
    refused = run("why", str(submission.pk), "0")
    assert refused.status == cli.USAGE and "has no why to open" in refused.err


def test_a_submission_that_could_not_be_judged_exits_1_with_the_reason(run, logged_in, problem, monkeypatch,
                                                                      embedded_queue, settings):
    settings.JUDGE_MAX_ATTEMPTS = 1
    Path("solution.py").write_text(SOURCE)

    def give_up(submission):
        submission_give_back(claim=submission_claim(submission_id=submission.pk), reason="the sandbox would not start")

    judge_steps(monkeypatch, give_up)
    ran = run("submit", "mhsa", "solution.py")
    assert ran.status == cli.NOT_ACCEPTED
    assert "Could not be judged: The judge failed 1 times; the last time: the sandbox would not start" in ran.out


def test_ctrl_c_while_waiting_says_the_submission_is_judged_all_the_same(run, live_server, logged_in, problem,
                                                                       monkeypatch, embedded_queue):
    Path("solution.py").write_text(SOURCE)

    def interrupt():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "pause", interrupt)
    ran = run("submit", "mhsa", "solution.py")
    assert ran.status == cli.INTERRUPTED
    assert f"stopped following #{Submission.objects.get().pk}; it is judged all the same: {live_server.url}" in ran.err


def test_the_rate_limit_exits_5_saying_when_to_try_again(run, logged_in, problem, ada, settings, embedded_queue):
    settings.JUDGE_RATE_LIMIT_PER_MINUTE = 1
    SubmissionFactory(user=ada, problem=problem)
    Path("solution.py").write_text(SOURCE)
    ran = run("submit", "mhsa", "solution.py")
    assert ran.status == cli.RATE_LIMITED
    assert ran.err.startswith("interview: error: ") and "; try again in " in ran.err and ran.err.endswith(" s\n")
    assert Submission.objects.count() == 1


def test_a_source_over_the_size_limit_is_refused_with_the_servers_reason(run, logged_in, problem, settings):
    settings.JUDGE_MAX_SOURCE_BYTES = 10
    Path("solution.py").write_text(SOURCE)
    ran = run("submit", "mhsa", "solution.py")
    assert ran.status == cli.USAGE and "10" in ran.err


def test_a_server_gone_while_sending_says_it_cannot_be_reached(run, logged_in, problem, home):
    kept = home / "config" / "interview-trainer" / "credentials.json"
    kept.write_text(kept.read_text().replace(kept.read_text().split('"')[3], f"http://127.0.0.1:{free_port()}"))
    Path("solution.py").write_text(SOURCE)
    ran = run("submit", "mhsa", "solution.py")
    assert ran.status == cli.UNREACHABLE and "cannot reach http://127.0.0.1:" in ran.err


# ---- the program ----------------------------------------------------------------------------------------


def test_wrong_arguments_exit_2_with_the_usage(run):
    with pytest.raises(SystemExit) as exited:
        run("submit", "mhsa")
    assert exited.value.code == cli.USAGE


def test_the_console_script_and_python_dash_m_are_the_same_program():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["interview"]
    assert EntryPoint(name="interview", value=declared, group="console_scripts").load() is cli.main
    shown = subprocess.run([sys.executable, "-m", "interview.cli", "--help"], capture_output=True, text=True,
                           cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    assert shown.stdout.startswith("usage: interview ") and "login" in shown.stdout and "submit" in shown.stdout
