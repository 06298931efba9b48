"""A note on the human labels bearing on a value counts them as n_b, the figure printed
beside the value's interval, never as "n", which there counts every human label behind it.
The ``holes`` world of tests/fixtures/refine.py, half its agreed labels audited: alpha's
P@10 has n = 2 (1 audited, 1 escalated) and n_b = 1."""

from __future__ import annotations

import pytest

from assess.evaluation.interval_missing import few_labels_note
from assess.evaluation.refined_intervals import interval_tables, rebench_intervals
from assess.refined.benchmark_zip import benchmark_datasheet
from assess.refined.datasheet import datasheet_render
from corpora.models import Run
from tests.fixtures.refine import refined_at_share


def test_the_note_on_one_value_gives_its_n_b():
    assert few_labels_note([("s P@10", "2")], minimum=5) == (
        "s P@10: too few human labels (audited or escalated) bear on this run's value "
        "(n_b = 2; at least 5 needed): the interval is every value the pairs without a human "
        "label allow"
    )


def test_the_note_on_several_values_gives_each_its_n_b():
    note = few_labels_note([("a P@10", "2"), ("b R@100", "3")], minimum=5)
    assert note.startswith("a P@10 (n_b = 2), b R@100 (n_b = 3): too few human labels")
    assert "(n = " not in note


@pytest.mark.django_db
def test_the_notes_n_b_is_the_one_beside_the_value_on_the_page_and_the_datasheet(refined):
    refined = refined_at_share(refined, 0.5)
    runs = list(Run.objects.filter(name__in=["alpha", "beta"]).order_by("name"))
    found = rebench_intervals(original=refined.test, refined=refined.refined, runs=runs)
    p10 = found.ppi.by_system["alpha"]["P@10"]
    assert (p10.n_bearing, found.sample(p10).total) == (1, 2)
    [note] = [n for n in found.notes if n.startswith("alpha P@10: too few")]
    assert "(n_b = 1; at least 5 needed)" in note
    # The page's and the printout's table say the same n_b beside the value, and its note
    # repeats the note as it is.
    table = interval_tables(found)[0]
    [alpha] = [row for row in table.rows if row[0] == "alpha"]
    assert alpha[2].endswith("(whole range; n_b = 1)")
    assert f"Note: {note}." in table.note
    text = datasheet_render(sheet=benchmark_datasheet(refinement=refined.refined.refinement))
    assert "`P@10` 0.1500 on the qrels, estimate 0.1000 [0.1000, 0.1500] (whole range; " in text
    assert "n = 2; n_b = 1)" in text
    # Markdown escapes the underscore; rendered, it reads n_b = 1.
    assert "bear on this run's value (n\\_b = 1; at least 5 needed)" in text
