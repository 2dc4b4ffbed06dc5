"""The signed-in user's code-editor settings, saved from the problem page so they follow the user."""

from django.http import JsonResponse

from interview.services.editor_settings import editor_settings_save
from interview.services.submissions import Refused
from interview.views.api import api_endpoint
from interview.views.refusals import refusal_response
from interview.views.submission_requests import json_object_request


@api_endpoint("POST")
def editor_settings_api(request, user):
    """POST {"font_size"?, "wrap"?, "keymap"?} → 200 with all three as saved; a bad value is a 400."""
    try:
        saved = editor_settings_save(user=user, changes=json_object_request(request))
    except Refused as refusal:
        return refusal_response(refusal)
    return JsonResponse(saved.as_json())
