"""Human labels reach stage 0 through the hook the app owning them registers: they win over
the qrels for the same pair and are named ``human``."""

import pytest

from debates.stage0 import labels


@pytest.mark.django_db
def test_a_registered_human_label_overrides_the_qrels_label(stage0_dataset, monkeypatch):
    q0 = stage0_dataset.queries.get(query_id="q0")
    d0n = stage0_dataset.documents.get(doc_id="d0n")
    calls = []

    def human(*, dataset, relevance_level):
        calls.append((dataset, relevance_level))
        return {(q0.pk, d0n.pk): 1}

    monkeypatch.setattr(labels, "_HUMAN_LABELS", [])
    labels.stage0_human_labels_register(human)
    labels.stage0_human_labels_register(human)  # registering twice adds it once
    examples = {(e.query_id, e.doc_id): e for e in labels.examples_collect(dataset=stage0_dataset)}
    assert calls == [(stage0_dataset, 1)]
    assert (examples[("q0", "d0n")].label, examples[("q0", "d0n")].source) == (1, "human")
    assert (examples[("q0", "d0a")].label, examples[("q0", "d0a")].source) == (1, "qrels")
    cross = [e for e in examples.values() if e.query_id == "q0" and e.source == "cross"]
    assert len(cross) == labels.CROSS_NEGATIVES and all(e.label == 0 for e in cross)
    assert all(e.doc_id[-1] in "ab" and not e.doc_id.startswith("d0") for e in cross)
