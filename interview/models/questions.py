"""The question bank: topics and concept questions with model answers and key points.

Most rows come from files in git (origin `file`, written only by sync_content); an admin can add more
(origin `admin`), which the sync never touches. Nothing is deleted: a question whose file disappears is
retired, so whatever users recorded against it stays valid.
"""

from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.urls import reverse

from interview.content.questions import DIFFICULTIES, TITLE_MAX_LENGTH

Difficulty = models.TextChoices("Difficulty", [(name.upper(), name) for name in DIFFICULTIES])

# The PostgreSQL text-search configuration the search vectors are built with and queries are parsed by.
SEARCH_CONFIG = "english"


class Origin(models.TextChoices):
    FILE = "file", "File in git"
    ADMIN = "admin", "Written in the admin"


class TopicQuerySet(models.QuerySet):
    def live(self):
        return self.filter(retired_at__isnull=True)


class Topic(models.Model):
    slug = models.SlugField(max_length=100, unique=True, help_text="Stable id; questions refer to it.")
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    position = models.PositiveIntegerField(default=0, help_text="Topics are listed in increasing position.")
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.ADMIN, editable=False)
    retired_at = models.DateTimeField(null=True, blank=True, help_text="Set when the topic left topics.yaml.")

    objects = TopicQuerySet.as_manager()

    class Meta:
        ordering = ("position", "name")

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return f"{reverse('question_list')}?topic={self.slug}"

    def get_problems_url(self) -> str:
        """The problem list filtered to the problems that practise this topic."""
        return f"{reverse('problem_list')}?topic={self.slug}"


class QuestionQuerySet(models.QuerySet):
    def live(self):
        """Questions shown in lists and search: not retired, in a topic that is not retired either."""
        return self.filter(retired_at__isnull=True, topic__retired_at__isnull=True)


class Question(models.Model):
    slug = models.SlugField(max_length=100, unique=True, help_text="Stable id, also the URL; never changes.")
    title = models.CharField(max_length=TITLE_MAX_LENGTH)
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="questions")
    difficulty = models.CharField(max_length=10, choices=Difficulty.choices)
    source = models.CharField(
        max_length=200, blank=True, help_text="The seed document the question comes from."
    )
    prompt = models.TextField(help_text="The question as an interviewer asks it.")
    answer_markdown = models.TextField("model answer", help_text="Markdown; code fences are highlighted.")
    answer_html = models.TextField(editable=False, help_text="answer_markdown rendered when it was saved.")
    key_points = models.JSONField(
        default=list,
        help_text='What a strong answer mentions: [{"text": "...", "phrasings": ["...", "..."]}, ...]',
    )
    related = models.ManyToManyField("self", symmetrical=False, blank=True, related_name="related_from")
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.ADMIN, editable=False)
    source_path = models.CharField(
        max_length=300,
        blank=True,
        editable=False,
        help_text="The file it was synced from, under the content folder.",
    )
    retired_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Retired questions are hidden; what users recorded against them stays.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Maintained on PostgreSQL only (see interview.services.questions); SQLite searches the columns directly.
    search_vector = SearchVectorField(null=True, editable=False)

    objects = QuestionQuerySet.as_manager()

    class Meta:
        ordering = ("topic__position", "title")

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("question_detail", args=[self.slug])

    @property
    def is_from_file(self) -> bool:
        return self.origin == Origin.FILE

    @property
    def key_point_texts(self) -> list[str]:
        return [point["text"] for point in self.key_points]
