"""python manage.py create_api_token <username>: issue an API token and print it (only its hash is kept)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from interview.services.accounts import api_token_create


class Command(BaseCommand):
    help = "Issue an API token for a user and print it once; scripts send it as 'Authorization: Bearer <token>'."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="command line", help="what the token is for (shown on the profile)")

    def handle(self, *args, username: str, name: str, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user {username!r}")
        issued = api_token_create(user=user, name=name)
        self.stderr.write(f"Token {issued.record.name!r} for {username}; it is shown only now:")
        self.stdout.write(issued.token)
