"""A refinement's stage is written while its transaction is open. On PostgreSQL it goes on a
connection of its own, committed at once, so a poller sees it before the refinement ends.
On SQLite one writer locks the whole file: a second connection would wait on the
refinement's own lock for the whole busy timeout and fail ("database is locked"), so there
the stage goes on the refinement's connection."""

import threading

import pytest
from django.db import connection, connections, transaction

from assess.refined.operations import operation_stage_record, stage_on_own_connection
from corpora.models import Operation


def test_only_a_transaction_on_a_database_with_row_locks_takes_a_connection_of_its_own():
    assert stage_on_own_connection(vendor="postgresql", in_transaction=True) is True
    assert stage_on_own_connection(vendor="sqlite", in_transaction=True) is False
    assert stage_on_own_connection(vendor="postgresql", in_transaction=False) is False
    assert stage_on_own_connection(vendor="sqlite", in_transaction=False) is False


def _stage_seen_elsewhere(pk: int) -> str:
    seen: list[str] = []

    def read() -> None:
        try:
            seen.append(Operation.objects.get(pk=pk).stage)
        finally:
            connections.close_all()

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()
    return seen[0]


@pytest.mark.django_db(transaction=True)
def test_on_postgresql_a_stage_written_inside_a_transaction_is_seen_before_it_commits():
    assert connection.vendor == "postgresql"
    operation = Operation.objects.create(kind=Operation.Kind.REFINE, params={}, stage="queued")
    with transaction.atomic():
        operation_stage_record(operation_id=operation.pk, stage="step 1 of 3: resolving")
        assert _stage_seen_elsewhere(operation.pk) == "step 1 of 3: resolving"
