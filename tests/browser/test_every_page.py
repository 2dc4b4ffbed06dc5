"""Every page of the site in a real Chromium, at 1280x800 and 390x844, to a visitor and to a user with history.

The pages come from the URL configuration: each named pattern is either a page this module opens (PAGES,
ADMIN_PAGES) or a named exception that is not a page (NOT_PAGES, with the reason), and a new pattern in neither
fails test_every_url_pattern_is_a_page_visited_here_or_said_not_to_be_one. On each page: nothing wider than
the screen, no text cut off by its box (a box meant to scroll may be wider inside), no console error, no
response of 4xx or 5xx for any resource, and no critical or serious violation that axe-core finds (contrast,
names and labels, scrollable regions reachable by keyboard, ...). A screenshot of each page where one of these
went wrong goes to test-artifacts/pages/ (of every page, with PAGE_SCREENSHOTS=all).
"""

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.contrib import admin
from django.contrib.auth.tokens import default_token_generator
from django.core.management import call_command
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from playwright.sync_api import expect

from interview.models import Drill, MockInterviewItem, Problem, ProblemSet, Question, Submission, Topic
from interview.services.accounts import api_token_create
from interview.services.content_sync import sync_problems
from interview.services.drills import drill_attempt_answer, drill_attempt_start
from interview.services.mock_interviews import mock_interview_answer, mock_interview_finish, mock_interview_start
from interview.services.practice import practice_session_start, review_record
from interview.services.problems import draft_save
from tests.conftest import ARTIFACTS, axe_script
from tests.interview.factories import ProblemFactory, SubmissionFactory, UserFactory, judged_as
from tests.judging_support import content_with

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
SHOTS = ARTIFACTS / "pages"
EVERY_SCREENSHOT = os.environ.get("PAGE_SCREENSHOTS") == "all"
LONG_MESSAGE = ("output differs from the reference at index [3, 17, 255] of a (4, 32, 512) float32 tensor: "
                "got 0.4912873, expected 0.5087126 (absolute difference 1.74e-02, allowed 1e-05 + 1e-05 × |expected|); "
                "the first differing row_with_a_rather_long_identifier_that_does_not_break_by_itself_anywhere_at_all")
TRACEBACK = ('Traceback (most recent call last):\n  File "driver.py", line 18, in run\n    y = call(solution, x)\n'
             '  File "solution.py", line 9, in causal_mask\n    return torch.ones(t_q, t_k).triu(offset_that_is_long)\n'
             "NameError: name 'offset_that_is_long' is not defined")

# Named patterns that are not pages a person opens: form targets (POST only), JSON endpoints, assets.
NOT_PAGES = {
    "problem_submit": "the no-JavaScript form's POST target",
    "problem_solution": "a POST that records reading the solution",
    "problem_hint_reveal": "a POST that reveals the next hint",
    "submission_why": "a POST that opens a failure's why", "submission_why_api": "JSON API",
    "submission_result": "the result fragment the problem page swaps in (seen here inside that page)",
    "problem_submissions_api": "JSON API", "problem_draft_api": "JSON API",
    "problem_draft_carry_api": "JSON API", "problem_draft_pick_api": "JSON API", "submission_api": "JSON API",
    "mock_interview_draft_api": "JSON API", "mock_interview_submissions_api": "JSON API",
    "editor_settings_api": "JSON API", "me_api": "JSON API", "problem_api": "JSON API",
    "drill_new_attempt": "a POST that starts an attempt", "drill_attempt_answer": "a POST target",
    "practice_start": "a POST target", "practice_finish": "a POST target", "practice_reveal": "a POST target",
    "practice_rate": "a POST target", "practice_skip": "a POST target", "practice_estimate": "a POST target",
    "mock_interview_start": "a POST target", "mock_interview_answer": "a POST target",
    "mock_interview_submit": "a POST target", "mock_interview_estimate": "a POST target",
    "mock_interview_key_points": "a POST target", "mock_interview_finish": "a POST target",
    "mock_interview_detail": "redirects to the interview's current item or its report",
    "logout": "a POST target", "api_token_revoke": "a POST target", "account_email": "a POST target",
    "healthz": "JSON for monitoring", "pygments_css": "a stylesheet the pages load",
    "admin:logout": "a POST target", "admin:jsi18n": "a script the admin loads",
    "admin:autocomplete": "JSON for the admin's widgets", "admin:view_on_site": "a redirect to the object's page",
}
ADMIN_VIEWS = ("changelist", "add", "change", "history", "delete")
ADMIN_OTHER = ("admin:index", "admin:login", "admin:password_change", "admin:password_change_done", "admin:app_list")


@dataclass
class Site:
    """The rows the pages show: the shipped content, and a user with history."""

    user: object
    admin_user: object
    problem: Problem
    submission: Submission
    drill: Drill | None
    drill_attempt: object
    problem_set: ProblemSet
    session: object
    report: object
    running: object


def make_site() -> Site:
    call_command("sync_content", verbosity=0)
    user = UserFactory(username="ada-lovelace-analytical-engine")  # the longest name a header must hold: 30
    admin_user = UserFactory(username="root", is_staff=True, is_superuser=True)
    problem = Problem.objects.get(slug="causal-mask")
    draft_save(user=user, problem=problem, source="def causal_mask(t_q, t_k=None, *, window=None, device=None):\n    pass\n")
    api_token_create(user=user, name="a laptop with a rather long name for a token")
    submission = None
    for verdict, message in (("wrong_answer", LONG_MESSAGE), ("runtime_error", TRACEBACK), ("accepted", "")):
        submission = SubmissionFactory(user=user, problem=problem, verdict=verdict, tests_total=len(problem.tests),
                                       time_user_ms=12.5, time_reference_ms=10.0, time_ratio=1.25,
                                       memory_user_peak_bytes=3 << 20, memory_reference_peak_bytes=2 << 20,
                                       memory_ratio=1.5, device="cpu", torch_version="2.13.0+cpu",
                                       sandbox="bubblewrap+seccomp (uid 60001)", stderr="x" * 300)
        for index, test in enumerate(problem.tests):
            failed = message and index >= 2
            submission.judgement.tests.create(index=index, name=test["name"], status=verdict if failed else "passed",
                                              message=message.replace("[3,", f"[{index},") if failed else "",
                                              time_ms=1.5 + index, peak_bytes=4096 * (index + 1))
    questions = list(Question.objects.filter(retired_at=None)[:3])
    for question in questions:
        review_record(user=user, question=question, rating=3, covered=[0], answer="An answer " * 40)
    problem_set = ProblemSet.objects.filter(is_published=True).first()
    report = mock_interview_start(user=user, duration_minutes=30, problem_set=problem_set)
    first = MockInterviewItem.objects.filter(interview=report, question__isnull=False).first()
    if first is not None:
        mock_interview_answer(item=first, answer="Attention weighs the values by softmax(QK^T / sqrt(d)). " * 8)
    mock_interview_finish(interview=report)
    running = mock_interview_start(user=user, duration_minutes=90, problem_set=problem_set)
    drill = Drill.objects.filter(retired_at=None).first()
    attempt = None
    if drill is not None:
        attempt = drill_attempt_start(user=user, drill=drill)
        drill_attempt_answer(attempt=attempt, answer="42")
    session = practice_session_start(user=user, topic=Topic.objects.first())
    return Site(user=user, admin_user=admin_user, problem=problem, submission=submission, drill=drill,
                drill_attempt=attempt, problem_set=problem_set, session=session, report=report, running=running)


def interview_items(site: Site) -> list[str]:
    return [reverse("mock_interview_item", args=[site.running.pk, item.position])
            for item in MockInterviewItem.objects.filter(interview=site.running)]


# Each page's URLs, from the site's rows; the MHSA question because its prompt carries a listing.
PAGES: dict[str, Callable[[Site], list[str]]] = {
    "home": lambda site: [reverse("home")],
    "search": lambda site: [reverse("search"), reverse("search") + "?q=attension"],
    "question_list": lambda site: [reverse("question_list"), reverse("question_list") + "?q=KV+cache",
                                   reverse("question_list") + "?topic=attention"],
    "question_detail": lambda site: [reverse("question_detail", args=["mhsa-from-scratch"])],
    "problem_list": lambda site: [reverse("problem_list"), reverse("problem_list") + "?topic=attention"],
    "problem_detail": lambda site: [site.problem.get_absolute_url()],
    "submission_list": lambda site: [reverse("submission_list")],
    "submission_detail": lambda site: [reverse("submission_detail", args=[s.pk])
                                       for s in Submission.objects.filter(user=site.user)],
    "drill_list": lambda site: [reverse("drill_list")],
    "drill_detail": lambda site: [reverse("drill_detail", args=[site.drill.slug])],
    "drill_attempt": lambda site: [reverse("drill_attempt", args=[site.drill_attempt.pk])],
    "practice": lambda site: [reverse("practice")],
    "practice_session": lambda site: [reverse("practice_session", args=[site.session.pk])],
    "problem_set_list": lambda site: [reverse("problem_set_list")],
    "problem_set_detail": lambda site: [reverse("problem_set_detail", args=[site.problem_set.slug])],
    "mock_interview_list": lambda site: [reverse("mock_interview_list")],
    "mock_interview_item": interview_items,
    "mock_interview_report": lambda site: [reverse("mock_interview_report", args=[site.report.pk])],
    "signup": lambda site: [reverse("signup")],
    "login": lambda site: [reverse("login")],
    "profile": lambda site: [reverse("profile")],
    "account_delete": lambda site: [reverse("account_delete")],
    "password_change": lambda site: [reverse("password_change")],
    "password_change_done": lambda site: [reverse("password_change_done")],
    "password_reset": lambda site: [reverse("password_reset")],
    "password_reset_done": lambda site: [reverse("password_reset_done")],
    "password_reset_confirm": lambda site: [reverse("password_reset_confirm", args=[
        urlsafe_base64_encode(force_bytes(site.user.pk)), default_token_generator.make_token(site.user)])],
    "password_reset_complete": lambda site: [reverse("password_reset_complete")],
}


def url_pattern_names() -> set[str]:
    names = set()

    def walk(patterns, namespace=""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, pattern.namespace or namespace)
            elif isinstance(pattern, URLPattern):
                names.add(f"{namespace}:{pattern.name}" if namespace else str(pattern.name))

    walk(get_resolver().url_patterns)
    return names


def admin_pattern_names() -> set[str]:
    names = set(ADMIN_OTHER)
    for model in admin.site._registry:
        names.update(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}" for view in ADMIN_VIEWS)
    if "admin:auth_user_change" in names:
        names.add("admin:auth_user_password_change")
    return names


def test_every_url_pattern_is_a_page_visited_here_or_said_not_to_be_one():
    # Patterns without a name are the admin's catch-alls (its redirects to a model's change page).
    unvisited = url_pattern_names() - set(PAGES) - set(NOT_PAGES) - admin_pattern_names() - {"admin:None"}
    assert not unvisited, f"no test visits {sorted(unvisited)}: add each to PAGES, or to NOT_PAGES with why"


# ---- What each page must be ---------------------------------------------------------------------------

# Elements whose content is wider than their box, other than form fields (which scroll by design), those in
# or being a box meant to scroll, text cut with an ellipsis on purpose, and the screen reader's hidden text.
CLIPPED = r"""() => {
  const scrolls = (style) => /auto|scroll/.test(style.overflowX);
  const found = [];
  for (const node of document.body.querySelectorAll("*")) {
    if (!(node instanceof HTMLElement) || /^(INPUT|TEXTAREA|SELECT|OPTION|SCRIPT|STYLE|NOSCRIPT)$/.test(node.tagName)) continue;
    if (node.clientWidth <= 2 || node.scrollWidth <= node.clientWidth + 1) continue;
    const style = getComputedStyle(node);
    if (style.display === "none" || style.visibility === "hidden" || scrolls(style) || style.textOverflow === "ellipsis") continue;
    let parent = node.parentElement, inScroller = false;
    while (parent) { if (scrolls(getComputedStyle(parent))) { inScroller = true; break; } parent = parent.parentElement; }
    if (inScroller || node.closest(".cm-editor")) continue;
    found.push(node);
  }
  // The innermost ones: a box is only wider because something inside it is.
  return found.filter((node) => !found.some((other) => other !== node && node.contains(other))).map((node) =>
    `${node.tagName.toLowerCase()}.${[...node.classList].join(".")} ${node.scrollWidth}>${node.clientWidth}: ` +
    node.textContent.trim().replace(/\s+/g, " ").slice(0, 60));
}"""


# axe-core's critical and serious violations on the page, each with up to three of the elements at fault.
AXE_VIOLATIONS = r"""async () => {
  const results = await axe.run(document, { resultTypes: ["violations"] });
  return results.violations.filter((rule) => rule.impact === "critical" || rule.impact === "serious").map((rule) =>
    `axe ${rule.impact} ${rule.id} (${rule.help}) at ${rule.nodes.length}: ` +
    rule.nodes.slice(0, 3).map((node) => node.target.join(" ")).join(" | "));
}"""


class Visit:
    """A browser context at one size, signed in or not, that records what goes wrong on each page."""

    def __init__(self, browser, live_server, screen: str, user=None):
        self.context = browser.new_context(viewport=SCREENS[screen])
        self.context.add_init_script(path=axe_script())
        self.context.set_default_timeout(10_000)
        self.live_server, self.screen, self.problems = live_server, screen, []
        if user is not None:
            client = Client()
            client.force_login(user)
            self.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                                       "url": live_server.url}])
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("response", lambda response: response.status >= 400 and self.errors.append(
            f"{response.status} for {response.url}"))

    def check(self, path: str, who: str, *, text: bool = True) -> None:
        """text=False leaves out the clipped-text check (Django's admin stylesheet hides text on purpose, in
        its icon buttons, in ways this check cannot tell from a mistake)."""
        self.errors.clear()
        found_before = len(self.problems)
        self.page.goto(self.live_server.url + path)
        where = f"{who} at {self.screen}, {path}"
        width = self.page.evaluate("document.documentElement.scrollWidth")
        if width > SCREENS[self.screen]["width"]:
            self.problems.append(f"{where}: the page is {width} px wide")
        for clipped in self.page.evaluate(CLIPPED) if text else []:
            self.problems.append(f"{where}: clipped {clipped}")
        self.problems.extend(f"{where}: {violation}" for violation in self.page.evaluate(AXE_VIOLATIONS))
        self.problems.extend(f"{where}: {error}" for error in self.errors)
        # Only where something went wrong, unless asked: a screenshot of each of the 254 visits was an eighth of
        # the test's time.
        if len(self.problems) > found_before or EVERY_SCREENSHOT:
            SHOTS.mkdir(parents=True, exist_ok=True)
            name = re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-") or "home"
            # JPEG: several times quicker to encode than PNG, and as good for a look at the layout.
            self.page.screenshot(path=SHOTS / f"{who}-{self.screen}-{name}.jpg", type="jpeg", quality=60)

    def close(self):
        self.context.close()


def admin_urls(site: Site) -> list[str]:
    urls = [reverse(name) for name in ("admin:index", "admin:password_change", "admin:password_change_done")]
    urls.append(reverse("admin:app_list", args=["interview"]))
    request = _request_of(site.admin_user)
    for model, model_admin in admin.site._registry.items():
        meta = model._meta
        name = f"admin:{meta.app_label}_{meta.model_name}"
        row = model.objects.order_by("pk").first()
        urls.append(reverse(f"{name}_changelist"))
        if model_admin.has_add_permission(request):
            urls.append(reverse(f"{name}_add"))
        if row is not None:
            urls += [reverse(f"{name}_change", args=[row.pk]), reverse(f"{name}_history", args=[row.pk])]
            # Rows synced from git may not be deleted in the admin: its refusal (403) is the page then.
            if model_admin.has_delete_permission(request, row):
                urls.append(reverse(f"{name}_delete", args=[row.pk]))
    urls.append(reverse("admin:auth_user_password_change", args=[site.user.pk]))
    return urls


def _request_of(user):
    from django.test import RequestFactory

    request = RequestFactory().get("/admin/")
    request.user = user
    return request


def test_every_page_fits_the_screen_shows_all_its_text_loads_cleanly_and_passes_axe(browser, live_server):
    site = make_site()
    problems = []
    for screen in SCREENS:
        for who, user in (("visitor", None), ("signed-in", site.user)):
            visit = Visit(browser, live_server, screen, user)
            for name, urls in PAGES.items():
                if name == "drill_attempt" and who == "visitor":
                    continue  # an attempt is its author's
                for path in urls(site):
                    visit.check(path, who)
            problems += visit.problems
            visit.close()
        visit = Visit(browser, live_server, screen, site.admin_user)
        for path in admin_urls(site) + [reverse("admin:login")]:
            visit.check(path, "admin", text=False)
        problems += visit.problems
        visit.close()
    assert not problems, "\n".join(problems)


# ---- The problem page after Run --------------------------------------------------------------------------


@pytest.mark.parametrize("screen", SCREENS)
def test_after_run_the_summary_and_the_first_failure_are_on_screen(browser, live_server, screen, tmp_path):
    sync_problems(content_dir=content_with(tmp_path / "content", "causal-mask"))
    user = UserFactory(username="grace")
    problem = Problem.objects.get(slug="causal-mask")
    visit = Visit(browser, live_server, screen, user)
    page = visit.page
    page.goto(live_server.url + problem.get_absolute_url())
    if screen == "phone":
        page.get_by_role("tab", name="Code").click()
    page.get_by_role("button", name="Run").click()
    if screen == "phone":
        expect(page.get_by_role("tab", name="Results")).to_have_attribute("aria-selected", "true")
    expect(page.locator("[data-run-panel] .result")).to_be_visible()
    # The judge's work, as data: what a worker writes when a sample run fails the same way twice.
    submission = Submission.objects.get(user=user)
    names = problem.sample_test_names
    judged_as(submission, verdict="wrong_answer", finished_at=timezone.now() + timedelta(seconds=1), tests=tuple(
        {"name": name, "status": "passed" if index == 0 else "wrong_answer",
         "message": "" if index == 0 else LONG_MESSAGE.replace("[3,", f"[{index},")}
        for index, name in enumerate(names)))
    summary = page.locator("[data-result-summary]")
    expect(summary).to_contain_text(f"1 of {len(names)} tests passed.")
    first = page.locator(".diagnosis").first
    expect(first).to_contain_text(f"the same mistake in {len(names) - 1}")
    for seen in (summary, first.locator(".diagnosis__head")):
        box = seen.bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= SCREENS[screen]["height"], (screen, box)
    expect(page.locator("[data-recent-rows] li").first).to_contain_text("Wrong answer")
    page.screenshot(path=ARTIFACTS / f"after-run-{screen}.png")
    assert not visit.errors, visit.errors
    visit.close()


def test_a_new_api_token_is_copied_with_one_click(browser, live_server):
    visit = Visit(browser, live_server, "desktop", UserFactory(username="lin"))
    visit.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = visit.page
    page.goto(live_server.url + reverse("profile"))
    page.get_by_label("What is it for?").fill("laptop")
    page.get_by_role("button", name="Create a token").click()
    token = page.locator("[data-new-token]").inner_text()
    page.get_by_role("button", name="Copy the token").click()
    expect(page.get_by_role("button", name="Copy the token")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == token
    visit.close()


def test_editor_settings_and_the_divider_are_kept_across_a_reload_and_a_disabled_button_looks_it(browser, live_server, tmp_path):
    sync_problems(content_dir=content_with(tmp_path / "content", "causal-mask"))
    user = UserFactory(username="kai")
    visit = Visit(browser, live_server, "desktop", user)
    page = visit.page
    url = live_server.url + reverse("problem_detail", args=["causal-mask"])
    page.goto(url)
    page.locator("[data-editor-settings] summary").click()
    page.get_by_label("Font size").select_option("18")
    page.get_by_label("Wrap long lines").check()
    with page.expect_response(lambda response: response.url.endswith(reverse("editor_settings_api"))
                              and response.request.post_data_json["keymap"] == "vim") as saved:
        page.get_by_label("Keymap").select_option("vim")
    assert saved.value.json() == {"font_size": 18, "wrap": True, "keymap": "vim"}
    divider = page.get_by_role("separator", name="Resize the statement and the editor")
    divider.focus()
    page.keyboard.press("ArrowRight")
    page.reload()
    editor = page.locator(".interview-editor")
    expect(editor).to_have_attribute("data-wrap", "on")
    assert editor.evaluate("e => getComputedStyle(e.querySelector('.cm-editor')).fontSize") == "18px"
    expect(page.get_by_label("Keymap")).to_have_value("vim")
    expect(divider).to_have_attribute("aria-valuenow", "50")
    # Vim's keys act: dd deletes the first line, i enters insert mode.
    starter = Problem.objects.get(slug="causal-mask").starter_code
    page.locator(".cm-content").click()
    for key in ("Escape", "g", "g", "d", "d", "i"):
        page.keyboard.press(key)
    page.keyboard.type("# mine")
    rest = starter.split("\n", 1)[1]
    expect(page.locator("#source")).to_have_value("# mine" + rest)
    # The settings are the user's, not this browser's: a fresh browser shows them too.
    elsewhere = Visit(browser, live_server, "desktop", user)
    elsewhere.page.goto(url)
    expect(elsewhere.page.get_by_label("Keymap")).to_have_value("vim")
    expect(elsewhere.page.locator(".interview-editor")).to_have_attribute("data-wrap", "on")
    assert not elsewhere.errors, elsewhere.errors
    elsewhere.close()
    # Switched live to Emacs, Ctrl-A goes to the line's start (the default keymap would select everything).
    page.locator("[data-editor-settings] summary").click()
    page.get_by_label("Keymap").select_option("emacs")
    page.locator("[data-editor-settings] summary").click()
    page.locator(".cm-content").focus()
    page.keyboard.press("Control+a")
    page.keyboard.type("> ")
    expect(page.locator("#source")).to_have_value("> # mine" + rest)
    # While a run is being sent its buttons are disabled, and look it.
    run = page.locator("[data-run]")
    enabled = run.evaluate("b => getComputedStyle(b).opacity")
    disabled = run.evaluate("b => { b.disabled = true; return [getComputedStyle(b).opacity, getComputedStyle(b).cursor]; }")
    assert (enabled, disabled) == ("1", ["0.5", "not-allowed"])
    assert not visit.errors, visit.errors
    visit.close()


def test_on_a_phone_the_header_offers_sign_up_and_run_and_submit_stay_in_view_while_code_is_typed(browser, live_server):
    problem = ProblemFactory(slug="double", title="Double it")
    width = SCREENS["phone"]["width"]
    visitor = Visit(browser, live_server, "phone")
    visitor.page.goto(live_server.url + problem.get_absolute_url())
    header = visitor.page.locator(".site-header")
    for name in ("Log in", "Sign up"):
        box = header.get_by_role("link", name=name).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, (name, box)
    visitor.close()

    visit = Visit(browser, live_server, "phone", UserFactory(username="a-name-of-thirty-characters-30"))
    page = visit.page
    page.goto(live_server.url + problem.get_absolute_url())
    page.get_by_role("tab", name="Code").click()
    toolbar = page.locator(".editor-toolbar").bounding_box()
    reset = page.get_by_role("button", name="Reset to starter").bounding_box()
    assert reset["x"] + reset["width"] <= toolbar["x"] + toolbar["width"], (reset, toolbar)
    page.locator(".cm-content").click()
    page.keyboard.press("Control+End")
    # The on-screen keyboard takes half the screen, and the page's viewport shrinks to what it leaves.
    height = 420
    page.set_viewport_size({"width": width, "height": height})
    for number in range(30):
        page.keyboard.press("Enter")
        page.keyboard.insert_text(f"line_{number} = {number}")
    actions = page.locator(".editor-actions").bounding_box()
    for name in ("Run", "Submit"):
        box = page.get_by_role("button", name=name).bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= height, (name, box)
    caret = page.locator(".cm-cursor-primary").bounding_box()
    assert caret and 0 <= caret["y"] and caret["y"] + caret["height"] <= actions["y"], (caret, actions)
    page.screenshot(path=ARTIFACTS / "phone-typing-run-and-submit.png")
    assert not visit.errors, visit.errors
    # The typing is saved as the account's draft 0.8 s after the last key, and a page closed with unsaved changes
    # sends them as it goes: waiting for the save keeps a request from running into the database's flush.
    expect(page.locator("[data-draft-status]")).to_have_text("Draft saved", timeout=10_000)
    visit.close()
