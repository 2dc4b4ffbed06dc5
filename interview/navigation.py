"""The site's main navigation: each entry shows once its page exists (its URL name resolves)."""

from django.urls import NoReverseMatch, reverse

# Later parts of the product add their pages under these URL names; until then their entries stay hidden.
MAIN_NAVIGATION = (
    ("Questions", "question_list"),
    ("Problems", "problem_list"),
    ("Practice", "practice"),
    ("Interviews", "mock_interview_list"),
    ("Sets", "problem_set_list"),
)


def main_navigation(request) -> dict:
    """Template context: `main_navigation`, a list of {label, url, current} for the pages that exist."""
    entries = []
    for label, url_name in MAIN_NAVIGATION:
        try:
            url = reverse(url_name)
        except NoReverseMatch:
            continue
        entries.append({"label": label, "url": url, "current": request.path.startswith(url)})
    return {"main_navigation": entries}
