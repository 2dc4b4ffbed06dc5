"""Problem sets: ordered lists of concept questions and coding problems that a curator publishes.

Sets are written in the admin (by staff or the `curators` group), not synced from git. An item points at
exactly one question or one problem; items are shown in increasing `position`, ties broken by id, so
reordering is a matter of renumbering and never trips over a uniqueness check half-way through a save.
"""

from django.db import models
from django.urls import reverse

from interview.models.problems import Problem
from interview.models.questions import Difficulty, Question


class ProblemSetQuerySet(models.QuerySet):
    def published(self):
        return self.filter(is_published=True)


class ProblemSet(models.Model):
    slug = models.SlugField(max_length=100, unique=True, help_text="Its URL: /sets/<slug>/.")
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True, help_text="Markdown: what the set drills and for whom.")
    difficulty = models.CharField(max_length=10, choices=Difficulty.choices, default=Difficulty.MEDIUM)
    is_published = models.BooleanField("published", default=False,
                                       help_text="Only published sets are listed and can be practised.")
    time_budget_minutes = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Optional: the minutes it should take; a mock interview of it starts "
                                         "with the nearest duration.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ProblemSetQuerySet.as_manager()

    class Meta:
        ordering = ("title",)

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("problem_set_detail", args=[self.slug])


class ProblemSetItem(models.Model):
    problem_set = models.ForeignKey(ProblemSet, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveIntegerField(default=0, help_text="Items are shown in increasing position.")
    question = models.ForeignKey(Question, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    problem = models.ForeignKey(Problem, null=True, blank=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ("problem_set", "position", "id")
        constraints = [
            models.CheckConstraint(
                condition=(models.Q(question__isnull=False, problem__isnull=True)
                           | models.Q(question__isnull=True, problem__isnull=False)),
                name="set_item_is_a_question_or_a_problem",
                violation_error_message="An item is either a question or a problem: pick one of the two.",
            ),
        ]

    def __str__(self) -> str:
        return str(self.question or self.problem)

    @property
    def target(self) -> Question | Problem:
        return self.question or self.problem

    @property
    def is_problem(self) -> bool:
        return self.problem_id is not None
