"""An imported run is ranked by score descending, then doc id ascending (as trec_eval reads
it), whatever its rank column says; the raw scores are kept."""

import pytest

from corpora.models import ImportRecord
from corpora.services import run_rows


@pytest.mark.django_db
def test_ties_rank_by_doc_id_and_the_rank_column_is_ignored(energy, import_run):
    run = import_run(
        energy,
        "tied",
        [
            # any whitespace separates fields; the file's ranks contradict the scores
            "q1\tQ0  d4 1 0.25 tied",
            "q1 Q0 d3 2 7 tied",
            "q1 Q0 d2 3 7.0 tied",
            "q1 Q0 d1 4 -1e-3 tied",
            "q2 x d1 9 3 tied",
        ],
    )
    assert list(run_rows(run=run)) == [
        ("q1", "d2", 1, 7.0),
        ("q1", "d3", 2, 7.0),
        ("q1", "d4", 3, 0.25),
        ("q1", "d1", 4, -0.001),
        ("q2", "d1", 1, 3.0),
    ]
    assert run.source == "imported" and run.status == "done"
    record = ImportRecord.objects.get(kind="run")
    assert record.summary == {
        "run": "tied",
        "queries": 2,
        "entries": 5,
        "queries_reordered_by_score": 1,
        "unknown_ids_dropped": 0,
        "unknown_ids_dropped_rows": [],
    }
