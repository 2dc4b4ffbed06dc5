"""The problem pages: the list with solved status, the statement, the editor, Run and Submit, the answer."""

import pytest

from interview.models import Problem, ProblemDraft, ProblemFollowUp, SolutionReveal, Submission
from interview.services.problems import draft_save
from tests.interview.factories import ProblemFactory, QuestionFactory, SubmissionFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def problem():
    return ProblemFactory(slug="mhsa", title="Multi-head self-attention", difficulty="hard", tags=["attention"],
                          needs="cpu")


@pytest.fixture
def user():
    return UserFactory()


def text(response) -> str:
    return response.content.decode()


def test_the_list_shows_difficulty_tags_where_it_runs_and_the_users_status(client, problem, user):
    ProblemFactory(slug="swiglu", title="SwiGLU", difficulty="easy", tags=["mlp"])
    ProblemFactory(slug="gone", title="Gone", retired_at="2026-01-01T00:00:00Z")
    SubmissionFactory(user=user, problem=problem, verdict="accepted", suite="all")
    client.force_login(user)
    page = text(client.get("/problems/"))
    assert page.index("SwiGLU") < page.index("Multi-head self-attention")  # easy first
    assert "Gone" not in page
    assert 'badge--hard' in page and '?tag=attention' in page and ">CPU<" in page
    assert "problem-row--solved" in page and ">Solved<" in page


def test_a_sample_run_accepted_is_not_solved(client, problem, user):
    SubmissionFactory(user=user, problem=problem, verdict="accepted", suite="sample")
    client.force_login(user)
    page = text(client.get("/problems/"))
    assert ">Attempted<" in page and ">Solved<" not in page


def test_the_list_filters_by_difficulty_and_tag(client, problem):
    ProblemFactory(slug="swiglu", title="SwiGLU", difficulty="easy", tags=["mlp"])
    assert "SwiGLU" not in text(client.get("/problems/?difficulty=hard"))
    assert "Multi-head" not in text(client.get("/problems/?tag=mlp"))


def test_anyone_reads_a_problem_but_only_an_account_runs_it(client, problem):
    page = text(client.get("/problems/mhsa/"))
    assert "<p>Write it.</p>" in page
    assert "Log in to run and submit" in page and " data-run>" not in page
    assert problem.starter_code.replace("\n", "") in page.replace("\n", "")


def test_the_page_says_when_a_submission_runs_on_the_calling_thread_alone(client, problem):
    ProblemFactory(slug="tp-mlp", title="Tensor-parallel MLP", world_size=2, threads=True)
    assert ("<dt>Threads</dt><dd>the calling thread; none of your own <span class=\"problem-facts__why\">(the judge "
            "counts operators, memory and autograd's saved tensors thread by thread)</span></dd>") in text(
        client.get("/problems/mhsa/"))
    ranks = text(client.get("/problems/tp-mlp/"))
    assert "2 ranks" in ranks and "<dt>Threads</dt>" not in ranks


def test_the_editor_opens_with_the_users_draft(client, problem, user):
    draft_save(user=user, problem=problem, source="my_draft = '<b>'\n")
    client.force_login(user)
    page = text(client.get("/problems/mhsa/"))
    assert "my_draft = &#x27;&lt;b&gt;&#x27;" in page
    assert " data-run>" in page and " data-submit>" in page and " data-reset>" in page


def test_the_starter_code_is_embedded_for_reset_as_json(client, problem, user):
    client.force_login(user)
    page = text(client.get("/problems/mhsa/"))
    assert '<script id="starter-code" type="application/json">' in page


def test_the_model_answer_stays_closed_until_the_problem_is_solved(client, problem, user):
    client.force_login(user)
    assert "The model answer." not in text(client.get("/problems/mhsa/"))
    SubmissionFactory(user=user, problem=problem, verdict="accepted", suite="all")
    assert "The model answer." in text(client.get("/problems/mhsa/"))


def test_showing_the_solution_early_is_recorded_and_opens_it(client, problem, user):
    client.force_login(user)
    response = client.post("/problems/mhsa/solution")
    assert response["Location"] == "/problems/mhsa/#solution"
    assert SolutionReveal.objects.filter(user=user, problem=problem).exists()
    assert "The model answer." in text(client.get("/problems/mhsa/"))
    assert ">Solution read<" in text(client.get("/problems/"))


def test_without_javascript_run_queues_the_code_and_shows_the_submission(client, problem, user, embedded_queue):
    client.force_login(user)
    response = client.post("/problems/mhsa/submit",
                           {"source": "x = 1\r\n", "tests": "sample", "idempotency_key": "form-1"})
    submission = Submission.objects.get()
    assert response["Location"] == f"/submissions/{submission.pk}/"
    assert (submission.source, submission.suite) == ("x = 1\n", "sample")
    again = client.post("/problems/mhsa/submit", {"source": "x = 1\r\n", "tests": "sample", "idempotency_key": "form-1"})
    assert again["Location"] == response["Location"] and Submission.objects.count() == 1
    # The form is the editor, so what it posts is also the draft a reload opens with.
    assert ProblemDraft.objects.get(user=user, problem=problem).source == "x = 1\n"


def test_a_refused_submission_says_why_on_the_page_and_keeps_the_code(client, problem, user, settings):
    settings.JUDGE_MAX_SOURCE_BYTES = 5
    client.force_login(user)
    response = client.post("/problems/mhsa/submit", {"source": "too_long = 1\n", "tests": "all"})
    assert response.status_code == 413
    page = text(response)
    assert "the limit is 5" in page and "too_long = 1" in page


def test_submitting_needs_an_account(client, problem):
    response = client.post("/problems/mhsa/submit", {"source": "x = 1\n"})
    assert response["Location"].startswith("/accounts/login/")


def test_a_retired_problem_shows_but_takes_no_submission(client, problem, user):
    problem.retired_at = "2026-01-01T00:00:00Z"
    problem.save()
    client.force_login(user)
    page = text(client.get("/problems/mhsa/"))
    assert "takes no new submissions" in page and " data-run>" not in page
    assert client.post("/problems/mhsa/submit", {"source": "x = 1\n"}).status_code == 404


def test_a_submission_being_judged_is_followed_after_a_reload(client, problem, user):
    waiting = SubmissionFactory(user=user, problem=problem, status="running", verdict="",
                                lease_expires_at="2030-01-01T00:00:00Z")
    client.force_login(user)
    assert f'data-watch="{waiting.pk}"' in text(client.get("/problems/mhsa/"))


def test_the_editor_bundle_is_loaded_when_it_is_there(client, problem):
    page = text(client.get("/problems/mhsa/"))
    assert "interview/editor/editor.js" in page and "interview/editor/editor.css" in page
    assert page.index("editor/editor.js") < page.index("js/judge.js")


def test_the_statement_words_the_time_limit_as_the_judges_verdicts_do(client):
    from dataclasses import asdict

    from runner.problems import Limits

    limits = Limits(time_ratio=50.0, time_cap_ms=1000)
    ProblemFactory(slug="causal", limits=asdict(limits))
    page = text(client.get("/problems/causal/")).replace("&#x27;", "'")
    assert f"at most {limits.time_words()}<" in page
    assert "at most 4× the reference's peak (1.00 MiB allowed on any test)" in page


# ---- Topics -----------------------------------------------------------------------------------------------


@pytest.fixture
def topics(problem):
    """Two bank topics: mhsa practises attention; SwiGLU, an easy one, practises both."""
    attention = TopicFactory(slug="attention", name="Attention and Transformers", position=1)
    activations = TopicFactory(slug="activations", name="Activations", position=2)
    TopicFactory(slug="debugging", name="Debugging training", position=3)
    problem.topics.set([attention])
    ProblemFactory(slug="swiglu", title="SwiGLU", difficulty="easy", tags=["mlp"]).topics.set([attention, activations])
    return attention, activations


def test_the_list_shows_each_problems_topics_linked_to_the_topics_filter(client, topics):
    page = text(client.get("/problems/"))
    row = page[page.index("Multi-head self-attention"):]
    row = row[:row.index("</tr>")]
    assert '<a class="tag tag--topic" href="/problems/?topic=attention">Attention and Transformers</a>' in row
    assert "Activations" not in row


def test_the_list_filters_by_topic_combined_with_the_other_filters(client, topics):
    on_activations = text(client.get("/problems/?topic=activations"))
    assert "SwiGLU" in on_activations and "Multi-head self-attention" not in on_activations
    on_attention = text(client.get("/problems/?topic=attention"))
    assert "SwiGLU" in on_attention and "Multi-head self-attention" in on_attention
    hard_attention = text(client.get("/problems/?topic=attention&difficulty=hard"))
    assert "SwiGLU" not in hard_attention and "Multi-head self-attention" in hard_attention
    assert "No problem matches" in text(client.get("/problems/?topic=activations&tag=attention"))


def test_the_topic_choices_are_the_topics_problems_practise_and_an_unknown_one_is_ignored(client, topics):
    page = text(client.get("/problems/?topic=activations"))
    assert '<option value="">All topics</option>' in page
    assert '<option value="activations" selected>Activations</option>' in page
    assert page.index('value="attention"') < page.index('value="activations"')  # the bank's order
    assert 'value="debugging"' not in page  # no problem practises it
    unknown = text(client.get("/problems/?topic=no-such-topic"))
    assert "SwiGLU" in unknown and "Multi-head self-attention" in unknown


def test_the_problem_page_shows_its_topics_beside_difficulty_and_tags_and_its_follow_ups(client, topics):
    follow_up = QuestionFactory(slug="flash-attention", title="FlashAttention", topic=topics[0])
    ProblemFollowUp.objects.create(problem=Problem.objects.get(slug="mhsa"), position=1, question=follow_up)
    page = text(client.get("/problems/mhsa/"))
    meta = page[page.index('class="question__meta"'):]
    meta = meta[:meta.index("</p>")]
    assert meta.index("badge--hard") < meta.index('href="/problems/?topic=attention"') < meta.index("?tag=attention")
    assert ">Attention and Transformers</a>" in meta
    assert "What an interviewer asks next" in page and 'href="/questions/flash-attention/"' in page
