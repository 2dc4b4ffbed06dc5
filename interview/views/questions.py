"""The question bank's pages: the list with filters and search, and one question with its answer.

The list is the most read page and the costliest to render (every question, highlighted), while the bank
changes only when it is synced or edited. Its rendered content is therefore cached in each web process, per
version of the bank (a fingerprint read in one query, see question_bank_version) and query string, and an
anonymous visitor's whole page with it, answered with an ETag so a browser's conditional GET costs nothing.
"""

import hashlib

from django import forms
from django.contrib import messages
from django.core.cache.backends.locmem import LocMemCache
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils.cache import get_conditional_response

from interview.models import Difficulty, Question, Topic
from interview.selectors.questions import (question_bank_version, question_list, question_neighbours,
                                           related_questions)

SEARCH_RESULTS_PER_PAGE = 25
# Rendered lists and anonymous pages, in this process; searches make the keys unbounded, hence the bound.
RENDERED = LocMemCache("question-list", {"TIMEOUT": None, "OPTIONS": {"MAX_ENTRIES": 512, "CULL_FREQUENCY": 4}})


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
    # The login link of an anonymous page carries the full path; a logged-in page carries a CSRF token.
    anonymous = not request.user.is_authenticated and not messages.get_messages(request)
    page_key = _digest("page", version, request.get_full_path())
    etag = f'"{page_key}"'
    if anonymous:
        not_modified = get_conditional_response(request, etag=etag)
        if not_modified is not None:
            return not_modified
        page = RENDERED.get(page_key)
        if page is not None:
            return HttpResponse(page, headers={"ETag": etag})
    listing_key = _digest("listing", version, sorted(request.GET.lists()))
    listing = RENDERED.get(listing_key)
    if listing is None:
        listing = _listing(request)
        RENDERED.set(listing_key, listing)
    response = render(request, "interview/question_list.html", {"listing": listing})
    if anonymous:
        RENDERED.set(page_key, response.content)
        response["ETag"] = etag
    return response


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

    context = {"form": form, "query": query, "topic": topic, "difficulty": difficulty, "topics": topics}
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
    context = {
        "question": question,
        "neighbours": question_neighbours(question),
        "related": related_questions(question),
    }
    return render(request, "interview/question_detail.html", context)
