"""An exported run's scores strictly decrease with rank, so trec_eval (which re-sorts by score
and breaks ties by doc id) reads exactly the stored ranking; raw scores stay in the database."""

import io

import ir_measures
import pytest
from ir_measures import nDCG

from corpora import runs
from corpora.services import run_export, run_rows


def test_ties_are_lowered_to_the_next_float32_below_and_other_scores_are_kept():
    assert runs.strictly_decreasing([3.0, 2.0, 2.0, 2.0, 1.0]) == [
        3.0,
        2.0,
        1.9999998807907104,  # float32 2 - 2**-23
        1.999999761581421,  # float32 2 - 2**-22
        1.0,
    ]


def test_scores_that_differ_only_beyond_float32_precision_are_separated():
    # trec_eval stores scores as C float: these two doubles would tie there
    assert runs.strictly_decreasing([0.6931471805599453, 0.6931471805599452]) == [
        0.6931471805599453,
        0.6931471228599548,
    ]
    assert runs.strictly_decreasing([0.5, 0.25]) == [0.5, 0.25]


@pytest.mark.django_db
def test_a_run_with_tied_scores_exports_in_rank_order_and_reimports_the_same(
    energy, import_run, tmp_path
):
    run = import_run(
        energy,
        "ties",
        ["q1 Q0 d3 1 5 ties", "q1 Q0 d1 2 5 ties", "q1 Q0 d2 3 5 ties", "q2 Q0 d4 1 2 ties"],
    )
    out = io.StringIO()
    assert run_export(run=run, out=out) == 4
    assert out.getvalue() == (
        "q1 Q0 d1 1 5.0 ties\n"
        "q1 Q0 d2 2 4.999999523162842 ties\n"
        "q1 Q0 d3 3 4.999999046325684 ties\n"
        "q2 Q0 d4 1 2.0 ties\n"
    )
    # the database keeps the raw, tied scores
    assert [score for *_, score in run_rows(run=run)] == [5.0, 5.0, 5.0, 2.0]
    # ir_measures (trec_eval's reader) gets the same order back from the file
    path = tmp_path / "ties.run"
    path.write_text(out.getvalue(), encoding="utf-8")
    parsed = sorted(ir_measures.read_trec_run(str(path)), key=lambda r: -r.score)
    assert [(r.query_id, r.doc_id) for r in parsed] == [
        ("q1", "d1"),
        ("q1", "d2"),
        ("q1", "d3"),
        ("q2", "d4"),
    ]
    # trec_eval (via pytrec_eval) keeps d1 first; with the raw tied scores it would not
    qrels = {"q1": {"d1": 1}}
    exported = ir_measures.calc_aggregate([nDCG @ 1], qrels, ir_measures.read_trec_run(str(path)))
    raw = ir_measures.calc_aggregate([nDCG @ 1], qrels, {"q1": {"d1": 5.0, "d2": 5.0, "d3": 5.0}})
    assert (exported[nDCG @ 1], raw[nDCG @ 1]) == (1.0, 0.0)
    again = import_run(energy, "ties-again", out.getvalue().replace(" ties", " x").splitlines())
    assert [row[:3] for row in run_rows(run=again)] == [row[:3] for row in run_rows(run=run)]
