"""Estimation drills: the drills synced from git, each user's attempts, and their review cards (FSRS).

An attempt is drawn before its prompt is shown: its seed, the parameters drawn from it and a copy of the
drill's spec are stored with it, so the prompt the user read, the value their answer is graded against
and the worked solution shown afterwards all come from the same numbers, even if the file changes later.
An attempt moves once, open → answered, by a guarded UPDATE in interview.services.drills (a mock
interview's attempt may be answered again while its clock runs).
"""

from django.conf import settings
from django.db import models
from django.urls import reverse

from interview.content.questions import DIFFICULTIES, TITLE_MAX_LENGTH
from interview.estimation.drills import DrillSpec, Worked, work
from interview.models.questions import Question, Topic


class DrillQuerySet(models.QuerySet):
    def live(self):
        return self.filter(retired_at__isnull=True, topic__retired_at__isnull=True)


class Drill(models.Model):
    slug = models.SlugField(max_length=100, unique=True, help_text="Stable id, also the URL; sets name it.")
    title = models.CharField(max_length=TITLE_MAX_LENGTH)
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="drills")
    difficulty = models.CharField(max_length=10, choices=[(name, name) for name in DIFFICULTIES])
    spec = models.JSONField(help_text="DrillSpec.as_json(): prompt, parameters, steps, answer unit, tolerance.")
    citations = models.JSONField(default=list, help_text='Where its constants come from: [{"what", "source"}].')
    related = models.ManyToManyField(Question, blank=True, related_name="drills")
    source_path = models.CharField(max_length=300, editable=False, help_text="The file it was synced from.")
    retired_at = models.DateTimeField(null=True, blank=True, help_text="Set when its file left git.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = DrillQuerySet.as_manager()

    class Meta:
        ordering = ("topic__position", "title")

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("drill_detail", args=[self.slug])

    @property
    def drill_spec(self) -> DrillSpec:
        return DrillSpec.from_json(self.spec)


class DrillAttempt(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="drill_attempts")
    drill = models.ForeignKey(Drill, on_delete=models.PROTECT, related_name="attempts")
    seed = models.BigIntegerField(help_text="The seed the parameters were drawn from.")
    parameters = models.JSONField(help_text="The drawn parameters, as the prompt showed them.")
    spec = models.JSONField(help_text="The drill's spec when the attempt was drawn.")
    right_value = models.FloatField(help_text="The right answer, in the spec's answer unit.")
    answer = models.CharField(max_length=80, blank=True, help_text="What the user typed, as typed.")
    answer_value = models.FloatField(null=True, blank=True, help_text="The answer in the spec's answer unit.")
    score = models.FloatField(null=True, blank=True, help_text="The grading curve's score in [0, 1].")
    answered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ("-created_at", "-id")
        constraints = [
            models.CheckConstraint(condition=models.Q(score__isnull=True) | models.Q(score__gte=0, score__lte=1),
                                   name="drill_attempt_score_in_range"),
        ]

    def __str__(self) -> str:
        return f"{self.drill} for {self.user}"

    def get_absolute_url(self) -> str:
        return reverse("drill_attempt", args=[self.pk])

    @property
    def answered(self) -> bool:
        return self.answered_at is not None

    @property
    def percent(self) -> int:
        return round(100 * (self.score or 0))

    def worked(self) -> Worked:
        """The prompt, steps and answer of this attempt, from its own copy of the spec."""
        return work(DrillSpec.from_json(self.spec), self.parameters)


class DrillCard(models.Model):
    """The user's FSRS card for a drill: like ReviewCard for a question, rated from the attempts' scores."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="drill_cards")
    drill = models.ForeignKey(Drill, on_delete=models.CASCADE, related_name="cards")
    fsrs_card = models.JSONField(help_text="py-fsrs Card.to_dict(): the scheduler's whole state for this card.")
    due = models.DateTimeField(db_index=True)
    last_rating = models.PositiveSmallIntegerField()
    reviews = models.PositiveIntegerField(default=0)
    last_reviewed_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "drill"], name="one_card_per_user_and_drill")]
        indexes = [models.Index(fields=["user", "due"], name="drill_card_user_due")]
