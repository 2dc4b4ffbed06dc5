from django.db import migrations


class RunOnPostgreSQL(migrations.RunSQL):
    """Raw SQL that only PostgreSQL runs: SQLite has no tsvector type nor GIN indexes, and searches without."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)


class Migration(migrations.Migration):
    dependencies = [("interview", "0001_questions")]

    operations = [
        RunOnPostgreSQL(
            sql="CREATE INDEX interview_question_search_vector_gin ON interview_question USING gin (search_vector)",
            reverse_sql="DROP INDEX interview_question_search_vector_gin",
        ),
    ]
