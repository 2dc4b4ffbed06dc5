"""Template filters for the question pages."""

import re

from django import template
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

from interview.selectors.questions import SNIPPET_CLOSE, SNIPPET_OPEN

register = template.Library()

_WORD = re.compile(r"\w+")
# The Markdown a snippet of an answer may carry: emphasis, code spans and fences, headings, table rules.
_MARKDOWN_MARKS = re.compile(r"```\w*|[*`|]+|^#+\s*", re.MULTILINE)


@register.filter
def highlight(text: str, query: str) -> SafeString:
    """Escape `text` and mark each word that starts with a word of `query` (a search's hits, roughly)."""
    words = sorted({word for word in _WORD.findall(query or "") if len(word) > 1}, key=len, reverse=True)
    if not words:
        return conditional_escape(text)
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, words)) + r")\w*", re.IGNORECASE)
    pieces, last = [], 0
    for match in pattern.finditer(text):
        pieces.append(conditional_escape(text[last : match.start()]))
        pieces.append(format_html("<mark>{}</mark>", match.group(0)))
        last = match.end()
    pieces.append(conditional_escape(text[last:]))
    return mark_safe("".join(pieces))


@register.filter
def search_snippet(snippet: str | None) -> SafeString:
    """A search's passage of the answer as plain text with its hits marked; empty when nothing in it matched."""
    if not snippet or SNIPPET_OPEN not in snippet:
        return mark_safe("")
    text = " ".join(_MARKDOWN_MARKS.sub("", snippet).split())
    escaped = str(conditional_escape(text))
    return mark_safe(escaped.replace(SNIPPET_OPEN, "<mark>").replace(SNIPPET_CLOSE, "</mark>"))


_FENCE = re.compile(r"^```python\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)


@register.filter
def prompt_html(prompt: str) -> SafeString:
    """A question's prompt as the interviewer shows it: its words in paragraphs, and a ```python listing it
    carries ("Here is a module. Walk me through it") as highlighted code, there before any reveal."""
    from django.template.defaultfilters import linebreaks_filter

    from interview.rendering import highlight_python

    parts, end = [], 0
    for fence in _FENCE.finditer(prompt):
        parts.append(linebreaks_filter(prompt[end:fence.start()].strip(), autoescape=True))
        parts.append(highlight_python(fence.group(1)))
        end = fence.end()
    parts.append(linebreaks_filter(prompt[end:].strip(), autoescape=True))
    return mark_safe("".join(part for part in parts if part))
