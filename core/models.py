"""What core stores: API tokens and each user's webhook secret.

A token (:class:`ApiToken`) is shown once when made and stored only as its SHA-256 hash, with
its first characters kept to tell tokens apart on a page; a request carries it as
``Authorization: Bearer <token>`` (:mod:`core.tokens`). A webhook secret
(:class:`WebhookSecret`) signs the callbacks sent for the user's jobs (an HMAC; see
:mod:`core.tokens` and ``debates.webhooks``); it is shown to its user, who may replace it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """One API token of one user; ``key_hash`` is the hex SHA-256 of the token."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100, blank=True, help_text="What the token is for.")
    prefix = models.CharField(max_length=16, help_text="The token's first characters.")
    key_hash = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)
    revoked = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user_id}{', revoked' if self.revoked else ''})"


class WebhookSecret(models.Model):
    """The secret whose HMAC signs the webhook callbacks of one user's jobs."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhook_secret"
    )
    secret = models.CharField(max_length=64)
    created = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"webhook secret of user {self.user_id}"
