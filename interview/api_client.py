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
from dataclasses import dataclass

JUDGED_STATUSES = ("finished", "error")


class ApiError(Exception):
    """The API answered a request with an error status."""

    def __init__(self, status: int, body: dict):
        super().__init__(f"the API answered {status}: {body}")
        self.status, self.body = status, body


@dataclass(frozen=True)
class Response:
    status: int
    body: dict  # a body that is not a JSON object reads as {"error": its first words}, and is_json is False
    headers: dict[str, str]
    is_json: bool = True


def _response(status: int, raw: bytes, headers) -> Response:
    headers = {name.lower(): value for name, value in headers.items()}
    try:
        body = json.loads(raw or b"{}")
    except ValueError:
        body = None
    if isinstance(body, dict):
        return Response(status, body, headers)
    # A proxy's error page, or a URL that is not this API: what it said, for the message.
    words = " ".join(raw[:300].decode("utf-8", "replace").split())
    return Response(status, {"error": f"an answer that is not the API's JSON: {words or 'nothing'}"}, headers,
                    is_json=False)


class ApiClient:
    def __init__(self, base_url: str, token: str, *, timeout_s: float = 60):
        self.base_url, self.token, self.timeout_s = base_url.rstrip("/"), token, timeout_s

    def request(self, method: str, path: str, body: dict | None = None) -> Response:
        """One request and its answer, whatever its status; urllib.error.URLError (an OSError) when there is none
        (no server there, a name that does not resolve, a timeout)."""
        request = urllib.request.Request(
            self.base_url + path, method=method, data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json",
                     "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return _response(response.status, response.read(), response.headers)
        except urllib.error.HTTPError as error:
            return _response(error.code, error.read(), error.headers)

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        """One request; its status and JSON body, whatever the status."""
        response = self.request(method, path, body)
        return response.status, response.body

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
