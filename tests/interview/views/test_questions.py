"""The question list and question pages, against a small bank and against the real one."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.interview.factories import QuestionFactory, TopicFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def bank():
    attention = TopicFactory(slug="attention", name="Attention and Transformers", position=1)
    parallelism = TopicFactory(slug="parallelism", name="Distributed training", position=2)
    sdpa = QuestionFactory(
        slug="sdpa", title="SDPA", topic=attention, difficulty="medium", prompt="What is SDPA?"
    )
    flash = QuestionFactory(
        slug="flash-attention",
        title="FlashAttention",
        topic=attention,
        difficulty="hard",
        prompt="How does FlashAttention avoid the score matrix?",
        answer_markdown="### Tiling\n\nBlocks stay in **SRAM**.\n\n```python\nout = sdpa(q, k, v)\n```\n",
        key_points=[
            {"text": "Tiles Q, K and V into SRAM", "phrasings": ["tiling", "on-chip memory"]},
            {"text": "Online softmax", "phrasings": ["running max", "rescaling"]},
            {"text": "Recomputes in backward", "phrasings": ["recompute", "no stored matrix"]},
        ],
    )
    flash.related.set([sdpa])
    ddp = QuestionFactory(
        slug="ddp", title="DDP", topic=parallelism, difficulty="easy", prompt="What is DDP?"
    )
    return {"sdpa": sdpa, "flash-attention": flash, "ddp": ddp}


def listed_slugs(response) -> list[str]:
    return re.findall(r'class="question-item__title" href="/questions/([\w-]+)/"', response.content.decode())


def test_the_list_groups_questions_by_topic_in_study_order(client, bank):
    response = client.get(reverse("question_list"))
    html = response.content.decode()
    assert response.status_code == 200
    assert listed_slugs(response) == ["sdpa", "flash-attention", "ddp"]
    assert html.index("Attention and Transformers") < html.index("Distributed training")
    assert "3 questions" in html


def test_the_list_filters_by_topic_and_by_difficulty(client, bank):
    assert listed_slugs(client.get(reverse("question_list"), {"topic": "parallelism"})) == ["ddp"]
    assert listed_slugs(client.get(reverse("question_list"), {"difficulty": "hard"})) == ["flash-attention"]
    both = client.get(reverse("question_list"), {"topic": "attention", "difficulty": "medium"})
    assert listed_slugs(both) == ["sdpa"]


def test_an_unknown_filter_value_is_ignored_rather_than_an_error(client, bank):
    response = client.get(reverse("question_list"), {"topic": "cooking", "difficulty": "brutal"})
    assert response.status_code == 200
    assert listed_slugs(response) == ["sdpa", "flash-attention", "ddp"]


def test_searching_lists_ranked_results_with_the_query_marked(client, bank):
    response = client.get(reverse("question_list"), {"q": "FlashAttention"})
    html = response.content.decode()
    assert listed_slugs(response)[0] == "flash-attention"
    assert "<mark>FlashAttention</mark>" in html
    assert "for <strong>“FlashAttention”</strong>" in html


def test_a_search_that_finds_nothing_says_so(client, bank):
    response = client.get(reverse("question_list"), {"q": "quantum chromodynamics"})
    assert listed_slugs(response) == []
    assert "No question matches" in response.content.decode()


def test_the_query_is_escaped_wherever_it_is_shown(client, bank):
    response = client.get(reverse("question_list"), {"q": '<script>alert("x")</script>'})
    html = response.content.decode()
    assert '<script>alert("x")</script>' not in html
    assert "&lt;script&gt;" in html


def test_retired_questions_are_not_listed(client, bank):
    bank["ddp"].retired_at = timezone.now()
    bank["ddp"].save()
    assert listed_slugs(client.get(reverse("question_list"))) == ["sdpa", "flash-attention"]
    assert listed_slugs(client.get(reverse("question_list"), {"q": "DDP"})) == []


def test_the_question_page_hides_the_answer_until_revealed(client, bank):
    response = client.get(reverse("question_detail", args=["flash-attention"]))
    html = response.content.decode()
    assert response.status_code == 200
    assert "How does FlashAttention avoid the score matrix?" in html
    details = html[html.index('<details class="answer"') : html.index("</details>")]
    assert "open" not in details.split(">", 1)[0]
    assert "<strong>SRAM</strong>" in details
    assert "Tiles Q, K and V into SRAM" in details
    assert '<div class="highlight">' in details


def test_the_question_page_links_related_questions_and_its_neighbours(client, bank):
    html = client.get(reverse("question_detail", args=["flash-attention"])).content.decode()
    aside = html[html.index('class="question-aside"') :]
    assert 'href="/questions/sdpa/"' in aside
    assert re.search(r'href="/questions/sdpa/" rel="prev" data-shortcut="p"', html)
    assert 'rel="next"' not in html  # the last question of its topic
    assert "Question 2 of 2 in this topic" in html


def test_a_retired_question_still_answers_and_says_it_is_retired(client, bank):
    bank["ddp"].retired_at = timezone.now()
    bank["ddp"].save()
    response = client.get(reverse("question_detail", args=["ddp"]))
    assert response.status_code == 200
    assert "This question was retired" in response.content.decode()
    assert '<meta name="robots" content="noindex">' in response.content.decode()


def test_an_unknown_question_is_not_found(client, bank):
    assert client.get("/questions/no-such-question/").status_code == 404


def test_searching_for_zero_lists_the_fsdp_zero_question_first(client, real_bank):
    response = client.get("/questions/?q=ZeRO")
    assert response.status_code == 200
    assert listed_slugs(response)[0] == "fsdp-zero"


def test_the_mhsa_page_shows_the_listing_highlighted(client, real_bank):
    html = client.get("/questions/mhsa-from-scratch/").content.decode()
    assert '<div class="highlight">' in html
    assert re.search(
        r'<span class="k">class</span>(<span class="w"> </span>| )<span class="nc">MHSA</span>', html
    )
    assert re.search(
        r'<span class="k">def</span>(<span class="w"> </span>| )<span class="nf">forward</span>', html
    )


def test_every_real_question_page_renders(client, real_bank):
    from interview.models import Question

    for slug in Question.objects.live().values_list("slug", flat=True):
        response = client.get(reverse("question_detail", args=[slug]))
        assert response.status_code == 200, slug


def test_search_results_come_in_pages_that_keep_the_filters(client):
    topic = TopicFactory(slug="attention")
    QuestionFactory.create_batch(30, topic=topic, prompt="Why does attention cost memory?")
    first = client.get(reverse("question_list"), {"q": "attention", "topic": "attention"})
    assert len(listed_slugs(first)) == 25
    assert "30 results" in first.content.decode()
    assert 'href="?q=attention&amp;topic=attention&amp;page=2"' in first.content.decode()
    second = client.get(reverse("question_list"), {"q": "attention", "topic": "attention", "page": 2})
    assert len(listed_slugs(second)) == 5
    assert not set(listed_slugs(first)) & set(listed_slugs(second))


def test_a_prompt_that_asks_about_a_listing_shows_the_listing_before_any_reveal(client, real_bank):
    page = client.get("/questions/mhsa-from-scratch/").content.decode()
    prompt = page[page.index('class="prompt-card"'):page.index('id="answer-body"') if 'id="answer-body"' in page else None]
    assert "Walk me through it" in prompt
    assert '<span class="nc">MHSA</span>' in prompt and "reshape" in prompt


# ---- The problems that practise a question ---------------------------------------------------------------


@pytest.fixture
def problems(bank):
    """Problems on attention: mhsa asks flash-attention as a follow-up; causal-mask does not; one is retired."""
    from interview.models import ProblemFollowUp
    from tests.interview.factories import ProblemFactory

    attention = bank["sdpa"].topic
    mhsa = ProblemFactory(slug="mhsa", title="Multi-head self-attention", difficulty="hard")
    mask = ProblemFactory(slug="causal-mask", title="Causal mask", difficulty="easy")
    gone = ProblemFactory(slug="gone", title="Gone problem", retired_at=timezone.now())
    for problem in (mhsa, mask, gone):
        problem.topics.set([attention])
    ProblemFollowUp.objects.create(problem=mhsa, position=1, question=bank["flash-attention"])
    return {"mhsa": mhsa, "causal-mask": mask}


def aside_of(client, slug: str) -> str:
    html = client.get(reverse("question_detail", args=[slug])).content.decode()
    return html[html.index('class="question-aside"'):]


def test_a_question_links_the_problems_that_ask_it_then_the_others_of_its_topic_once_each(client, problems):
    aside = aside_of(client, "flash-attention")
    asked_after = aside[aside.index("Asked after the code of"):aside.index("More problems on")]
    assert 'href="/problems/mhsa/"' in asked_after and "causal-mask" not in asked_after
    more = aside[aside.index("More problems on Attention and Transformers"):]
    more = more[:more.index("</section>")]
    assert 'href="/problems/causal-mask/"' in more
    assert "/problems/mhsa/" not in more and "/problems/gone/" not in more


def test_a_question_that_no_problem_asks_still_links_the_problems_of_its_topic(client, problems):
    aside = aside_of(client, "sdpa")
    assert "Asked after the code of" not in aside
    more = aside[aside.index("More problems on Attention and Transformers"):]
    assert more.index("/problems/causal-mask/") < more.index("/problems/mhsa/")  # easy to hard
    assert "More problems on" not in aside_of(client, "ddp")  # no problem practises parallelism


def test_a_topics_question_list_links_the_problems_of_that_topic(client, problems):
    html = client.get(reverse("question_list"), {"topic": "attention"}).content.decode()
    section = html[html.index("Coding problems on Attention and Transformers"):]
    section = section[:section.index("</section>")]
    assert 'href="/problems/causal-mask/"' in section and 'href="/problems/mhsa/"' in section
    assert "/problems/gone/" not in section
    assert 'href="/problems/?topic=attention"' in section
    assert "Coding problems on" not in client.get(reverse("question_list"), {"topic": "parallelism"}).content.decode()


def test_a_topics_question_list_follows_a_change_to_its_problems(client, problems, bank):
    parallelism = bank["ddp"].topic
    assert "Coding problems on" not in client.get(reverse("question_list"), {"topic": "parallelism"}).content.decode()
    problems["causal-mask"].topics.add(parallelism)
    html = client.get(reverse("question_list"), {"topic": "parallelism"}).content.decode()
    assert "Coding problems on Distributed training" in html and "/problems/causal-mask/" in html
