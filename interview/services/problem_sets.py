"""Writes of problem sets beyond what the admin's forms save: keeping the items' positions tidy."""

from django.db import transaction
from django.db.models import Case, IntegerField, Value, When

from interview.models import ProblemSet


def problem_set_renumber(*, problem_set: ProblemSet) -> None:
    """Number the set's items 1, 2, 3… in their current order; an item left at position 0 goes last.

    Position 0 is the default of a row added without the admin's drag script, which numbers every row.
    """
    unnumbered_last = Case(When(position=0, then=Value(1)), default=Value(0), output_field=IntegerField())
    with transaction.atomic():
        items = problem_set.items.select_for_update().order_by(unnumbered_last, "position", "id")
        for position, item in enumerate(items, start=1):
            if item.position != position:
                type(item).objects.filter(pk=item.pk).update(position=position)
