"""What the bench scripts share: the database they measure against."""

from __future__ import annotations


def prepare_database() -> None:
    """Set up Django, create the DATABASE_URL database if it is missing, and migrate it.

    Raises whatever psycopg raises when the server cannot be reached at all.
    """
    import django
    from django.core.management import call_command

    django.setup()
    from django.db import connection

    try:
        connection.ensure_connection()
    except Exception:
        # The named database does not exist yet: create it through the maintenance database.
        import psycopg

        settings = connection.settings_dict
        with psycopg.connect(
            host=settings["HOST"],
            port=settings["PORT"],
            user=settings["USER"],
            dbname="postgres",
            autocommit=True,
        ) as conn:
            conn.execute(f'CREATE DATABASE "{settings["NAME"]}"')
    call_command("migrate", verbosity=0)
