"""Writes of problem sets beyond what the admin's forms save: keeping the items' positions tidy."""

from django.db import transaction

from interview.models import ProblemSet


def problem_set_renumber(*, problem_set: ProblemSet) -> None:
    """Number the set's items 1, 2, 3… in their current order, so the next insert or move has room."""
    with transaction.atomic():
        for position, item in enumerate(problem_set.items.select_for_update().order_by("position", "id"), start=1):
            if item.position != position:
                type(item).objects.filter(pk=item.pk).update(position=position)
