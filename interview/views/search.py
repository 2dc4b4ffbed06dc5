"""The site's one search, across questions, problems, drills and sets."""

from django.shortcuts import render

from interview.selectors.search import site_search


def search_view(request):
    query = request.GET.get("q", "")
    return render(request, "interview/search.html", {"search": site_search(query) if query.strip() else None,
                                                     "query": query})
