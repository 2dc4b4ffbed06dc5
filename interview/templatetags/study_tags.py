"""Template filters for practice and mock interviews."""

from django import template

register = template.Library()


@register.filter
def duration(seconds) -> str:
    """Seconds as `1 h 05 min`, `4 min 20 s` or `35 s`."""
    seconds = int(seconds or 0)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {seconds:02d} s"
    return f"{seconds} s"
