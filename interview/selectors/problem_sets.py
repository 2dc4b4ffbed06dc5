"""Reads of problem sets: the published ones, and a user's progress through one."""

from dataclasses import dataclass

from django.db.models import Count, Prefetch, Q, QuerySet

from interview.models import DrillCard, ProblemSet, ProblemSetItem, ReviewCard
from interview.selectors.mock_interviews import asked_in_order
from interview.selectors.practice import solved_problem_ids

# What an item of a set is to a user: a question or drill recalled (last rated Good or Easy), or a problem solved.
DONE, STARTED, NEW = "done", "started", "new"


def published_sets() -> QuerySet[ProblemSet]:
    """Published sets with their item counts, easy first."""
    return ProblemSet.objects.published().annotate(
        question_count=Count("items", filter=Q(items__question__isnull=False)),
        problem_count=Count("items", filter=Q(items__problem__isnull=False)),
        drill_count=Count("items", filter=Q(items__drill__isnull=False)),
    ).order_by("difficulty", "title")


def set_items(problem_set: ProblemSet) -> list[ProblemSetItem]:
    """The set's items in order, retired questions and problems left out."""
    items = problem_set.items.select_related("question", "question__topic", "problem", "drill", "drill__topic")
    return [item for item in items if item.target.retired_at is None]


@dataclass(frozen=True)
class SetProgress:
    done: int
    started: int
    total: int

    @property
    def percent(self) -> float:
        return 100 * self.done / self.total if self.total else 0.0


def item_statuses(*, user, items: list[ProblemSetItem]) -> dict[int, str]:
    """Per item id: done, started (reviewed but not yet recalled, or attempted) or new."""
    if not user.is_authenticated:
        return {item.pk: NEW for item in items}
    solved = solved_problem_ids(user=user)
    attempted = set(user.submissions.values_list("problem_id", flat=True).distinct())
    ratings = dict(ReviewCard.objects.filter(user=user, question__in=[i.question_id for i in items if i.question_id])
                   .values_list("question_id", "last_rating"))
    drill_ratings = dict(DrillCard.objects.filter(user=user, drill__in=[i.drill_id for i in items if i.drill_id])
                         .values_list("drill_id", "last_rating"))
    statuses = {}
    for item in items:
        if item.is_problem:
            statuses[item.pk] = DONE if item.problem_id in solved else STARTED if item.problem_id in attempted else NEW
        else:
            rating = drill_ratings.get(item.drill_id) if item.is_drill else ratings.get(item.question_id)
            statuses[item.pk] = NEW if rating is None else DONE if rating >= 3 else STARTED
    return statuses


def set_progress(*, user, problem_set: ProblemSet, items: list[ProblemSetItem] | None = None) -> SetProgress:
    items = set_items(problem_set) if items is None else items
    statuses = item_statuses(user=user, items=items).values()
    return SetProgress(done=sum(s == DONE for s in statuses), started=sum(s == STARTED for s in statuses),
                       total=len(items))


def follow_up_count(items: list[ProblemSetItem]) -> int:
    """The follow-ups a mock interview of these items asks after their coding problems, beyond the items."""
    targets = [item.target for item in items]
    return len(asked_in_order(targets, [])) - len(targets)


def published_sets_with_follow_ups() -> list[ProblemSet]:
    """Published sets, each with `live_items` (retired ones left out) and `follow_up_count`, so that a set's
    listed length is the length of its interview."""
    sets = list(published_sets().prefetch_related(
        Prefetch("items", queryset=ProblemSetItem.objects.select_related("question", "problem", "drill"))))
    for problem_set in sets:
        problem_set.live_items = [item for item in problem_set.items.all() if item.target.retired_at is None]
        problem_set.follow_up_count = follow_up_count(problem_set.live_items)
    return sets


def published_sets_with_progress(*, user) -> list[ProblemSet]:
    """Published sets, each with `follow_up_count` and `progress` for the user."""
    sets = published_sets_with_follow_ups()
    for problem_set in sets:
        problem_set.progress = set_progress(user=user, problem_set=problem_set, items=problem_set.live_items)
    return sets
