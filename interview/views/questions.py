"""The question bank's pages: the list with filters and search, and one question with its answer.

The list is the most read page and the costliest to render (every question, highlighted), while the bank
changes only when it is synced or edited. Its rendered content is therefore cached in each web process, per
version of the bank (a fingerprint read in one query, see question_bank_version) and query string, and an
anonymous visitor's whole page with it, answered with an ETag so a browser's conditional GET costs nothing.
A signed-in reader's whole page is cached too, per reader and under their name, with a placeholder where the
log-out form's CSRF token goes, filled with this request's token as it is served; the session and the user
come from a cache all web processes share (docs/operating.md, "Sessions"), so a signed-in request costs no
query beyond the version's.
"""

import hashlib

from django import forms
from django.contrib import messages
from django.core.cache.backends.locmem import LocMemCache
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils.cache import get_conditional_response

from interview.models import Difficulty, Question, Topic
from interview.selectors.problems import practising_problems, topic_problems
from interview.selectors.questions import (question_bank_version, question_list, question_neighbours,
                                           related_questions)

SEARCH_RESULTS_PER_PAGE = 25
# Rendered lists and anonymous pages, in this process; searches make the keys unbounded, hence the bound.
RENDERED = LocMemCache("question-list", {"TIMEOUT": None, "OPTIONS": {"MAX_ENTRIES": 512, "CULL_FREQUENCY": 4}})
# Signed-in readers' pages, apart, so that many readers never push the shared lists out.
READERS_PAGES = LocMemCache("question-list-readers", {"TIMEOUT": None,
                                                      "OPTIONS": {"MAX_ENTRIES": 512, "CULL_FREQUENCY": 4}})
# Stands for the CSRF token in a cached reader's page: the token is the request's own (its cookie's secret,
# masked afresh), never the one the page was first rendered with. No page holds this text otherwise.
CSRF_TOKEN_PLACEHOLDER = "csrf-token-placeholder-9d1f6c2a"


class QuestionFilterForm(forms.Form):
    q = forms.CharField(required=False, max_length=200, strip=True)
    topic = forms.ChoiceField(required=False)
    difficulty = forms.ChoiceField(required=False, choices=[("", "Any difficulty"), *Difficulty.choices])

    def __init__(self, *args, topics: list[Topic], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["topic"].choices = [("", "All topics"), *((t.slug, t.name) for t in topics)]

    def value(self, name: str) -> str:
        """The cleaned value of a filter, or '' when it was absent or not one of the choices."""
        if not self.is_bound:
            return ""
        return self.cleaned_data.get(name) or ""


def question_list_view(request):
    version = question_bank_version()
    if messages.get_messages(request):
        # A message is shown once, on whichever page comes next: such a page is never cached.
        return render(request, "interview/question_list.html", {"listing": _cached_listing(request, version)})
    if request.user.is_authenticated:
        return _readers_page(request, version)
    # The login link of an anonymous page carries the full path.
    page_key = _digest("page", version, request.get_full_path())
    etag = f'"{page_key}"'
    not_modified = get_conditional_response(request, etag=etag)
    if not_modified is not None:
        return not_modified
    page = RENDERED.get(page_key)
    if page is None:
        page = render(request, "interview/question_list.html", {"listing": _cached_listing(request, version)}).content
        RENDERED.set(page_key, page)
    return HttpResponse(page, headers={"ETag": etag})


def _readers_page(request, version: str) -> HttpResponse:
    """A signed-in reader's page: the header names them and holds their log-out form, the rest is shared.

    Keyed by the reader's id and name, so a renamed reader gets a fresh page; a reader who logged out, or was
    deactivated, is anonymous again before this is reached.
    """
    user = request.user
    page_key = _digest("reader", version, request.get_full_path(), user.pk, user.get_username())
    page = READERS_PAGES.get(page_key)
    if page is None:
        page = render(request, "interview/question_list.html", {"listing": _cached_listing(request, version),
                                                                 "csrf_token": CSRF_TOKEN_PLACEHOLDER}).content
        READERS_PAGES.set(page_key, page)
    return HttpResponse(page.replace(CSRF_TOKEN_PLACEHOLDER.encode(), get_token(request).encode()))


def _cached_listing(request, version: str) -> dict:
    listing_key = _digest("listing", version, sorted(request.GET.lists()))
    listing = RENDERED.get(listing_key)
    if listing is None:
        listing = _listing(request)
        RENDERED.set(listing_key, listing)
    return listing


def _digest(*parts) -> str:
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


def _listing(request) -> dict:
    """The page's title and content for the query string, rendered."""
    topics = list(Topic.objects.live())
    form = QuestionFilterForm(request.GET or None, topics=topics)
    if form.is_bound:
        form.is_valid()  # an unknown topic or difficulty is dropped, not an error page
    query, difficulty = form.value("q"), form.value("difficulty")
    topic = next((t for t in topics if t.slug == form.value("topic")), None)
    questions = question_list(topic=topic, difficulty=difficulty, query=query)

    context = {"form": form, "query": query, "topic": topic, "difficulty": difficulty, "topics": topics,
               "topic_problems": topic_problems(topic) if topic else []}
    if query:
        page = Paginator(questions, SEARCH_RESULTS_PER_PAGE).get_page(request.GET.get("page"))
        other_parameters = request.GET.copy()
        other_parameters.pop("page", None)
        context.update(page=page, page_query=other_parameters.urlencode(), result_count=page.paginator.count)
    else:
        groups = {}
        for question in questions:
            groups.setdefault(question.topic, []).append(question)
        context.update(groups=list(groups.items()), result_count=sum(len(g) for g in groups.values()))
    title = f"“{query}” · Search" if query else topic.name if topic else "Questions"
    # Rendered without the request, so nothing of one reader can reach the copy another is shown.
    return {"title": title, "content": render_to_string("interview/_question_list_content.html", context)}


def question_detail_view(request, slug: str):
    """One question; a retired one still answers (users' history links to it) but says it is retired."""
    question = get_object_or_404(Question.objects.select_related("topic"), slug=slug)
    following, more = practising_problems(question)
    context = {
        "question": question,
        "following_problems": following,
        "topic_problems": more,
        "neighbours": question_neighbours(question),
        "related": related_questions(question),
    }
    return render(request, "interview/question_detail.html", context)
