"""The problem page's hints panel: what the signed-in user or visitor has revealed, and any hint on offer."""

from django import template

from interview.selectors.hints import hint_offered, hints_shown

register = template.Library()


@register.simple_tag(takes_context=True)
def hint_state(context, problem) -> dict:
    """The revealed hints' HTML, how many there are in all, and the number of the hint offered (or None)."""
    request = context["request"]
    shown = hints_shown(user=request.user, problem=problem, session=request.session)
    return {
        "revealed": problem.hints_html[:shown],
        "shown": shown,
        "total": len(problem.hints_html),
        "next": shown + 1 if shown < len(problem.hints_html) else None,
        "offered": hint_offered(user=request.user, problem=problem, shown=shown),
    }
