"""The report's rubric: four dimensions rated from what the interview measured, each with its evidence.

As the report page states it, each dimension is an average over the items that give evidence for it:
- correctness of code: 1 for a problem accepted before the end, else the share of tests its best submission
  of all tests passed (0 without one);
- efficiency of code: for each accepted problem, the mean over time and peak memory of min(1, reference /
  yours), so matching the reference or beating it scores 1;
- concepts covered: the share of each concept question's key points the answer covered;
- estimation accuracy: each drill's score on its grading curve.
A dimension with no such item reads "not assessed", never zero; the weakest assessed one links to practice.
"""

from dataclasses import dataclass, field

from interview.estimation.units import format_number
from interview.selectors.mock_interviews import ItemReport, Report


@dataclass
class Dimension:
    name: str
    ratings: list[float] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    practice: tuple[str, str] | None = None  # (label, url) to work on it, set on the weakest dimension
    weakest_item: tuple[float, str, str] | None = None  # (rating, label, url) of its weakest item

    @property
    def assessed(self) -> bool:
        return bool(self.ratings)

    @property
    def rating(self) -> float | None:
        return sum(self.ratings) / len(self.ratings) if self.ratings else None

    @property
    def percent(self) -> int | None:
        return None if self.rating is None else round(100 * self.rating)

    def add(self, rating: float, evidence: str, label: str, url: str) -> None:
        self.ratings.append(rating)
        self.evidence.append(evidence)
        if self.weakest_item is None or rating < self.weakest_item[0]:
            self.weakest_item = (rating, label, url)


def _correctness(entry: ItemReport, dimension: Dimension) -> None:
    problem, submission = entry.item.problem, entry.submission
    if submission is None:
        rating, evidence = 0.0, f"{problem.title}: no submission of all tests before the end"
    elif submission.accepted:
        rating, evidence = 1.0, f"{problem.title}: accepted, {submission.passed} of {submission.tests_total} tests"
    else:
        rating = submission.passed / (submission.tests_total or 1)
        evidence = f"{problem.title}: {submission.passed} of {submission.tests_total} tests passed"
    dimension.add(rating, evidence, f"Solve {problem.title} again", problem.get_absolute_url())


def _efficiency(entry: ItemReport, dimension: Dimension) -> None:
    submission = entry.submission
    if submission is None or not submission.accepted:
        return
    measured = (("time", submission.judgement.time_ratio), ("peak memory", submission.judgement.memory_ratio))
    figures = [(name, ratio) for name, ratio in measured if ratio]
    if not figures:
        return
    rating = sum(min(1.0, 1 / ratio) for _, ratio in figures) / len(figures)
    shown = ", ".join(f"{format_number(ratio)}× the reference's {name}" for name, ratio in figures)
    problem = entry.item.problem
    dimension.add(rating, f"{problem.title}: {shown}", f"Make {problem.title} faster and leaner",
                  problem.get_absolute_url())


def _concepts(entry: ItemReport, dimension: Dimension) -> None:
    question = entry.item.question
    covered = sum(point["covered"] for point in entry.key_points)
    evidence = (f"{question.title}: {covered} of {len(entry.key_points)} key points" if entry.item.answer
                else f"{question.title}: not answered")
    dimension.add(entry.score, evidence, f"Practise {question.topic.name}", question.topic.get_absolute_url())


def _estimation(entry: ItemReport, dimension: Dimension) -> None:
    drill, attempt = entry.item.drill, entry.item.drill_attempt
    evidence = (f"{drill.title}: {attempt.answer} against {entry.worked.answer_shown} ({attempt.percent}%)"
                if attempt.answered else f"{drill.title}: not answered (it was {entry.worked.answer_shown})")
    dimension.add(entry.score, evidence, f"Practise “{drill.title}”", drill.get_absolute_url())


def interview_rubric(*, report: Report) -> list[Dimension]:
    """The four dimensions of the report, in the page's order, the weakest assessed one with a practice link."""
    correctness, efficiency = Dimension("Correctness of code"), Dimension("Efficiency of code")
    concepts, estimation = Dimension("Concepts covered"), Dimension("Estimation accuracy")
    for entry in report.items:
        if entry.item.is_problem:
            _correctness(entry, correctness)
            _efficiency(entry, efficiency)
        elif entry.item.is_drill:
            _estimation(entry, estimation)
        else:
            _concepts(entry, concepts)
    dimensions = [correctness, efficiency, concepts, estimation]
    weak = [dimension for dimension in dimensions if dimension.assessed and dimension.rating < 1]
    if weak:
        weakest = min(weak, key=lambda dimension: dimension.rating)
        _, label, url = weakest.weakest_item
        weakest.practice = (label, url)
    return dimensions
