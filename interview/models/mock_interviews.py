"""Mock interviews: a timed loop of concept questions and coding problems, and what the user did in it.

The clock is the server's: `started_at` and `ends_at` are written once, when the interview starts, and
nothing moves them; the browser's countdown only displays `ends_at`. An interview moves

    in_progress → finished    (the finish button, or the first request after ends_at)

and is over as soon as either is true, whether or not the move was written yet: every write of an answer,
a draft or a submission is one UPDATE guarded by `ends_at > now` and the state, so an answer that arrives
late is refused by the database, not by the page. Time per item is accounted from the server's record of
which item is open: opening another item adds the seconds since `current_since` to the one left.
"""

from django.conf import settings
from django.db import models
from django.urls import reverse

from interview.models.drills import Drill, DrillAttempt
from interview.models.problem_sets import ProblemSet
from interview.models.problems import Problem
from interview.models.questions import Question
from interview.models.submissions import Submission

DURATIONS = (30, 45, 60, 90)


def durations_for(problem_set: ProblemSet | None) -> tuple[int, ...]:
    """The minutes an interview may be sat for: DURATIONS, and a set's own time budget, whatever its length."""
    budget = problem_set.time_budget_minutes if problem_set is not None else None
    return tuple(sorted({*DURATIONS, budget})) if budget else DURATIONS


class Level(models.TextChoices):
    JUNIOR = "junior", "Junior"
    MID = "mid", "Mid-level"
    SENIOR = "senior", "Senior"


class InterviewState(models.TextChoices):
    IN_PROGRESS = "in_progress", "In progress"
    FINISHED = "finished", "Finished"


class MockInterview(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mock_interviews")
    problem_set = models.ForeignKey(ProblemSet, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    level = models.CharField(max_length=6, choices=Level.choices, blank=True,
                             help_text="The generated loop's level; blank for a set.")
    duration_minutes = models.PositiveSmallIntegerField()
    state = models.CharField(max_length=11, choices=InterviewState.choices, default=InterviewState.IN_PROGRESS)
    started_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True, help_text="When it was finished, never after ends_at.")
    current_item = models.ForeignKey("MockInterviewItem", null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+", help_text="The item open now, for time accounting.")
    current_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-started_at", "-id")
        constraints = [
            models.CheckConstraint(condition=models.Q(ends_at__gt=models.F("started_at")),
                                   name="mock_interview_ends_after_it_starts"),
        ]

    def __str__(self) -> str:
        return f"Mock interview #{self.pk} ({self.title})"

    def get_absolute_url(self) -> str:
        return reverse("mock_interview_detail", args=[self.pk])

    @property
    def title(self) -> str:
        return self.problem_set.title if self.problem_set_id else f"{self.get_level_display()} loop"

    def is_over(self, now) -> bool:
        return self.state == InterviewState.FINISHED or now >= self.ends_at

    @property
    def closed_at(self):
        """When answering stopped: the finish, or the end of the clock."""
        return self.finished_at or self.ends_at


class MockInterviewItem(models.Model):
    interview = models.ForeignKey(MockInterview, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveSmallIntegerField()
    question = models.ForeignKey(Question, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    problem = models.ForeignKey(Problem, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    drill = models.ForeignKey(Drill, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    # RESTRICT, not PROTECT: an attempt goes only with its user, whose interviews (and items) go with it.
    drill_attempt = models.OneToOneField(DrillAttempt, null=True, blank=True, on_delete=models.RESTRICT,
                                         related_name="mock_interview_item",
                                         help_text="The drill's numbers, drawn when the interview started.")
    follows = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="follow_ups",
                                help_text="The coding item this follow-up is asked after, once its code is submitted.")
    draft = models.TextField(blank=True, help_text="The answer or code as it is being written, saved as typed.")
    answer = models.TextField(blank=True, help_text="The concept answer the user submitted.")
    answered_at = models.DateTimeField(null=True, blank=True, help_text="When the answer was last submitted.")
    opened_at = models.DateTimeField(null=True, blank=True, help_text="When the item was first opened.")
    seconds_spent = models.PositiveIntegerField(default=0, help_text="Time the item was open, closed spells only.")
    matched = models.JSONField(default=list, help_text="Key points the matcher found in the answer.")
    covered = models.JSONField(default=list, help_text="Key points counted: the matcher's, or the user's correction.")
    corrected = models.BooleanField(default=False, help_text="The user corrected the matcher on the report.")

    class Meta:
        ordering = ("interview", "position")
        constraints = [
            models.UniqueConstraint(fields=["interview", "position"], name="one_interview_item_per_position"),
            models.CheckConstraint(
                condition=(models.Q(question__isnull=False, problem__isnull=True, drill__isnull=True)
                           | models.Q(question__isnull=True, problem__isnull=False, drill__isnull=True)
                           | models.Q(question__isnull=True, problem__isnull=True, drill__isnull=False)),
                name="interview_item_is_a_question_a_problem_or_a_drill",
            ),
        ]

    def get_absolute_url(self) -> str:
        return reverse("mock_interview_item", args=[self.interview_id, self.position])

    @property
    def is_problem(self) -> bool:
        return self.problem_id is not None

    @property
    def is_drill(self) -> bool:
        return self.drill_id is not None


class MockInterviewSubmission(models.Model):
    """A submission made from inside an interview, to one of its problems."""

    item = models.ForeignKey(MockInterviewItem, on_delete=models.CASCADE, related_name="attempts")
    submission = models.OneToOneField(Submission, on_delete=models.CASCADE, related_name="mock_interview_attempt")

    class Meta:
        ordering = ("item", "submission")
