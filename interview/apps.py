from django.apps import AppConfig


class InterviewConfig(AppConfig):
    name = "interview"
    verbose_name = "Interview trainer"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.conf import settings
        from django.db.models.signals import post_delete, post_save

        from interview.auth import forget_cached_user

        # Connected in every process, the ones that never serve a page included (a management command that
        # changes a password), so a cached user is forgotten wherever the write happens.
        post_save.connect(forget_cached_user, sender=settings.AUTH_USER_MODEL, dispatch_uid="forget_cached_user")
        post_delete.connect(forget_cached_user, sender=settings.AUTH_USER_MODEL, dispatch_uid="forget_cached_user")
