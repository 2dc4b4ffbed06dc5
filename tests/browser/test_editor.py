"""The committed code-editor bundle in a real Chromium, on a plain page served without Django."""

import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

STATIC = Path(__file__).resolve().parents[2] / "interview" / "static"
STARTER = "def solve(x):\n    pass\n"

# The page a problem page will be: a form whose textarea the editor takes over. No site stylesheet, so the
# editor's own CSS has to carry the theme.
PAGE = f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Editor</title>
  <link rel="stylesheet" href="/static/interview/editor/editor.css">
  <script src="/static/interview/editor/editor.js" defer></script>
</head>
<body>
  <form method="post" action="/submit">
    <label for="source">Solution</label>
    <textarea id="source" name="source" rows="8">{STARTER}</textarea>
    <button type="submit">Submit</button>
  </form>
  <script>
    window.calls = [];
    document.addEventListener("DOMContentLoaded", () => {{
      window.editor = InterviewEditor.mount(document.getElementById("source"), {{
        onRun: () => calls.push("run"),
        onSubmit: () => calls.push("submit"),
        onChange: (text) => calls.push(["change", text]),
      }});
    }});
  </script>
</body>
</html>
"""


class FixtureHandler(SimpleHTTPRequestHandler):
    """The page at /, the committed static files under /static/, and a form target that keeps each post."""

    def __init__(self, *args, **kwargs):
        # interview/, so that /static/interview/editor/... is where Django serves the same files.
        super().__init__(*args, directory=str(STATIC.parent), **kwargs)

    def do_GET(self):
        if self.path == "/":
            self.respond(PAGE)
        else:
            super().do_GET()

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        self.server.posts.append(parse_qs(body))
        self.respond("<p>Received</p>")

    def respond(self, html):
        content = html.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    def log_message(self, format, *args):
        pass


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FixtureHandler)
    httpd.posts = []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def editor_page(page, server):
    """The fixture page with the editor mounted; failing on any script error the page raises."""
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    server.posts.clear()
    page.goto(f"http://127.0.0.1:{server.server_port}/")
    expect(page.locator(".cm-editor")).to_be_visible()
    yield page
    assert not errors, errors


def textarea_value(page):
    return page.locator("#source").input_value()


def focus_end(page):
    page.locator(".cm-content").click()
    page.keyboard.press("Control+End")


def test_mount_replaces_the_textarea_with_a_python_editor(editor_page):
    page = editor_page
    expect(page.locator("#source")).to_be_hidden()
    expect(page.locator(".cm-gutters .cm-lineNumbers")).to_contain_text("1")
    expect(page.locator(".cm-content")).to_have_attribute("aria-label", "Solution")
    expect(page.locator(".cm-content .tok-keyword", has_text="def")).to_be_visible()
    assert page.evaluate("editor.getValue()") == STARTER

    page.get_by_text("Solution").click()
    expect(page.locator(".cm-content")).to_be_focused()


def test_typing_indents_python_and_keeps_the_textarea_in_sync(editor_page):
    page = editor_page
    page.evaluate("editor.setValue('')")
    focus_end(page)
    for line in ["def f(x):", "if x:", "return 1", "y = ["]:
        page.keyboard.type(line)
        page.keyboard.press("Enter")
    page.keyboard.type("2,")

    code = "def f(x):\n    if x:\n        return 1\n    y = [\n        2,\n    ]"
    assert textarea_value(page) == code
    assert page.evaluate("editor.getValue()") == code
    assert page.evaluate("calls.filter(c => c[0] === 'change').at(-1)") == ["change", code]


def test_tab_indents_to_the_next_stop_and_shift_tab_dedents(editor_page):
    page = editor_page
    page.evaluate("editor.setValue('x = 1')")
    focus_end(page)
    page.keyboard.press("Home")
    page.keyboard.press("Tab")
    assert textarea_value(page) == "    x = 1"
    page.keyboard.press("End")
    page.keyboard.press("Tab")
    assert textarea_value(page) == "    x = 1   "
    page.keyboard.press("Shift+Tab")
    assert textarea_value(page) == "x = 1   "
    expect(page.locator(".cm-content")).to_be_focused()


def test_enter_stays_a_newline_while_suggestions_show_and_tab_takes_one(editor_page):
    page = editor_page
    page.evaluate("editor.setValue('')")
    focus_end(page)
    page.keyboard.type("pri")
    expect(page.locator(".cm-tooltip-autocomplete")).to_contain_text("print")
    page.keyboard.press("Enter")
    page.keyboard.type("pri")
    expect(page.locator(".cm-tooltip-autocomplete")).to_contain_text("print")
    # CodeMirror ignores a key that picks a suggestion in the first 75 ms of the list, as a person would
    # not have read it yet.
    page.wait_for_timeout(150)
    page.keyboard.press("Tab")
    assert textarea_value(page) == "pri\nprint"


def test_ctrl_enter_runs_and_ctrl_shift_enter_submits_without_editing(editor_page):
    page = editor_page
    focus_end(page)
    page.evaluate("calls.length = 0")
    page.keyboard.press("Control+Enter")
    page.keyboard.press("Control+Shift+Enter")
    assert page.evaluate("calls") == ["run", "submit"]
    assert textarea_value(page) == STARTER


def test_escape_then_tab_moves_focus_out_of_the_editor(editor_page):
    page = editor_page
    focus_end(page)
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Submit")).to_be_focused()
    assert textarea_value(page) == STARTER


def test_a_read_only_editor_refuses_edits_and_lets_tab_move_on(editor_page):
    page = editor_page
    page.evaluate("editor.setReadOnly(true)")
    focus_end(page)
    page.keyboard.type("oops")
    page.keyboard.press("Tab")
    assert textarea_value(page) == STARTER
    expect(page.get_by_role("button", name="Submit")).to_be_focused()

    page.evaluate("editor.setReadOnly(false)")
    focus_end(page)
    page.keyboard.type("# ok")
    assert textarea_value(page) == STARTER + "# ok"


def test_set_value_is_one_undo_step(editor_page):
    page = editor_page
    page.evaluate("editor.setValue('print(1)\\n')")
    assert textarea_value(page) == "print(1)\n"
    page.locator(".cm-content").click()
    page.keyboard.press("Control+z")
    assert textarea_value(page) == STARTER


def test_a_plain_form_post_carries_the_editors_code(editor_page, server):
    page = editor_page
    focus_end(page)
    page.keyboard.type("return 42")
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_text("Received")).to_be_visible()
    assert server.posts == [{"source": [STARTER.replace("\n", "\r\n") + "return 42"]}]


def test_destroy_gives_the_page_back_its_textarea_with_the_latest_code(editor_page):
    page = editor_page
    page.evaluate("editor.setValue('x = 2\\n'); editor.destroy()")
    expect(page.locator(".cm-editor")).to_have_count(0)
    expect(page.locator("#source")).to_be_visible()
    assert textarea_value(page) == "x = 2\n"


@pytest.mark.parametrize("how", ["chosen", "system"])
def test_the_dark_theme_follows_the_site(editor_page, how):
    page = editor_page
    if how == "chosen":
        page.evaluate("document.documentElement.dataset.theme = 'dark'")
    else:
        page.emulate_media(color_scheme="dark")
    background = page.locator(".cm-editor").evaluate("e => getComputedStyle(e).backgroundColor")
    keyword = page.locator(".tok-keyword").first.evaluate("e => getComputedStyle(e).color")
    assert (background, keyword) == ("rgb(13, 17, 23)", "rgb(255, 123, 114)")

    page.evaluate("document.documentElement.dataset.theme = 'light'")
    background = page.locator(".cm-editor").evaluate("e => getComputedStyle(e).backgroundColor")
    assert background == "rgb(255, 255, 255)"
