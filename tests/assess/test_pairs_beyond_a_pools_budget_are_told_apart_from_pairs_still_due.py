"""A budgeted pool's never-debated pairs beyond its budget carry the reason `beyond budget`
wherever a refined set's unlabelled pairs are shown or exported, apart from the unresolved
`not debated` pairs still due, and the counts add up: pool pairs = labelled + unresolved +
beyond the budget. The refinement stores the budget it was made under, so its page and
datasheet do not follow the pool's budget after a change; a set refined before that was
stored still renders.

The ``holes`` world of tests/fixtures/refine.py (4 pairs: q1 d3, q1 d5, q2 d3, q2 d6),
settled, with a depth pool budgeted to 3 pairs and the debates of q1 d5 and q2 d6 deleted:
2 pairs debated (q1 d3 agreed, q2 d3 a human label), the job still open, so 3 - 2 = 1 pair
is still due, the first never-debated one by query id then doc id (q1 d5: unresolved, `not
debated`), and the other (q2 d6) is beyond the budget. 4 = 2 + 1 + 1."""

import pytest

from assess.models import Refinement
from assess.refined.benchmark_zip import benchmark_datasheet
from assess.refined.datasheet import datasheet_render
from assess.refined.export_rows import disagreement_rows
from assess.refined.refine import (
    qrels_refine,
    refinement_beyond_budget_get,
    refinement_budget_get,
    refinement_unresolved,
)
from tests.fixtures.refine import settle_all

pytestmark = pytest.mark.django_db


@pytest.fixture
def due(holes):
    settle_all(holes)
    holes.debate("q1", "d5").delete()
    holes.debate("q2", "d6").delete()
    holes.pool.strategy, holes.pool.budget = "depth", 3
    holes.pool.save(update_fields=["strategy", "budget"])
    holes.report = qrels_refine(pool=holes.pool, name="test-due", allow_partial=True)
    holes.refinement = holes.report.refinement
    return holes


def test_the_refinement_stores_its_budget_and_the_pairs_beyond_it(due):
    r = due.refinement
    assert (r.budget, r.beyond_budget, r.pairs, r.unresolved) == (3, 1, 3, 1)
    budget = refinement_budget_get(refinement=r)
    assert (budget.budget, budget.beyond, budget.pool_pairs, budget.recorded) == (3, 1, 4, True)
    assert [p.document.doc_id for p in refinement_unresolved(refinement=r)] == ["d5"]
    beyond = refinement_beyond_budget_get(refinement=r)
    assert [(p.query.query_id, p.document.doc_id, p.reason) for p in beyond] == [
        ("q2", "d6", "beyond budget")
    ]


def test_a_pool_without_budget_stores_none_and_zero_beyond(refined):
    r = Refinement.objects.get(qrel_set=refined.refined)
    assert (r.budget, r.beyond_budget, r.pairs) == (None, 0, 4)


def test_the_disagreements_csv_lists_the_unresolved_pair_not_the_one_beyond_the_budget(due):
    rows = {row[2]: row for row in disagreement_rows(qrel_set=due.report.qrel_set)}
    # Columns: why listed (4), source (6), reason (8).
    assert (rows["d5"][4], rows["d5"][6], rows["d5"][8]) == (
        "unresolved: not debated",
        "unresolved",
        "not debated",
    )
    # q2 d6, beyond the budget, is no disagreement: left out.
    assert "d6" not in rows


def test_the_refined_page_counts_and_lists_the_pairs_beyond_the_budget_apart(due, client_as):
    page = client_as("researcher").get("/datasets/holes/refined/test-due/").content.decode()
    assert '<dd id="refined-pairs">4 = 2 labelled + 1 unresolved + 1 beyond the budget</dd>' in page
    assert (
        '<dd id="refined-budget">3 pairs a job judges at most (when refined); 3 within it, 1 '
        "beyond it (never debated, left unjudged by design, reason <code>beyond budget</code>; "
        "not counted unresolved)</dd>"
    ) in page
    unresolved = page[page.index("<h2>Unresolved pairs</h2>") : page.index('id="beyond-budget"')]
    assert "<td>not debated</td>" in unresolved and "d6" not in unresolved
    beyond = page[page.index('id="beyond-budget"') :]
    assert "<td>beyond budget</td>" in beyond and ">d6</a>" in beyond and "d5" not in beyond


def test_the_datasheet_keeps_the_budget_it_was_refined_under(due):
    # The pool's budget raised to 4 after refining: the sheet still says 3, and 3 within it.
    due.pool.budget = 4
    due.pool.save(update_fields=["budget"])
    sheet = benchmark_datasheet(refinement=Refinement.objects.get(pk=due.refinement.pk))
    assert (sheet.pool_budget, sheet.pool_pairs, sheet.pairs, sheet.beyond_budget) == (3, 4, 3, 1)
    text = datasheet_render(sheet=sheet)
    assert "budget 3 pairs a job judges at most, in that order: 3 pairs within it" in text
    assert "- Unresolved (no label, so not in the qrels): 1\n  - `not debated`: 1\n" in text
    assert "- Pool pairs: 3 within the budget (labelled or unresolved) + 1 beyond it = 4" in text


def _legacy(due) -> Refinement:
    """``due``'s set as one refined before the fields existed: empty fields, its pair beyond
    the budget stored as `not debated`."""
    Refinement.objects.filter(pk=due.refinement.pk).update(budget=None, beyond_budget=None)
    due.refinement.provenance.filter(reason="beyond budget").update(reason="not debated")
    return Refinement.objects.get(pk=due.refinement.pk)


def test_a_set_refined_before_the_budget_was_stored_still_renders(due, client_as):
    # The beyond count is read from its provenance (4 rows - 3 pairs), the budget from the
    # pool now, and both the page and the sheet say so.
    legacy = _legacy(due)
    budget = refinement_budget_get(refinement=legacy)
    assert (budget.budget, budget.beyond, budget.pool_pairs, budget.recorded) == (3, 1, 4, False)
    page = client_as("researcher").get("/datasets/holes/refined/test-due/")
    assert page.status_code == 200
    assert "(the pool's budget now: not recorded when refined)" in page.content.decode()
    text = datasheet_render(sheet=benchmark_datasheet(refinement=legacy))
    assert "budget 3 pairs (the pool's budget now: not recorded when refined)" in text


def test_the_pipelines_pending_count_leaves_out_the_pairs_beyond_the_budget(due, tmp_path):
    from assess.pipeline import _refined_ensure

    lines: list[str] = []
    _set, _path, _rows, (pending, beyond) = _refined_ensure(
        pool=due.pool,
        qrel_set=due.test,
        name="test-due",
        relevant_grade=1,
        out_dir=tmp_path,
        echo=lines.append,
    )
    assert (pending, beyond) == (1, 1)
    text = "\n".join(lines)
    assert "; 1 pair pending (no final label yet" in text
    assert (
        "  1 pair beyond the pool's budget of 3: never debated, left unjudged by design (not "
        "pending)"
    ) in text


def test_the_refine_operation_says_the_pair_beyond_the_budget_apart_from_the_pending(holes):
    from assess.refined.operations import refine_step, refinement_start

    settle_all(holes)
    holes.debate("q1", "d5").delete()
    holes.debate("q2", "d6").delete()
    holes.pool.strategy, holes.pool.budget = "depth", 3
    holes.pool.save(update_fields=["strategy", "budget"])
    operation = refinement_start(
        pool=holes.pool, name="test-due", allow_partial=True, max_unresolved_share=1.0
    )
    result = refine_step(operation, None)
    assert (result["pairs"], result["unresolved"], result["beyond_budget"]) == (3, 1, 1)
    assert (
        ", 1 pair pending, 1 pair beyond the pool's budget (left unjudged by design). "
        in result["message"]
    )


def test_the_intervals_count_the_pair_beyond_the_budget_apart_from_the_unresolved(due):
    from assess.evaluation.interval_labels import pooled_labels

    # q1 d3 agreed, q2 d3 human (escalated), q1 d5 unresolved (not debated), q2 d6 beyond.
    labels, counts = pooled_labels(refined=due.report.qrel_set)
    assert (counts["unresolved"], counts["beyond_budget"], counts["escalated_waiting"]) == (1, 1, 0)
    assert {(x.query_id, x.doc_id) for x in labels} == {("q1", "d3"), ("q2", "d3")}


def test_one_readme_says_the_same_counts_in_its_labels_and_its_intervals_sections(due):
    text = datasheet_render(sheet=benchmark_datasheet(refinement=due.refinement))
    labels = text[text.index("## Final labels of the pool's pairs") :]
    labels = labels[: labels.index("\n## ")]
    intervals = text[text.index("## Intervals on the refined measures") :]
    assert "- Unresolved (no label, so not in the qrels): 1\n" in labels
    assert "left unjudged by design, so not in the qrels; reason `beyond budget`): 1\n" in labels
    sizes = next(line for line in intervals.splitlines() if line.startswith("- Sample sizes:"))
    # No audited pair is judged, so no interval: the line and the notes say nothing of them.
    assert sizes == (
        "- Sample sizes: 1 human label (0 audited agreed pairs, 1 escalated pair); 1 machine "
        "label (the debates' consensus); 1 pair without a final label, left out of the qrels "
        "(so not relevant in the point values) + 1 pair beyond the pool's budget, left "
        "unjudged by design (out of the qrels too, the point values count it as not relevant)"
    )
    assert "2 pairs without a final label" not in text
    notes = [line for line in intervals.splitlines() if line.startswith("- Note: ")]
    assert notes == [
        "- Note: 1 pool pair has no final label: left out of the refined qrels, so the point "
        "values count it as not relevant",
        "- Note: 1 pool pair is beyond the pool's budget, left unjudged by design (never "
        "debated, not due): left out of the refined qrels, so the point values count it as "
        "not relevant",
    ]


def test_with_intervals_the_words_say_the_pairs_beyond_the_budget_are_not_relevant_there():
    from assess.evaluation.interval_missing import MissingLabels, missing_notes
    from assess.refined.datasheet_interval_lines import IntervalsSheet, interval_lines

    notes = missing_notes(MissingLabels.of({"unresolved": 1, "beyond_budget": 2}))
    assert notes[1] == (
        "2 pool pairs are beyond the pool's budget, left unjudged by design (never debated, "
        "not due): left out of the refined qrels, so the point values count them as not "
        "relevant; the intervals count them as not relevant too, so no interval covers their "
        "labels"
    )
    lines = interval_lines(
        IntervalsSheet(agreed=3, audited=1, unresolved=1, beyond_budget=2),
        code=str,
        text=str,
        flat=str,
    )
    assert lines[4].endswith(
        "; 1 pair without a final label, left out of the qrels (so not relevant in the point "
        "values; the notes say how the intervals take it) + 2 pairs beyond the pool's budget, "
        "left unjudged by design (out of the qrels too, the point values and the intervals "
        "count them as not relevant)"
    )


def test_the_pipeline_of_a_set_refined_before_the_budget_was_stored(due, tmp_path):
    # Its label-null rows are 2 (q1 d5 due, q2 d6 beyond, both `not debated`): pending is the
    # refinement's own 1, and the budget is the pool's now, said so, never "of 0".
    from assess.pipeline import _refined_ensure

    _legacy(due)
    lines: list[str] = []
    _set, _path, _rows, (pending, beyond) = _refined_ensure(
        pool=due.pool,
        qrel_set=due.test,
        name="test-due",
        relevant_grade=1,
        out_dir=tmp_path,
        echo=lines.append,
    )
    assert (pending, beyond) == (1, 1)
    text = "\n".join(lines)
    assert "; 1 pair pending (no final label yet" in text
    assert (
        "  1 pair beyond the pool's budget of 3 (the pool's budget now: not recorded when "
        "refined): never debated, left unjudged by design (not pending)"
    ) in text


def test_the_page_of_a_set_refined_before_says_its_unresolved_list_holds_the_pair_beyond(
    due, client_as
):
    _legacy(due)
    page = client_as("researcher").get("/datasets/holes/refined/test-due/").content.decode()
    assert '<dd id="refined-pairs">4 = 2 labelled + 1 unresolved + 1 beyond the budget</dd>' in page
    assert (
        "3 within it, 1 beyond it (never debated, left unjudged by design, listed among the "
        "unresolved pairs as <code>not debated</code>: refined before the reason <code>beyond "
        "budget</code> was stored; not counted unresolved)</dd>"
    ) in page
    assert (
        "its 1 pair beyond the budget is listed below among the unresolved ones with the "
        "reason <code>not debated</code>"
    ) in page
    unresolved = page[page.index("<h2>Unresolved pairs</h2>") :]
    assert ">d5</a>" in unresolved and ">d6</a>" in unresolved
    assert 'id="beyond-budget"' not in page


def test_the_budget_line_counts_pairs_past_the_budget_that_other_labels_settled(holes, client_as):
    # Budget 1 with 2 pairs debated (q1 d3, q2 d3): the budget is spent, so the 2 never
    # debated (q1 d5, q2 d6) are beyond it; of the 2 labelled pairs 1 is within the budget
    # and 1 past it, labelled all the same. 4 = 2 labelled + 0 unresolved + 2 beyond.
    settle_all(holes)
    holes.debate("q1", "d5").delete()
    holes.debate("q2", "d6").delete()
    holes.pool.strategy, holes.pool.budget = "depth", 1
    holes.pool.save(update_fields=["strategy", "budget"])
    r = qrels_refine(pool=holes.pool, name="test-one", allow_partial=True).refinement
    assert (r.pairs, r.unresolved, r.beyond_budget) == (2, 0, 2)
    page = client_as("researcher").get("/datasets/holes/refined/test-one/").content.decode()
    assert '<dd id="refined-pairs">4 = 2 labelled + 0 unresolved + 2 beyond the budget</dd>' in page
    assert (
        '<dd id="refined-budget">1 pair a job judges at most (when refined); 1 within it, 1 '
        "beyond it labelled all the same (by jobs on other pools of the dataset, whose labels "
        "are reused, or debated before the budget was set), 2 beyond it (never debated"
    ) in page


def test_the_refined_list_shows_the_pool_pairs_and_those_beyond_the_budget(due, client_as):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = client_as("researcher")
    client.get("/datasets/holes/refined/")  # warm the session and caches
    with CaptureQueriesContext(connection) as fresh:
        page = client.get("/datasets/holes/refined/").content.decode()
    row = page[page.index("test-due</a>") :]
    row = row[: row.index("</tr>")]
    # Pool pairs 4 (not pairs 3), new relevant 2 (q1 d3, q2 d3), new not relevant 0,
    # unresolved 1 (q1 d5), beyond the budget 1 (q2 d6).
    cells = [c.split("<")[0] for c in row.split('<td class="num">')[1:]]
    assert cells == ["4", "2", "0", "1", "1"]
    _legacy(due)
    with CaptureQueriesContext(connection) as legacy:
        page = client.get("/datasets/holes/refined/").content.decode()
    # The set refined before reads its beyond count from its provenance: one COUNT more.
    assert len(legacy) == len(fresh) + 1
    row = page[page.index("test-due</a>") :]
    assert row.index('<td class="num">4</td>') < row.index("</tr>")
