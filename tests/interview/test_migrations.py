"""The migrations describe the models exactly."""

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_lacks_a_migration():
    call_command("makemigrations", "interview", "--check", "--dry-run", verbosity=0)
