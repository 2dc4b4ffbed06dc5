"""A client of the submissions API for scripts: a bearer token (`manage.py create_api_token`), JSON over HTTP.

    client = ApiClient("http://127.0.0.1:8000", token)
    submission_id = client.submit("mhsa", Path("mhsa.py").read_text())
    print(client.wait_judged(submission_id)["verdict"])

The standard library only, so that a script can copy this file and use it without the project installed.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

JUDGED_STATUSES = ("finished", "error")


class ApiError(Exception):
    """The API answered a request with an error status."""

    def __init__(self, status: int, body: dict):
        super().__init__(f"the API answered {status}: {body}")
        self.status, self.body = status, body


class ApiClient:
    def __init__(self, base_url: str, token: str, *, timeout_s: float = 60):
        self.base_url, self.token, self.timeout_s = base_url.rstrip("/"), token, timeout_s

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        """One request; its status and JSON body, whatever the status."""
        request = urllib.request.Request(
            self.base_url + path, method=method, data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def submit(self, problem: str, source: str, tests: str = "all") -> int:
        """Submit source for problem's sample or full tests; the new submission's id."""
        status, body = self.call("POST", f"/api/problems/{problem}/submissions", {"source": source, "tests": tests})
        if status != 201:
            raise ApiError(status, body)
        return body["id"]

    def submission(self, submission_id: int) -> dict:
        status, body = self.call("GET", f"/api/submissions/{submission_id}")
        if status != 200:
            raise ApiError(status, body)
        return body

    def wait_judged(self, submission_id: int, *, interval_s: float = 0.2, timeout_s: float = 900) -> dict:
        """Poll until the submission is judged (or has ended in an error); TimeoutError after timeout_s."""
        deadline = time.monotonic() + timeout_s
        while True:
            body = self.submission(submission_id)
            if body.get("status") in JUDGED_STATUSES:
                return body
            if time.monotonic() > deadline:
                raise TimeoutError(f"submission {submission_id} was not judged within {timeout_s:g} s: {body}")
            time.sleep(interval_s)
