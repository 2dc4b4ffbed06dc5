"""Factories for rows: the question bank's, users', problems' and submissions'."""

import factory
from django.utils import timezone

from interview.models import (
    Judgement, JudgementTest, Origin, Problem, Question, Status, Submission, Suite, Topic, Verdict,
)
from interview.rendering import render_markdown


def key_points(count: int = 3) -> list[dict]:
    return [
        {"text": f"Point {n}", "phrasings": [f"first phrasing {n}", f"second phrasing {n}"]}
        for n in range(1, count + 1)
    ]


class TopicFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Topic
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"topic-{n}")
    name = factory.LazyAttribute(lambda topic: topic.slug.replace("-", " ").capitalize())
    description = "What this topic is about."
    position = factory.Sequence(lambda n: n)
    origin = Origin.ADMIN


class QuestionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Question

    slug = factory.Sequence(lambda n: f"question-{n}")
    title = factory.LazyAttribute(lambda question: question.slug.replace("-", " ").capitalize())
    topic = factory.SubFactory(TopicFactory)
    difficulty = "medium"
    source = "000_seed.txt"
    prompt = "Explain it."
    answer_markdown = "The answer."
    answer_html = factory.LazyAttribute(lambda question: render_markdown(question.answer_markdown))
    key_points = factory.LazyFunction(key_points)
    origin = Origin.ADMIN


class ProblemFactory(factory.django.DjangoModelFactory):
    """A problem row with no package behind it: for pages and states, never for judging."""

    class Meta:
        model = Problem

    slug = factory.Sequence(lambda n: f"problem-{n}")
    title = factory.LazyAttribute(lambda problem: problem.slug.replace("-", " ").capitalize())
    difficulty = "medium"
    tags = factory.LazyFunction(lambda: ["attention"])
    needs = "any"
    statement_markdown = "Write it."
    statement_html = "<p>Write it.</p>"
    starter_code = "def solve(x):\n    raise NotImplementedError\n"
    explanation_markdown = "The model answer."
    explanation_html = "<p>The model answer.</p>"
    tests = factory.LazyFunction(lambda: [
        {"name": "small", "sample": True, "timed": False},
        {"name": "large", "sample": False, "timed": False},
        {"name": "timed", "sample": False, "timed": True},
    ])
    limits = factory.LazyFunction(lambda: {"wall_s": 120.0, "time_ratio": 5.0, "memory_ratio": 4.0})
    version = "0123456789abcdef"


# What a submission's judgement holds; a factory call names these as if they were the submission's own.
JUDGED_FIELDS = {field.name for field in Judgement._meta.concrete_fields} - {"id", "submission"}


class SubmissionFactory(factory.django.DjangoModelFactory):
    """A submission already in some state (the services make new ones; see interview.services.submissions).

    Every one but a queued one has a judgement, which takes the judged fields given (verdict, time_ratio, ...):
    under way while it runs, ended otherwise, by the problem's current version unless told.
    """

    class Meta:
        model = Submission

    user = factory.SubFactory("tests.interview.factories.UserFactory")
    problem = factory.SubFactory(ProblemFactory)
    source = "def solve(x):\n    return x\n"
    suite = Suite.ALL
    status = Status.FINISHED
    verdict = factory.LazyAttribute(lambda submission: Verdict.ACCEPTED if submission.status == Status.FINISHED else "")
    queue = "cpu"
    tests_total = 3

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        judged = {name: kwargs.pop(name) for name in JUDGED_FIELDS & kwargs.keys()}
        status = kwargs.pop("status")
        # Queued first: the database lets no submission be finished without its judgement.
        submission = super()._create(model_class, *args, status=Status.QUEUED, **kwargs)
        if status != Status.QUEUED:
            now = timezone.now()
            judged = {"started_at": now, "problem_version": submission.problem.version,
                      "finished_at": None if status == Status.RUNNING else now, **judged}
            submission.judgement = Judgement.objects.create(submission=submission, **judged)
        submission.status = status
        submission.save(update_fields=["status", "judgement"])
        return submission


def judged_as(submission: Submission, *, tests: tuple[dict, ...] = (), **judged) -> Submission:
    """What a worker writes when it has judged a submission: a judgement that ended with these fields and tests
    (each a JudgementTest's fields but its index), then the submission finished with it."""
    now = timezone.now()
    judgement = Judgement.objects.create(
        submission=submission, **{"started_at": now, "finished_at": now, "problem_version": submission.problem.version,
                                  **judged})
    JudgementTest.objects.bulk_create(JudgementTest(judgement=judgement, index=index, **test)
                                      for index, test in enumerate(tests))
    Submission.objects.filter(pk=submission.pk).update(status=Status.FINISHED, lease_expires_at=None,
                                                       judgement=judgement)
    submission.refresh_from_db()
    return submission


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "auth.User"
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("correct horse battery staple")
