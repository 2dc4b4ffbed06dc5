"""A request that has only read from the database when its connection is lost runs its view again, once.

The health check (CONN_HEALTH_CHECKS) runs just before a request's first statement; a connection the server
ends after that check (a terminate, a failover, a restart) fails the next statement, and the request would
answer 500 although nothing it did had changed anything. While every statement the request sent was a SELECT,
running the view again on a new connection is safe; once any other statement has gone out (a write, a
savepoint), what ran may have reached the database, and the failure answers 500 as before.
"""

from __future__ import annotations

from django.db import InterfaceError, OperationalError, connection


class _Statements:
    """Counts the statements a request sends that could have changed something (anything but a SELECT)."""

    def __init__(self):
        self.writes = 0

    def __call__(self, execute, sql, params, many, context):
        if not sql.lstrip().upper().startswith("SELECT"):
            self.writes += 1
        return execute(sql, params, many, context)


class RetryReadsOnLostConnection:
    """Middleware, last in MIDDLEWARE so that every statement of the view and its template passes through it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.database_statements = _Statements()
        with connection.execute_wrapper(request.database_statements):
            return self.get_response(request)

    def process_exception(self, request, exception):
        statements = getattr(request, "database_statements", None)
        if (not isinstance(exception, (OperationalError, InterfaceError)) or statements is None
                or statements.writes or getattr(request, "database_retried", False) or connection.in_atomic_block
                or connection.is_usable()):
            return None
        request.database_retried = True
        connection.close()  # the next statement opens a new connection
        match = request.resolver_match
        return match.func(request, *match.args, **match.kwargs)
