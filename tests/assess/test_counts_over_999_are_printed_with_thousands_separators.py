"""Counts over 999 read 1,234 wherever a page or a printout shows them, as the rest of the
pages and the commands print counts: the job page's review panel (queue, audited pairs,
strata), its budget planner, and the stage-0 band's words that the job's note and
``run_debates`` print."""

from types import SimpleNamespace

from django.template.loader import render_to_string

from assess.evaluation.budget import LabelBudget
from assess.review.agreement import Proportion
from assess.review.audit import StratumFigures
from assess.review.selectors import AuditSummary, BudgetSummary, JobAgreement, QueueCounts
from debates.services.stage0_route import stage0_band_for
from debates.stage0_band import band_choose


def test_the_review_panel_separates_thousands():
    context = {
        "job": SimpleNamespace(
            pk=7, audit_allocation="proportional", get_audit_allocation_display=lambda: "prop"
        ),
        "queue": QueueCounts(escalated=1234, escalated_done=1200, audits=2500, audits_done=2499,
                             leased=1001),
        "agreement": JobAgreement(pairs=0, annotators=0, kappa=None, alpha=None, disagreements=0),
        "audit": AuditSummary(
            share=0.1, sampled=2500, judged=2499, agreement=0.99, kappa=None,
            error=Proportion(1500, 2499, 0.6, 0.58, 0.62),
        ),
        "audit_strata": {"label 0, round 0": StratumFigures(2323, 0.05, 1085, 1001)},
        "budget": BudgetSummary(budget=None, items=0, over=0, covered=None),
        "open_disagreements": 1500,
        "is_admin": True,
    }  # fmt: skip
    shown = render_to_string("assess/partials/job_review_panel.html", context)
    assert '<td class="num">1,234</td><td class="num">1,200</td>' in shown
    assert '<td class="num">2,500</td><td class="num">2,499</td>' in shown
    assert "1,001 pairs being judged right now" in shown
    assert "(1,500 of 2,499 audited pairs)" in shown
    assert (
        '<td class="num">2,323</td><td class="num">0.050</td><td class="num">1,085</td>'
        '<td class="num">1,001</td>'
    ) in shown
    assert "1,500 disagreements to adjudicate" in shown


def test_the_budget_planner_separates_thousands():
    budget = LabelBudget(
        refined="r", more_human_labels=1701, n_human=1234, n_audited=1000, n_escalated=234,
        pairs=1,
    )  # fmt: skip
    shown = render_to_string(
        "assess/partials/job_budget_panel.html", {"budget": budget, "caveat": ""}
    )
    assert "About <strong>1,701</strong> more human labels" in shown
    assert "from the 1,234 human labels (1,000 audited, 234 escalated)" in shown


def test_the_stage0_bands_words_separate_thousands():
    band = band_choose([0.001] * 1200, [0] * 1200)
    assert "(fixed-sequence testing on 1,200 human labels)" in band.message
    refused = band_choose([0.5] * 1500, [0, 1] * 750)
    assert "on 1,500 human labels no threshold keeps its error" in refused.message


def test_the_stage0_notes_band_sample_separates_thousands():
    # Every label kept (inclusion and floor 1): the band is set on all 1,200 of them.
    rows = [
        {"query_id": f"q{i}", "doc_id": "d", "p": 0.001, "label": 0, "inclusion": 1.0, "floor": 1.0}
        for i in range(1200)
    ]
    job = SimpleNamespace(stage0_alpha=0.1, stage0_delta=0.1, stage0_beta=1.0)
    band = stage0_band_for(job=job, judge=SimpleNamespace(band_calibration=rows))  # type: ignore[arg-type]
    assert band.message.endswith(
        "band set on 1,200 of 1,200 human labels of pooled pairs (an equal-probability sample "
        "at rate 1)"
    )
