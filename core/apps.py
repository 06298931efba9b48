from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core: roles, accounts, login rate limit, htmx helpers"

    def ready(self) -> None:
        # The login rate limit learns of failed logins through Django's user_login_failed
        # signal: connect its receiver whether or not a view imported core.accounts yet.
        from . import accounts  # noqa: F401
        from .converters import converters_register

        # The URL modules use <name:slug> for dataset slugs (a "." included).
        converters_register()
