"""Reads of mock interviews: the generated loop, where an interview stands, and its report with the score.

The score, as the report page states it:
- a concept question scores the share of its key points the answer covered (0 when not answered);
- a coding problem scores 1 when a submission of all tests made before the end was accepted, else half the
  share of tests its best such submission passed;
- an estimation drill scores its answer on the drill's grading curve (0 when not answered);
- the interview scores the average over its items, a coding problem counting twice, as a percentage.
Time enters only through the clock: whatever arrives after the end is refused, and the time spent on each
item is reported beside its score rather than folded into it.
"""

import random
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Q
from django.utils import timezone

from interview.estimation.drills import Worked
from interview.keypoints import match_key_points
from interview.models import (
    Drill, InterviewState, Level, MockInterview, MockInterviewItem, Problem, Question, Status, Submission, Suite,
    TestStatus, Topic,
)

CONCEPT_QUESTIONS = 4
# Estimation drills a generated loop asks, from mid level up (an interviewer's whiteboard numbers).
LOOP_DRILLS = {Level.MID: 1, Level.SENIOR: 1}
PROBLEM_WEIGHT = 2
PARTIAL_CREDIT = 0.5
WEAKEST_TOPICS = 3
# Per level, the difficulties to draw from, preferred first: (questions, problems).
LEVEL_DIFFICULTIES = {
    Level.JUNIOR: (("easy", "medium"), ("easy", "medium")),
    Level.MID: (("medium", "easy", "hard"), ("medium", "easy", "hard")),
    Level.SENIOR: (("hard", "medium"), ("hard", "medium", "easy")),
}


def _by_preference(rows: list, preferred: tuple[str, ...], rng: random.Random) -> list:
    """rows shuffled, then stably ordered by how preferred their difficulty is (others last)."""
    rows = list(rows)
    rng.shuffle(rows)
    rank = {difficulty: index for index, difficulty in enumerate(preferred)}
    return sorted(rows, key=lambda row: rank.get(row.difficulty, len(rank)))


def _spread_over_topics(problems: list[Problem], count: int, preferred: tuple[str, ...]) -> list[Problem]:
    """The first `count` problems in their order, except that each next pick prefers one whose topics the
    picks so far do not cover yet, among the level's difficulties (a problem of another is drawn only when
    none is left). The problems' topics are prefetched."""
    topics_of = {problem.pk: {topic.pk for topic in problem.topics.all()} for problem in problems}
    picks, covered, left = [], set(), list(problems)
    while left and len(picks) < count:
        # min() keeps the first of equals, so the order (the level's preference, then the draw) breaks ties.
        pick = min(left, key=lambda problem: (problem.difficulty not in preferred,
                                              bool(covered & topics_of[problem.pk])))
        picks.append(pick)
        covered |= topics_of[pick.pk]
        left.remove(pick)
    return picks


def generated_loop(*, level: str, duration_minutes: int, rng: random.Random) -> list[tuple]:
    """Four concept questions from four different topics and one coding problem (two from 60 minutes up),
    the problems spread over the bank's topics.

    Returned as (question, None) and (None, problem) pairs, questions first, in the order to ask them.
    """
    question_levels, problem_levels = LEVEL_DIFFICULTIES[Level(level)]
    problem_count = 2 if duration_minutes >= 60 else 1
    candidates = _by_preference(list(Problem.objects.live().prefetch_related("topics")), problem_levels, rng)
    problems = _spread_over_topics(candidates, problem_count, problem_levels)
    # The problems' follow-ups are asked after their code, never drawn as the opening questions.
    by_topic: dict[int, list[Question]] = {}
    for question in Question.objects.live().exclude(follow_up_of__problem__in=problems).select_related("topic"):
        by_topic.setdefault(question.topic_id, []).append(question)
    picks = [_by_preference(questions, question_levels, rng)[0] for questions in by_topic.values()]
    picks = _by_preference(picks, question_levels, rng)[:CONCEPT_QUESTIONS]
    return [(question, None) for question in picks] + [(None, problem) for problem in problems]


def loop_drills(*, level: str, rng: random.Random, problems: list[Problem] = ()) -> list[Drill]:
    """The estimation drills of a generated loop at level, of the level's question difficulties first, none of
    them a follow-up of problems (those are asked after the code)."""
    question_levels, _ = LEVEL_DIFFICULTIES[Level(level)]
    drills = Drill.objects.live().exclude(follow_up_of__problem__in=problems)
    return _by_preference(list(drills), question_levels, rng)[:LOOP_DRILLS.get(Level(level), 0)]


def asked_in_order(targets: list, drills: list) -> list[tuple]:
    """What the interview asks, in order, as (question, problem or drill; whether it follows up the problem
    before it): the drills before the first coding problem, and after each coding problem its follow-ups,
    those the interview does not ask already."""
    first_problem = next((index for index, target in enumerate(targets) if isinstance(target, Problem)),
                         len(targets))
    listed = [*targets[:first_problem], *drills, *targets[first_problem:]]
    seen = {(type(target), target.pk) for target in listed}
    asked = []
    for target in listed:
        asked.append((target, False))
        if not isinstance(target, Problem):
            continue
        for follow_up in target.follow_ups.select_related("question", "drill"):
            extra = follow_up.target
            if (type(extra), extra.pk) not in seen and extra.retired_at is None:
                seen.add((type(extra), extra.pk))
                asked.append((extra, True))
    return asked


def running_interview(*, user) -> MockInterview | None:
    """The user's interview still on the clock, if any."""
    return (MockInterview.objects.filter(user=user, state=InterviewState.IN_PROGRESS, ends_at__gt=timezone.now())
            .order_by("-started_at").first())


def past_interviews(*, user, limit: int = 50) -> list[MockInterview]:
    """The user's latest interviews, newest first, each with `over` and, once over, its score `percent`."""
    interviews = list(MockInterview.objects.filter(user=user).select_related("problem_set")
                      .annotate(item_count=Count("items"))[:limit])
    now = timezone.now()
    for interview in interviews:
        interview.over = interview.is_over(now)
        interview.percent = interview_report(interview=interview, now=now).percent if interview.over else None
    return interviews


def follow_up_wait(item: MockInterviewItem) -> str:
    """Why a follow-up cannot be answered yet ("" when it can, and for any other item).

    An interviewer asks after the code, one question at a time: a follow-up opens once its coding item has a
    submission of all tests, and each earlier follow-up of that item has an answer.
    """
    problem_item = item.follows
    if problem_item is None:
        return ""
    if not problem_item.attempts.filter(submission__suite=Suite.ALL).exists():
        return (f"This follow-up is asked after your code: submit “{problem_item.problem.title}” "
                f"(item {problem_item.position}) first.")
    earlier = problem_item.follow_ups.filter(position__lt=item.position, answered_at__isnull=True).first()
    if earlier is not None:
        return f"Follow-ups are asked in order: answer item {earlier.position} first."
    return ""


def item_submissions(item: MockInterviewItem) -> list[Submission]:
    """The item's submissions of all tests made before the interview closed, newest first, with passed counts."""
    passed = Count("judgement__tests", filter=Q(judgement__tests__status=TestStatus.PASSED))
    return list(Submission.objects.filter(mock_interview_attempt__item=item, suite=Suite.ALL,
                                          created_at__lte=item.interview.closed_at)
                .select_related("judgement").annotate(passed=passed).order_by("-created_at"))


def best_submission(submissions: list[Submission]) -> Submission | None:
    """The submission that counts: the first accepted one, else the one that passed the most tests."""
    accepted = [s for s in submissions if s.accepted]
    if accepted:
        return min(accepted, key=lambda submission: submission.created_at)
    judged = [s for s in submissions if s.status == Status.FINISHED]
    return max(judged, key=lambda s: (s.passed / (s.tests_total or 1), s.created_at), default=None)


@dataclass
class ItemReport:
    item: MockInterviewItem
    score: float
    weight: int
    seconds: int
    key_points: list[dict] = field(default_factory=list)  # {text, covered, matched, evidence}
    submission: Submission | None = None  # the one that counts
    attempts: list[Submission] = field(default_factory=list)  # every submission of all tests, oldest first
    pending: int = 0  # submissions still being judged
    worked: Worked | None = None  # a drill's numbers and worked solution

    @property
    def percent(self) -> int:
        return round(100 * self.score)


@dataclass
class WeakTopic:
    topic: Topic
    coverage: float

    @property
    def percent(self) -> int:
        return round(100 * self.coverage)


@dataclass
class Report:
    interview: MockInterview
    items: list[ItemReport]
    score: float
    weakest: list[WeakTopic]
    problems_to_redo: list[Problem]

    @property
    def percent(self) -> int:
        return round(100 * self.score)

    @property
    def seconds(self) -> int:
        return sum(item.seconds for item in self.items)


def seconds_spent(item: MockInterviewItem, now: datetime) -> int:
    """The item's recorded time, plus the running spell when it is open now."""
    interview = item.interview
    seconds = item.seconds_spent
    if interview.current_item_id == item.pk and interview.current_since is not None:
        seconds += max(0, int((min(now, interview.closed_at) - interview.current_since).total_seconds()))
    return seconds


def _question_report(item: MockInterviewItem, now: datetime) -> ItemReport:
    points = item.question.key_points
    evidence = {m.index: m.evidence for m in match_key_points(item.answer, points)} if item.answer else {}
    key_points = [{"index": index, "text": point["text"], "covered": index in item.covered,
                   "matched": index in item.matched, "evidence": evidence.get(index, "")}
                  for index, point in enumerate(points)]
    score = len(set(item.covered)) / len(points) if points and item.answer else 0.0
    return ItemReport(item, score, 1, seconds_spent(item, now), key_points=key_points)


def _problem_report(item: MockInterviewItem, now: datetime) -> ItemReport:
    submissions = item_submissions(item)
    best = best_submission(submissions)
    if best is None:
        score = 0.0
    elif best.accepted:
        score = 1.0
    else:
        score = PARTIAL_CREDIT * best.passed / (best.tests_total or 1)
    pending = sum(1 for submission in submissions if submission.is_active)
    return ItemReport(item, score, PROBLEM_WEIGHT, seconds_spent(item, now), submission=best,
                      attempts=submissions[::-1], pending=pending)


def _drill_report(item: MockInterviewItem, now: datetime) -> ItemReport:
    attempt = item.drill_attempt
    return ItemReport(item, attempt.score or 0.0, 1, seconds_spent(item, now), worked=attempt.worked())


def _item_report(item: MockInterviewItem, now: datetime) -> ItemReport:
    if item.is_problem:
        return _problem_report(item, now)
    return _drill_report(item, now) if item.is_drill else _question_report(item, now)


def interview_report(*, interview: MockInterview, now: datetime | None = None) -> Report:
    """Everything the report page shows: per item the score and its evidence, the total, what to study next."""
    now = now or timezone.now()
    items = list(interview.items.select_related("question", "question__topic", "problem", "interview", "drill",
                                                "drill_attempt", "follows__problem"))
    reports = [_item_report(item, now) for item in items]
    weights = sum(report.weight for report in reports)
    score = sum(report.score * report.weight for report in reports) / weights if weights else 0.0
    coverage: dict[int, list[float]] = {}
    topics: dict[int, Topic] = {}
    for report in reports:
        if report.item.question_id:
            topic = report.item.question.topic
            topics[topic.pk] = topic
            coverage.setdefault(topic.pk, []).append(report.score)
    weak = sorted((WeakTopic(topics[pk], sum(scores) / len(scores)) for pk, scores in coverage.items()),
                  key=lambda weak_topic: (weak_topic.coverage, weak_topic.topic.position))
    weakest = [weak_topic for weak_topic in weak if weak_topic.coverage < 1][:WEAKEST_TOPICS]
    redo = [report.item.problem for report in reports if report.item.is_problem and report.score < 1]
    return Report(interview, reports, score, weakest, redo)

