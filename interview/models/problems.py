"""Coding problems, as synced from their packages in git, and what each user keeps per problem.

A problem row mirrors `problems/<slug>/` (sync_content writes it; the admin only reads it). The judge reads
the package itself from disk; the row holds what the pages show and what routing needs. Nothing is
deleted: a package that disappears retires its problem, so submissions keep pointing at it.
"""

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.timesince import timesince

from interview.models.drills import Drill
from interview.models.questions import Difficulty, Question, Topic


class Needs(models.TextChoices):
    CPU = "cpu", "CPU only"
    CUDA = "cuda", "a CUDA GPU"
    ANY = "any", "a GPU or the CPU"


class ProblemQuerySet(models.QuerySet):
    def live(self):
        return self.filter(retired_at__isnull=True)


class Problem(models.Model):
    slug = models.SlugField(max_length=100, unique=True, help_text="The package's folder name; also the URL.")
    title = models.CharField(max_length=200)
    difficulty = models.CharField(max_length=10, choices=Difficulty.choices)
    tags = models.JSONField(default=list)
    topics = models.ManyToManyField(
        Topic, blank=True, related_name="problems",
        help_text="The bank's topics it practises, as its problem.toml's `topics` names them (one to three).",
    )
    needs = models.CharField(max_length=4, choices=Needs.choices, default=Needs.ANY)
    world_size = models.PositiveSmallIntegerField(default=1)
    threads = models.BooleanField(
        default=False, help_text="Whether a submission may start threads of its own on the CPU (problem.toml's "
                                 "`threads`; the ranks' problems may).",
    )
    statement_markdown = models.TextField()
    statement_html = models.TextField(editable=False)
    starter_code = models.TextField()
    explanation_markdown = models.TextField(help_text="The model answer, shown once a user solved the problem.")
    explanation_html = models.TextField(editable=False)
    hints_html = models.JSONField(
        default=list, editable=False,
        help_text="The statement's `## Hints` items, rendered, in order; the page reveals them one at a time.",
    )
    tests = models.JSONField(default=list, help_text='[{"name": ..., "sample": bool, "timed": bool}, ...]')
    limits = models.JSONField(default=dict, help_text="The package's limits, as the judge applies them.")
    version = models.CharField(max_length=32, help_text="Hash of the files that decide a verdict.")
    retired_at = models.DateTimeField(null=True, blank=True, help_text="Set when the package left git.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ProblemQuerySet.as_manager()

    class Meta:
        ordering = ("title",)

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("problem_detail", args=[self.slug])

    @property
    def sample_test_names(self) -> list[str]:
        return [test["name"] for test in self.tests if test.get("sample")]

    @property
    def hidden_test_count(self) -> int:
        return sum(1 for test in self.tests if not test.get("sample"))

    @property
    def wall_seconds(self) -> float:
        """The judge's wall-clock budget for one run of this problem."""
        return float(self.limits.get("wall_s", 120))


class ProblemFollowUp(models.Model):
    """What an interviewer asks after the problem's code, as its problem.toml's `follow_ups` lists it, in order.

    Written only by sync_content, which replaces a problem's list whenever the file's changes. Each names a bank
    question or an estimation drill.
    """

    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="follow_ups")
    position = models.PositiveSmallIntegerField()
    question = models.ForeignKey(Question, null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="follow_up_of")
    drill = models.ForeignKey(Drill, null=True, blank=True, on_delete=models.PROTECT, related_name="follow_up_of")

    class Meta:
        ordering = ("problem", "position")
        constraints = [
            models.UniqueConstraint(fields=["problem", "position"], name="one_follow_up_per_position"),
            models.CheckConstraint(
                condition=(models.Q(question__isnull=False, drill__isnull=True)
                           | models.Q(question__isnull=True, drill__isnull=False)),
                name="follow_up_is_a_question_or_a_drill",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.problem} → {self.target}"

    @property
    def target(self) -> Question | Drill:
        return self.question if self.question_id is not None else self.drill


class DraftOrigin(models.TextChoices):
    ACCOUNT = "account", "saved with your account"
    BROWSER = "browser", "typed in this browser before you logged in"


class ProblemDraft(models.Model):
    """The code a user is writing for a problem, saved as they type.

    A draft typed before logging in is carried into the account; when the account already held different
    code, the older of the two is kept as the other version until the user picks one.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="problem_drafts")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="drafts")
    source = models.TextField()
    updated_at = models.DateTimeField(auto_now=True)
    other_source = models.TextField(blank=True, help_text="The version not in the editor, while other_origin is set.")
    other_origin = models.CharField(max_length=10, choices=DraftOrigin.choices, blank=True)
    other_saved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "problem"], name="one_draft_per_user_and_problem")]

    @property
    def has_other_version(self) -> bool:
        return bool(self.other_origin)

    def other_version_description(self) -> str:
        return f"{self.get_other_origin_display()}, saved {timesince(self.other_saved_at)} ago"


class SolutionReveal(models.Model):
    """A user chose to read a problem's model answer before solving it."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="solution_reveals")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="solution_reveals")
    revealed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "problem"], name="one_reveal_per_user_and_problem")]


class WhyReveal(models.Model):
    """A failure's why that a user opened on a problem: the rule or the fix behind a message, which counts as
    a hint. Kept by the why's words, so the same mistake made again shows it opened, and is counted once."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="why_reveals")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="why_reveals")
    why_key = models.CharField(max_length=64, help_text="A digest of the why's words (interview.services.whys).")
    revealed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "problem", "why_key"], name="one_why_reveal_per_why")]


class HintReveal(models.Model):
    """How many of a problem's hints a user has revealed; hints are revealed in order, so a count says which."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="hint_reveals")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="hint_reveals")
    shown = models.PositiveSmallIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "problem"], name="one_hint_reveal_per_user_and_problem")]
