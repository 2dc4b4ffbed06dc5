"""The judge's figures in words: milliseconds, bytes in binary units, ratios to the reference.

Plain Python, without Django, so that the pages (interview.templatetags.judge_tags) and the command-line client
(interview.cli), which must work without Django, word a figure the same way.
"""


def milliseconds(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.3f} ms" if value < 10 else f"{value:.1f} ms"


def size(value: float | None) -> str:
    """Bytes in binary units."""
    if value is None:
        return "—"
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= factor:
            return f"{value / factor:.2f} {unit}"
    return f"{int(value)} B"


def ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}×"
