"""Code-point ordering in queries: the project's canonical order for ids."""

from django.db import connection
from django.db.models.functions import Collate


def code_point(field: str) -> Collate | str:
    """An ``order_by`` term sorting ``field`` by Unicode code point on every database.

    PostgreSQL sorts text with the database's locale unless told ``"C"``, which would make
    exports differ between machines; SQLite's default BINARY collation is already code-point
    order for UTF-8.
    """
    if connection.vendor == "postgresql":
        return Collate(field, "C")
    return field
