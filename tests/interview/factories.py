"""Factories for the question bank's rows."""

import factory

from interview.models import Origin, Question, Topic
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
