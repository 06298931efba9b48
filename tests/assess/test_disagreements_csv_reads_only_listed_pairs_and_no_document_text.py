"""The disagreements CSV filters in the database and streams: the agreed pairs nobody
contradicted never reach Python, no document text is read, and listing in batches gives the
same rows as listing at once.

In the ``holes`` world (tests/fixtures/refine.py) the refined set has 4 provenance rows;
(q1, d3) and (q1, d5) agreed and nobody contradicted them, so only (q2, d3) (escalated) and
(q2, d6) (audit overrode the consensus) are candidates, and both are listed.
"""

import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from assess.refined import export_rows as exports
from assess.refined.exports import export_stream


def disagreements(qrel_set) -> str:
    out = io.StringIO()
    export_stream(kind="disagreements", out=out, qrel_set=qrel_set)
    return out.getvalue()


@pytest.mark.django_db
def test_only_candidate_rows_are_read_and_never_document_text(refined, monkeypatch):
    seen = []
    why_listed = exports._why_listed

    def spy(row):
        seen.append((row["query__query_id"], row["document__doc_id"]))
        return why_listed(row)

    monkeypatch.setattr(exports, "_why_listed", spy)
    with CaptureQueriesContext(connection) as queries:
        text = disagreements(refined.refined)
    assert seen == [("q2", "d3"), ("q2", "d6")]
    assert [line.split(",")[:3] for line in text.splitlines()[1:]] == [
        ["q2", "second question", "d3"],
        ["q2", "second question", "d6"],
    ]
    document_columns = [
        q["sql"] for q in queries.captured_queries if '"corpora_document"."text"' in q["sql"]
    ]
    assert document_columns == []


@pytest.mark.django_db
def test_batches_of_one_row_give_the_same_bytes(refined, monkeypatch):
    whole = disagreements(refined.refined)
    monkeypatch.setattr(exports, "BATCH_SIZE", 1)
    assert disagreements(refined.refined) == whole
    assert len(whole.splitlines()) == 3
