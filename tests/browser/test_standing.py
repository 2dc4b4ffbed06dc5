"""Where an accepted submission stands, in a real Chromium at both sizes: its ratios, its percentile and the
histogram on its page, and the user's best on the problem page."""

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from tests.browser.test_every_page import CLIPPED, SCREENS, Visit
from tests.conftest import ARTIFACTS
from tests.interview.factories import ProblemFactory, SubmissionFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def accepted(problem, user, time_ratio, memory_ratio):
    return SubmissionFactory(problem=problem, user=user, verdict="accepted", device="cpu", tests_total=3,
                             time_user_ms=10 * time_ratio, time_reference_ms=10.0, time_ratio=time_ratio,
                             memory_user_peak_bytes=int((2 << 20) * memory_ratio), memory_reference_peak_bytes=2 << 20,
                             memory_ratio=memory_ratio, torch_version="2.13.0+cpu", sandbox="bubblewrap")


@pytest.mark.parametrize("screen", SCREENS)
def test_an_accepted_submission_shows_its_ratios_percentile_and_histogram_and_the_problem_page_its_best(
    browser, live_server, screen
):
    problem = ProblemFactory(slug="causal-mask", title="Causal attention mask")
    peers = User.objects.create(username="peers")
    for time_ratio, memory_ratio in ((0.45, 1.0), (0.8, 1.0), (1.3, 1.0), (1.3, 1.2), (1.4, 1.5), (1.7, 2.0),
                                     (2.2, 1.0), (2.6, 1.0), (3.5, 1.0), (4.4, 3.0)):
        accepted(problem, peers, time_ratio, memory_ratio)
    ada = UserFactory(username="ada")
    SubmissionFactory(problem=problem, user=ada, verdict="wrong_answer", device="cpu")
    mine = accepted(problem, ada, 1.1, 1.5)

    visit = Visit(browser, live_server, screen, ada)
    page = visit.page
    page.goto(live_server.url + mine.get_absolute_url())
    standing = page.locator("[data-standing]")
    expect(standing.get_by_role("heading", name="Where it stands")).to_be_visible()
    expect(standing).to_contain_text("judged on CPU: 11 in all, this one included")
    time_figure = page.locator("[data-standing-time]")
    expect(time_figure).to_contain_text("Time: 1.10× the reference's — faster than 80% of the 10 others.")
    expect(page.locator("[data-standing-memory]")).to_contain_text(
        "Peak memory: 1.50× the reference's — less memory than 20% of the 10 others; 1 of them the same.")
    # The histogram: an image named by its caption, its own bar marked in words as well as in colour.
    histogram = time_figure.get_by_role("img", name=re.compile(r"^Time: 1\.10× the reference's"))
    expect(histogram).to_be_visible()
    expect(histogram.locator(".histogram__mine")).to_have_text("you")
    expect(histogram.locator(".histogram__bar")).to_have_count(8)
    box = histogram.bounding_box()
    assert box["width"] <= SCREENS[screen]["width"] and box["height"] > 60, box
    time_figure.get_by_text("The counts").click()
    expect(time_figure.get_by_role("row", name="1–1.25× (this one) 1")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREENS[screen]["width"]
    assert page.evaluate(CLIPPED) == []
    standing.screenshot(path=ARTIFACTS / f"standing-{screen}.png")
    page.screenshot(path=ARTIFACTS / f"standing-page-{screen}.png", full_page=True)

    page.goto(live_server.url + problem.get_absolute_url())
    best = page.locator("[data-best]")
    expect(best).to_be_visible()
    expect(best).to_contain_text(f"#{mine.pk}, 1.10× the reference's time and 1.50× its memory, faster than 80% of "
                                 "the others on CPU")
    expect(best.get_by_role("link", name=f"#{mine.pk}")).to_have_attribute("href", mine.get_absolute_url())
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREENS[screen]["width"]
    page.screenshot(path=ARTIFACTS / f"standing-best-{screen}.png")
    assert not visit.errors, visit.errors
    visit.close()
