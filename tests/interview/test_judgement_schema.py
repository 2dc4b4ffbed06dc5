"""A judgement's fields are written once on each side of the boundary: the engine's Outcome, which the worker
gets from the judge, and the Judgement row it is stored in. The web process must not import the engine, so this
test keeps the two the same, as test_vocabulary.py does the verdicts' names."""

import dataclasses

from django.db import models

from interview.judge.engine import Outcome, TestOutcome, judge_version
from interview.models import Judgement, JudgementTest

# What a row has that the judge does not say: the row it belongs to, when the worker began and ended it, and why
# it ended without a verdict when the judge itself failed every attempt.
JUDGEMENT_OWN = {"id", "submission", "started_at", "finished_at", "failure"}
TEST_OWN = {"id", "judgement"}


def outcome_fields(dataclass) -> dict[str, str]:
    return {field.name: field.type for field in dataclasses.fields(dataclass)}


def row_fields(model, own) -> dict[str, models.Field]:
    return {field.name: field for field in model._meta.concrete_fields if field.name not in own}


def test_an_outcome_has_every_judged_field_of_a_judgement_and_no_other():
    assert set(outcome_fields(Outcome)) - {"tests"} == set(row_fields(Judgement, JUDGEMENT_OWN))


def test_a_test_outcome_has_every_field_of_a_judgement_test_and_no_other():
    assert set(outcome_fields(TestOutcome)) == set(row_fields(JudgementTest, TEST_OWN))


def test_what_the_judge_may_leave_unmeasured_is_what_a_row_may_leave_null():
    for dataclass, model, own in ((Outcome, Judgement, JUDGEMENT_OWN), (TestOutcome, JudgementTest, TEST_OWN)):
        rows = row_fields(model, own)
        for name, annotation in outcome_fields(dataclass).items():
            if name in rows:
                assert ("None" in str(annotation)) == rows[name].null, f"{dataclass.__name__}.{name}"


def test_an_outcome_of_this_judge_fills_a_judgement_row():
    outcome = Outcome(verdict="accepted", tests=[], device="cpu", device_name="", torch_version="2.13.0",
                      sandbox="bubblewrap", judge_version=judge_version(), problem_version="fedcba9876543210",
                      time_user_ms=None, time_reference_ms=None, time_ratio=None, memory_user_peak_bytes=None,
                      memory_reference_peak_bytes=None, memory_ratio=None, stdout="", stderr="", seed_index=3)
    row = Judgement(**outcome.judgement_fields())
    row.full_clean(exclude=["submission", "started_at"], validate_unique=False, validate_constraints=False)
