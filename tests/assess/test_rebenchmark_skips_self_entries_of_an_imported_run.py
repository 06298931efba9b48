"""An imported run keeps its rows, but with identical ids excluded the re-benchmark, the
retrieve-time evaluation skip the entries ranking a query's own document, and
say how many.

Run ``leaky`` (see fixtures/identical), qrels q1-d1 = 1, q2-d2 = 1. Self entries skipped:
q1 ranks d1 first (nDCG@10 = 1) and q2 ranks d3, d2 (nDCG@10 = 1 / log2(3) = 0.63093), mean
0.81546. Kept, d1 is second and d2 third: (1 / log2(3) + 1 / log2(4)) / 2 = 0.56546."""

import math
from io import StringIO

import pytest
from django.core.management import call_command

from assess.evaluation import metrics
from assess.evaluation.rebench import rebench_compute
from corpora.identical import skip_identical, skip_identical_qrels
from corpora.services import dataset_import_beir, qrel_set_get, run_evaluate, run_import

EXCLUDED = (1 + 1 / math.log2(3)) / 2
KEPT = (1 / math.log2(3) + 1 / math.log2(4)) / 2


@pytest.mark.django_db
def test_self_entries_are_skipped_and_counted(selfish_folder, leaky_file):
    dataset = dataset_import_beir(path=selfish_folder, name="selfish")
    run = run_import(dataset=dataset, path=leaky_file)
    assert run.entries.count() == 5  # the imported rows are all kept
    test = qrel_set_get(dataset=dataset, name="test")
    report = rebench_compute(
        dataset=dataset, original=test, refined=test, runs=[run], use_cache=False
    )
    assert report.self_entries_skipped == {"leaky": 2}
    (row,) = report.result.before
    assert row.scores[metrics.NDCG10] == pytest.approx(EXCLUDED, abs=1e-9)
    assert run_evaluate(run=run, qrel_set=test)["nDCG@10"] == pytest.approx(EXCLUDED, abs=1e-9)

    out = StringIO()
    call_command("rebenchmark", "selfish", refined="test", no_per_query=True, stdout=out)
    assert (
        "identical ids excluded: 2 run entries ranking the query's own document skipped "
        "(leaky: 2)\n" in out.getvalue()
    )


@pytest.mark.django_db
def test_with_identical_ids_kept_nothing_is_skipped(selfish_folder, leaky_file):
    dataset = dataset_import_beir(path=selfish_folder, name="kept", identical_ids="keep")
    run = run_import(dataset=dataset, path=leaky_file)
    test = qrel_set_get(dataset=dataset, name="test")
    report = rebench_compute(
        dataset=dataset, original=test, refined=test, runs=[run], use_cache=False
    )
    assert report.self_entries_skipped == {}
    assert report.result.before[0].scores[metrics.NDCG10] == pytest.approx(KEPT, abs=1e-9)


def test_the_helpers_count_what_they_skip():
    rows = [("q1", "q1", 1, 9.0), ("q1", "d1", 2, 5.0)]
    assert skip_identical(rows, enabled=True) == ([("q1", "d1", 2, 5.0)], 1)
    assert skip_identical(rows, enabled=False) == (rows, 0)
    qrels = {"q1": {"q1": 1, "d1": 0}}
    assert skip_identical_qrels(qrels, enabled=True) == ({"q1": {"d1": 0}}, 1)
