from django.apps import AppConfig


class InterviewConfig(AppConfig):
    name = "interview"
    verbose_name = "Interview trainer"
    default_auto_field = "django.db.models.BigAutoField"
