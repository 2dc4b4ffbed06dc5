"""The command-line client: solve the site's problems from a terminal and one's own editor.

    interview login https://trainer.example.org     # paste a token made on the site's account page
    interview pull causal-mask                       # causal-mask/README.md and causal-mask/solution.py
    interview run causal-mask causal-mask/solution.py       # the sample tests
    interview submit causal-mask causal-mask/solution.py    # all tests: exit status 0 only when accepted

(`python -m interview.cli` is the same program.) A client of the HTTP API alone (docs/api.md), through
interview.api_client: it needs neither Django nor the judge, and talks to any server of the site. Each exit
status below says one thing, so that a script can tell a wrong solution from a wrong command or a server that
is down.
"""

from __future__ import annotations

import argparse
import getpass
import http.client
import ipaddress
import json
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from interview.api_client import JUDGED_STATUSES, ApiClient, Response
from interview.figures import milliseconds, ratio, size

PROG = "interview"
ACCEPTED = 0  # also every other command that did what it was asked
NOT_ACCEPTED = 1  # judged and not accepted, could not be judged, or not judged within --timeout
USAGE = 2  # the command was wrong: its arguments, a missing file, an unknown problem, a refused source
AUTH = 3  # not logged in, or the server refused the token
UNREACHABLE = 4  # no server there, a server that is not this site's API, or a server error
RATE_LIMITED = 5  # too many submissions in a minute, or too many waiting at once
INTERRUPTED = 130  # Ctrl-C, as a shell counts it

CREDENTIALS = "credentials.json"
PROFILE_PATH = "/accounts/profile/"
POLL_INTERVAL_S = 0.5
# A server that stops answering while a submission is judged is tried again for this many polls in a row.
LOST_AFTER_POLLS = 20
MESSAGE_LINES = 12
# What urllib raises when no HTTP answer came: URLError (refused, no such host, TLS), a timeout, a connection
# dropped, or something that is not HTTP at all on that port.
NO_ANSWER = (OSError, http.client.HTTPException)
SLUG = re.compile(r"[-a-zA-Z0-9_]+")  # Django's <slug:...>


class Failure(Exception):
    """A command that cannot go on: what to tell the user, and the exit status that says it."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Credentials:
    url: str
    token: str
    username: str


def say(text: str = "") -> None:
    """A line on stdout at once, so that a pipe sees each test as it lands."""
    print(text, flush=True)


def warn(text: str) -> None:
    print(f"{PROG}: {text}", file=sys.stderr, flush=True)


# ---- Where the token is kept ----------------------------------------------------------------------------


def config_dir() -> Path:
    """The user's own configuration folder for the client: $XDG_CONFIG_HOME (else ~/.config), or %APPDATA%."""
    if os.name == "nt":
        base = os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming"
    else:
        base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "interview-trainer"


def credentials_path() -> Path:
    return config_dir() / CREDENTIALS


def save_credentials(credentials: Credentials) -> Path:
    """Write the credentials readable by their owner alone, whole or not at all."""
    path = credentials_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    partial = path.with_name(f".{CREDENTIALS}.{os.getpid()}")
    partial.unlink(missing_ok=True)
    # Created 0600, not chmod-ed after: there is no moment when another user could open it.
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump({"url": credentials.url, "token": credentials.token, "username": credentials.username}, file)
        file.write("\n")
    os.replace(partial, path)
    return path


def load_credentials() -> Credentials:
    path = credentials_path()
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
        return Credentials(url=kept["url"], token=kept["token"], username=kept.get("username", ""))
    except FileNotFoundError:
        raise Failure(f"not logged in: run `{PROG} login URL` first", AUTH) from None
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise Failure(f"cannot read {path} ({error}): run `{PROG} login URL` again", AUTH) from None


# ---- Talking to the server ------------------------------------------------------------------------------


def site_url(given: str) -> str:
    """The site's address as `login` keeps it: scheme, host and port (a path, such as the account page's, is
    dropped, since the API lives at the root)."""
    parts = urlsplit(given.strip() if "://" in given else f"https://{given.strip()}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Failure(f"{given!r} is not a site's address: give one such as https://trainer.example.org", USAGE)
    return f"{parts.scheme}://{parts.netloc}"


def _is_local(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def answer(client: ApiClient, method: str, path: str, body: dict | None = None) -> Response:
    try:
        return client.request(method, path, body)
    except NO_ANSWER as error:
        reason = getattr(error, "reason", error)
        raise Failure(f"cannot reach {client.base_url}: {reason}", UNREACHABLE) from None


def refusal(response: Response, client: ApiClient, *, missing: str = "") -> Failure:
    """The failure an error answer means; `missing` words a 404."""
    error = response.body.get("error") or f"status {response.status}"
    if not response.is_json or response.status >= 500:
        return Failure(f"{client.base_url} answered {response.status} with {error}", UNREACHABLE)
    if response.status in (401, 403):
        return Failure(f"the server refused the token ({error}): log in again with `{PROG} login {client.base_url}`",
                       AUTH)
    if response.status == 429:
        wait = response.headers.get("retry-after")
        return Failure(f"{error}{f'; try again in {wait} s' if wait else ''}", RATE_LIMITED)
    if response.status == 404 and missing:
        return Failure(missing, USAGE)
    return Failure(error, USAGE)


def checked_slug(slug: str) -> str:
    """A problem's name as its address spells it; anything else could not name one, and would change the URL."""
    if not SLUG.fullmatch(slug):
        raise Failure(f"{slug!r} is not a problem's name: letters, digits and dashes, as in its page's address",
                      USAGE)
    return slug


def connect() -> ApiClient:
    credentials = load_credentials()
    return ApiClient(credentials.url, credentials.token, timeout_s=30)


# ---- The commands ---------------------------------------------------------------------------------------


def read_token(url: str) -> str:
    """The token, from the terminal without echoing it, or from standard input's first line when that is a pipe."""
    if sys.stdin.isatty():
        print(f"Make a token on {url}{PROFILE_PATH} (API tokens) and paste it here.", file=sys.stderr)
        return getpass.getpass("Token: ").strip()
    return sys.stdin.readline().strip()


def login(url: str) -> int:
    url = site_url(url)
    parts = urlsplit(url)
    if parts.scheme == "http" and not _is_local(parts.hostname):
        warn(f"warning: {url} is plain HTTP: the token crosses the network readable by anyone on the way")
    token = read_token(url)
    if not token:
        raise Failure("no token given: paste the token the account page showed when it was made", USAGE)
    client = ApiClient(url, token, timeout_s=30)
    response = answer(client, "GET", "/api/me")
    if response.status == 401:
        raise Failure(f"{url} refused the token: it is mistyped, or it was revoked; make a new one on "
                      f"{url}{PROFILE_PATH}", AUTH)
    if response.status != 200 or "username" not in response.body:
        raise Failure(f"{url} does not answer as the trainer's API (GET /api/me: {response.status}, "
                      f"{response.body.get('error', 'no user')})", UNREACHABLE)
    username = response.body["username"]
    path = save_credentials(Credentials(url=url, token=token, username=username))
    say(f"Logged in to {url} as {username}. The token is kept in {path}, readable by you alone.")
    return ACCEPTED


def logout() -> int:
    path = credentials_path()
    try:
        credentials = load_credentials()
    except Failure:
        path.unlink(missing_ok=True)
        say("Not logged in.")
        return ACCEPTED
    path.unlink()
    say(f"Forgot the token for {credentials.url}. It still works until it is revoked on "
        f"{credentials.url}{PROFILE_PATH}.")
    return ACCEPTED


def pull(slug: str, into: str | None, force: bool) -> int:
    slug = checked_slug(slug)
    client = connect()
    response = answer(client, "GET", f"/api/problems/{slug}")
    if response.status != 200:
        raise refusal(response, client, missing=f"no problem {slug!r} at {client.base_url}: the list is at "
                                                f"{client.base_url}/problems/")
    problem = response.body
    folder = Path(into or slug)
    files = {
        folder / "README.md": (f"{problem['statement'].rstrip()}\n\n---\n\n{problem['title']} on the site: "
                               f"{client.base_url}{problem['url']} (version {problem['version']})\n"),
        folder / "solution.py": problem["starter"],
    }
    # Bad input loses nothing: a file already there, with other contents, may hold the user's own work.
    differing = [path for path, text in files.items() if path.exists() and path.read_text(encoding="utf-8") != text]
    if differing and not force:
        raise Failure(f"{', '.join(map(str, differing))} already there with other contents; nothing was written "
                      f"(--force replaces {'it' if len(differing) == 1 else 'them'})", USAGE)
    folder.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    solution = folder / "solution.py"
    say(f"{problem['title']}: the statement in {folder / 'README.md'}, the starter in {solution}.")
    say(f"Then: {PROG} run {slug} {solution}   (the {len(problem['sample_tests'])} sample tests)")
    say(f"      {PROG} submit {slug} {solution}   (all tests)")
    return ACCEPTED


def judge(slug: str, file: str, suite: str, timeout_s: float) -> int:
    """`run` (suite "sample") and `submit` (suite "all"): send the file, follow its judging, say the verdict."""
    slug = checked_slug(slug)
    path = Path(file)
    if not path.is_file():
        raise Failure(f"no file {file}", USAGE)
    try:
        source = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise Failure(f"{file} is not UTF-8 text", USAGE) from None
    except OSError as error:
        raise Failure(f"cannot read {file}: {error.strerror}", USAGE) from None
    client = connect()
    response = answer(client, "POST", f"/api/problems/{slug}/submissions", {"source": source, "tests": suite})
    if response.status != 201:
        raise refusal(response, client, missing=f"no problem {slug!r} at {client.base_url}: the list is at "
                                                f"{client.base_url}/problems/")
    submission_id = response.body["id"]
    link = f"{client.base_url}/submissions/{submission_id}/"
    say(f"Submission #{submission_id}: {slug}, {'the sample tests' if suite == 'sample' else 'all tests'}.")
    try:
        judged = follow(client, submission_id, link, timeout_s)
    except KeyboardInterrupt:
        warn(f"stopped following #{submission_id}; it is judged all the same: {link}")
        return INTERRUPTED
    return verdict(judged, link)


def why(submission_id: int, index: int) -> int:
    """`why`: open the why of a failed test, the rule or the fix behind its message (it counts as a hint)."""
    client = connect()
    response = answer(client, "POST", f"/api/submissions/{submission_id}/tests/{index}/why")
    if response.status != 200:
        raise refusal(response, client, missing=f"no submission {submission_id} of yours, or no test {index} in it")
    opened = response.body["whys_shown"]
    say(f"{response.body['test']}: {response.body['why']}")
    say(f"({opened} why{'s' if opened != 1 else ''} opened on this problem; each counts as a hint.)")
    return ACCEPTED


def follow(client: ApiClient, submission_id: int, link: str, timeout_s: float) -> dict:
    """Poll the submission until it is judged, saying where it waits and each test as it lands."""
    deadline = time.monotonic() + timeout_s
    shown, said, lost = 0, None, 0
    while True:
        try:
            response = client.request("GET", f"/api/submissions/{submission_id}")
        except NO_ANSWER as error:
            lost += 1
            if lost >= LOST_AFTER_POLLS:
                reason = getattr(error, "reason", error)
                raise Failure(f"lost {client.base_url} while #{submission_id} was judged ({reason}); it is judged "
                              f"all the same: {link}", UNREACHABLE) from None
            pause()
            continue
        lost = 0
        if response.status != 200:
            raise refusal(response, client)
        data = response.body
        tests = data["tests"]
        shown = 0 if len(tests) < shown else shown  # judged again from the start
        for test in tests[shown:]:
            say_test(test)
        shown = len(tests)
        state = waiting(data)
        if state and state != said:
            say(state)
        said = state or said
        if data["status"] in JUDGED_STATUSES:
            return data
        if time.monotonic() > deadline:
            raise Failure(f"not judged within {timeout_s:g} s; it is still {data['status']}: {link}", NOT_ACCEPTED)
        pause()


def pause() -> None:
    """The wait between two polls."""
    time.sleep(POLL_INTERVAL_S)


def waiting(data: dict) -> str:
    """Where a submission waits, in words; empty once it is judged."""
    queue = (data["queue"]["name"] or "").upper()
    words = ""
    if data["status"] == "queued":
        position = data["queue"]["position"]
        words = f"Queued: number {position} in the {queue} queue." if position else "Queued."
    elif data["status"] == "running":
        words = f"Running {data['progress']['total']} tests."
    if data["queue"]["workers"] == 0:
        words += f" No {queue} worker is running right now; it will be judged once one starts."
    return words


def status_words(status: str) -> str:
    return status.replace("_", " ")


def say_test(test: dict) -> None:
    say(f"  {status_words(test['status']):<22}{test['name']}  {milliseconds(test['time_ms'])}  "
        f"{size(test['peak_bytes'])}")
    lines = (test.get("message") or "").rstrip().splitlines()
    for line in lines[:MESSAGE_LINES]:
        say(f"      {line}")
    if len(lines) > MESSAGE_LINES:
        say(f"      … {len(lines) - MESSAGE_LINES} more lines on the submission's page")


def verdict(data: dict, link: str) -> int:
    """Say the verdict, the figures, where the submission stands and its link; the exit status it makes."""
    if data["status"] == "error":
        say(f"Could not be judged: {data.get('message') or 'the judge gave up'}")
        say(link)
        return NOT_ACCEPTED
    tests = data["tests"]
    passed = sum(test["status"] == "passed" for test in tests)
    total = data["progress"]["total"] or len(tests)
    if data["verdict"] == "accepted":
        say(f"Accepted: all {total} tests passed.")
    else:
        first = next((test for test in tests if test["status"] not in ("passed", "skipped")), None)
        where = f"; first failure: {first['name']}" if first else ""
        say(f"{status_words(data['verdict'] or 'no verdict').capitalize()}: {passed} of {total} tests passed{where}.")
        if first and first.get("has_why"):
            say(f"Why it failed: `{PROG} why {data['id']} {tests.index(first)}` (it counts as a hint).")
    standing = data.get("standing") or {}
    for measure, yours, reference, show, words in (("time", "user_ms", "reference_ms", milliseconds, "faster than"),
                                                    ("memory", "user_peak_bytes", "reference_peak_bytes", size,
                                                     "less memory than")):
        figure = data[measure]
        if figure["ratio"] is None:
            continue
        line = (f"{measure.capitalize()}: {ratio(figure['ratio'])} the reference's ({show(figure[yours])} vs "
                f"{show(figure[reference])})")
        placed = standing.get(measure) or {}
        if placed.get("percent") is not None:
            line += (f", {words} {placed['percent']}% of the {placed['others']} other accepted submissions on "
                     f"{standing['device'].upper()}")
        elif placed:
            line += f", the only accepted submission on {standing['device'].upper()} with this figure so far"
        say(line + ".")
    say(link)
    return ACCEPTED if data["verdict"] == "accepted" else NOT_ACCEPTED


# ---- Arguments --------------------------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog=PROG, description="Pull the site's problems, run and submit your solutions from a terminal.",
        epilog="Exit status: 0 done (a submission: accepted), 1 not accepted, 2 a wrong command, file or problem, "
               "3 not logged in or the token refused, 4 the server unreachable or failing, 5 rate-limited.")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    command = commands.add_parser("login", help="keep an API token for a site, made on its account page")
    command.add_argument("url", metavar="URL", help="the site's address, such as https://trainer.example.org")
    commands.add_parser("logout", help="forget the kept token")
    command = commands.add_parser("pull", help="the statement and the starter code into a folder")
    command.add_argument("slug", metavar="SLUG", help="the problem, as its page's address names it")
    command.add_argument("--into", metavar="FOLDER", help="where to write them (default: a folder named SLUG)")
    command.add_argument("--force", action="store_true", help="replace files already there")
    for name, words in (("run", "judge FILE on the sample tests"), ("submit", "judge FILE on all tests")):
        command = commands.add_parser(name, help=words)
        command.add_argument("slug", metavar="SLUG", help="the problem")
        command.add_argument("file", metavar="FILE", help="your solution")
        command.add_argument("--timeout", type=float, default=900, metavar="SECONDS",
                             help="how long to wait for the verdict (default: %(default)g)")
    command = commands.add_parser("why", help="open the rule or the fix behind a failed test (counts as a hint)")
    command.add_argument("submission", type=int, metavar="SUBMISSION", help="the submission's number")
    command.add_argument("test", type=int, metavar="TEST", help="the test's place among its tests, from 0")
    return top


def main(argv: list[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    try:
        if arguments.command == "login":
            return login(arguments.url)
        if arguments.command == "logout":
            return logout()
        if arguments.command == "pull":
            return pull(arguments.slug, arguments.into, arguments.force)
        if arguments.command == "why":
            return why(arguments.submission, arguments.test)
        suite = "sample" if arguments.command == "run" else "all"
        return judge(arguments.slug, arguments.file, suite, arguments.timeout)
    except Failure as failure:
        warn(f"error: {failure}")
        return failure.status
    except KeyboardInterrupt:
        return INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
