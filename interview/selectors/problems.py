"""Reads of the coding problems for the pages."""

from django.db.models import QuerySet

from interview.models import Difficulty, Problem, ProblemDraft
from interview.selectors.submissions import problem_statuses


def live_problems() -> QuerySet[Problem]:
    return Problem.objects.live().defer("statement_markdown", "statement_html", "explanation_markdown",
                                        "explanation_html", "starter_code")


def problem_list(*, user, difficulty: str = "", tag: str = "") -> list[Problem]:
    """Live problems, easy to hard then by title, each with `user_status` (solved, attempted, revealed or '')."""
    problems = [problem for problem in live_problems()
                if (not difficulty or problem.difficulty == difficulty) and (not tag or tag in problem.tags)]
    statuses = problem_statuses(user=user)
    for problem in problems:
        problem.user_status = statuses.get(problem.pk, "")
    return sorted(problems, key=lambda problem: (Difficulty.values.index(problem.difficulty), problem.title))


def all_tags() -> list[str]:
    return sorted({tag for problem in live_problems() for tag in problem.tags})


def editor_source(*, user, problem: Problem) -> str:
    """What the editor opens with: the user's draft, else the starter code."""
    if user.is_authenticated:
        draft = ProblemDraft.objects.filter(user=user, problem=problem).values_list("source", flat=True).first()
        if draft is not None:
            return draft
    return problem.starter_code
