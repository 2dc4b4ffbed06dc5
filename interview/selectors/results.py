"""A judged submission read as a diagnosis: how many tests passed, the first failure, and each distinct
mistake once, with the tests it was made in.

The judge words a failure with the figures of the test it failed (a shape, an index, a difference), so the
same mistake reads differently in each test. Its key here is the message with every number taken out: two
tests whose messages differ only in numbers made the same mistake.
"""

import hashlib
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from interview.models import JudgementTest, Problem, Submission

NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
TRACEBACK_HEAD = "Traceback (most recent call last):"
FRAME = re.compile(r'^  File "(?P<file>[^"]+)", line \d+, in ')
# The file the submission is loaded from in the sandbox (runner/harness); its frames are the user's own.
SUBMISSION_FILE = "solution.py"
PASSED, SKIPPED = "passed", "skipped"


@dataclass
class Diagnosis:
    """One mistake: its status and message as the first test that made it shows them, and every such test."""

    key: str
    status: str
    message: str  # trimmed to the submission's own frames, when it is a traceback
    full_message: str  # the whole text, host paths taken out; equal to message when nothing was trimmed
    tests: list[str] = field(default_factory=list)
    hidden: int = 0  # how many of the tests are hidden ones
    index: int = 0  # the first test's, among the judgement's tests
    why: str = ""  # the rule or the fix behind it, shown once opened (interview.services.whys)
    why_open: bool = False

    @property
    def trimmed(self) -> bool:
        return self.message != self.full_message


@dataclass(frozen=True)
class Summary:
    passed: int
    total: int
    first_failure: JudgementTest | None


def diagnosis_key(status: str, message: str) -> str:
    """The same for two failures that differ only in the numbers their messages carry; short, so a page can
    name it (a digest of the status and the message with its numbers taken out)."""
    return hashlib.sha256(f"{status}\0{NUMBER.sub('#', message).strip()}".encode()).hexdigest()[:12]


def without_host_paths(text: str) -> str:
    """The text with the judge host's directories taken out of every path (the site-packages a library lives
    in, the virtual environment, the project): what the machine looks like is none of the page's business."""
    prefixes = {str(Path(settings.BASE_DIR)), sys.prefix, sys.base_prefix, sys.exec_prefix}
    text = re.sub(r"(?:/[^\s\"'/]+)+/(?:site|dist)-packages/", "", text)
    for prefix in sorted(prefixes, key=len, reverse=True):
        if len(prefix) > 1:
            text = text.replace(prefix + "/", "")
    return text


def trimmed_traceback(message: str) -> str:
    """A Python traceback cut to the submission's own frames and the error; any other text as it was.

    The judge's frames (its driver, its operator watch, PyTorch's internals) come between the user's code
    and the error, and the line that matters is at the bottom; they say nothing the user can change.
    """
    if TRACEBACK_HEAD not in message:
        return message
    before, _, rest = message.partition(TRACEBACK_HEAD)
    lines = rest.strip("\n").split("\n")
    kept, keep_frame, error_at = [], False, len(lines)
    for index, line in enumerate(lines):
        frame = FRAME.match(line)
        if frame:
            keep_frame = Path(frame["file"]).name == SUBMISSION_FILE
        elif not line.startswith(" "):
            error_at = index  # the exception's own lines: the first line not part of a frame
            break
        if keep_frame and not set(line.strip()) <= set("^~ "):
            kept.append(line)
    if not kept:
        return message
    return before + "\n".join([TRACEBACK_HEAD, *kept, *lines[error_at:]])


def judged_tests(submission: Submission) -> list[JudgementTest]:
    """The tests of the submission's judgement: so far while it runs, all of them once it ended; none while queued."""
    return list(submission.judgement.tests.all()) if submission.judgement else []


def why_key(why: str) -> str:
    """What keeps a why that a user opened (interview.models.WhyReveal): a digest of its words."""
    return hashlib.sha256(why.encode()).hexdigest()


def diagnoses(results: list[JudgementTest], problem: Problem, opened: set[str] = frozenset()) -> list[Diagnosis]:
    """Each distinct mistake once, in the order the tests first made it; passed and skipped tests make none.
    opened: the keys of the whys the submission's author has opened (why_key)."""
    sample = set(problem.sample_test_names)
    found: dict[str, Diagnosis] = {}
    for result in results:
        if result.status in (PASSED, SKIPPED):
            continue
        full = without_host_paths(result.message)
        key = diagnosis_key(result.status, full)
        if key not in found:
            found[key] = Diagnosis(key=key, status=result.status, message=trimmed_traceback(full), full_message=full,
                                   index=result.index, why=result.why, why_open=why_key(result.why) in opened)
        found[key].tests.append(result.name)
        found[key].hidden += result.name not in sample
    return list(found.values())


def summary(results: list[JudgementTest], submission: Submission) -> Summary:
    passed = sum(result.status == PASSED for result in results)
    first = next((result for result in results if result.status not in (PASSED, SKIPPED)), None)
    return Summary(passed=passed, total=submission.tests_total or len(results), first_failure=first)


def memory_limit_bytes(problem: Problem, reference_peak: int | None) -> tuple[int, bool]:
    """The limit a peak beside this reference peak was judged against (runner.testcase.memory_limit), and
    whether the floor every test may hold is what set it."""
    limits = problem.limits
    floor = int(limits.get("memory_floor_bytes", 1 << 20))
    by_ratio = int(float(limits.get("memory_ratio", 4.0)) * (reference_peak or 0))
    limit = max(floor, by_ratio)
    cap = limits.get("memory_cap_bytes")
    if cap:
        limit = min(limit, int(cap))
    return limit, by_ratio < floor
