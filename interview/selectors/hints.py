"""How many of a problem's hints someone has revealed, whether to offer them the next one, and the failures'
whys they opened (which count as hints)."""

from interview.models import HintReveal, Problem, Status, Submission, Verdict, WhyReveal
from interview.services.hints import SESSION_KEY

FAILURES_BEFORE_OFFER = 3
# Verdicts that say the code is wrong; a judge error or a refusal to judge is not the user's failure.
_FAILING_VERDICTS = (
    Verdict.WRONG_ANSWER, Verdict.TIME_LIMIT_EXCEEDED, Verdict.MEMORY_LIMIT_EXCEEDED, Verdict.RUNTIME_ERROR,
    Verdict.COMPILE_ERROR, Verdict.FORBIDDEN,
)


def hints_shown(*, user, problem: Problem, session=None) -> int:
    """How many hints of `problem` the user (or, for a visitor, their session) has revealed."""
    if user.is_authenticated:
        return HintReveal.objects.filter(user=user, problem=problem).values_list("shown", flat=True).first() or 0
    if session is None:
        return 0
    return min(session.get(SESSION_KEY, {}).get(problem.slug, 0), len(problem.hints_html))


def hint_offered(*, user, problem: Problem, shown: int) -> int | None:
    """The number of the hint to offer after three failed submissions in a row, or None.

    The streak counts judged submissions since the last accepted one and since the last hint revealed, so
    passing or revealing a hint ends the offer.
    """
    if not user.is_authenticated or shown >= len(problem.hints_html):
        return None
    judged = Submission.objects.filter(user=user, problem=problem, status=Status.FINISHED)
    revealed_at = HintReveal.objects.filter(user=user, problem=problem).values_list("updated_at", flat=True).first()
    if revealed_at is not None:
        judged = judged.filter(created_at__gt=revealed_at)
    latest = judged.order_by("-created_at").values_list("judgement__verdict", flat=True)[:FAILURES_BEFORE_OFFER]
    if len(latest) < FAILURES_BEFORE_OFFER or any(verdict not in _FAILING_VERDICTS for verdict in latest):
        return None
    return shown + 1


def whys_shown(*, user, problem: Problem) -> int:
    """How many failures' whys of `problem` the user has opened (each counts as a hint)."""
    if not user.is_authenticated:
        return 0
    return WhyReveal.objects.filter(user=user, problem=problem).count()


def opened_whys(*, user, problem: Problem) -> set[str]:
    """The keys (interview.services.whys.why_key) of the whys of `problem` the user has opened."""
    return set(WhyReveal.objects.filter(user=user, problem=problem).values_list("why_key", flat=True))
