"""Problem hints: split out of the statement at sync time, revealed one at a time, offered after failures."""

import pytest

from interview.models import HintReveal, Problem, Submission
from interview.rendering import render_markdown
from interview.selectors.hints import hint_offered, hints_shown
from interview.services.content_sync import statement_hints, sync_problems
from interview.services.hints import HintRefused, hint_reveal, visitor_hint_reveal
from interview.services.submissions import submission_create
from tests.interview.factories import SubmissionFactory, UserFactory
from tests.judging_support import PROBLEMS, SOFTMAX, content_with

pytestmark = pytest.mark.django_db



@pytest.fixture
def problem(hinted_problem):
    return hinted_problem


@pytest.fixture
def user():
    return UserFactory()


@pytest.mark.parametrize("statement", sorted(PROBLEMS.glob("*/statement.md")), ids=lambda path: path.parent.name)
def test_every_shipped_statement_ends_with_hints_that_split_into_items(statement):
    text = statement.read_text()
    hints = statement_hints(text)
    assert len(hints) >= 3
    # Each item is one bullet's text, its continuation lines joined back, and nothing of the next item.
    assert all(not hint.startswith(("- ", "* ")) and "\n- " not in hint for hint in hints)
    assert text.rstrip().endswith(hints[-1].splitlines()[-1].strip())


def test_the_sync_stores_the_hints_rendered_and_the_statement_without_them(tmp_path):
    sync_problems(content_dir=content_with(tmp_path / "content", SOFTMAX))
    problem = Problem.objects.get(slug=SOFTMAX)
    hints = statement_hints((PROBLEMS / SOFTMAX / "statement.md").read_text())
    assert problem.hints_html == [render_markdown(hint) for hint in hints]
    assert "Hints" not in problem.statement_html
    assert "<code>" in "".join(problem.hints_html)  # the same Markdown rendering as the statement's
    assert hints[0][:40] not in problem.statement_html


def test_hints_are_revealed_in_order_and_revealing_one_again_changes_nothing(problem, user):
    assert hint_reveal(user=user, problem=problem, hint=1) == 1
    assert hint_reveal(user=user, problem=problem, hint=1) == 1
    with pytest.raises(HintRefused, match="reveal hint 2 first"):
        hint_reveal(user=user, problem=problem, hint=3)
    assert hint_reveal(user=user, problem=problem, hint=2) == 2
    assert hint_reveal(user=user, problem=problem, hint=1) == 2
    assert HintReveal.objects.get(user=user, problem=problem).shown == 2
    assert hints_shown(user=user, problem=problem) == 2


@pytest.mark.parametrize("hint", [0, 4, -1])
def test_a_hint_out_of_range_is_refused_with_the_range_and_nothing_written(problem, user, hint):
    with pytest.raises(HintRefused, match=f"hints 1 to 3; there is no hint {hint}"):
        hint_reveal(user=user, problem=problem, hint=hint)
    assert not HintReveal.objects.exists()


def test_a_visitors_hints_live_in_their_session(problem):
    session = {}
    assert visitor_hint_reveal(session=session, problem=problem, hint=1) == 1
    with pytest.raises(HintRefused):
        visitor_hint_reveal(session=session, problem=problem, hint=3)
    assert session == {"hints_shown": {"softmax": 1}}
    assert not HintReveal.objects.exists()


def test_a_submission_records_how_many_hints_its_author_had_revealed(problem, user):
    hint_reveal(user=user, problem=problem, hint=1)
    hint_reveal(user=user, problem=problem, hint=2)
    created = submission_create(user=user, problem=problem, source="x = 1\n", suite="all")
    assert Submission.objects.get(pk=created.submission.pk).hints_shown == 2
    other = submission_create(user=UserFactory(), problem=problem, source="x = 1\n", suite="all")
    assert other.submission.hints_shown == 0


def test_the_next_hint_is_offered_after_three_failed_submissions_in_a_row(problem, user):
    SubmissionFactory(user=user, problem=problem, verdict="wrong_answer")
    SubmissionFactory(user=user, problem=problem, verdict="runtime_error")
    assert hint_offered(user=user, problem=problem, shown=0) is None
    SubmissionFactory(user=user, problem=problem, verdict="wrong_answer", suite="sample")
    assert hint_offered(user=user, problem=problem, shown=0) == 1


def test_passing_ends_the_offer(problem, user):
    for verdict in ("wrong_answer", "wrong_answer", "wrong_answer", "accepted"):
        SubmissionFactory(user=user, problem=problem, verdict=verdict)
    assert hint_offered(user=user, problem=problem, shown=0) is None


def test_revealing_ends_the_offer_until_three_more_failures(problem, user):
    for _ in range(3):
        SubmissionFactory(user=user, problem=problem, verdict="wrong_answer")
    shown = hint_reveal(user=user, problem=problem, hint=1)
    assert hint_offered(user=user, problem=problem, shown=shown) is None
    for _ in range(3):
        SubmissionFactory(user=user, problem=problem, verdict="wrong_answer")
    assert hint_offered(user=user, problem=problem, shown=shown) == 2
