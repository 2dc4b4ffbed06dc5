"""Opening a failure's why: the rule or the fix behind a test's message, which counts as a hint.

A why is kept by its words (a digest), per user and problem: the same mistake made again, in a later submission
or another test, shows its why open without counting it twice.
"""

from django.db import IntegrityError, transaction

from interview.models import JudgementTest, Submission, WhyReveal
from interview.selectors.results import why_key


class WhyRefused(Exception):
    """The test asked for has no why to open, or the submission is not the user's own."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message, self.status = message, status


def why_reveal(*, user, submission: Submission, index: int) -> tuple[JudgementTest, int]:
    """Open the why of test number `index` (from 0) of the user's own submission; returns the test and how many
    whys of the problem the user has opened. Opening one already open changes nothing."""
    if submission.user_id != user.pk:
        raise WhyRefused("Only the author of a submission opens its whys.", status=403)
    test = submission.judgement.tests.filter(index=index).first() if submission.judgement else None
    if test is None:
        raise WhyRefused(f"Submission #{submission.pk} has no test {index}.", status=404)
    if not test.why:
        raise WhyRefused(f"Test {test.name} has no why to open: it passed, or its message says all there is.")
    try:
        with transaction.atomic():
            WhyReveal.objects.get_or_create(user=user, problem=submission.problem, why_key=why_key(test.why))
    except IntegrityError:  # a second request for the same why, at the same moment
        pass
    return test, WhyReveal.objects.filter(user=user, problem=submission.problem).count()
