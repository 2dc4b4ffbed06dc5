"""Markdown rendering: highlighted code, tables, no raw HTML, and sanitised user text."""

import re

from interview.rendering import pygments_stylesheet, render_markdown, render_user_markdown

LISTING = """```python
class MHSA(nn.Module):
    def forward(self, x):
        return x
```
"""


def test_fenced_python_is_highlighted_with_pygments_classes():
    html = render_markdown(LISTING)
    assert html.startswith('<div class="highlight"><pre>')
    assert re.search(
        r'<span class="k">class</span>(<span class="w"> </span>| )<span class="nc">MHSA</span>', html
    )
    assert '<span class="nf">forward</span>' in html


def test_tables_render():
    html = render_markdown("| format | exponent |\n|---|---|\n| bf16 | 8 |\n")
    assert "<table>" in html and "<th>format</th>" in html and "<td>bf16</td>" in html


def test_headings_get_anchors_to_link_to():
    html = render_markdown("### Loss scaling\n\nText.")
    assert '<h3 id="loss-scaling">' in html
    assert 'class="heading-link"' in html


def test_raw_html_in_repository_content_is_shown_as_text():
    html = render_markdown('<script>alert(1)</script>\n\nSome <b onclick="x()">bold</b> text.')
    assert "<script>" not in html and "<b" not in html
    assert "&lt;script&gt;" in html and "&lt;b onclick" in html


def test_user_markdown_keeps_formatting_and_highlighting():
    html = render_user_markdown("**Online softmax** with `running max`.\n\n" + LISTING)
    assert "<strong>Online softmax</strong>" in html
    assert "<code>running max</code>" in html
    assert '<span class="nc">MHSA</span>' in html


def test_user_markdown_drops_dangerous_links_and_markup():
    html = render_user_markdown(
        "[click](javascript:alert(1)) [ok](https://example.com) ![pixel](https://tracker.example/p.png)\n\n"
        "<img src=x onerror=alert(1)> <iframe src=//evil>"
    )
    assert "javascript:" not in html
    assert '<a rel="nofollow noopener noreferrer">click</a>' in html
    assert '<a href="https://example.com" rel="nofollow noopener noreferrer">ok</a>' in html
    assert "<img" not in html and "tracker.example" not in html
    assert "&lt;img src=x onerror=alert(1)&gt; &lt;iframe src=//evil&gt;" in html


def test_the_code_stylesheet_scopes_the_dark_style_to_the_dark_theme():
    css = pygments_stylesheet()
    rules = [line for line in css.splitlines() if "{" in line and not line.startswith("@media")]
    assert all(rule.lstrip().startswith((".highlight", "html[", "html:not(")) for rule in rules)
    assert 'html[data-theme="dark"] .highlight .k' in css
    assert "@media (prefers-color-scheme: dark)" in css
