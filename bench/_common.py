"""What the bench scripts share: the database they measure against, reading the bundled
SciFact files, and dropping a bench's own dataset afterwards."""

from __future__ import annotations

import gzip
import json
from pathlib import Path


def jsonl_gz(path: Path) -> list[dict]:
    """The non-empty lines of a gzipped JSONL file, parsed (e.g. a BEIR corpus.jsonl.gz)."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def drop_bench_data(slug: str) -> None:
    """Delete dataset ``slug`` with its debate jobs and pools (a bench's own data)."""
    from corpora.models import Dataset, Pool
    from debates.models import DebateJob

    DebateJob.objects.filter(pool__dataset__slug=slug).delete()
    Pool.objects.filter(dataset__slug=slug).delete()
    Dataset.objects.filter(slug=slug).delete()


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
