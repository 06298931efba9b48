"""The labels JSONL gives, per new label, each agent's P(label) of its final-round turn in
the debate behind it ({"A": p, "B": p}, null where the server sent no logprobs), null for
original rows; the fast line writer and the record agree byte for byte."""

import io
import json

import pytest

from assess.refined.export_formats import jsonl_line
from assess.refined.export_rows import labels_lines, labels_records
from assess.refined.exports import export_stream
from debates.models import Turn


@pytest.mark.django_db
def test_the_final_round_turns_probabilities_are_exported(refined):
    debate = refined.debate("q1", "d5")  # consensus in round 2
    Turn.objects.filter(debate=debate, agent="A", round=1).update(label_probability=0.51)
    Turn.objects.filter(debate=debate, agent="A", round=2).update(label_probability=0.875)

    out = io.StringIO()
    export_stream(kind="labels", out=out, qrel_set=refined.refined)
    lines = {(r["query_id"], r["doc_id"]): r for r in map(json.loads, out.getvalue().splitlines())}

    assert lines[("q1", "d5")]["label_probabilities"] == {"A": 0.875, "B": None}
    assert lines[("q1", "d3")]["label_probabilities"] == {"A": None, "B": None}
    assert lines[("q1", "d1")]["label_probabilities"] is None  # an original row
    fast = list(labels_lines(qrel_set=refined.refined))
    assert fast == [jsonl_line(r) for r in labels_records(qrel_set=refined.refined)]
