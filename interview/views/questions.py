"""The question bank's pages: the list with filters and search, and one question with its answer."""

from django import forms
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, render

from interview.models import Difficulty, Question, Topic
from interview.selectors.questions import question_list, question_neighbours, related_questions

SEARCH_RESULTS_PER_PAGE = 25


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
    return render(request, "interview/question_list.html", context)


def question_detail_view(request, slug: str):
    """One question; a retired one still answers (users' history links to it) but says it is retired."""
    question = get_object_or_404(Question.objects.select_related("topic"), slug=slug)
    context = {
        "question": question,
        "neighbours": question_neighbours(question),
        "related": related_questions(question),
    }
    return render(request, "interview/question_detail.html", context)
