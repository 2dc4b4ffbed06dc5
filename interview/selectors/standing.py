"""Where an accepted submission stands: its time and peak memory beside those of every accepted submission of
the same problem version judged on the same kind of device, and a user's best submission to a problem.

The figures compared are the ratios to the reference, which the judge measures in the same run on the same
machine, so two machines of one kind compare fairly where their milliseconds would not. A submission counts
once, by its current judgement, and only a submission of all tests: a run of the sample tests is timed on
other inputs. A submission without a figure (a problem with no timed test, a judge that could not measure)
is left out of that figure's count, not counted as the slowest.
"""

from dataclasses import dataclass

from django.db.models import Case, Count, F, IntegerField, Q, QuerySet, Value, When

from interview.models import Judgement, Problem, Status, Submission, Suite, Verdict

# The histogram's bins, as ratios to the reference: half-open [low, high), open at both ends. Fixed rather than
# fitted to the figures, so the axis reads the same on every problem and the counts come from one query.
RATIO_EDGES = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0)
MEASURES = (("time", "time_ratio"), ("memory", "memory_ratio"))


@dataclass(frozen=True)
class Bin:
    low: float | None  # None: no lower bound
    high: float | None  # None: no upper bound
    count: int
    mine: bool  # the bin this submission's own figure falls in

    @property
    def label(self) -> str:
        if self.low is None:
            return f"under {self.high:g}×"
        if self.high is None:
            return f"{self.low:g}× or more"
        return f"{self.low:g}–{self.high:g}×"


@dataclass(frozen=True)
class Placing:
    """One figure of a submission among the other accepted submissions' same figure."""

    measure: str  # "time" or "memory"
    ratio: float | None  # None: the judge measured no such figure for this submission
    others: int  # the other accepted submissions with this figure
    beaten: int  # of those, how many have a higher ratio (slower, or holding more memory)
    tied: int  # of those, how many have exactly the same ratio
    bins: tuple[Bin, ...]

    @property
    def percent(self) -> int | None:
        """The share of the others it beats, rounded down so that 100 means every one; None when it has no figure
        or there is no other to compare with."""
        if self.ratio is None or not self.others:
            return None
        return 100 * self.beaten // self.others

    @property
    def tallest(self) -> int:
        return max((b.count for b in self.bins), default=0)


@dataclass(frozen=True)
class Standing:
    device: str  # the kind of device ("cpu", "cuda") every counted submission was judged on
    problem_version: str
    counted: int  # accepted submissions of that version on that device, this one included
    time: Placing
    memory: Placing

    @property
    def placings(self) -> tuple[Placing, Placing]:
        return self.time, self.memory


def _bounds() -> list[tuple[float | None, float | None]]:
    edges = (None, *RATIO_EDGES, None)
    return list(zip(edges[:-1], edges[1:], strict=True))


def _in_bin(field: str, low: float | None, high: float | None) -> Q:
    condition = Q(**{f"{field}__isnull": False})
    if low is not None:
        condition &= Q(**{f"{field}__gte": low})
    if high is not None:
        condition &= Q(**{f"{field}__lt": high})
    return condition


def accepted_judgements(*, problem_id: int, problem_version: str, device: str) -> QuerySet[Judgement]:
    """The current judgements of the accepted submissions of all tests to this version of the problem, judged on
    this kind of device (the partial index judgement_accepted_standing finds them)."""
    return Judgement.objects.filter(
        verdict=Verdict.ACCEPTED, problem_version=problem_version, device=device,
        submission__problem_id=problem_id, submission__suite=Suite.ALL, submission__status=Status.FINISHED,
        # A judgement superseded by a later one (the submission judged again) no longer speaks for it.
        submission__judgement=F("pk"),
    )


def standing(submission: Submission) -> Standing | None:
    """Where an accepted submission of all tests stands among its peers, in one query; None for any other."""
    judgement = submission.judgement
    if not submission.accepted or submission.suite != Suite.ALL:
        return None
    counts = {"counted": Count("pk")}
    for measure, field in MEASURES:
        ratio = getattr(judgement, field)
        has_figure = Q(**{f"{field}__isnull": False})
        counts[f"{measure}_others"] = Count("pk", filter=has_figure & ~Q(pk=judgement.pk))
        if ratio is not None:
            counts[f"{measure}_beaten"] = Count("pk", filter=Q(**{f"{field}__gt": ratio}))
            counts[f"{measure}_tied"] = Count("pk", filter=Q(**{field: ratio}) & ~Q(pk=judgement.pk))
        for index, (low, high) in enumerate(_bounds()):
            counts[f"{measure}_bin{index}"] = Count("pk", filter=_in_bin(field, low, high))
    found = accepted_judgements(problem_id=submission.problem_id, problem_version=judgement.problem_version,
                                device=judgement.device).aggregate(**counts)
    placings = {}
    for measure, field in MEASURES:
        ratio = getattr(judgement, field)
        bins = tuple(
            Bin(low, high, found[f"{measure}_bin{index}"],
                ratio is not None and (low is None or ratio >= low) and (high is None or ratio < high))
            for index, (low, high) in enumerate(_bounds()))
        placings[measure] = Placing(measure=measure, ratio=ratio, others=found[f"{measure}_others"],
                                    beaten=found.get(f"{measure}_beaten", 0), tied=found.get(f"{measure}_tied", 0),
                                    bins=bins)
    return Standing(device=judgement.device, problem_version=judgement.problem_version, counted=found["counted"],
                    **placings)


def best_submission(*, user, problem: Problem) -> Submission | None:
    """The user's accepted submission of all tests to the problem with the lowest time ratio (then memory ratio),
    those judged on its current version first; None when there is none."""
    if not user.is_authenticated:
        return None
    current = Case(When(judgement__problem_version=problem.version, then=Value(0)), default=Value(1),
                   output_field=IntegerField())
    return (Submission.objects.filter(user=user, problem=problem, suite=Suite.ALL, status=Status.FINISHED,
                                      judgement__verdict=Verdict.ACCEPTED)
            .select_related("problem", "judgement").defer("source", "judgement__stdout", "judgement__stderr")
            .order_by(current, F("judgement__time_ratio").asc(nulls_last=True),
                      F("judgement__memory_ratio").asc(nulls_last=True), "pk")
            .first())
