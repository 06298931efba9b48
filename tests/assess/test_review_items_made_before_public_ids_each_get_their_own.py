"""The migration that adds review items' public ids gives every item that already exists its
own random UUID (not one value for all, as a column default would), then makes it unique."""

import uuid

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from assess.models import ReviewItem

BEFORE = ("assess", "0010_default_guidelines")
AFTER = ("assess", "0011_reviewitem_public_id")


def _migrate(target: tuple[str, str]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])


def _migrate_to_latest() -> None:
    # Back to where the other tests expect the schema: every app's newest migration.
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_items_made_before_the_migration_each_get_their_own_uuid(make_review_job):
    make_review_job(escalated=3, agreed=2, audit_share=1.0)
    assert ReviewItem.objects.count() == 5
    _migrate(BEFORE)
    try:
        with connection.cursor() as cursor:
            columns = [
                c.name
                for c in connection.introspection.get_table_description(
                    cursor, ReviewItem._meta.db_table
                )
            ]
        assert "public_id" not in columns
    finally:
        _migrate(AFTER)
    ids_after = list(ReviewItem.objects.values_list("public_id", flat=True))
    _migrate_to_latest()
    ids = list(ReviewItem.objects.values_list("public_id", flat=True))
    assert len(ids) == 5 and len(set(ids)) == 5
    assert all(isinstance(i, uuid.UUID) and i.version == 4 for i in ids)
    assert ids == ids_after
