"""Markdown to HTML, for the content git holds and for text that users write.

Both paths share one Markdown dialect: fenced code highlighted by Pygments (CSS classes, styled by
pygments_stylesheet below), tables, and no raw HTML: a `<tag>` in the source shows as text. Text a user
wrote is then sanitised with nh3, since Markdown alone still lets through links such as `javascript:`.
"""

from functools import lru_cache

import markdown
import nh3
import pygments
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

HIGHLIGHT_CLASS = "highlight"
LIGHT_CODE_STYLE = "default"
DARK_CODE_STYLE = "github-dark"

_USER_TAGS = {
    "p", "br", "hr", "strong", "em", "del", "code", "pre", "span", "div", "blockquote",
    "ul", "ol", "li", "a", "h1", "h2", "h3", "h4", "h5", "h6",
    "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
_USER_ATTRIBUTES = {
    "a": {"href", "title"},
    "span": {"class"},
    "div": {"class"},
    "code": {"class"},
    "th": {"align"},
    "td": {"align"},
}


def _markdown(*, heading_links: bool) -> markdown.Markdown:
    """A fresh converter (a Markdown instance keeps state between calls, so none is shared)."""
    extensions = ["fenced_code", "codehilite", "tables", "sane_lists"]
    configs = {"codehilite": {"css_class": HIGHLIGHT_CLASS, "guess_lang": False}}
    if heading_links:
        extensions.append("toc")
        configs["toc"] = {
            "permalink": "#",
            "permalink_class": "heading-link",
            "permalink_title": "Link to this section",
        }
    converter = markdown.Markdown(extensions=extensions, extension_configs=configs, output_format="html")
    converter.preprocessors.deregister("html_block")
    converter.inlinePatterns.deregister("html")
    return converter


@lru_cache(maxsize=2048)
def render_markdown(text: str) -> str:
    """HTML for Markdown from the repository or the admin: trusted, but still without raw HTML. Remembered: a
    sync renders every text of the content again to see whether it changed (2.3 s of a whole sync's 4.5 s)."""
    return _markdown(heading_links=True).convert(text)


def render_user_markdown(text: str) -> str:
    """HTML for Markdown a user wrote, sanitised so that it can be shown to anyone."""
    return nh3.clean(
        _markdown(heading_links=False).convert(text),
        tags=_USER_TAGS,
        attributes=_USER_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="nofollow noopener noreferrer",
    )


def highlight_python(source: str) -> str:
    """HTML for Python source (a user's submission, say) with numbered lines; Pygments escapes the text."""
    return pygments.highlight(source, PythonLexer(), HtmlFormatter(cssclass=HIGHLIGHT_CLASS, linenos="inline"))


@lru_cache(maxsize=1)
def pygments_stylesheet() -> str:
    """CSS for highlighted code: a light style, and a dark one for the dark theme, chosen or automatic.

    The dark rules apply under `html[data-theme="dark"]`, and under the system's dark preference unless
    the reader picked the light theme; templates/base.html sets that attribute.
    """
    light = _code_style_rules(LIGHT_CODE_STYLE, f".{HIGHLIGHT_CLASS}")
    chosen_dark = _code_style_rules(DARK_CODE_STYLE, f'html[data-theme="dark"] .{HIGHLIGHT_CLASS}')
    automatic_dark = _code_style_rules(DARK_CODE_STYLE, f'html:not([data-theme="light"]) .{HIGHLIGHT_CLASS}')
    return "\n".join(
        [
            f"/* Pygments: {LIGHT_CODE_STYLE} (light), {DARK_CODE_STYLE} (dark) */",
            light,
            chosen_dark,
            "@media (prefers-color-scheme: dark) {",
            automatic_dark,
            "}",
        ]
    )


def _code_style_rules(style: str, selector: str) -> str:
    """The background and token colours of one Pygments style, all scoped under `selector`.

    Pygments' own get_style_defs also emits unscoped `pre` and line-number rules, which would let the
    dark style leak into the light theme, so only the scoped parts are taken.
    """
    formatter = HtmlFormatter(style=style)
    return "\n".join(formatter.get_background_style_defs(selector) + formatter.get_token_style_defs(selector))
