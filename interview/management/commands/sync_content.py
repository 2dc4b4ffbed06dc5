"""python manage.py sync_content: load the content that git holds into the database."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from interview.content.errors import ContentError
from interview.services import content_sync, follow_up_sync, problem_set_sync, problem_topic_sync


class Command(BaseCommand):
    help = (
        "Load the question bank, the problem packages with their follow-ups and topics, and the problem sets from "
        "the content folder (INTERVIEW_CONTENT_DIR, by default problems/) into the database. Idempotent; all or "
        "nothing: an invalid file stops the sync with nothing changed."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--content-dir", type=Path, help="read this folder instead of the configured content folder"
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="validate and report what would change, then save nothing"
        )

    def handle(self, *args, content_dir: Path | None, dry_run: bool, **options):
        content_dir = (content_dir or settings.CONTENT_DIR).resolve()
        if not content_dir.is_dir():
            raise CommandError(f"content folder {content_dir} does not exist")
        try:
            with transaction.atomic():
                reports = content_sync.sync_questions(content_dir=content_dir)
                reports.append(content_sync.sync_problems(content_dir=content_dir))
                reports.append(follow_up_sync.sync_follow_ups(content_dir=content_dir))
                reports.append(problem_topic_sync.sync_problem_topics(content_dir=content_dir))
                reports.append(problem_set_sync.sync_problem_sets(content_dir=content_dir))
                if dry_run:
                    transaction.set_rollback(True)
        except ContentError as error:
            raise CommandError(f"{error}\nNothing was changed.") from None

        for report in reports:
            self.stdout.write(str(report))
        if dry_run:
            self.stdout.write("Dry run: nothing was saved.")
        elif not any(report.changed for report in reports):
            self.stdout.write("Nothing changed.")
