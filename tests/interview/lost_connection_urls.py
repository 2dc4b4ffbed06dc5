"""Views for tests/interview/test_lost_connection.py: one that only reads, one that writes before it reads."""

from django.contrib.auth import get_user_model
from django.http import JsonResponse
from django.urls import path


def reads(request):
    return JsonResponse({"users": get_user_model().objects.count()})


def writes_then_reads(request):
    get_user_model().objects.create(username=request.GET["name"])
    return JsonResponse({"users": get_user_model().objects.count()})


urlpatterns = [path("reads", reads), path("writes-then-reads", writes_then_reads)]
