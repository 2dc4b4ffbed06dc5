"""The admin: topics, questions, problems, submissions and problem sets. Rows synced from git are read-only here;
git is their source of truth. Submissions are read-only too, with the history of their judgements, and can be
judged again. Problem sets come from git as well, and more can be written here, by staff or the `curators`
group (created by migration 0005: sets, and reading the bank, nothing else)."""

import re

from django import forms
from django.contrib import admin
from django.db.models import Case, F, IntegerField, Q, Value, When
from django.db.models.functions import Length
from django.template.loader import render_to_string
from django.urls import reverse_lazy
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from interview.content.problem_sets import ITEM_KINDS, MINUTES_RANGE
from interview.content.questions import key_point_problems
from interview.models import (
    ApiToken, Origin, Problem, ProblemSet, ProblemSetItem, Question, Status, Submission, Topic, WorkerHeartbeat,
)
from interview.rendering import highlight_python
from interview.selectors.workers import current_judge_versions
from interview.services.problem_sets import problem_set_renumber
from interview.services.questions import question_save
from interview.services.submissions import submissions_rejudge


class FileOriginReadOnly:
    """Rows that sync_content writes can be viewed but not changed or deleted: the next sync would undo it.

    A question leaves the site when its file is deleted from git (it is then retired, its history kept).
    """

    def has_change_permission(self, request, obj=None):
        if obj is not None and obj.origin == Origin.FILE:
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        if obj is not None and obj.origin == Origin.FILE:
            return False
        return super().has_delete_permission(request, obj)


class RankedByTitle:
    """The item pickers of a problem set (autocomplete searches) offer the best title match first.

    Django's search keeps the model's order, so a word found only in an answer could come before the row
    whose title it names: "Multi-head" once offered `F.scaled_dot_product_attention` first.
    """

    def get_search_results(self, request, queryset, search_term):
        queryset, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        term = search_term.strip()
        if not term:
            return queryset, may_have_duplicates
        # Among equal matches the shorter title first: the term is more of what it names ("Numerically stable
        # softmax" before "FlashAttention forward: tiled online softmax").
        ranked = queryset.annotate(title_match=title_match_rank(term)).order_by("title_match", Length("title"),
                                                                                  "title")
        return ranked, may_have_duplicates


def title_match_rank(term: str) -> Case:
    """0 for the title itself, then a title holding the term as a whole word, starting with it, containing it,
    holding each of its words."""
    every_word = Q()
    for word in term.split():
        every_word &= Q(title__icontains=word)
    # A word boundary both PostgreSQL's and Python's (SQLite's) regular expressions read alike.
    whole_word = rf"(^|[^a-z0-9]){re.escape(term)}([^a-z0-9]|$)"
    return Case(
        When(title__iexact=term, then=Value(0)),
        When(title__iregex=whole_word, then=Value(1)),
        When(title__istartswith=term, then=Value(2)),
        When(title__icontains=term, then=Value(3)),
        When(every_word, then=Value(4)),
        default=Value(5),
        output_field=IntegerField(),
    )


class RetiredFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "retired"

    def lookups(self, request, model_admin):
        return [("no", "Live"), ("yes", "Retired")]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(retired_at__isnull=self.value() == "no")
        return queryset


@admin.register(Topic)
class TopicAdmin(FileOriginReadOnly, admin.ModelAdmin):
    list_display = ("name", "slug", "position", "origin", "retired_at")
    list_filter = ("origin", RetiredFilter)
    search_fields = ("name", "slug", "description")
    readonly_fields = ("origin",)

    def get_prepopulated_fields(self, request, obj=None):
        return {"slug": ("name",)} if obj is None else {}


class QuestionAdminForm(forms.ModelForm):
    class Meta:
        model = Question
        fields = "__all__"

    def clean_key_points(self):
        key_points = self.cleaned_data["key_points"]
        problems = key_point_problems(key_points)
        if problems:
            raise forms.ValidationError([f"{field}: {message}" for field, message in problems])
        return key_points


@admin.register(Question)
class QuestionAdmin(RankedByTitle, FileOriginReadOnly, admin.ModelAdmin):
    form = QuestionAdminForm
    list_display = ("title", "slug", "topic", "difficulty", "origin", "is_live")
    list_filter = ("topic", "difficulty", "origin", RetiredFilter)
    list_select_related = ("topic",)
    search_fields = ("title", "slug", "prompt", "answer_markdown")
    autocomplete_fields = ("related",)
    readonly_fields = ("origin", "source_path", "answer_preview", "created_at", "updated_at")
    fieldsets = (
        (None, {"fields": ("title", "slug", "topic", "difficulty", "source", "origin", "source_path")}),
        (
            "Question and answer",
            {"fields": ("prompt", "answer_markdown", "answer_preview", "key_points", "related")},
        ),
        ("Status", {"fields": ("retired_at", "created_at", "updated_at")}),
    )

    def get_prepopulated_fields(self, request, obj=None):
        return {"slug": ("title",)} if obj is None else {}

    @admin.display(boolean=True, description="live", ordering="retired_at")
    def is_live(self, question):
        return question.retired_at is None

    @admin.display(description="answer as shown")
    def answer_preview(self, question):
        if not question.answer_html:
            return "Shown once saved."
        # The HTML was rendered from Markdown with raw HTML disabled, by render_markdown.
        return format_html('<div class="prose">{}</div>', mark_safe(question.answer_html))

    def save_model(self, request, obj, form, change):
        question_save(question=obj)


class JudgedByFilter(admin.SimpleListFilter):
    """Finished submissions whose last judgement an older judge or an older version of the problem made: those a
    fix to either may judge differently. The web process cannot hash the judge's code, so the current judge is
    what the workers consuming now report in their heartbeats."""

    title = "judged by"
    parameter_name = "judged_by"
    OLDER_JUDGE, OLDER_PROBLEM, EITHER = "older_judge", "older_problem", "either"

    def lookups(self, request, model_admin):
        unknown = "" if current_judge_versions() else " (none: no worker reports its judge now)"
        return [(self.OLDER_JUDGE, f"An older judge{unknown}"), (self.OLDER_PROBLEM, "An older problem version"),
                (self.EITHER, "An older judge or problem version")]

    def queryset(self, request, queryset):
        if self.value() not in (self.OLDER_JUDGE, self.OLDER_PROBLEM, self.EITHER):
            return queryset
        current = current_judge_versions()
        older_judge = ~Q(judgement__judge_version__in=current) if current else Q(pk__in=[])
        older_problem = ~Q(judgement__problem_version=F("problem__version"))
        older = {self.OLDER_JUDGE: older_judge, self.OLDER_PROBLEM: older_problem,
                 self.EITHER: older_judge | older_problem}[self.value()]
        return queryset.filter(older, status=Status.FINISHED)


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    """Submissions are the judge's record: read-only here, with every judgement; the actions judge them again."""

    list_display = ("id", "user", "problem", "suite", "status", "verdict", "queue", "device", "attempts", "created_at")
    list_filter = ("status", "judgement__verdict", JudgedByFilter, "suite", "queue", "judgement__device", "problem")
    list_select_related = ("user", "problem", "judgement")
    search_fields = ("=id", "user__username", "problem__slug")
    date_hierarchy = "created_at"
    actions = ["rejudge", "rejudge_problems"]

    class Media:
        css = {"all": (reverse_lazy("pygments_css"),)}

    fieldsets = (
        (None, {"fields": ("id", "user", "problem", "suite", "status", "message", "created_at", "hints_shown",
                           "whys_shown")}),
        ("Judgements, newest first", {"fields": ("history",)}),
        ("Code", {"fields": ("code",)}),
        ("Queue and lease", {"fields": ("queue", "enqueued_at", "deliveries", "attempts", "lease_expires_at", "worker",
                                        "tests_total", "seed_index", "idempotency_key")}),
    )

    def get_readonly_fields(self, request, obj=None):
        return [name for _, options in self.fieldsets for name in options["fields"]]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="verdict", ordering="judgement__verdict")
    def verdict(self, submission):
        return submission.judgement.get_verdict_display() if submission.judgement else ""

    @admin.display(description="device", ordering="judgement__device")
    def device(self, submission):
        return submission.judgement.device if submission.judgement else ""

    @admin.display(description="source")
    def code(self, submission):
        # Pygments escapes the source as it highlights it.
        return format_html('<div class="prose">{}</div>', mark_safe(highlight_python(submission.source)))

    @admin.display(description="judgements")
    def history(self, submission):
        """Every judgement, newest first, with its versions (marked when no longer current) and its tests."""
        return render_to_string("admin/interview/submission/judgements.html", {
            "judgements": submission.judgements.prefetch_related("tests"),
            "current_judge_versions": current_judge_versions(),
            "problem_version": submission.problem.version,
        })

    @admin.action(description="Judge the selected submissions again")
    def rejudge(self, request, queryset):
        count = submissions_rejudge(submissions=queryset)
        self.message_user(request, f"{count} submission(s) queued to be judged again; those still waiting were left.")

    @admin.action(description="Judge every submission to the selected submissions' problems again")
    def rejudge_problems(self, request, queryset):
        problems = queryset.values("problem")
        count = submissions_rejudge(submissions=Submission.objects.filter(problem__in=problems))
        self.message_user(request, f"{count} submission(s) to these problems queued to be judged again.")


@admin.register(Problem)
class ProblemAdmin(RankedByTitle, admin.ModelAdmin):
    """Problems come from their packages in git (sync_content): read-only here."""

    list_display = ("title", "slug", "difficulty", "topic_names", "needs", "version", "is_live", "updated_at")
    list_filter = ("difficulty", ("topics", admin.RelatedOnlyFieldListFilter), "needs", RetiredFilter)
    search_fields = ("title", "slug")
    actions = ["rejudge_all"]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("topics")

    @admin.display(description="topics")
    def topic_names(self, problem):
        return ", ".join(topic.name for topic in problem.topics.all())

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(boolean=True, description="live", ordering="retired_at")
    def is_live(self, problem):
        return problem.retired_at is None

    @admin.action(description="Judge every submission to the selected problems again")
    def rejudge_all(self, request, queryset):
        count = submissions_rejudge(submissions=Submission.objects.filter(problem__in=queryset))
        self.message_user(request, f"{count} submission(s) queued to be judged again.")


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    list_display = ("name", "state", "queues", "concurrency", "device_name", "torch_version", "judge_version",
                    "last_seen_at")
    list_filter = ("state",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens can be revoked (deleted) here; their values were never stored."""

    list_display = ("name", "user", "prefix", "created_at", "last_used_at")
    search_fields = ("user__username", "name", "prefix")
    list_select_related = ("user",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ProblemSetItemForm(forms.ModelForm):
    class Meta:
        model = ProblemSetItem
        fields = ("position", *ITEM_KINDS)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # A tabular row's fields sit under the column headings, with no label of their own to be named by. The
        # admin wraps a relation's widget (with its add and change links); the name goes on the one inside.
        for field in self.fields.values():
            getattr(field.widget, "widget", field.widget).attrs.setdefault("aria-label", field.label)

    def has_changed(self):
        # A blank new row is no item, even when the drag handles gave it a position.
        chosen = any(self.data.get(self.add_prefix(kind)) for kind in ITEM_KINDS)
        if self.instance.pk is None and not chosen:
            return False
        return super().has_changed()


class ProblemSetItemFormSet(forms.BaseInlineFormSet):
    def add_fields(self, form, index):
        super().add_fields(form, index)
        if "DELETE" in form.fields:
            form.fields["DELETE"].widget.attrs["aria-label"] = "Delete this item"

    def clean(self):
        """Refuse a set that lists the same question, problem or drill twice, naming it (the database would too)."""
        super().clean()
        seen = set()
        for form in self.forms:
            data = getattr(form, "cleaned_data", None)
            if not data or data.get("DELETE") or form.errors:
                continue
            kind = next((kind for kind in ITEM_KINDS if data.get(kind)), None)
            if kind is None:
                continue
            target = data[kind]
            if target in seen:
                form.add_error(kind, f"“{target}” is already in this set: each item appears once.")
            seen.add(target)


class ProblemSetItemInline(FileOriginReadOnly, admin.TabularInline):
    """The set's items in order: drag a row by its handle (or edit the positions), then save.

    A set from git shows its items read-only, like the set itself.
    """

    model = ProblemSetItem
    form = ProblemSetItemForm
    formset = ProblemSetItemFormSet
    fields = ("position", *ITEM_KINDS)
    # Drills are few enough for a plain list, which a curator can use without a drill admin of their own.
    autocomplete_fields = ("question", "problem")
    extra = 1
    ordering = ("position", "id")
    classes = ("set-items",)

    def has_add_permission(self, request, obj=None):
        if obj is not None and obj.origin == Origin.FILE:
            return False
        return super().has_add_permission(request, obj)


class ProblemSetAdminForm(forms.ModelForm):
    class Meta:
        model = ProblemSet
        fields = ("title", "slug", "description", "difficulty", "time_budget_minutes", "is_published")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "slug" in self.fields:
            # set_items.js keeps the preview in step with the field as the id is typed.
            self.fields["slug"].help_text = format_html(
                'Its URL: <code>/sets/<span class="set-slug-preview">{}</span>/</code>',
                self.instance.slug or "…",
            )

    def clean_time_budget_minutes(self):
        # The range a set's file may state: a mock interview of the set is sat for its budget.
        minutes = self.cleaned_data["time_budget_minutes"]
        low, high = MINUTES_RANGE
        if minutes is not None and not low <= minutes <= high:
            raise forms.ValidationError(f"A whole number of minutes from {low} to {high}.")
        return minutes


@admin.register(ProblemSet)
class ProblemSetAdmin(FileOriginReadOnly, admin.ModelAdmin):
    form = ProblemSetAdminForm
    list_display = (
        "title", "slug", "difficulty", "is_published", "item_count", "time_budget_minutes", "origin", "updated_at",
    )
    list_filter = ("is_published", "difficulty", "origin", RetiredFilter)
    search_fields = ("title", "slug", "description")
    inlines = [ProblemSetItemInline]
    actions = ["publish", "unpublish"]
    fields = ("title", "slug", "description", "difficulty", "time_budget_minutes", "is_published", "origin",
              "source_path", "retired_at")
    readonly_fields = ("origin", "source_path", "retired_at")

    class Media:
        js = ("interview/admin/set_items.js",)
        css = {"all": ("interview/admin/set_items.css",)}

    def get_prepopulated_fields(self, request, obj=None):
        return {"slug": ("title",)} if obj is None else {}

    @admin.display(description="items")
    def item_count(self, problem_set):
        return problem_set.items.count()

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        problem_set_renumber(problem_set=form.instance)

    @admin.action(description="Publish the selected sets")
    def publish(self, request, queryset):
        self._set_published(request, queryset, True)

    @admin.action(description="Unpublish the selected sets")
    def unpublish(self, request, queryset):
        self._set_published(request, queryset, False)

    def _set_published(self, request, queryset, published: bool) -> None:
        from_files = queryset.filter(origin=Origin.FILE).count()
        count = queryset.exclude(origin=Origin.FILE).update(is_published=published)
        message = f"{count} set(s) {'published' if published else 'unpublished'}."
        if from_files:
            message += f" {from_files} set(s) from git left as their files say (edit the file and run sync_content)."
        self.message_user(request, message)
