"""The site's 404 and 500 pages, and the admin's own under /admin/, so an error keeps the look of where it happened."""

from django.contrib import admin
from django.shortcuts import render
from django.urls import reverse
from django.views import defaults


def _in_admin(request) -> bool:
    return request.path.startswith(reverse("admin:index"))


def page_not_found_view(request, exception):
    if _in_admin(request):
        return render(request, "admin/404.html", admin.site.each_context(request), status=404)
    return defaults.page_not_found(request, exception)


def server_error_view(request):
    # Rendered without the request's context, as Django's own is: what failed may be what a context would read.
    return defaults.server_error(request, template_name="admin/500.html" if _in_admin(request) else "500.html")
