"""Practice: each user's review card per question (scheduled by FSRS), the review log, and sessions.

A card's scheduling state is py-fsrs's own `Card.to_dict()`, kept whole in `fsrs_card` so the scheduler
reads back exactly what it wrote; `due` copies its due date into a column so "what is due" is one indexed
query. A practice session is a fixed list of items picked when it starts. Each item moves

    question:  pending → revealed (the user's answer written, the model answer shown) → rated
    problem:   pending → skipped        (done is not stored: it is "solved", read from the submissions)
    drill:     pending → rated          (the estimate graded, the worked solution shown), or → skipped

and the session moves active → finished. Every move is a guarded UPDATE in interview.services.practice.
"""

from django.conf import settings
from django.db import models
from django.urls import reverse

from interview.models.drills import Drill, DrillAttempt
from interview.models.problem_sets import ProblemSet
from interview.models.problems import Problem
from interview.models.questions import Question, Topic


class Rating(models.IntegerChoices):
    """How well the user recalled the answer; the values are py-fsrs's Rating values."""

    AGAIN = 1, "Again"
    HARD = 2, "Hard"
    GOOD = 3, "Good"
    EASY = 4, "Easy"


class StudyProfile(models.Model):
    """What practice needs to know about a user: the time zone their days (and streak) are counted in."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="study_profile")
    timezone = models.CharField(max_length=64, default="UTC", help_text="An IANA name, as the browser reports it.")


class ReviewCard(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_cards")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="review_cards")
    fsrs_card = models.JSONField(help_text="py-fsrs Card.to_dict(): the scheduler's whole state for this card.")
    due = models.DateTimeField(db_index=True)
    last_rating = models.PositiveSmallIntegerField(choices=Rating.choices)
    reviews = models.PositiveIntegerField(default=0)
    lapses = models.PositiveIntegerField(default=0, help_text="Reviews rated Again.")
    last_reviewed_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "question"], name="one_card_per_user_and_question")]
        indexes = [models.Index(fields=["user", "due"], name="review_card_user_due")]

    def __str__(self) -> str:
        return f"{self.question} for {self.user}"

    @property
    def recalled(self) -> bool:
        return self.last_rating >= Rating.GOOD


class Review(models.Model):
    """One review of a question: what the user wrote, which key points they covered, how they rated it."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reviews")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="reviews")
    rating = models.PositiveSmallIntegerField(choices=Rating.choices)
    answer = models.TextField(blank=True)
    covered = models.JSONField(default=list, help_text="Indices of the key points the user ticked.")
    reviewed_at = models.DateTimeField(db_index=True)
    due_after = models.DateTimeField(help_text="When the scheduler brings the question back.")

    class Meta:
        ordering = ("-reviewed_at", "-id")
        indexes = [models.Index(fields=["user", "reviewed_at"], name="review_user_reviewed")]


class SessionState(models.TextChoices):
    ACTIVE = "active", "In progress"
    FINISHED = "finished", "Finished"


class PracticeSession(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="practice_sessions")
    topic = models.ForeignKey(Topic, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    problem_set = models.ForeignKey(ProblemSet, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    state = models.CharField(max_length=8, choices=SessionState.choices, default=SessionState.ACTIVE)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-started_at", "-id")

    def __str__(self) -> str:
        return f"Practice #{self.pk}: {self.title}"

    def get_absolute_url(self) -> str:
        return reverse("practice_session", args=[self.pk])

    @property
    def title(self) -> str:
        if self.problem_set_id:
            return self.problem_set.title
        if self.topic_id:
            return self.topic.name
        return "Due reviews"


class ItemState(models.TextChoices):
    PENDING = "pending", "To do"
    REVEALED = "revealed", "Answer revealed"
    RATED = "rated", "Rated"
    SKIPPED = "skipped", "Skipped"


class PracticeItem(models.Model):
    session = models.ForeignKey(PracticeSession, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveSmallIntegerField()
    question = models.ForeignKey(Question, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    problem = models.ForeignKey(Problem, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    drill = models.ForeignKey(Drill, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    drill_attempt = models.OneToOneField(DrillAttempt, null=True, blank=True, on_delete=models.SET_NULL,
                                         related_name="practice_item", help_text="The drill's numbers, drawn at start.")
    state = models.CharField(max_length=8, choices=ItemState.choices, default=ItemState.PENDING)
    answer = models.TextField(blank=True, help_text="What the user wrote before revealing the model answer.")
    matched = models.JSONField(default=list, help_text="Key points the matcher found in the answer.")
    review = models.OneToOneField(Review, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ("session", "position")
        constraints = [
            models.UniqueConstraint(fields=["session", "position"], name="one_practice_item_per_position"),
            models.CheckConstraint(
                condition=(models.Q(question__isnull=False, problem__isnull=True, drill__isnull=True)
                           | models.Q(question__isnull=True, problem__isnull=False, drill__isnull=True)
                           | models.Q(question__isnull=True, problem__isnull=True, drill__isnull=False)),
                name="practice_item_is_a_question_a_problem_or_a_drill",
            ),
        ]

    @property
    def is_problem(self) -> bool:
        return self.problem_id is not None

    @property
    def is_drill(self) -> bool:
        return self.drill_id is not None
