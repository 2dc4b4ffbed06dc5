"""Reads of the coding problems for the pages."""

from django.db.models import QuerySet

from interview.models import Difficulty, Problem, ProblemDraft, Question, Topic
from interview.selectors.submissions import problem_statuses


def live_problems() -> QuerySet[Problem]:
    return Problem.objects.live().defer("statement_markdown", "statement_html", "explanation_markdown",
                                        "explanation_html", "starter_code")


def _easy_to_hard(problems) -> list[Problem]:
    return sorted(problems, key=lambda problem: (Difficulty.values.index(problem.difficulty), problem.title))


def problem_list(*, user, difficulty: str = "", tag: str = "", topic: Topic | None = None) -> list[Problem]:
    """Live problems, easy to hard then by title, each with `user_status` (solved, attempted, revealed or '')
    and its topics prefetched."""
    problems = live_problems().prefetch_related("topics")
    if topic is not None:
        problems = problems.filter(topics=topic)
    problems = [problem for problem in problems
                if (not difficulty or problem.difficulty == difficulty) and (not tag or tag in problem.tags)]
    statuses = problem_statuses(user=user)
    for problem in problems:
        problem.user_status = statuses.get(problem.pk, "")
    return _easy_to_hard(problems)


def all_tags() -> list[str]:
    return sorted({tag for problem in live_problems() for tag in problem.tags})


def problem_topics() -> list[Topic]:
    """The live topics that live problems practise, in the bank's order: the problem list's topic choices."""
    return list(Topic.objects.live().filter(problems__isnull=False, problems__retired_at__isnull=True).distinct())


def topic_problems(topic: Topic) -> list[Problem]:
    """The live problems that practise a topic, easy to hard."""
    return _easy_to_hard(live_problems().filter(topics=topic))


def practising_problems(question: Question) -> tuple[list[Problem], list[Problem]]:
    """The live problems that practise a question: those that ask it as a follow-up, in title order, then the
    other problems of its topic, easy to hard."""
    following = list(live_problems().filter(follow_ups__question=question).distinct().order_by("title"))
    shown = {problem.pk for problem in following}
    return following, [problem for problem in topic_problems(question.topic) if problem.pk not in shown]


def user_draft(*, user, problem: Problem) -> ProblemDraft | None:
    """The user's draft of the problem, if they are signed in and have one: what the editor opens with."""
    if not user.is_authenticated:
        return None
    return ProblemDraft.objects.filter(user=user, problem=problem).first()
