"""Template filters for verdicts, test statuses and the figures the judge measures."""

from django import template
from django.utils.html import json_script

register = template.Library()

LABELS = {
    "accepted": "Accepted",
    "wrong_answer": "Wrong answer",
    "time_limit_exceeded": "Time limit exceeded",
    "memory_limit_exceeded": "Memory limit exceeded",
    "runtime_error": "Runtime error",
    "compile_error": "Compile error",
    "forbidden": "Forbidden call",
    "internal_error": "Judge error",
    "passed": "Passed",
    "skipped": "Skipped",
    "queued": "Queued",
    "running": "Running",
    "finished": "Finished",
    "error": "Could not be judged",
}


@register.filter
def verdict_label(value: str) -> str:
    """The words for a verdict, test status or submission status."""
    return LABELS.get(value, value.replace("_", " ").capitalize() if value else "")


@register.simple_tag
def verdict_labels_script():
    """The same words as JSON in a <script> element, for the live results script."""
    return json_script(LABELS, "verdict-labels")


@register.filter
def milliseconds(value) -> str:
    if value is None:
        return "—"
    return f"{value:.3f} ms" if value < 10 else f"{value:.1f} ms"


@register.filter
def size(value) -> str:
    """Bytes in binary units."""
    if value is None:
        return "—"
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= factor:
            return f"{value / factor:.2f} {unit}"
    return f"{int(value)} B"


@register.filter
def ratio(value) -> str:
    return "—" if value is None else f"{value:.2f}×"
