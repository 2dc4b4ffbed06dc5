"""Writes of mock interviews: starting one, opening items, drafts, answers, submissions, finishing, corrections.

The clock is enforced here, not in the views: every write made while the interview runs is one UPDATE (or a
locked read of the interview) that requires `ends_at > now` and the state in_progress, and raises
InterviewOver otherwise. Starting again makes a new interview; nothing ever moves an interview's ends_at.
"""

import random
from datetime import UTC, datetime, timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from interview.keypoints import covered_indices
from interview.models import (
    Drill, DrillAttempt, InterviewState, Level, MockInterview, MockInterviewItem, MockInterviewSubmission, Problem,
    ProblemSet,
)
from interview.models.mock_interviews import durations_for
from interview.selectors.mock_interviews import asked_in_order, follow_up_wait, generated_loop, loop_drills
from interview.selectors.problem_sets import set_items
from interview.services.drills import drill_answer_grade, drill_attempt_start
from interview.services.submissions import Created, submission_create


class InterviewOver(Exception):
    """A write that arrived after the interview's end (or after it was finished)."""

    def __init__(self, interview: MockInterview):
        ended = interview.closed_at.astimezone(UTC).strftime("%H:%M:%S UTC")
        super().__init__(f"Time is up: this interview ended at {ended}, and answers after the end do not count. "
                         "Your report is ready.")
        self.interview = interview


class InterviewError(Exception):
    """A mock interview that cannot be started as asked, or a write that does not apply."""


def mock_interview_start(*, user, duration_minutes: int, problem_set: ProblemSet | None = None,
                         level: str = "", rng: random.Random | None = None,
                         now: datetime | None = None, duration: timedelta | None = None) -> MockInterview:
    """Start a new interview on the server's clock: a set's items, or a loop generated for level.

    `duration` overrides the minutes for tests that need an interview of a few seconds; users pick one of
    durations_for(problem_set).
    """
    if duration is None:
        allowed = durations_for(problem_set)
        if duration_minutes not in allowed:
            raise InterviewError(f"Pick a duration of {', '.join(map(str, allowed))} minutes.")
        duration = timedelta(minutes=duration_minutes)
    drills = []
    if problem_set is not None:
        targets = [item.target for item in set_items(problem_set)]
        level = ""
    elif level in Level.values:
        rng = rng or random.Random()
        targets = [question or problem for question, problem in
                   generated_loop(level=level, duration_minutes=duration_minutes, rng=rng)]
        drills = loop_drills(level=level, rng=rng, problems=[t for t in targets if isinstance(t, Problem)])
    else:
        raise InterviewError("Pick a published set or a level for the generated loop.")
    if not targets:
        raise InterviewError("There is nothing to ask yet: the question bank and the problems are empty.")
    now = now or timezone.now()
    with transaction.atomic():
        interview = MockInterview.objects.create(user=user, problem_set=problem_set, level=level,
                                                 duration_minutes=duration_minutes, started_at=now,
                                                 ends_at=now + duration)
        problem_item = None
        for position, (target, is_follow_up) in enumerate(asked_in_order(targets, drills), start=1):
            item = MockInterviewItem.objects.create(interview=interview, position=position,
                                                    follows=problem_item if is_follow_up else None,
                                                    **_item_row(target, user=user, now=now))
            if item.is_problem:
                problem_item = item
    return interview


def _item_row(target, *, user, now: datetime) -> dict:
    """The item's fields for a question, a problem, or a drill with its numbers drawn now."""
    if isinstance(target, Drill):
        return {"drill": target, "drill_attempt": drill_attempt_start(user=user, drill=target, now=now)}
    return {"problem": target} if isinstance(target, Problem) else {"question": target}


def _locked_running(interview: MockInterview, now: datetime) -> MockInterview:
    """The interview's row, locked for this transaction; InterviewOver when its time is up."""
    locked = MockInterview.objects.select_for_update().get(pk=interview.pk)
    if locked.is_over(now):
        raise InterviewOver(locked)
    return locked


def _closing_seconds(interview: MockInterview, until: datetime) -> int:
    if interview.current_since is None:
        return 0
    return max(0, int((min(until, interview.ends_at) - interview.current_since).total_seconds()))


def mock_interview_open(*, item: MockInterviewItem, now: datetime | None = None) -> None:
    """Record that item is the one open now: the item left gets the seconds since it was opened.

    Opening after the end changes nothing (the time record closed with the interview).
    """
    now = now or timezone.now()
    with transaction.atomic():
        try:
            interview = _locked_running(item.interview, now)
        except InterviewOver:
            return
        if interview.current_item_id == item.pk:
            return
        if interview.current_item_id is not None:
            MockInterviewItem.objects.filter(pk=interview.current_item_id).update(
                seconds_spent=F("seconds_spent") + _closing_seconds(interview, now))
        MockInterview.objects.filter(pk=interview.pk).update(current_item=item, current_since=now)
        MockInterviewItem.objects.filter(pk=item.pk, opened_at__isnull=True).update(opened_at=now)


def _running_item(item: MockInterviewItem, now: datetime):
    return MockInterviewItem.objects.filter(pk=item.pk, interview__state=InterviewState.IN_PROGRESS,
                                            interview__ends_at__gt=now)


def _answerable(item: MockInterviewItem, now: datetime) -> None:
    """InterviewOver once the clock ran out; InterviewError for a follow-up not asked yet."""
    if item.interview.is_over(now):
        raise InterviewOver(item.interview)
    waiting = follow_up_wait(item)
    if waiting:
        raise InterviewError(waiting)


def mock_interview_save_draft(*, item: MockInterviewItem, draft: str, now: datetime | None = None) -> None:
    """Keep what the user is typing; InterviewOver after the end."""
    now = now or timezone.now()
    if not _running_item(item, now).update(draft=draft):
        raise InterviewOver(item.interview)


def mock_interview_answer(*, item: MockInterviewItem, answer: str, now: datetime | None = None) -> MockInterviewItem:
    """Submit a concept answer (again, to replace it, while the clock runs); InterviewOver after the end."""
    if item.question_id is None:
        raise InterviewError("A coding problem is answered by submitting code.")
    now = now or timezone.now()
    _answerable(item, now)
    answer = answer.strip()
    matched = covered_indices(answer, item.question.key_points)
    fields = {"answer": answer, "draft": answer, "answered_at": now, "matched": matched, "covered": matched,
              "corrected": False}
    if not _running_item(item, now).update(**fields):
        raise InterviewOver(item.interview)
    for name, value in fields.items():
        setattr(item, name, value)
    return item


def mock_interview_estimate(*, item: MockInterviewItem, answer: str, now: datetime | None = None) -> MockInterviewItem:
    """Submit a drill's estimate (again, to replace it, while the clock runs); InterviewOver after the end.

    AnswerRefused, with nothing written, for an answer that cannot be graded.
    """
    if item.drill_id is None:
        raise InterviewError("Only an estimation drill is answered with a number and a unit.")
    now = now or timezone.now()
    _answerable(item, now)
    graded = drill_answer_grade(attempt=item.drill_attempt, answer=answer)
    with transaction.atomic():
        if not _running_item(item, now).update(answer=graded.answer, draft=graded.answer, answered_at=now):
            raise InterviewOver(item.interview)
        DrillAttempt.objects.filter(pk=item.drill_attempt_id).update(
            answer=graded.answer, answer_value=graded.value, score=graded.score, answered_at=now)
    item.answer, item.answered_at = graded.answer, now
    return item


def mock_interview_submit(*, item: MockInterviewItem, source: str, suite: str, idempotency_key: str | None = None,
                          now: datetime | None = None) -> Created:
    """Send code for one of the interview's problems to the judge, linked to the interview.

    The interview's row is locked while the submission is created, so one that arrives as the clock runs out
    either counts (made before the end) or is refused; never made and then left out.
    """
    if item.problem_id is None:
        raise InterviewError("A concept question is answered in words.")
    now = now or timezone.now()
    with transaction.atomic():
        _locked_running(item.interview, now)
        created = submission_create(user=item.interview.user, problem=item.problem, source=source, suite=suite,
                                    idempotency_key=idempotency_key)
        MockInterviewSubmission.objects.get_or_create(item=item, submission=created.submission)
        MockInterviewItem.objects.filter(pk=item.pk).update(draft=source)
    return created


def mock_interview_finish(*, interview: MockInterview, now: datetime | None = None) -> bool:
    """Close the interview (in_progress → finished) at now, or at its end if that came first.

    The finish button calls it, and so does the first look at an interview whose time ran out. False when it
    was already finished.
    """
    now = now or timezone.now()
    with transaction.atomic():
        locked = MockInterview.objects.select_for_update().get(pk=interview.pk)
        if locked.state != InterviewState.IN_PROGRESS:
            return False
        closed = min(now, locked.ends_at)
        if locked.current_item_id is not None:
            MockInterviewItem.objects.filter(pk=locked.current_item_id).update(
                seconds_spent=F("seconds_spent") + _closing_seconds(locked, closed))
        MockInterview.objects.filter(pk=locked.pk, state=InterviewState.IN_PROGRESS).update(
            state=InterviewState.FINISHED, finished_at=closed, current_item=None, current_since=None)
    interview.state, interview.finished_at = InterviewState.FINISHED, closed
    return True


def mock_interview_correct(*, item: MockInterviewItem, covered: list[int], now: datetime | None = None) -> None:
    """The user's correction of the matcher on the report: these key points count. Only once it is over."""
    now = now or timezone.now()
    if not item.interview.is_over(now):
        raise InterviewError("Key points can be corrected on the report, once the interview is over.")
    if item.question_id is None:
        raise InterviewError("Only a concept question has key points.")
    if not item.answer:
        raise InterviewError("This question was not answered, so it covers no key point.")
    covered = sorted({index for index in covered if 0 <= index < len(item.question.key_points)})
    MockInterviewItem.objects.filter(pk=item.pk).update(covered=covered, corrected=covered != item.matched)

