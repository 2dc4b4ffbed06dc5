"""Problem sets: curated in the admin (by staff or the curators group), listed when published, in order."""

import re
from importlib import import_module

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.db.migrations.loader import MigrationLoader

from interview.models import Origin, ProblemSet, Rating
from interview.services.practice import review_record
from tests.interview.factories import ProblemFactory, QuestionFactory, SubmissionFactory, UserFactory
from tests.interview.study_support import make_set

pytestmark = pytest.mark.django_db
ADD_URL = "/admin/interview/problemset/add/"


def inline_form(set_fields: dict, items: list[dict], *, initial: int = 0, ids: list[int] | None = None) -> dict:
    """The admin's add/change form for a set with these items ({position, question or problem})."""
    data = {"items-TOTAL_FORMS": str(len(items)), "items-INITIAL_FORMS": str(initial),
            "items-MIN_NUM_FORMS": "0", "items-MAX_NUM_FORMS": "1000", **set_fields}
    for index, item in enumerate(items):
        data[f"items-{index}-position"] = str(item["position"])
        data[f"items-{index}-question"] = str(item.get("question", ""))
        data[f"items-{index}-problem"] = str(item.get("problem", ""))
        if ids:
            data[f"items-{index}-id"] = str(ids[index])
            data[f"items-{index}-problem_set"] = ""
    return data


def set_fields(**overrides) -> dict:
    fields = {"title": "Attention loop", "slug": "attention-loop", "description": "The **attention** questions.",
              "difficulty": "medium", "time_budget_minutes": "45", "is_published": "on"}
    return {**fields, **overrides}


def curators_group() -> Group:
    """The group migration 0005 makes. A test that commits (transaction=True) empties every table when it ends,
    the migration's rows too, and may have run earlier in this process: then the migration makes it again, with
    the models as they were at that migration."""
    if not Group.objects.filter(name="curators").exists():
        apps = MigrationLoader(connection).project_state(("interview", "0005_curators_group")).apps
        import_module("interview.migrations.0005_curators_group").create_curators(apps, None)
    return Group.objects.get(name="curators")


@pytest.fixture
def curator(client):
    user = UserFactory(is_staff=True)
    user.groups.add(curators_group())
    client.force_login(user)
    return client


def titles(html: str) -> list[str]:
    return re.findall(r'class="item-row__title" href="[^"]+">([^<]+)<', html)


def test_a_curator_creates_a_set_in_the_admin_and_it_is_published_in_order(curator, client):
    first, second = QuestionFactory(title="Why attention"), QuestionFactory(title="FlashAttention")
    problem = ProblemFactory(title="Stable softmax")
    items = [{"position": 20, "question": second.pk}, {"position": 10, "question": first.pk},
             {"position": 30, "problem": problem.pk}]
    response = curator.post(ADD_URL, inline_form(set_fields(), items))
    assert response.status_code == 302, response.content.decode()[:3000]
    problem_set = ProblemSet.objects.get(slug="attention-loop")
    # Saved positions are renumbered 1, 2, 3 in the order they were given.
    assert [(item.position, item.target) for item in problem_set.items.all()] == [(1, first), (2, second), (3, problem)]
    client.logout()
    assert titles(client.get("/sets/attention-loop/").content.decode()) == ["Why attention", "FlashAttention",
                                                                              "Stable softmax"]
    assert "attention-loop" in client.get("/sets/").content.decode()


def test_reordering_in_the_admin_changes_the_order_on_the_page(curator):
    a, b, c = QuestionFactory(title="Alpha"), QuestionFactory(title="Beta"), QuestionFactory(title="Gamma")
    problem_set = make_set(a, b, c, slug="loop")
    ids = list(problem_set.items.values_list("pk", flat=True))
    moved = [{"position": 3, "question": a.pk}, {"position": 1, "question": b.pk}, {"position": 2, "question": c.pk}]
    response = curator.post(f"/admin/interview/problemset/{problem_set.pk}/change/",
                            inline_form(set_fields(slug="loop", title="Loop"), moved, initial=3, ids=ids))
    assert response.status_code == 302
    assert titles(curator.get("/sets/loop/").content.decode()) == ["Beta", "Gamma", "Alpha"]


def test_a_blank_row_is_ignored_and_an_unnumbered_new_item_goes_last(curator):
    a, b, c = QuestionFactory(title="Alpha"), QuestionFactory(title="Beta"), QuestionFactory(title="Gamma")
    items = [{"position": 1, "question": a.pk}, {"position": 0, "question": c.pk}, {"position": 2, "question": b.pk},
             {"position": 4}]  # the extra row the drag script numbered, left blank
    response = curator.post(ADD_URL, inline_form(set_fields(slug="loop", title="Loop"), items))
    assert response.status_code == 302, response.content.decode()[:3000]
    assert titles(curator.get("/sets/loop/").content.decode()) == ["Alpha", "Beta", "Gamma"]


def test_an_item_must_be_a_question_a_problem_or_a_drill_not_two(curator):
    question, problem = QuestionFactory(), ProblemFactory()
    response = curator.post(ADD_URL, inline_form(set_fields(), [{"position": 1, "question": question.pk,
                                                                 "problem": problem.pk}]))
    assert response.status_code == 200
    assert "An item is a question, a problem or a drill: pick one of them." in response.content.decode()
    assert not ProblemSet.objects.exists()


def test_an_unpublished_set_is_neither_listed_nor_shown(client):
    make_set(QuestionFactory(), slug="draft-set", published=False)
    assert "draft-set" not in client.get("/sets/").content.decode()
    assert client.get("/sets/draft-set/").status_code == 404


def test_the_set_page_shows_the_users_progress(client):
    user = UserFactory()
    recalled, forgotten, solved = QuestionFactory(), QuestionFactory(), ProblemFactory()
    make_set(recalled, forgotten, solved, ProblemFactory(), slug="loop")
    review_record(user=user, question=recalled, rating=Rating.GOOD, covered=[])
    review_record(user=user, question=forgotten, rating=Rating.AGAIN, covered=[])
    SubmissionFactory(user=user, problem=solved, verdict="accepted")
    client.force_login(user)
    html = client.get("/sets/loop/").content.decode()
    assert re.findall(r'data-item-status="(\w+)"', html) == ["done", "started", "done", "new"]
    assert 'aria-valuenow="2"' in html


# ---- The curators group, through the admin --------------------------------------------------------------


@pytest.mark.parametrize("url", ["/admin/interview/problemset/", ADD_URL, "/admin/interview/question/",
                                 "/admin/interview/problem/", "/admin/interview/topic/"])
def test_curators_manage_sets_and_read_the_bank_and_the_problems(curator, url):
    assert curator.get(url).status_code == 200


@pytest.mark.parametrize("url", ["/admin/auth/user/", "/admin/auth/group/", "/admin/interview/submission/",
                                 "/admin/interview/apitoken/", "/admin/interview/workerheartbeat/"])
def test_curators_see_no_accounts_no_submissions_and_no_tokens(curator, url):
    assert curator.get(url).status_code == 403


def test_curators_cannot_change_a_question(curator):
    question = QuestionFactory()
    response = curator.post(f"/admin/interview/question/{question.pk}/change/", {"title": "Changed"})
    assert response.status_code == 403


def test_the_admin_index_shows_a_curator_only_what_they_may_use(curator):
    html = curator.get("/admin/").content.decode()
    assert "Problem sets" in html
    assert "Submissions" not in html and "Users" not in html and "Api tokens" not in html


def test_a_curator_searches_questions_for_a_set_item(curator):
    QuestionFactory(title="FlashAttention tiling")
    response = curator.get("/admin/autocomplete/", {"term": "Flash", "app_label": "interview",
                                                    "model_name": "problemsetitem", "field_name": "question"})
    assert response.status_code == 200
    assert [result["text"] for result in response.json()["results"]] == ["FlashAttention tiling"]


# ---- Curation: repeated items, sets from git, the item pickers, the URL preview ----------------------------


def test_the_same_item_twice_in_a_set_is_refused_with_a_message(curator):
    question = QuestionFactory(title="Why attention")
    items = [{"position": 1, "question": question.pk}, {"position": 2, "problem": ProblemFactory().pk},
             {"position": 3, "question": question.pk}]
    response = curator.post(ADD_URL, inline_form(set_fields(), items))
    assert response.status_code == 200
    assert "“Why attention” is already in this set: each item appears once." in response.content.decode()
    assert not ProblemSet.objects.exists()


def test_an_item_already_saved_in_the_set_is_refused_when_added_again(curator):
    question = QuestionFactory(title="Why attention")
    problem_set = make_set(question, slug="loop")
    [item_id] = problem_set.items.values_list("pk", flat=True)
    items = [{"position": 1, "question": question.pk}, {"position": 2, "question": question.pk}]
    response = curator.post(f"/admin/interview/problemset/{problem_set.pk}/change/",
                            inline_form(set_fields(slug="loop", title="Loop"), items, initial=1, ids=[item_id, ""]))
    assert response.status_code == 200
    assert "“Why attention” is already in this set: each item appears once." in response.content.decode()
    assert problem_set.items.count() == 1


def test_a_set_from_git_can_be_viewed_but_not_changed_deleted_or_published_here(curator):
    problem_set = make_set(QuestionFactory(), slug="from-git", published=False, origin=Origin.FILE,
                           source_path="sets/from-git.md")
    url = f"/admin/interview/problemset/{problem_set.pk}/change/"
    html = curator.get(url).content.decode()
    assert "sets/from-git.md" in html and 'name="_save"' not in html and 'name="items-0-question"' not in html
    assert curator.post(url, set_fields(slug="from-git", title="Changed")).status_code == 403
    assert curator.post(f"/admin/interview/problemset/{problem_set.pk}/delete/", {"post": "yes"}).status_code == 403
    response = curator.post("/admin/interview/problemset/", {"action": "publish",
                                                             "_selected_action": [problem_set.pk]}, follow=True)
    assert "1 set(s) from git left as their files say" in response.content.decode()
    assert not ProblemSet.objects.get(pk=problem_set.pk).is_published


def picked(client, field_name: str, term: str) -> list[str]:
    response = client.get("/admin/autocomplete/", {"term": term, "app_label": "interview",
                                                   "model_name": "problemsetitem", "field_name": field_name})
    return [result["text"] for result in response.json()["results"]]


def test_the_item_pickers_offer_the_best_title_match_first(curator, real_bank):
    assert picked(curator, "question", "Multi-head")[0] == "Multi-head self-attention from scratch"
    assert picked(curator, "question", "FlashAtt")[0] == "FlashAttention"
    assert picked(curator, "question", "kv cache")[0] == "Paged KV cache (vLLM PagedAttention)"
    ProblemFactory(title="Causal mask", slug="causal-mask", statement_markdown="Unlike multi-head attention...")
    ProblemFactory(title="Multi-head self-attention", slug="mhsa")
    assert picked(curator, "problem", "multi-head") == ["Multi-head self-attention"]
    ProblemFactory(title="FlashAttention forward: tiled online softmax", slug="flash-attention-forward")
    ProblemFactory(title="Numerically stable softmax", slug="stable-softmax")
    ProblemFactory(title="Softmaxed logits", slug="softmaxed")
    assert picked(curator, "problem", "softmax") == [
        "Numerically stable softmax", "FlashAttention forward: tiled online softmax", "Softmaxed logits"]


@pytest.mark.parametrize("minutes", ["4", "241"])
def test_a_time_budget_a_mock_interview_could_not_be_sat_for_is_refused_in_the_admin(curator, minutes):
    response = curator.post(ADD_URL, inline_form(set_fields(time_budget_minutes=minutes), []))
    assert "A whole number of minutes from 5 to 240." in response.content.decode()
    assert not ProblemSet.objects.exists()


def test_the_sets_page_renders_each_sets_description_as_markdown(client):
    make_set(QuestionFactory(), description="The **attention** questions, from `softmax(QK^T)` up.")
    html = client.get("/sets/").content.decode()
    assert "<strong>attention</strong>" in html and "<code>softmax(QK^T)</code>" in html and "**" not in html


def test_a_set_is_sat_for_its_own_time_budget_from_the_interviews_page(client):
    user = UserFactory()
    client.force_login(user)
    problem_set = make_set(QuestionFactory(), time_budget_minutes=150)
    assert '<input type="radio" name="duration" value="budget" checked>' in client.get("/mock-interviews/").content.decode()
    client.post("/mock-interviews/start", {"set": problem_set.slug, "duration": "budget"})
    assert user.mock_interviews.get().duration_minutes == 150


def test_the_id_field_previews_the_sets_url(curator):
    assert '/sets/<span class="set-slug-preview">…</span>/' in curator.get(ADD_URL).content.decode()
    problem_set = make_set(QuestionFactory(), slug="attention-loop")
    html = curator.get(f"/admin/interview/problemset/{problem_set.pk}/change/").content.decode()
    assert '/sets/<span class="set-slug-preview">attention-loop</span>/' in html
