"""A worker's self-check and its heartbeat-and-sweep tick; the real worker process is in tests/e2e/."""

import json
import os
import subprocess
import sys
from datetime import timedelta

import pytest
from django.utils import timezone

from interview.models import Status, Submission, WorkerHeartbeat
from interview.judge.worker import Maintenance, self_check
from tests.interview.factories import ProblemFactory, SubmissionFactory
from tests.judging_support import ROOT, SOFTMAX, content_with


def run_self_check(content, *args):
    environment = {**os.environ, "INTERVIEW_CONTENT_DIR": str(content), "DJANGO_SETTINGS_MODULE": "interview.settings"}
    return subprocess.run([sys.executable, "manage.py", "judge_self_check", *args], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.sandbox
@pytest.mark.slow
def test_the_self_check_judges_each_reference_and_passes(tmp_path):
    result = run_self_check(content_with(tmp_path / "content", SOFTMAX), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert [(r["slug"], r["verdict"], r["ok"]) for r in report["results"]] == [(SOFTMAX, "accepted", True)]
    assert report["torch_version"].startswith("2.") and f"self-check ok   cpu {SOFTMAX}" in result.stderr


@pytest.mark.sandbox
@pytest.mark.slow
def test_the_self_check_fails_when_a_reference_is_not_accepted(tmp_path):
    content = content_with(tmp_path / "content", SOFTMAX)
    # What a broken host does to every judge: the trusted reference itself cannot run.
    (content / SOFTMAX / "reference.py").write_text("def softmax(x, dim=-1):\n    raise OSError('no device')\n")
    result = run_self_check(content)
    assert result.returncode == 1
    assert f"FAIL cpu {SOFTMAX}: internal_error" in result.stdout


# A finder first in line that fails every import of Triton, as on a machine without it.
NO_TRITON = """import sys


class _NoTriton:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "triton":
            raise ModuleNotFoundError(name)


sys.meta_path.insert(0, _NoTriton())
"""


@pytest.mark.sandbox
@pytest.mark.slow
def test_a_kernel_problem_where_triton_is_missing_is_reported_unavailable_and_fails_nothing(tmp_path):
    content = content_with(tmp_path / "content", SOFTMAX, "triton-vector-add")
    # A machine without Triton (its wheels are Linux x86-64 only): importing it fails, as it does there.
    hidden = tmp_path / "without-triton"
    hidden.mkdir()
    (hidden / "sitecustomize.py").write_text(NO_TRITON)
    environment = {**os.environ, "INTERVIEW_CONTENT_DIR": str(content), "DJANGO_SETTINGS_MODULE": "interview.settings",
                   "PYTHONPATH": str(hidden)}
    result = subprocess.run([sys.executable, "manage.py", "judge_self_check", "--json"], cwd=ROOT, env=environment,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    verdicts = {r["slug"]: (r["verdict"], r["ok"]) for r in json.loads(result.stdout)["results"]}
    assert verdicts == {SOFTMAX: ("accepted", True), "triton-vector-add": ("unavailable", True)}


def test_the_self_check_on_a_gpu_without_one_fails_saying_so(tmp_path):
    result = run_self_check(content_with(tmp_path / "content"), "--device", "cuda", "--json")
    assert result.returncode == 1
    assert "no usable GPU" in json.loads(result.stdout)["error"]


def test_a_worker_for_an_unknown_queue_refuses_it():
    report = self_check(["cpu", "fast"], gpus=1)
    assert report.failed and "unknown judge queue(s): fast" in report.text


@pytest.mark.django_db
def test_each_tick_writes_the_heartbeat_and_sweeps(embedded_queue):
    lost = SubmissionFactory(status=Status.RUNNING, verdict="", problem=ProblemFactory(needs="cpu"), attempts=1,
                             lease_expires_at=timezone.now() - timedelta(seconds=1))
    Maintenance("cpu@host").tick()
    heartbeat = WorkerHeartbeat.objects.get(name="cpu@host")
    assert heartbeat.last_seen_at > timezone.now() - timedelta(seconds=5)
    assert Submission.objects.get(pk=lost.pk).status == Status.QUEUED


def test_the_web_process_never_imports_the_judge_engine_pytorch_or_triton():
    code = (
        "import sys, django; django.setup()\n"
        "from django.urls import resolve\n"
        "import interview.urls, interview.services.submissions, interview.views.api\n"
        "for path in ('/problems/x/', '/api/problems/x/submissions', '/submissions/1/', '/healthz'):\n"
        "    resolve(path)\n"
        "assert not {'torch', 'triton', 'runner'} & set(sys.modules), 'torch, triton or runner imported'\n"
    )
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "interview.settings"}
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
