"""Estimation drills in a real Chromium: a refused answer kept in the box, the worked solution, and the loop."""

import re

import pytest
from django.conf import settings
from playwright.sync_api import expect

from interview.models import DrillAttempt, MockInterviewItem
from tests.interview.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_drill_refuses_a_unit_of_another_kind_then_grades_and_a_loop_reports_it(
    page, live_server, client, real_bank
):
    user = UserFactory()
    client.force_login(user)
    page.context.add_cookies([{
        "name": settings.SESSION_COOKIE_NAME, "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
        "url": live_server.url,
    }])
    page.goto(f"{live_server.url}/drills/")
    page.get_by_role("link", name="KV-cache bytes per token").click()
    prompt = page.locator("[data-drill-prompt]").inner_text()
    page.reload()
    expect(page.locator("[data-drill-prompt]")).to_have_text(prompt)  # the numbers stay with the attempt

    page.locator("#drill-answer").fill("320 Gb/s")
    page.get_by_role("button", name="Check my estimate").click()
    expect(page.locator("[data-refusal]")).to_contain_text("a quantity of information per time")
    expect(page.locator("#drill-answer")).to_have_value("320 Gb/s")

    attempt = DrillAttempt.objects.get(user=user)
    page.locator("#drill-answer").fill(f"{attempt.right_value * 1024} bytes")
    page.get_by_role("button", name="Check my estimate").click()
    expect(page.locator("[data-drill-score]")).to_have_text("100%")
    expect(page.locator("[data-worked-solution] [data-step]")).to_have_count(2)
    expect(page.locator("[data-right-answer]")).to_contain_text("KiB")

    # A mid-level loop (this bank has no coding problem) asks a drill after its concept questions.
    page.goto(f"{live_server.url}/mock-interviews/")
    page.get_by_role("button", name="Start the clock").first.click()
    drill_item = MockInterviewItem.objects.select_related("drill_attempt").get(
        interview__user=user, drill__isnull=False)
    page.goto(f"{live_server.url}{drill_item.get_absolute_url()}")
    expect(page.locator(".step-head .pill--kind")).to_have_text("Estimation drill")
    attempt = drill_item.drill_attempt
    page.locator("#drill-answer").fill(f"{attempt.right_value} {attempt.spec['answer_unit']}")
    page.get_by_role("button", name="Submit the estimate").click()
    expect(page.locator(".messages")).to_contain_text("Estimate saved")

    page.on("dialog", lambda dialog: dialog.accept())  # "Finish the interview now?"
    page.locator("[data-finish]").click()
    expect(page).to_have_url(re.compile(r"/report/$"))
    rubric = page.locator("[data-rubric]")
    expect(rubric.locator('[data-dimension="Estimation accuracy"] [data-dimension-rating]')).to_have_text("100%")
    expect(rubric.locator('[data-dimension="Correctness of code"] [data-dimension-rating]')).to_have_text(
        "not assessed")
    report_item = page.locator("[data-report-item]", has=page.locator("[data-worked-solution]"))
    expect(report_item.locator("[data-drill-score]")).to_have_text("100%")
