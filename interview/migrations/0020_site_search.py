"""The site's one search (interview.selectors.search): PostgreSQL's trigram similarity, and on SQLite a view of
the questions' FTS5 index's vocabulary, from which a mistyped word's nearest term is suggested."""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

from interview.migration_operations import RunSQLOn


class Migration(migrations.Migration):

    dependencies = [
        ("interview", "0019_judgement_accepted_standing_index"),
    ]

    operations = [
        # Django runs it on PostgreSQL only.
        TrigramExtension(),
        RunSQLOn(
            "sqlite",
            "CREATE VIRTUAL TABLE interview_question_search_vocab USING fts5vocab(interview_question_search, 'row')",
            "DROP TABLE interview_question_search_vocab",
        ),
    ]
