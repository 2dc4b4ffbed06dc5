"""Migration operations shared by migrations: raw SQL that only one database vendor runs."""

from django.db import migrations


class RunSQLOn(migrations.RunSQL):
    """Raw SQL run only on `vendor` ("postgresql", "sqlite"); other databases skip it, both ways.

    For what one database has and the other lacks: PostgreSQL's GIN indexes, SQLite's FTS5 tables.
    """

    def __init__(self, vendor: str, *args, **kwargs):
        self.vendor = vendor
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, args, kwargs = super().deconstruct()
        return name, [self.vendor, *args], kwargs

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == self.vendor:
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == self.vendor:
            super().database_backwards(app_label, schema_editor, from_state, to_state)
