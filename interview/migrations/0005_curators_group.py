"""The `curators` group: manages problem sets, reads the bank and the problems, sees nobody's accounts or code."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

CURATORS = "curators"
PERMISSIONS = [
    ("interview", "problemset", ("add", "change", "delete", "view")),
    ("interview", "problemsetitem", ("add", "change", "delete", "view")),
    ("interview", "question", ("view",)),
    ("interview", "topic", ("view",)),
    ("interview", "problem", ("view",)),
]


def create_curators(apps, schema_editor):
    # Permissions are normally created after all migrations ran; this group needs them now.
    app_config = apps.get_app_config("interview")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None

    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=CURATORS)
    wanted = [f"{action}_{model}" for _app, model, actions in PERMISSIONS for action in actions]
    group.permissions.set(Permission.objects.filter(content_type__app_label="interview", codename__in=wanted))


def remove_curators(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=CURATORS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("interview", "0004_practice_mock_interviews_and_sets"),
    ]

    operations = [migrations.RunPython(create_curators, remove_curators)]
