"""The disagreements CSV is a function of the refined set alone, as its export key (the set's
id) promises: a turn a debate stores after the refinement was made does not change a byte.

In the ``holes`` world (tests/fixtures/refine.py) the escalated debate (q2, d3) ended round 2
with agent A "still helps" (1) and agent B "no" (0); a round 3 stored after refining
("changed my mind", 0 / "still no", 0) must not replace them.
"""

import csv
import io

import pytest

from assess.refined.exports import export_file_write
from debates.models import Turn


def csv_rows(path):
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


@pytest.mark.django_db
def test_a_turn_stored_after_refining_leaves_the_csv_bytes_unchanged(refined, tmp_path):
    before = export_file_write(
        kind="disagreements", path=tmp_path / "before.csv", qrel_set=refined.refined
    )
    escalated = refined.debate("q2", "d3")
    for agent, stance, argument in (
        ("A", "relevant", "changed my mind"),
        ("B", "irrelevant", "still no"),
    ):
        Turn.objects.create(
            debate=escalated,
            round=3,
            agent=agent,
            stance=stance,
            label=0,
            argument=argument,
            model="SmolLM2-135M-Instruct-Q4_1",
        )
    assert Turn.objects.filter(debate=escalated).count() == 6
    after = export_file_write(
        kind="disagreements", path=tmp_path / "after.csv", qrel_set=refined.refined
    )
    assert (tmp_path / "after.csv").read_bytes() == (tmp_path / "before.csv").read_bytes()
    assert after == before
    row = csv_rows(tmp_path / "after.csv")[0]
    assert (row["query_id"], row["doc_id"]) == ("q2", "d3")
    assert (row["agent A label"], row["agent A argument"]) == ("1", "still helps")
    assert (row["agent B label"], row["agent B argument"]) == ("0", "no")
