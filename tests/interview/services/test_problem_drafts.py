"""Carrying a draft typed before logging in into the account, and picking one of two versions."""

from datetime import timedelta

import pytest
from django.utils import timezone

from interview.models import DraftOrigin, ProblemDraft
from interview.services.problems import Pick, draft_carry, draft_pick, draft_save
from tests.interview.factories import ProblemFactory, UserFactory

pytestmark = pytest.mark.django_db
ACCOUNT = "# saved with the account\n"
BROWSER = "# typed before logging in\n"


@pytest.fixture
def problem():
    return ProblemFactory()


@pytest.fixture
def user():
    return UserFactory()


def test_a_carried_draft_becomes_the_draft_of_an_account_that_had_none(user, problem):
    draft = draft_carry(user=user, problem=problem, source=BROWSER, saved_at=timezone.now())
    assert (draft.source, draft.has_other_version) == (BROWSER, False)


def test_a_carried_draft_equal_to_the_accounts_changes_nothing(user, problem):
    saved = draft_save(user=user, problem=problem, source=ACCOUNT)
    draft = draft_carry(user=user, problem=problem, source=ACCOUNT, saved_at=timezone.now() + timedelta(hours=1))
    assert (draft.source, draft.has_other_version, draft.updated_at) == (ACCOUNT, False, saved.updated_at)


def test_a_newer_carried_draft_goes_in_the_editor_and_the_accounts_is_kept_beside_it(user, problem):
    saved = draft_save(user=user, problem=problem, source=ACCOUNT)
    draft = draft_carry(user=user, problem=problem, source=BROWSER, saved_at=timezone.now())
    assert (draft.source, draft.other_source, draft.other_origin) == (BROWSER, ACCOUNT, DraftOrigin.ACCOUNT)
    assert draft.other_saved_at == saved.updated_at
    assert draft.other_version_description().startswith("saved with your account, saved 0")


def test_the_accounts_draft_wins_only_when_it_is_newer_and_the_carried_one_is_kept_beside_it(user, problem):
    saved = draft_save(user=user, problem=problem, source=ACCOUNT)
    typed_at = saved.updated_at - timedelta(minutes=5)
    draft = draft_carry(user=user, problem=problem, source=BROWSER, saved_at=typed_at)
    assert (draft.source, draft.updated_at) == (ACCOUNT, saved.updated_at)
    assert (draft.other_source, draft.other_origin, draft.other_saved_at) == (BROWSER, DraftOrigin.BROWSER, typed_at)
    assert draft.other_version_description() == "typed in this browser before you logged in, saved 5\xa0minutes ago"


@pytest.mark.parametrize(("keep", "kept"), [(Pick.EDITOR, BROWSER), (Pick.OTHER, ACCOUNT)])
def test_picking_a_version_keeps_it_and_drops_the_other(user, problem, keep, kept):
    draft_save(user=user, problem=problem, source=ACCOUNT)
    draft_carry(user=user, problem=problem, source=BROWSER, saved_at=timezone.now())
    draft = draft_pick(user=user, problem=problem, keep=keep)
    stored = ProblemDraft.objects.get(pk=draft.pk)
    assert (stored.source, stored.has_other_version, stored.other_source) == (kept, False, "")


def test_picking_when_there_is_one_version_changes_nothing(user, problem):
    draft_save(user=user, problem=problem, source=ACCOUNT)
    assert draft_pick(user=user, problem=problem, keep=Pick.OTHER).source == ACCOUNT
    assert draft_pick(user=user, problem=ProblemFactory(), keep=Pick.OTHER) is None
