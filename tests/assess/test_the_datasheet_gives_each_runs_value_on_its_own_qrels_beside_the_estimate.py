"""The benchmark zip's datasheet gives, per run, the value its own qrels produce (what
ir_measures or trec_eval compute from the zip) beside the audit-corrected estimate and its
interval, with one sentence on why the two differ; the values are the re-benchmark page's
refined leaderboard's. The ``holes`` world of tests/fixtures/refine.py, half its agreed
labels audited; the plain values are worked by hand in
tests/assess/test_rebenchmark_command_prints_the_hand_worked_tables.py (refined nDCG@10:
alpha 0.6934, beta 0.6533)."""

from __future__ import annotations

import csv
import io
import zipfile

import ir_measures
import pytest
from ir_measures import P, R, nDCG

from assess.evaluation.rebench import rebench_compute
from assess.evaluation.refined_intervals import report_intervals
from assess.refined.benchmark_zip import benchmark_datasheet, benchmark_zip_write
from assess.refined.datasheet_interval_lines import PLAIN_VS_ESTIMATE
from corpora.models import Run
from corpora.services import run_rows
from tests.fixtures.refine import refined_at_share

pytestmark = pytest.mark.django_db


def zip_readme_and_qrels(refined, tmp_path) -> tuple[str, list[ir_measures.Qrel]]:
    benchmark_zip_write(qrel_set=refined.refined, path=tmp_path / "b.zip")
    with zipfile.ZipFile(tmp_path / "b.zip") as archive:
        readme = archive.read("holes/README.md").decode()
        tsv = archive.read("holes/qrels/test.tsv").decode()
    rows = csv.DictReader(io.StringIO(tsv), delimiter="\t")
    qrels = [ir_measures.Qrel(r["query-id"], r["corpus-id"], int(r["score"])) for r in rows]
    return readme, qrels


def ir_measures_on(qrels, run_name: str) -> dict[str, float]:
    """ir_measures' own nDCG@10, P@10 and R@100 of a run on the zip's qrels (the run in its
    stored rank order)."""
    run = Run.objects.get(name=run_name)
    scored = [ir_measures.ScoredDoc(q, d, -rank) for q, d, rank, _ in run_rows(run=run)]
    found = ir_measures.calc_aggregate([nDCG @ 10, P @ 10, R @ 100], qrels, scored)
    return {"nDCG@10": found[nDCG @ 10], "P@10": found[P @ 10], "R@100": found[R @ 100]}


def test_each_runs_plain_value_is_what_ir_measures_gives_on_the_zips_qrels(refined, tmp_path):
    refined = refined_at_share(refined, 0.5)
    readme, qrels = zip_readme_and_qrels(refined, tmp_path)
    sheet = benchmark_datasheet(refinement=refined.refined.refinement).intervals
    # Hand-worked: alpha finds the hole q1 d3 (nDCG@10 (1 + 1) / 2 on q1, 0.386853 on q2);
    # each run finds one of the two relevant documents of one query (R@100 0.75); each ranks
    # d3 in one query's top 10 (P@10 (0.1 + 0.2) / 2).
    hand = {
        "alpha": {"nDCG@10": 0.6934, "P@10": 0.15, "R@100": 0.75},
        "beta": {"nDCG@10": 0.6533, "P@10": 0.15, "R@100": 0.75},
    }
    for system, by in hand.items():
        got = ir_measures_on(qrels, system)
        for measure, value in by.items():
            assert got[measure] == pytest.approx(value, abs=5e-5)
            assert sheet.systems[system][measure].plain == pytest.approx(got[measure], abs=1e-9)
    estimate = sheet.systems["alpha"]["nDCG@10"]
    # The estimate corrects the debate labels by the audit: here it is not the plain value.
    assert round(estimate.estimate, 4) != 0.6934
    assert (
        f"  - `alpha`: `nDCG@10` 0.6934 on the qrels, estimate {estimate.estimate:.4f} "
        f"[{estimate.low:.4f}, {estimate.high:.4f}] (whole range; n = 2; n_b = 1)"
    ) in readme
    assert "- Per run: the value on this zip's qrels as they are, then estimate [95% " in readme


def test_the_datasheet_says_why_the_qrels_value_and_the_estimate_differ(refined, tmp_path):
    refined = refined_at_share(refined, 0.5)
    readme, _ = zip_readme_and_qrels(refined, tmp_path)
    assert PLAIN_VS_ESTIMATE in readme
    assert "the estimate beside it corrects the errors that the audit measured" in readme
    assert "The qrels hold the labels as decided" in readme
    # No longer read as if the shipped qrels gave the estimate.
    assert "Each run's measures on the refined qrels are estimated" not in readme


def test_the_plain_values_are_the_rebenchmark_pages_refined_leaderboard(refined):
    refined = refined_at_share(refined, 0.5)
    report = rebench_compute(
        dataset=refined.dataset, original=refined.test, refined=refined.refined
    )
    found = report_intervals(report=report, original=refined.test, refined=refined.refined)
    page = {row.system: row.scores for row in report.result.after}
    assert found.plain == {
        system: {m: page[system][m] for m in ("nDCG@10", "P@10", "R@100")} for system in page
    }
    sheet = benchmark_datasheet(refinement=refined.refined.refinement).intervals
    assert sheet.systems["beta"]["nDCG@10"].plain == pytest.approx(0.6533, abs=5e-5)
