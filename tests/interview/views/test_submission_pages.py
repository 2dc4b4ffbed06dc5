"""A submission's page and the history: private code, the result with its chart, the diff, escaped text."""

import re

import pytest

from interview.models import Submission
from interview.services.submissions import submissions_rejudge
from tests.interview.factories import ProblemFactory, SubmissionFactory, UserFactory, judged_as

pytestmark = pytest.mark.django_db
HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture
def user():
    return UserFactory()


@pytest.fixture
def finished(user):
    submission = SubmissionFactory(
        user=user, problem=ProblemFactory(slug="mhsa"), source=f"def solve(x):\n    return x  # {HOSTILE}\n",
        verdict="wrong_answer", time_user_ms=3.0, time_reference_ms=1.5, time_ratio=2.0,
        memory_user_peak_bytes=2 << 20, memory_reference_peak_bytes=1 << 20, memory_ratio=2.0, device="cpu",
        torch_version="2.13.0+cpu", sandbox="bubblewrap+seccomp", stderr=f"printed {HOSTILE}", tests_total=2,
    )
    submission.judgement.tests.create(index=0, name="small", status="passed", time_ms=1.0, peak_bytes=1024)
    submission.judgement.tests.create(index=1, name="large", status="wrong_answer", message=f"got {HOSTILE}",
                                      time_ms=None)
    return submission


def page(client, submission) -> str:
    response = client.get(f"/submissions/{submission.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def test_the_author_sees_the_verdict_tests_figures_device_and_code(client, user, finished):
    client.force_login(user)
    html = page(client, finished)
    assert "Wrong answer" in html and ">small<" in html and ">large<" in html
    assert "1 of 2 tests passed." in html and "First failure: <a href=\"#diagnosis-1\"><code>large</code></a>" in html
    assert "<strong>3.000 ms</strong> a call vs 1.500 ms for the reference (2.00×); the limit is 5× the reference&#x27;s time and 2000 ms a call" in html
    assert "<strong>2.00 MiB</strong> vs 1.00 MiB for the reference (2.00×) on the test closest to its limit, which was 4.00 MiB" in html
    assert "CPU" in html and "PyTorch 2.13.0+cpu" in html and "bubblewrap+seccomp" in html
    assert '<svg class="chart__bar' in html and "Median time of the timed test" in html
    assert '<span class="k">def</span>' in html  # highlighted


def test_text_the_user_controls_is_escaped_everywhere(client, user, finished):
    client.force_login(user)
    html = page(client, finished)
    assert HOSTILE not in html
    assert html.count("&lt;img src=x onerror=alert(1)&gt;") >= 3  # code, test message, stderr


def test_nobody_else_sees_the_code(client, finished):
    client.force_login(UserFactory())
    assert client.get(f"/submissions/{finished.pk}/").status_code == 404
    assert client.get(f"/submissions/{finished.pk}/result").status_code == 404


def test_staff_may_look(client, finished):
    client.force_login(UserFactory(is_staff=True))
    assert client.get(f"/submissions/{finished.pk}/").status_code == 200


def test_anonymous_visitors_are_sent_to_log_in(client, finished):
    assert client.get(f"/submissions/{finished.pk}/")["Location"].startswith("/accounts/login/")


def test_the_page_diffs_against_the_users_previous_submission_to_the_problem(client, user, finished):
    later = SubmissionFactory(user=user, problem=finished.problem,
                              source="def solve(x):\n    return x.clone()\n")
    SubmissionFactory(problem=finished.problem, source="someone else's\n")
    client.force_login(user)
    html = page(client, later)
    assert f'href="/submissions/{finished.pk}/"' in html
    assert 'diff__line--removed">-    return x  # &lt;img' in html
    assert 'diff__line--added">+    return x.clone()' in html
    assert "This is your first submission" in page(client, finished)


def test_the_result_fragment_is_the_panel_alone(client, user, finished):
    client.force_login(user)
    html = client.get(f"/submissions/{finished.pk}/result").content.decode()
    assert html.lstrip().startswith('<div class="result result--finished"')
    assert "<html" not in html


def test_a_submission_judged_again_shows_its_latest_judgement_and_the_judge_that_made_it(
    client, user, finished, embedded_queue
):
    submissions_rejudge(submissions=Submission.objects.filter(pk=finished.pk))
    judged_as(finished, verdict="accepted", judge_version="c0ffee0000000001", device="cpu",
              tests=({"name": "small", "status": "passed"}, {"name": "large", "status": "passed"}))
    client.force_login(user)
    html = page(client, finished)
    assert "verdict--accepted" in html and "All 2 tests passed." in html and "verdict--wrong_answer" not in html
    assert "<dt>Judge version</dt><dd><code>c0ffee0000000001</code>" in html
    assert "got " not in html  # the earlier judgement's failure


def test_a_submission_being_judged_shows_progress_and_refreshes_without_javascript(client, user):
    running = SubmissionFactory(user=user, status="running", verdict="", tests_total=4,
                                lease_expires_at="2030-01-01T00:00:00Z")
    running.judgement.tests.create(index=0, name="small", status="passed")
    client.force_login(user)
    html = page(client, running)
    assert 'aria-valuenow="1"' in html and "width: 25%" in html
    assert '<noscript><meta http-equiv="refresh" content="3"></noscript>' in html


def test_figures_that_were_not_measured_are_not_shown(client, user):
    sample_run = SubmissionFactory(user=user, suite="sample", memory_user_peak_bytes=1024,
                                   memory_reference_peak_bytes=1024, memory_ratio=1.0)
    client.force_login(user)
    html = page(client, sample_run)
    assert "<dt>Time</dt>" not in html and "<dt>Memory</dt>" in html


def test_an_error_says_why(client, user):
    failed = SubmissionFactory(user=user, status="error", verdict="",
                               message="The judge failed 3 times; the last time: no usable GPU")
    client.force_login(user)
    assert "no usable GPU" in page(client, failed)


def test_the_history_lists_only_the_users_submissions_and_filters_by_problem(client, user, finished):
    other_problem = SubmissionFactory(user=user, problem=ProblemFactory(slug="swiglu", title="SwiGLU"))
    SubmissionFactory(problem=finished.problem)
    client.force_login(user)
    html = client.get("/submissions/").content.decode()
    assert len(re.findall(r'href="/submissions/\d+/"', html)) == 2
    filtered = client.get("/submissions/?problem=swiglu").content.decode()
    assert f"#{other_problem.pk}" in filtered and f"#{finished.pk}<" not in filtered


TRACEBACK = """Traceback (most recent call last):
  File "driver.py", line 18, in run
    y = call(solution, x, params)
        ^^^^^^^^^^^^^^^^^^^^^^^^^
  File "solution.py", line 4, in softmax
    return x.view(-1, 7)
           ^^^^^^^^^^^^^
  File "/judge/harness/measure.py", line 82, in __torch_dispatch__
    result = func(*args, **(kwargs or {}))
  File "/srv/app/.venv/lib/python3.11/site-packages/torch/_ops.py", line 875, in __call__
    return self._op(*args, **kwargs)
RuntimeError: shape '[-1, 7]' is invalid for input of size 27"""


def test_failures_of_the_same_mistake_are_one_diagnosis_with_their_count(client, user):
    problem = ProblemFactory(tests=[{"name": "sample", "sample": True}] + [{"name": f"hidden-{n}"} for n in range(17)])
    submission = SubmissionFactory(user=user, problem=problem, verdict="wrong_answer", tests_total=18)
    submission.judgement.tests.create(index=0, name="sample", status="passed")
    for n in range(17):
        # The numbers differ from test to test; the mistake is the same.
        submission.judgement.tests.create(index=n + 1, name=f"hidden-{n}", status="wrong_answer",
                                          message=f"output differs at [{n}, 3]: got {n}.5, expected {n + 1}.25")
    client.force_login(user)
    html = page(client, submission)
    assert html.count('class="diagnosis"') == 1
    assert "the same mistake in 17 hidden tests" in html and "first <code>hidden-0</code>" in html
    assert "output differs at [0, 3]" in html and "output differs at [5, 3]" not in html
    assert "1 of 18 tests passed." in html


def test_a_runtime_error_shows_the_submissions_own_frames_and_no_host_path(client, user):
    submission = SubmissionFactory(user=user, verdict="runtime_error", tests_total=1)
    submission.judgement.tests.create(index=0, name="rows", status="runtime_error", message=TRACEBACK)
    client.force_login(user)
    html = page(client, submission)
    short = re.search(r'<pre class="diagnosis__message">(.*?)</pre>', html, re.S).group(1)
    assert "solution.py&quot;, line 4" in short and "x.view(-1, 7)" in short
    assert "driver.py" not in short and "measure.py" not in short and "^^^" not in short
    assert short.rstrip().endswith("RuntimeError: shape &#x27;[-1, 7]&#x27; is invalid for input of size 27")
    # The whole text is one click away, without the host's directories.
    assert "The full traceback" in html and "driver.py" in html and "torch/_ops.py" in html
    assert "/srv/app" not in html and "site-packages" not in html
