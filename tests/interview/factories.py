"""Factories for rows: the question bank's, users', problems' and submissions'."""

import factory

from interview.models import Origin, Problem, Question, Status, Submission, Suite, Topic
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


class SubmissionFactory(factory.django.DjangoModelFactory):
    """A submission already in some state (the services make new ones; see interview.services.submissions)."""

    class Meta:
        model = Submission

    user = factory.SubFactory("tests.interview.factories.UserFactory")
    problem = factory.SubFactory(ProblemFactory)
    source = "def solve(x):\n    return x\n"
    suite = Suite.ALL
    status = Status.FINISHED
    verdict = "accepted"
    problem_version = factory.SelfAttribute("problem.version")
    queue = "cpu"
    tests_total = 3


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "auth.User"
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("correct horse battery staple")
