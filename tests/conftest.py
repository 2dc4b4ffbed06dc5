"""Fixtures shared by the whole suite: the real question bank in the database, and a real Chromium."""

import gc
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
# axe-core, at the version tests/browser/axe/package-lock.json pins; scripts/bootstrap.sh test installs it.
AXE = ROOT / "tests" / "browser" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]


@pytest.fixture
def real_bank(db):
    """The repository's own question bank, synced into the test database."""
    from interview.services.content_sync import sync_questions

    sync_questions(content_dir=ROOT / "problems")


def pytest_collection_modifyitems(items):
    """The tests that take minutes go first: run in parallel processes, the rest is shared out while they run."""
    items.sort(key=lambda item: item.get_closest_marker("takes_minutes") is None)


def pytest_collection_finish(session):
    """What collection imported (Django, torch, the judge, every test module), out of the collections the tests
    start, as the judge's worker does with what it imported (interview/judge/worker.py)."""
    gc.freeze()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test item, so fixtures can tell whether the test failed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture(scope="session")
def browser():
    """A headless Debian Chromium driven by Playwright; never a downloaded browser."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install the `chromium` package (scripts/test.sh does it as root)",
            pytrace=False,
        )
    from playwright.sync_api import sync_playwright

    with pytest.MonkeyPatch.context() as environment, sync_playwright() as playwright:
        # Playwright's sync API runs an event loop in this thread; Django would then refuse the ORM calls
        # that fixtures make between page actions, although they are ordinary synchronous code.
        environment.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


def axe_script() -> Path:
    """axe-core's script, for a browser context's init script (which a page's own policies do not block)."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run scripts/bootstrap.sh test (it installs axe-core with npm)", pytrace=False)
    return AXE


@pytest.fixture
def page(browser, request):
    """A fresh browser page at desktop size; when the test fails, a screenshot goes to test-artifacts/."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)
    page = context.new_page()
    yield page
    failed = getattr(request.node, "report_call", None)
    if failed is not None and failed.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=ARTIFACTS / f"{request.node.name}.png", full_page=True)
    context.close()
