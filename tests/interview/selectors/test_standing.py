"""Where an accepted submission stands among its peers, at the extremes: alone, tied, without a figure."""

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from interview.models import Judgement, Submission
from interview.selectors.standing import RATIO_EDGES, best_submission, standing
from tests.interview.factories import ProblemFactory, SubmissionFactory, UserFactory, judged_as

pytestmark = pytest.mark.django_db


@pytest.fixture
def problem():
    return ProblemFactory(slug="mhsa", version="v2")


def accepted(problem, time_ratio, memory_ratio=1.0, **fields):
    """An accepted submission of all tests judged on the CPU, by one author unless told (a password each is slow)."""
    fields = {"verdict": "accepted", "device": "cpu", "user": User.objects.get_or_create(username="peer")[0], **fields}
    return SubmissionFactory(problem=problem, time_ratio=time_ratio, memory_ratio=memory_ratio, **fields)


def bin_counts(placing) -> dict[str, int]:
    return {counted.label: counted.count for counted in placing.bins if counted.count}


def test_the_only_accepted_submission_has_no_one_to_beat_and_no_percentile(problem):
    found = standing(accepted(problem, 1.3))
    assert (found.counted, found.time.others, found.time.beaten, found.time.tied) == (1, 0, 0, 0)
    assert found.time.percent is None
    assert [counted.label for counted in found.time.bins if counted.mine] == ["1.25–1.5×"]
    assert bin_counts(found.time) == {"1.25–1.5×": 1}


def test_the_fastest_beats_every_other_and_the_slowest_none(problem):
    mine = [accepted(problem, ratio) for ratio in (0.4, 0.9, 1.1, 2.5, 4.8)]
    assert [standing(submission).time.percent for submission in mine] == [100, 75, 50, 25, 0]


def test_the_share_is_rounded_down_so_that_100_means_every_other(problem):
    fastest_but_one = accepted(problem, 1.0)
    accepted(problem, 0.5)
    for _ in range(198):
        accepted(problem, 2.0)
    placing = standing(fastest_but_one).time
    assert (placing.others, placing.beaten, placing.percent) == (199, 198, 99)


def test_ties_are_neither_beaten_nor_beating_and_are_counted_as_ties(problem):
    same = [accepted(problem, 1.5) for _ in range(3)]
    slower = accepted(problem, 3.0)
    placing = standing(same[0]).time
    assert (placing.others, placing.beaten, placing.tied, placing.percent) == (3, 1, 2, 33)
    slowest = standing(slower).time
    assert (slowest.beaten, slowest.tied, slowest.percent) == (0, 0, 0)


def test_every_one_tied_beats_none(problem):
    same = [accepted(problem, 1.0) for _ in range(4)]
    placing = standing(same[1]).time
    assert (placing.others, placing.beaten, placing.tied, placing.percent) == (3, 0, 3, 0)


def test_a_submission_without_a_time_figure_is_left_out_of_the_time_count_and_has_no_time_percentile(problem):
    unmeasured = accepted(problem, None, memory_ratio=0.5)
    measured = accepted(problem, 1.0, memory_ratio=2.0)
    accepted(problem, 2.0, memory_ratio=3.0)
    placing = standing(measured).time
    assert (placing.others, placing.beaten, placing.percent) == (1, 1, 100)
    assert sum(counted.count for counted in placing.bins) == 2
    alone = standing(unmeasured)
    assert alone.time.ratio is None and alone.time.percent is None
    assert not any(counted.mine for counted in alone.time.bins)
    # Its memory was measured, and is placed all the same.
    assert (alone.memory.others, alone.memory.beaten, alone.memory.percent) == (2, 2, 100)
    assert alone.counted == 3


def test_only_accepted_submissions_of_all_tests_to_the_same_version_on_the_same_device_are_peers(problem):
    mine = accepted(problem, 1.0)
    accepted(problem, 2.0)  # the one peer
    accepted(problem, 3.0, problem_version="v1")
    accepted(problem, 3.0, device="cuda")
    accepted(problem, 3.0, suite="sample")
    accepted(problem, 9.0, verdict="time_limit_exceeded")
    being_judged_again = accepted(problem, 3.0)
    under_way = Judgement.objects.create(submission=being_judged_again, started_at=timezone.now(), device="cpu",
                                         problem_version="v2")
    Submission.objects.filter(pk=being_judged_again.pk).update(status="running", judgement=under_way,
                                                               lease_expires_at=timezone.now())
    accepted(ProblemFactory(slug="other", version="v2"), 3.0)
    found = standing(mine)
    assert (found.counted, found.time.others, found.time.percent) == (2, 1, 100)


def test_a_submission_judged_again_counts_once_by_its_latest_judgement(problem):
    mine = accepted(problem, 1.0)
    rejudged = accepted(problem, 0.5)
    judged_as(rejudged, verdict="accepted", time_ratio=2.0, memory_ratio=1.0, device="cpu")
    assert Judgement.objects.filter(submission=rejudged).count() == 2
    placing = standing(mine).time
    assert (placing.others, placing.beaten, placing.percent) == (1, 1, 100)


def test_a_submission_not_accepted_or_of_the_sample_tests_has_no_standing(problem):
    assert standing(SubmissionFactory(problem=problem, verdict="wrong_answer", time_ratio=1.0)) is None
    assert standing(SubmissionFactory(problem=problem, status="queued")) is None
    assert standing(SubmissionFactory(problem=problem, verdict="accepted", suite="sample", time_ratio=1.0)) is None


def test_the_bins_are_half_open_so_a_ratio_on_an_edge_falls_in_the_bin_it_starts(problem):
    for ratio in (*RATIO_EDGES, 0.1, 40.0):
        accepted(problem, ratio)
    placing = standing(accepted(problem, 1.0)).time
    assert bin_counts(placing) == {"under 0.5×": 1, "0.5–0.75×": 1, "0.75–1×": 1, "1–1.25×": 2, "1.25–1.5×": 1,
                                   "1.5–2×": 1, "2–3×": 1, "3–4×": 1, "4× or more": 2}
    assert [counted.label for counted in placing.bins if counted.mine] == ["1–1.25×"]


def test_the_standing_is_one_query(problem):
    mine = accepted(problem, 1.0)
    for ratio in (0.5, 2.0, 3.0):
        accepted(problem, ratio)
    mine = Submission.objects.select_related("judgement").get(pk=mine.pk)  # as the pages' selectors load it
    with CaptureQueriesContext(connection) as queries:
        standing(mine)
    assert len(queries) == 1


def test_the_best_is_the_lowest_time_ratio_of_the_current_version_then_an_earlier_versions():
    problem = ProblemFactory(slug="mhsa", version="v2")
    ada = UserFactory(username="ada")
    assert best_submission(user=ada, problem=problem) is None
    older = accepted(problem, 0.2, user=ada, problem_version="v1")
    assert best_submission(user=ada, problem=problem) == older
    accepted(problem, 1.5, user=ada)
    unmeasured = accepted(problem, None, user=ada)
    quicker = accepted(problem, 1.2, user=ada)
    SubmissionFactory(problem=problem, user=ada, verdict="wrong_answer", time_ratio=0.1)
    accepted(problem, 0.1)  # someone else's
    assert best_submission(user=ada, problem=problem) == quicker
    assert unmeasured != quicker  # a submission without a time figure comes after every one with it
