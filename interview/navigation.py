"""The site's main navigation: the parts of the product, the one being read marked as current."""

from django.urls import reverse

MAIN_NAVIGATION = (
    ("Questions", "question_list"),
    ("Problems", "problem_list"),
    ("Drills", "drill_list"),
    ("Practice", "practice"),
    ("Interviews", "mock_interview_list"),
    ("Sets", "problem_set_list"),
)


def main_navigation(request) -> dict:
    """Template context: `main_navigation`, a list of {label, url, current}, one per part of the product."""
    entries = []
    for label, url_name in MAIN_NAVIGATION:
        url = reverse(url_name)
        entries.append({"label": label, "url": url, "current": request.path.startswith(url)})
    return {"main_navigation": entries}
