"""Each submission a worker took becomes its first judgement: its judged fields and its tests move there, and
the submission points at it. A queued one has none (whatever tests an attempt that died left are dropped, as
the next attempt would drop them).

Reversible, but only in part: going back copies each submission's current judgement onto it, and the older
judgements of its history are lost with the judgement table.
"""

from django.db import migrations

# The fields of a judgement that the submission held until now, under the same names.
JUDGED = ("verdict", "problem_version", "judge_version", "seed_index", "device", "device_name", "torch_version",
          "sandbox", "time_user_ms", "time_reference_ms", "time_ratio", "memory_user_peak_bytes",
          "memory_reference_peak_bytes", "memory_ratio", "stdout", "stderr")
TEST_FIELDS = ("index", "name", "status", "message", "time_ms", "peak_bytes")
BATCH = 500


def judgements_from_submissions(apps, schema_editor):
    Submission = apps.get_model("interview", "Submission")
    SubmissionTest = apps.get_model("interview", "SubmissionTest")
    Judgement = apps.get_model("interview", "Judgement")
    JudgementTest = apps.get_model("interview", "JudgementTest")
    taken = Submission.objects.exclude(status="queued").order_by("pk")
    last = 0
    while batch := list(taken.filter(pk__gt=last)[:BATCH]):
        last = batch[-1].pk
        judgements = Judgement.objects.bulk_create(_judgement(Judgement, submission) for submission in batch)
        by_submission = {judgement.submission_id: judgement for judgement in judgements}
        JudgementTest.objects.bulk_create(
            JudgementTest(judgement=by_submission[test.submission_id],
                          **{name: getattr(test, name) for name in TEST_FIELDS})
            for test in SubmissionTest.objects.filter(submission__in=batch)
        )
        for submission in batch:
            submission.judgement = by_submission[submission.pk]
        Submission.objects.bulk_update(batch, ["judgement"])


def _judgement(Judgement, submission):
    started = submission.started_at or submission.created_at
    # A running one's judgement is still under way; a finished one or an error ended when the submission did.
    finished = None if submission.status == "running" else submission.finished_at or started
    return Judgement(submission=submission, started_at=started, finished_at=finished,
                     **{name: getattr(submission, name) for name in JUDGED})


def submissions_from_judgements(apps, schema_editor):
    Submission = apps.get_model("interview", "Submission")
    SubmissionTest = apps.get_model("interview", "SubmissionTest")
    JudgementTest = apps.get_model("interview", "JudgementTest")
    for submission in Submission.objects.select_related("judgement", "problem").iterator(chunk_size=BATCH):
        judgement = submission.judgement
        if judgement is None:
            submission.problem_version = submission.problem.version
            submission.save(update_fields=["problem_version"])
            continue
        for name in JUDGED:
            setattr(submission, name, getattr(judgement, name))
        submission.problem_version = judgement.problem_version or submission.problem.version
        submission.started_at, submission.finished_at = judgement.started_at, judgement.finished_at
        submission.save()
        SubmissionTest.objects.bulk_create(
            SubmissionTest(submission=submission, **{name: getattr(test, name) for name in TEST_FIELDS})
            for test in JudgementTest.objects.filter(judgement=judgement)
        )


class Migration(migrations.Migration):

    dependencies = [
        ('interview', '0015_judgements'),
    ]

    operations = [
        migrations.RunPython(judgements_from_submissions, submissions_from_judgements),
    ]
