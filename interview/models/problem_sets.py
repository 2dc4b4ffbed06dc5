"""Problem sets: ordered lists of concept questions, coding problems and estimation drills a curator publishes.

Most sets come from files in git (origin `file`, written only by sync_content, see
interview.content.problem_sets); staff or the `curators` group can add more in the admin (origin `admin`),
which the sync never touches. An item points at exactly one thing of ITEM_KINDS, and at most once per set;
items are shown in increasing `position`, ties broken by id, so reordering is a matter of renumbering and
never trips over a uniqueness check half-way through a save.
"""

from django.db import models
from django.urls import reverse

from interview.content.problem_sets import ITEM_KINDS
from interview.models.drills import Drill
from interview.models.problems import Problem
from interview.models.questions import Difficulty, Origin, Question


def _exactly_one_of(fields: tuple[str, ...]) -> models.Q:
    condition = models.Q()
    for chosen in fields:
        condition |= models.Q(**{f"{field}__isnull": field != chosen for field in fields})
    return condition


class ProblemSetQuerySet(models.QuerySet):
    def published(self):
        return self.filter(is_published=True, retired_at__isnull=True)


class ProblemSet(models.Model):
    slug = models.SlugField(max_length=100, unique=True, help_text="Its URL: /sets/<slug>/.")
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True, help_text="Markdown: what the set drills and for whom.")
    difficulty = models.CharField(max_length=10, choices=Difficulty.choices, default=Difficulty.MEDIUM)
    is_published = models.BooleanField("published", default=False,
                                       help_text="Only published sets are listed and can be practised.")
    time_budget_minutes = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Optional: the minutes it should take; a mock interview of it may be sat "
                                         "for them, whatever their number.",
    )
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.ADMIN, editable=False)
    source_path = models.CharField(
        max_length=300, blank=True, editable=False, help_text="The file it was synced from, under the content folder."
    )
    retired_at = models.DateTimeField(
        null=True, blank=True, editable=False,
        help_text="Set when its file left git: the set is hidden, the interviews sat from it keep their items.",
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
    drill = models.ForeignKey(Drill, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    # One foreign key per kind of item (ITEM_KINDS, named as the set files name them); an item sets one.

    class Meta:
        ordering = ("problem_set", "position", "id")
        constraints = [
            models.CheckConstraint(
                condition=_exactly_one_of(ITEM_KINDS),
                name="set_item_names_one_thing",
                violation_error_message="An item is a question, a problem or a drill: pick one of them.",
            ),
            *(
                models.UniqueConstraint(
                    fields=("problem_set", kind),
                    condition=models.Q(**{f"{kind}__isnull": False}),
                    name=f"set_item_{kind}_once",
                    violation_error_message=f"This {kind} is already an item of the set: each appears once.",
                )
                for kind in ITEM_KINDS
            ),
        ]

    def __str__(self) -> str:
        return str(self.target)

    @property
    def kind(self) -> str:
        """Which of ITEM_KINDS the item is."""
        return next(kind for kind in ITEM_KINDS if getattr(self, f"{kind}_id") is not None)

    @property
    def target(self) -> Question | Problem | Drill:
        return getattr(self, self.kind)

    @property
    def is_problem(self) -> bool:
        return self.problem_id is not None

    @property
    def is_drill(self) -> bool:
        return self.drill_id is not None
