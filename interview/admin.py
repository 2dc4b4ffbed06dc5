"""The admin: topics and questions. Rows synced from git are read-only here; git is their source of truth."""

from django import forms
from django.contrib import admin
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from interview.content.questions import key_point_problems
from interview.models import Origin, Question, Topic
from interview.services.questions import question_save


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
class QuestionAdmin(FileOriginReadOnly, admin.ModelAdmin):
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
