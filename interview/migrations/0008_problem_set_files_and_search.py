"""Problem sets synced from files, each item at most once per set, and SQLite's full-text index of questions.

On SQLite the questions get an FTS5 index (porter-stemmed, ranked by bm25 in interview.selectors.questions),
kept current by triggers, so that every write to a question (the sync, the admin, retiring) reaches it
without the writer having to know. PostgreSQL keeps its own search vector (migration 0002).
"""

from django.db import migrations, models

from interview.migration_operations import RunSQLOn

# The key points' texts and phrasings, out of their JSON: the field names would otherwise match every row.
_KEY_POINTS_TEXT = "(SELECT group_concat(value, ' ') FROM json_tree({row}.key_points) WHERE type = 'text')"
_INDEX_ROW = (
    "INSERT INTO interview_question_search (rowid, title, prompt, key_points, answer) "
    "VALUES ({row}.id, {row}.title, {row}.prompt, " + _KEY_POINTS_TEXT + ", {row}.answer_markdown);"
)
_UNINDEX_ROW = "DELETE FROM interview_question_search WHERE rowid = old.id;"

SQLITE_SEARCH_INDEX = [
    "CREATE VIRTUAL TABLE interview_question_search USING fts5("
    "title, prompt, key_points, answer, tokenize = 'porter unicode61 remove_diacritics 2')",
    "INSERT INTO interview_question_search (rowid, title, prompt, key_points, answer) "
    "SELECT q.id, q.title, q.prompt, " + _KEY_POINTS_TEXT.format(row="q") + ", q.answer_markdown "
    "FROM interview_question AS q",
    "CREATE TRIGGER interview_question_search_insert AFTER INSERT ON interview_question BEGIN "
    + _INDEX_ROW.format(row="new") + " END",
    "CREATE TRIGGER interview_question_search_update "
    "AFTER UPDATE OF title, prompt, key_points, answer_markdown ON interview_question BEGIN "
    + _UNINDEX_ROW + " " + _INDEX_ROW.format(row="new") + " END",
    "CREATE TRIGGER interview_question_search_delete AFTER DELETE ON interview_question BEGIN "
    + _UNINDEX_ROW + " END",
]
SQLITE_SEARCH_INDEX_REMOVAL = [
    "DROP TRIGGER interview_question_search_delete",
    "DROP TRIGGER interview_question_search_update",
    "DROP TRIGGER interview_question_search_insert",
    "DROP TABLE interview_question_search",
]


def drop_repeated_items(apps, schema_editor):
    """Before the rule that an item appears once per set: keep each repeated item's first place only."""
    ProblemSetItem = apps.get_model("interview", "ProblemSetItem")
    seen = set()
    for item in ProblemSetItem.objects.order_by("problem_set", "position", "id"):
        key = (item.problem_set_id, item.question_id, item.problem_id)
        if key in seen:
            item.delete()
        seen.add(key)


class Migration(migrations.Migration):

    dependencies = [
        ("interview", "0007_submission_seed_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="problemset",
            name="origin",
            field=models.CharField(
                choices=[("file", "File in git"), ("admin", "Written in the admin")],
                default="admin",
                editable=False,
                max_length=10,
            ),
        ),
        migrations.AddField(
            model_name="problemset",
            name="retired_at",
            field=models.DateTimeField(
                blank=True,
                editable=False,
                help_text="Set when its file left git: the set is hidden, the interviews sat from it keep their items.",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="problemset",
            name="source_path",
            field=models.CharField(
                blank=True,
                editable=False,
                help_text="The file it was synced from, under the content folder.",
                max_length=300,
            ),
        ),
        migrations.RunPython(drop_repeated_items, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="problemsetitem",
            constraint=models.UniqueConstraint(
                condition=models.Q(("question__isnull", False)),
                fields=("problem_set", "question"),
                name="set_item_question_once",
                violation_error_message="This question is already an item of the set: each appears once.",
            ),
        ),
        migrations.AddConstraint(
            model_name="problemsetitem",
            constraint=models.UniqueConstraint(
                condition=models.Q(("problem__isnull", False)),
                fields=("problem_set", "problem"),
                name="set_item_problem_once",
                violation_error_message="This problem is already an item of the set: each appears once.",
            ),
        ),
        RunSQLOn("sqlite", sql=SQLITE_SEARCH_INDEX, reverse_sql=SQLITE_SEARCH_INDEX_REMOVAL),
    ]
