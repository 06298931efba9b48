"""``./dream manage api_token USER [--name NAME] [--revoke]``: make an API token for a user
and print it once (only its hash is stored), or revoke all of the user's tokens."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from core.tokens import api_token_create, api_token_revoke


class Command(BaseCommand):
    help = (
        "Make an API token for USER and print it once (only its hash is stored), or with "
        "--revoke revoke every token of USER."
    )

    def add_arguments(self, parser):
        parser.add_argument("user", help="Username")
        parser.add_argument("--name", default="", help="What the token is for")
        parser.add_argument("--revoke", action="store_true", help="Revoke the user's tokens")

    def handle(self, *args, **opts):
        User = get_user_model()
        user = User.objects.filter(**{User.USERNAME_FIELD: opts["user"]}).first()
        if user is None:
            raise CommandError(f"no user {opts['user']!r} (make one with createuser)")
        if opts["revoke"]:
            count = api_token_revoke(user=user)
            self.stdout.write(f"{count} token(s) of {opts['user']} revoked")
            return
        _, token = api_token_create(user=user, name=opts["name"])
        self.stderr.write(f"API token of {opts['user']} (shown once; store it now):")
        self.stdout.write(token)
