"""A benchmark zip's datasheet of a budgeted pool names the pool's judging order and budget,
and how many of its pairs lie within the budget and how many were never debated (beyond the
budget, left unjudged); those are counted apart from the unresolved ones, with their own
reason `beyond budget` (pool pairs = labelled + unresolved + beyond the budget).

The ``holes`` world of tests/fixtures/refine.py ordered by the bandit with a budget of 3
pairs, whose (q1, d5) no job debated: 4 pool pairs, 3 debated, 1 never."""

import zipfile

import pytest

from assess.refined.exports import export_file_write
from assess.refined.refine import qrels_refine
from tests.fixtures.refine import settle_all

pytestmark = pytest.mark.django_db


@pytest.fixture
def budgeted(holes):
    settle_all(holes)
    holes.debate("q1", "d5").delete()
    holes.pool.strategy, holes.pool.budget = "bandit", 3
    holes.pool.save(update_fields=["strategy", "budget"])
    holes.refined = qrels_refine(pool=holes.pool, name="test-bandit", allow_partial=True).qrel_set
    return holes


def readme(world, tmp_path) -> str:
    export_file_write(kind="benchmark", path=tmp_path / "b.zip", qrel_set=world.refined)
    with zipfile.ZipFile(tmp_path / "b.zip") as archive:
        return archive.read("holes/README.md").decode()


def test_the_pool_section_names_order_budget_and_unjudged_pairs(budgeted, tmp_path):
    text = readme(budgeted, tmp_path)
    assert "- Name: `p`: 4 pairs, the union of each run's top 3 documents per query" in text
    assert (
        "- Judging order: bandit (MaxMean over runs); budget 3 pairs a job judges at most, in "
        "that order: 3 pairs within it (those no job debated yet counted unresolved below), "
        "1 pair never debated (beyond the budget) and left unjudged"
    ) in text


def test_the_unjudged_pairs_are_counted_beyond_the_budget_not_unresolved(budgeted, tmp_path):
    # 4 pool pairs: 3 labelled (2 consensus, 1 human), 0 unresolved, 1 beyond the budget;
    # the pair beyond is no longer an unresolved `not debated` one (a pair still due).
    text = readme(budgeted, tmp_path)
    assert "- Unresolved (no label, so not in the qrels): 0\n" in text
    assert "`not debated`" not in text
    assert (
        "- Beyond the pool's budget (never debated, left unjudged by design, so not in the "
        "qrels; reason `beyond budget`): 1\n"
        "- Pool pairs: 3 within the budget (labelled or unresolved) + 1 beyond it = 4\n"
    ) in text
    assert (
        "1 pair never debated (beyond the budget) and left unjudged (not relevant in the "
        "qrels; counted apart below, reason `beyond budget`, not as unresolved)"
    ) in text


def test_a_depth_pool_without_budget_has_no_order_line(refined, tmp_path):
    text = readme(refined, tmp_path)
    assert "Judging order" not in text
    assert "- Unresolved (no label, so not in the qrels): 0" in text


def test_the_refine_printout_counts_the_pairs_beyond_the_budget_apart(holes):
    # One count for each kind: the pool's pairs, those beyond the budget (never debated, holes
    # by design) and the unresolved ones among those within it (none here), not a
    # "1 unresolved" beside a list of 2,074.
    from assess.management.commands.refine import format_report

    settle_all(holes)
    holes.debate("q1", "d5").delete()
    holes.pool.strategy, holes.pool.budget = "bandit", 3
    holes.pool.save(update_fields=["strategy", "budget"])
    report = qrels_refine(pool=holes.pool, name="test-bandit", allow_partial=True)
    text = format_report(report)
    assert text.startswith(
        "pool holes/p: 4 pairs, 1 of them beyond its budget of 3 and never debated (left "
        "unjudged by design), 3 within it; 3 with a final label"
    )
    assert "0 unresolved (0.0% of pairs" in text
    assert "unresolved pairs (no final label" not in text


def test_pairs_beyond_the_budget_that_have_a_label_are_not_counted_as_debated_within_it(
    holes, tmp_path
):
    # A budget of 2 over 4 pairs whose first 3 have labels: the third was labelled from
    # elsewhere (a job on another pool, or debated before the budget was lowered), so the
    # sheet says 2 within it, 1 beyond the budget labelled all the same, 1 never debated:
    # not "3 within it" of a budget of 2.
    from assess.management.commands.refine import format_report
    from assess.refined.labels import budget_split

    settle_all(holes)
    holes.debate("q1", "d5").delete()
    holes.pool.strategy, holes.pool.budget = "bandit", 2
    holes.pool.save(update_fields=["strategy", "budget"])
    report = qrels_refine(pool=holes.pool, name="test-bandit-2", allow_partial=True)
    holes.refined = report.qrel_set
    assert (
        "budget 2 pairs a job judges at most, in that order: 2 pairs within it (those no job "
        "debated yet counted unresolved below), 1 pair beyond it labelled all the same (by "
        "jobs on other pools of the dataset, whose labels are reused, or debated before the "
        "budget was set), 1 pair never debated"
    ) in readme(holes, tmp_path)
    assert format_report(report).startswith(
        "pool holes/p: 4 pairs, 1 of them beyond its budget of 2 and never debated (left "
        "unjudged by design), 2 within it, 1 beyond the budget labelled by other jobs;"
    )
    assert budget_split(pairs=3, budget=2) == (2, 1)
    assert budget_split(pairs=3, budget=10) == (3, 0)


def test_a_budget_not_yet_spent_leaves_its_due_pairs_unresolved_not_beyond(holes):
    # A budget of 3 over 4 pairs of which 2 were debated, the job still open: one more pair
    # is still due, the first never-debated one in the stored order (none is stored here, so
    # query id then doc id: q1 d5), and is unresolved, so refining without --allow-partial
    # is refused; only q2 d6 is beyond the budget.
    from assess.refined.pool_labels import final_labels_collect
    from assess.refined.refine import RefineError, budget_holes

    settle_all(holes)
    holes.debate("q1", "d5").delete()
    holes.debate("q2", "d6").delete()
    holes.pool.strategy, holes.pool.budget = "depth", 3
    holes.pool.save(update_fields=["strategy", "budget"])
    labels = final_labels_collect(pool=holes.pool)
    assert len(labels) == 4
    assert budget_holes(holes.pool, labels) == {("q2", "d6")}
    with pytest.raises(RefineError, match="unresolved"):
        qrels_refine(pool=holes.pool, name="test-due")
    report = qrels_refine(pool=holes.pool, name="test-due", allow_partial=True)
    assert report.beyond_budget == 1 and report.summary.unresolved == 1
    assert [reason for _q, _d, reason in report.unresolved] == ["not debated"]
    # The provenance tells the pair still due (q1 d5) from the one beyond the budget (q2 d6).
    reasons = dict(
        report.refinement.provenance.filter(label__isnull=True).values_list(
            "document__doc_id", "reason"
        )
    )
    assert reasons == {"d5": "not debated", "d6": "beyond budget"}
    # 4 pairs = 2 labelled + 1 unresolved + 1 beyond, stored with the budget it was made under.
    r = report.refinement
    assert (r.pairs, r.unresolved, r.budget, r.beyond_budget) == (3, 1, 3, 1)
    assert r.pairs - r.unresolved == 2


def test_a_budgeted_pool_no_job_debated_has_every_budgeted_pair_unresolved(holes):
    from assess.refined.pool_labels import final_labels_collect
    from assess.refined.refine import budget_holes

    holes.pool.strategy, holes.pool.budget = "depth", 3
    holes.pool.save(update_fields=["strategy", "budget"])
    for debate in list(holes.pool.pairs.all()):
        debate.debates.all().delete()
    labels = final_labels_collect(pool=holes.pool)
    # 3 of the 4 pairs are due (the budget), 1 beyond.
    assert len(budget_holes(holes.pool, labels)) == 1
    assert sum(1 for p in labels if not p.final.resolved) == 4


def test_a_job_that_finished_its_budget_leaves_no_pair_due_even_with_fewer_debates(holes):
    # An adaptive job finishes below its budget when the other pairs were labelled
    # elsewhere (its strategy never chooses them): its budget is spent all the same.
    from assess.refined.pool_labels import final_labels_collect
    from assess.refined.refine import budget_holes

    settle_all(holes)
    holes.debate("q1", "d5").delete()
    holes.debate("q2", "d6").delete()
    holes.pool.strategy, holes.pool.budget = "bandit", 3
    holes.pool.save(update_fields=["strategy", "budget"])
    holes.job.status, holes.job.pair_limit = "finished", 3
    holes.job.save(update_fields=["status", "pair_limit"])
    labels = final_labels_collect(pool=holes.pool)
    assert budget_holes(holes.pool, labels) == {("q1", "d5"), ("q2", "d6")}
    # A job that stopped at a smaller --limit has not spent it: one pair is still due.
    holes.job.pair_limit = 2
    holes.job.save(update_fields=["pair_limit"])
    assert budget_holes(holes.pool, labels) == {("q2", "d6")}
