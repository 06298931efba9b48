"""refine refuses while more than 5% of the pool's pairs are unresolved (printing the share),
writing nothing; with --allow-partial it refines from the resolved labels and lists the
pending pairs."""

import io

import pytest
from django.core.management import CommandError, call_command

from assess.models import LabelProvenance, Refinement
from assess.refined.refine import RefineError, qrels_refine
from corpora.models import Qrel, QrelSet
from corpora.services import qrels_rows
from tests.fixtures.refine import review, settle


def two_resolved(holes):
    """(q1, d3) agreed relevant, (q1, d5) agreed not relevant; (q2, d3) escalated without a
    human answer; (q2, d6) still pending: 2 of 4 unresolved (50%)."""
    settle(holes.debate("q1", "d3"), "agreed", label=1, round=1)
    settle(holes.debate("q1", "d5"), "agreed", label=0, round=1)
    escalated = settle(holes.debate("q2", "d3"), "escalated", reason="disagreement")
    review(escalated, "escalated", [])


@pytest.mark.django_db
def test_refine_refuses_and_writes_nothing_when_half_the_pairs_are_unresolved(holes):
    two_resolved(holes)
    before = (QrelSet.objects.count(), Qrel.objects.count())
    with pytest.raises(RefineError) as refused:
        qrels_refine(pool=holes.pool, name="partial")
    assert "2 of 4 pairs (50.0%) have no final label" in str(refused.value)
    assert "1 escalated, awaiting human, 1 pending" in str(refused.value)
    assert "more than the 5.0% allowed" in str(refused.value)
    assert (QrelSet.objects.count(), Qrel.objects.count()) == before
    assert Refinement.objects.count() == LabelProvenance.objects.count() == 0


@pytest.mark.django_db
def test_the_command_prints_the_share_when_it_refuses(holes):
    two_resolved(holes)
    with pytest.raises(
        CommandError, match=r"refine refused, nothing written: 2 of 4 pairs \(50.0%\)"
    ):
        call_command("refine", "holes/p", "--name", "partial", stdout=io.StringIO())


@pytest.mark.django_db
def test_allow_partial_refines_with_the_resolved_labels_and_lists_the_pending_pairs(holes):
    two_resolved(holes)
    out = io.StringIO()
    call_command("refine", "p", "--name", "partial", "--allow-partial", stdout=out)
    printed = out.getvalue()
    assert (
        "pool holes/p: 4 pairs; 2 with a final label (2 consensus); 2 unresolved (50.0% of "
        "pairs; allowed 5.0%, --allow-partial): 1 escalated, awaiting human, 1 pending"
    ) in printed
    assert (
        "refined qrel set partial (origin refined): 4 original rows of test unchanged + "
        "1 relevant + 1 not relevant = 6 rows"
    ) in printed
    lines = printed.splitlines()
    at = lines.index("unresolved pairs (no final label, left unjudged): 2")
    assert [line.split(None, 2) for line in lines[at + 2 : at + 4]] == [
        ["q2", "d3", "escalated, awaiting human"],
        ["q2", "d6", "pending"],
    ]
    refined = QrelSet.objects.get(name="partial")
    assert ("q2", "d3") not in {(q, d) for q, d, _ in qrels_rows(qrel_set=refined)}
    unresolved = LabelProvenance.objects.filter(qrel_set=refined, label__isnull=True)
    assert sorted(unresolved.values_list("reason", flat=True)) == [
        "escalated, awaiting human",
        "pending",
    ]
    assert not unresolved.filter(qrel__isnull=False).exists()


@pytest.mark.django_db
def test_a_higher_threshold_accepts_the_unresolved_share_without_allow_partial(holes):
    two_resolved(holes)
    report = qrels_refine(pool=holes.pool, name="half", max_unresolved_share=0.5)
    assert report.summary.unresolved_share == 0.5
    assert report.refinement.allow_partial is False
