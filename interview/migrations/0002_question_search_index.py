from django.db import migrations

from interview.migration_operations import RunSQLOn


class Migration(migrations.Migration):
    dependencies = [("interview", "0001_questions")]

    operations = [
        RunSQLOn(
            "postgresql",
            sql="CREATE INDEX interview_question_search_vector_gin ON interview_question USING gin (search_vector)",
            reverse_sql="DROP INDEX interview_question_search_vector_gin",
        ),
    ]
