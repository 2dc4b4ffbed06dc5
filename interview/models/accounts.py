"""What the site keeps about signing in: API tokens (hashed) and recent failed log-ins (for throttling)."""

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """A bearer token for scripts; only its SHA-256 is stored, the token itself is shown once."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, help_text="What the token is for, to recognise it later.")
    prefix = models.CharField(max_length=12, help_text="The token's first characters, to recognise it.")
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class LoginFailure(models.Model):
    username = models.CharField(max_length=150, db_index=True, help_text="As typed, lower-cased.")
    ip = models.GenericIPAddressField(null=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ("-created_at",)
