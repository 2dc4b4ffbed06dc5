"""The Django project of the interview trainer; its Celery app is loaded with it, so tasks can be sent."""

from interview.celery import app as celery_app

__all__ = ("celery_app",)
