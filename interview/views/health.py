"""/healthz: whether the app can take and judge submissions, for load balancers and for people."""

from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from interview.selectors.health import health_report


@never_cache
@require_GET
def healthz_view(request):
    """200 with the report when healthy, 503 with it when not (no worker, database or broker down)."""
    healthy, report = health_report()
    return JsonResponse(report, status=200 if healthy else 503)
