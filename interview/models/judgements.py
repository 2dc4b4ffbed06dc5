"""Judgements: each time the judge judged a submission, with its verdict, its figures and each test's result.

A submission is judged when it is sent, and again each time an admin re-judges it (after a checker was fixed,
or under a new judge); every judgement is kept, with the versions of the judge and of the problem that made it,
so the history says which code judged what. A judgement begins when a worker takes the submission, gains a
test as each one finishes (the page shows them live), and ends with its verdict, or without one when the judge
gave up on the submission (which is then an error). An attempt that goes back to the queue leaves no judgement.

The judged fields are the judge engine's Outcome (interview/judge/engine.py), which the web process must not
import; tests/interview/test_judgement_schema.py keeps the two the same.
"""

from django.db import models

# The judge's vocabulary. The values are the runner's (runner.verdict), which the web side must not import;
# tests/interview/test_vocabulary.py keeps the two the same.
class Verdict(models.TextChoices):
    ACCEPTED = "accepted", "Accepted"
    WRONG_ANSWER = "wrong_answer", "Wrong answer"
    TIME_LIMIT_EXCEEDED = "time_limit_exceeded", "Time limit exceeded"
    MEMORY_LIMIT_EXCEEDED = "memory_limit_exceeded", "Memory limit exceeded"
    RUNTIME_ERROR = "runtime_error", "Runtime error"
    COMPILE_ERROR = "compile_error", "Compile error"
    FORBIDDEN = "forbidden", "Forbidden call"
    INTERNAL_ERROR = "internal_error", "Judge error"


class TestStatus(models.TextChoices):
    """A test's outcome: passed, skipped (after an earlier failure), or the failing verdict it produced."""

    __test__ = False  # a name pytest would otherwise try to collect where a test module imports it

    PASSED = "passed", "Passed"
    SKIPPED = "skipped", "Skipped"
    WRONG_ANSWER = Verdict.WRONG_ANSWER.value, Verdict.WRONG_ANSWER.label
    TIME_LIMIT_EXCEEDED = Verdict.TIME_LIMIT_EXCEEDED.value, Verdict.TIME_LIMIT_EXCEEDED.label
    MEMORY_LIMIT_EXCEEDED = Verdict.MEMORY_LIMIT_EXCEEDED.value, Verdict.MEMORY_LIMIT_EXCEEDED.label
    RUNTIME_ERROR = Verdict.RUNTIME_ERROR.value, Verdict.RUNTIME_ERROR.label
    COMPILE_ERROR = Verdict.COMPILE_ERROR.value, Verdict.COMPILE_ERROR.label
    FORBIDDEN = Verdict.FORBIDDEN.value, Verdict.FORBIDDEN.label
    INTERNAL_ERROR = Verdict.INTERNAL_ERROR.value, Verdict.INTERNAL_ERROR.label


class Judgement(models.Model):
    submission = models.ForeignKey("interview.Submission", on_delete=models.CASCADE, related_name="judgements")
    verdict = models.CharField(max_length=24, choices=Verdict.choices, blank=True,
                               help_text="Blank while the judge runs, and when it gave up without one.")
    problem_version = models.CharField(max_length=32, blank=True, help_text="The version of the problem it judged.")
    judge_version = models.CharField(max_length=16, blank=True,
                                     help_text="The version of the judge that judged: a hash of its code.")
    seed_index = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Which of the problem version's hidden seeds its hidden tests used (none "
                                         "when no hidden test ran).",
    )
    device = models.CharField(max_length=8, blank=True)
    device_name = models.CharField(max_length=100, blank=True)
    torch_version = models.CharField(max_length=40, blank=True)
    sandbox = models.CharField(max_length=200, blank=True)
    time_user_ms = models.FloatField(null=True, blank=True)
    time_reference_ms = models.FloatField(null=True, blank=True)
    time_ratio = models.FloatField(null=True, blank=True)
    memory_user_peak_bytes = models.BigIntegerField(null=True, blank=True)
    memory_reference_peak_bytes = models.BigIntegerField(null=True, blank=True)
    memory_ratio = models.FloatField(null=True, blank=True)
    stdout = models.TextField(blank=True)
    stderr = models.TextField(blank=True)
    started_at = models.DateTimeField(help_text="When a worker took the submission to judge it.")
    finished_at = models.DateTimeField(null=True, blank=True, help_text="When it ended; none while the judge runs.")
    failure = models.TextField(blank=True, help_text="Why it ended without a verdict: the judge failed every attempt.")

    class Meta:
        ordering = ("-started_at", "-id")
        indexes = [
            # Where an accepted submission stands counts its peers: accepted, of one problem version, on one kind
            # of device (interview.selectors.standing). Accepted judgements only, so the index stays small.
            models.Index(fields=["problem_version", "device"], condition=models.Q(verdict="accepted"),
                         name="judgement_accepted_standing"),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(verdict="") | models.Q(finished_at__isnull=False),
                                   name="a_verdict_ends_its_judgement"),
        ]

    def __str__(self) -> str:
        return f"{self.get_verdict_display() or 'no verdict'}, judged from {self.started_at:%Y-%m-%d %H:%M}"


class JudgementTest(models.Model):
    """One test's outcome, written as the test finishes so the page shows progress."""

    judgement = models.ForeignKey(Judgement, on_delete=models.CASCADE, related_name="tests")
    index = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=200)
    status = models.CharField(max_length=24, choices=TestStatus.choices)
    message = models.TextField(blank=True)
    time_ms = models.FloatField(null=True, blank=True)
    peak_bytes = models.BigIntegerField(null=True, blank=True)
    why = models.TextField(blank=True, help_text="The rule or the fix behind a failure: shown only on request, "
                                                 "which counts as a hint (WhyReveal).")

    class Meta:
        ordering = ("judgement", "index")
        constraints = [models.UniqueConstraint(fields=["judgement", "index"], name="one_result_per_judgement_test")]

    def __str__(self) -> str:
        return f"{self.name}: {self.status}"
