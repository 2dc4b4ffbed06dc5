"""A database connection the server ends between the health check and a request's statement: a request that
has only read runs again on a new connection and answers; one that has written answers 500 and is not run
twice (interview/lost_connection.py)."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client, override_settings

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def views_on_postgres():
    if connection.vendor != "postgresql":
        pytest.skip("ending a server's connection from outside is PostgreSQL's (pg_terminate_backend)")
    with override_settings(ROOT_URLCONF="tests.interview.lost_connection_urls"):
        yield
    connection.close()  # a test may leave it ended; the database's flush afterwards opens a new one


class EndConnectionBefore:
    """An execute wrapper that has the server end this connection just before the given statements (counted
    from 1) go out, as an administrator's terminate landing after the health check would."""

    def __init__(self, *statements: int):
        self.statements, self.seen, self.ended = set(statements), 0, 0

    def __call__(self, execute, sql, params, many, context):
        self.seen += 1
        if self.seen in self.statements:
            end(connection.connection.info.backend_pid)
            self.ended += 1
        return execute(sql, params, many, context)


def end(pid: int) -> None:
    settings = connection.settings_dict
    with psycopg.connect(host=settings["HOST"] or None, port=settings["PORT"] or None, user=settings["USER"],
                         dbname=connection.settings_dict["NAME"], autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
        for _ in range(200):
            if not other.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone():
                return
            time.sleep(0.01)
    raise AssertionError(f"backend {pid} did not end")


def get(path: str, ending: EndConnectionBefore):
    connection.ensure_connection()
    with connection.execute_wrapper(ending):
        return Client(raise_request_exception=False).get(path)


def test_a_request_that_only_read_answers_from_a_new_connection():
    get_user_model().objects.create(username="someone")
    ending = EndConnectionBefore(1)
    response = get("/reads", ending)
    assert response.status_code == 200
    assert response.json() == {"users": 1}
    assert ending.ended == 1 and ending.seen == 2  # the lost statement, then the same one on a new connection


def test_a_request_that_wrote_answers_500_and_is_not_run_again():
    ending = EndConnectionBefore(2)
    response = get("/writes-then-reads?name=once", ending)
    assert response.status_code == 500
    connection.close()  # the ended one; the next statement opens a new connection
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["once"]


def test_a_read_whose_connection_is_lost_again_is_run_again_only_once():
    ending = EndConnectionBefore(1, 2, 3)
    response = get("/reads", ending)
    assert response.status_code == 500
    assert ending.seen == 2
