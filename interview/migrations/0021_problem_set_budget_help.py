"""A set's time budget is a duration its mock interview may be sat for, not rounded to the nearest offered."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("interview", "0020_site_search"),
    ]

    operations = [
        migrations.AlterField(
            model_name="problemset",
            name="time_budget_minutes",
            field=models.PositiveSmallIntegerField(
                blank=True,
                help_text="Optional: the minutes it should take; a mock interview of it may be sat for them, "
                          "whatever their number.",
                null=True,
            ),
        ),
    ]
