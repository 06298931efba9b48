"""``./dream manage api_token USER [--name NAME] [--revoke] [--webhook-secret]``: make an API
token for a user and print it once (only its hash is stored), revoke all of the user's
tokens, or print the user's webhook secret."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from core.tokens import api_token_create, api_token_revoke, webhook_secret_get


class Command(BaseCommand):
    help = (
        "Make an API token for USER and print it once (only its hash is stored), or with "
        "--revoke revoke every token of USER."
    )

    def add_arguments(self, parser):
        parser.add_argument("user", help="Username")
        parser.add_argument("--name", default="", help="What the token is for")
        parser.add_argument("--revoke", action="store_true", help="Revoke the user's tokens")
        parser.add_argument(
            "--webhook-secret",
            action="store_true",
            help="Print the user's webhook secret instead (made on first use), e.g. for a "
            "receiver that checks the signatures",
        )

    def handle(self, *args, **opts):
        User = get_user_model()
        user = User.objects.filter(**{User.USERNAME_FIELD: opts["user"]}).first()
        if user is None:
            raise CommandError(f"no user {opts['user']!r} (make one with createuser)")
        if opts["webhook_secret"]:
            self.stdout.write(webhook_secret_get(user=user))
            return
        if opts["revoke"]:
            count = api_token_revoke(user=user)
            self.stdout.write(f"{count} token(s) of {opts['user']} revoked")
            return
        _, token = api_token_create(user=user, name=opts["name"])
        self.stderr.write(f"API token of {opts['user']} (shown once; store it now):")
        self.stdout.write(token)
