"""Template filters for verdicts, test statuses and the figures the judge measures."""

from django import template
from django.utils.html import json_script

from interview.figures import milliseconds, ratio, size
from interview.models import Status, TestStatus, Verdict

register = template.Library()

# The words for every verdict, test status and submission status, taken from the models' choices. A failing
# test status is also a verdict, with the same label.
LABELS = {**dict(Verdict.choices), **dict(TestStatus.choices), **dict(Status.choices)}


@register.filter
def verdict_label(value: str) -> str:
    """The words for a verdict, test status or submission status."""
    return LABELS.get(value, value.replace("_", " ").capitalize() if value else "")


@register.simple_tag
def verdict_labels_script():
    """The same words as JSON in a <script> element, for the live results script."""
    return json_script(LABELS, "verdict-labels")


# Worded by interview.figures, which the command-line client shares.
register.filter("milliseconds", milliseconds)
register.filter("size", size)
register.filter("ratio", ratio)


@register.filter
def time_limit(limits: dict) -> str:
    """A problem's time limit in the words every time verdict uses (runner.problems.Limits.time_words)."""
    return f"{float(limits.get('time_ratio', 5.0)):g}× the reference's time and {float(limits.get('time_cap_ms', 2000.0)):g} ms a call"


@register.filter
def memory_limit(limits: dict) -> str:
    """A problem's memory limit as the statement and the results word it."""
    floor = size(int(limits.get("memory_floor_bytes", 1 << 20)))
    return f"{float(limits.get('memory_ratio', 4.0)):g}× the reference's peak ({floor} allowed on any test)"


@register.filter
def help_shown(submission) -> str:
    """The help its author had seen when sending it, as "2 hints and 1 why" ("" for none): a failure's why
    opened counts as a hint (interview.services.whys)."""
    parts = [f"{count} {word}{'s' if count != 1 else ''}"
             for count, word in ((submission.hints_shown, "hint"), (submission.whys_shown, "why")) if count]
    return " and ".join(parts)
