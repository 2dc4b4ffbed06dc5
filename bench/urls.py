"""The benchmarks' URLconf: the app's own, plus a bare view to compare pages with (never in the product)."""

from django.http import HttpResponse
from django.urls import include, path


def bare_view(request):
    """A constant string: what the server, the middleware and Django cost with no page behind them."""
    return HttpResponse("bare", content_type="text/plain")


urlpatterns = [
    path("bench/bare", bare_view),
    path("", include("interview.urls")),
]
