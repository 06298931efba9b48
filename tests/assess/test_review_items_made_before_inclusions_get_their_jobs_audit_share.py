"""The migration that adds review items' inclusion probabilities gives the audit items that
already exist their job's audit share (the uniform draw they were made by), escalated items 1,
and leaves gold items empty."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from assess.models import ReviewItem

BEFORE = ("assess", "0011_reviewitem_public_id")


def _migrate(targets) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets or executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_existing_audits_get_the_share_and_escalated_items_one(make_review_job):
    # Job and pair ids fixed (6401, pairs 6401..6432): the draw hashes them, and a quarter of
    # these 30 agreed labels is 10 audits (none in about one test order in 5,000 otherwise).
    make_review_job(escalated=2, agreed=30, audit_share=0.25, pk=6401)
    audits = ReviewItem.objects.filter(kind=ReviewItem.Kind.AUDIT).count()
    assert audits == 10
    _migrate([BEFORE])
    _migrate(None)  # forward to the newest migration of every app
    kinds = sorted(ReviewItem.objects.values_list("kind", "inclusion"))
    assert kinds == [("audit", 0.25)] * audits + [("escalated", 1.0)] * 2
