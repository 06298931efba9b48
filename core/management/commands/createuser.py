import os

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from core.roles import ROLES, user_ensure


class Command(BaseCommand):
    help = (
        "Create a user with one role (annotator, admin or researcher), or give an existing "
        "user that role instead of its others. A new user without --password or --password-env "
        "gets a generated password, printed once; an existing user keeps its password."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--role", required=True, choices=ROLES)
        source = parser.add_mutually_exclusive_group()
        source.add_argument("--password", help="Password (visible in the process list)")
        source.add_argument(
            "--password-env", metavar="VAR", help="Read the password from this variable"
        )

    def handle(self, *args, **opts):
        password = opts["password"]
        if opts["password_env"]:
            password = os.environ.get(opts["password_env"])
            if not password:
                raise CommandError(f"environment variable {opts['password_env']} is unset or empty")
        if password is not None:
            try:
                validate_password(password)
            except ValidationError as err:
                raise CommandError("password refused: " + " ".join(err.messages)) from None
        try:
            user, created, generated = user_ensure(
                username=opts["username"], role=opts["role"], password=password
            )
        except ValueError as err:
            raise CommandError(str(err)) from None
        verb = "created" if created else "updated"
        self.stdout.write(f"{verb} user {user.get_username()} with role {opts['role']}")
        if generated:
            self.stdout.write(f"password: {generated}")
