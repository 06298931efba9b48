"""The debate job page has a budget planner: about how many more human labels would bring
every system's nDCG@10 to +-0.01 and which system pairs are still undecided, from the newest
refined set of the job's pool; without one, or without an audit, it says what is missing;
and reading the page writes nothing (the ``holes`` world of tests/fixtures/refine.py)."""

import html
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from assess.evaluation.budget import job_budget
from tests.fixtures.refine import refined_at_share

pytestmark = pytest.mark.django_db


def panel(client, job) -> str:
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    found = re.search(r'<section id="job-label-plan".*?</section>', page, re.S).group(0)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", found)))


def panel_words(budget) -> str:
    """The budget panel rendered on its own, as its words: tags dropped, spaces folded."""
    from django.template.loader import render_to_string

    rendered = render_to_string(
        "assess/partials/job_budget_panel.html", {"budget": budget, "caveat": ""}
    )
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", rendered))


def test_the_panel_says_how_many_more_labels_and_which_pairs_are_undecided(refined, client_as):
    refined = refined_at_share(refined, 0.5)
    budget = job_budget(job=refined.job)
    # One audited label of three agreed ones, intervals far wider than +-0.01: 3 * (1 - 1/3)
    # rounds up to 2 (as the re-benchmark's own budget says).
    assert (budget.more_human_labels, budget.n_human, budget.refined) == (2, 2, "test-dream")
    assert (budget.n_audited, budget.n_escalated) == (1, 1)
    assert [(p["a"], p["b"]) for p in budget.undecided_pairs] == [("alpha", "beta")]
    assert budget.error == ""
    client = client_as("researcher")
    with CaptureQueriesContext(connection) as queries:
        text = panel(client, refined.job)
    writes = [q["sql"] for q in queries if q["sql"].split()[0] in ("INSERT", "UPDATE", "DELETE")]
    assert [w for w in writes if "django_session" not in w] == []
    assert (
        "About 2 more human labels (audited agreed pairs: an audit share of about 1.0) for "
        "±0.01 on nDCG@10, from the 2 "
        "human labels (1 audited, 1 escalated) in the sample of the refined set test-dream"
    ) in text
    assert (
        "refine the pool again to count labels judged since). Only 1 audited label so far, "
        "fewer than 30: read the figure as a first guess"
    ) in text
    pair = budget.undecided_pairs[0]
    assert (
        "System pairs still undecided at 95% on nDCG@10 (1 of 1), with the difference a − b, "
        "its 95% interval, the human labels behind it and n_b, those that bear on the "
        f"difference: alpha vs beta: {pair['difference']:.4f} [{pair['low']:.4f}, "
        f"{pair['high']:.4f}] (whole range: fewer than 5 human labels bear on it, not a 95% "
        f"interval), n = 2 (1 audited, 1 escalated); n_b = {pair['n_bearing']}"
    ) in text
    assert pair["n_bearing"] == 1 and pair["whole_range"] is True
    assert "Read them as approximate" in text
    assert (
        "Each interval is on the mean over the 2 evaluated queries, of which 2 hold pooled "
        "pairs: label errors move only those."
    ) in text


def test_a_pool_over_a_few_of_many_queries_is_said_to_narrow_the_intervals():

    from assess.evaluation.budget import LabelBudget

    budget = LabelBudget(refined="r", more_human_labels=0, n_human=2, queries=300, pooled_queries=1)
    text = panel_words(budget)
    assert (
        "Every system's nDCG@10 interval is within ±0.01 already, from the 2 human labels"
    ) in text
    assert (
        "Each interval is on the mean over the 300 evaluated queries, of which 1 holds pooled "
        "pairs: label errors move only those, so the others narrow the intervals on the mean; "
        "a pool over more queries needs more labels for the same width."
    ) in text


def test_without_a_refined_set_or_an_audit_the_panel_says_what_is_missing(holes, client_as):
    client = client_as("researcher")
    assert "No budget yet: no refined set of this pool yet" in panel(client, holes.job)


def test_an_audit_share_of_zero_is_named(refined, client_as):
    refined = refined_at_share(refined, 0.0)
    client = client_as("researcher")
    # The words come from the data (a stratum's name): escaped on the page.
    assert (
        "(intervals need an audit share &gt; 0)"
        in client.get(f"/jobs/{refined.job.pk}/").content.decode()
    )
    text = panel(client, refined.job)
    assert "No budget yet:" in text and "intervals need an audit share > 0" in text
    budget = job_budget(job=refined.job)
    assert budget.more_human_labels is None
    # The set's own counts stand beside the refusal (its escalated pair's human label, its
    # two evaluated queries), not zeros that would read as "no label yet".
    assert (budget.n_escalated, budget.queries, budget.pooled_queries) == (1, 2, 2)
    assert budget.n_human == budget.n_audited + budget.n_escalated


def test_a_changed_audit_share_is_seen_at_the_next_read_though_the_figures_are_cached(refined):
    refined = refined_at_share(refined, 0.5)
    assert job_budget(job=refined.job).more_human_labels == 2
    refined = refined_at_share(refined, 0.0)
    assert "intervals need an audit share > 0" in job_budget(job=refined.job).error


def test_pool_pairs_without_a_final_label_are_said_to_be_outside_every_interval(refined, client_as):
    """A pool pair with no final label (here a failed debate; beyond a pool's budget the
    same) counts as not relevant and no interval covers it: the planner says so, whatever it
    says about the labels it does cover (a trial saw "within ±0.01 already" on a pool whose
    88 of 118 pairs were never judged)."""
    from assess.refined.refine import qrels_refine
    from debates.models import DebateJob
    from tests.fixtures.refine import settle

    settle(refined.debate("q1", "d5"), "failed", minutes=2)
    DebateJob.objects.filter(pk=refined.job.pk).update(audit_share=0.5)
    refined.refined.delete()
    qrels_refine(pool=refined.pool, name="test-dream", allow_partial=True, max_unresolved_share=1)
    budget = job_budget(job=refined.job)
    assert budget.error == "" and budget.unresolved == 1
    assert budget.as_json()["unresolved"] == 1
    assert (
        "1 pool pair has no final label: left out of the refined qrels, so the point values "
        "count it as not relevant; the intervals count it as not relevant too (a debate "
        "pending or failed, or a pair never debated: no escalation), so no interval covers "
        "its label."
    ) in panel(client_as("researcher"), refined.job)


def test_the_labels_wanted_are_also_said_as_an_audit_share():

    from assess.evaluation.budget import LabelBudget

    budget = LabelBudget(
        refined="r", more_human_labels=163, n_human=87, n_audited=56, n_escalated=31,
        queries=300, pooled_queries=300, audit_share_needed=0.745,
    )  # fmt: skip
    text = panel_words(budget)
    assert (
        "About 163 more human labels (audited agreed pairs: an audit share of about 0.745) "
        "for ±0.01 on nDCG@10"
    ) in text
