"""Review items are created where a debate escalates or its audit is drawn: the debate runner
announces each end (``debates.signals.debate_ended``) and assess's receiver queues the pair.
An agreed debate that is not drawn costs one query (the LLM hot path); a debate ending twice,
or the periodic sync running as well, leaves one item; with a human budget the new item gets
its rank at once. Changing a job's audit share or human budget (``debates.services.human``)
draws the audits and renumbers the items there."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext

from assess.models import ReviewItem
from assess.review.agreement import audit_draw
from assess.review.services import review_item_claim, review_items_sync, review_items_sync_all
from core.roles import user_ensure
from debates.models import Debate, DebateJob
from debates.services.human import debate_job_audit_share_set, debate_job_budget_set

from .review_builders import build_job, end, raised


def _annotator(username: str = "ann"):
    return user_ensure(username=username, role="annotator", password="correct horse battery")[0]


def test_an_escalated_debate_gets_its_item_when_it_ends(db):
    built = build_job(escalated=2, judgments_per_pair=2, ranks={1: 1})
    first, second = built.escalated
    assert raised(end(first)) == []
    item = ReviewItem.objects.get()
    assert (item.debate_id, item.kind, item.judgments_needed) == (first.pk, "escalated", 2)
    assert item.impact == 1.0  # rank 1 in one run: 1/log2(2)
    assert item.budget_rank is None  # no human budget: the claim ignores ranks
    assert raised(end(second)) == []
    assert sorted(ReviewItem.objects.values_list("debate_id", flat=True)) == [
        first.pk,
        second.pk,
    ]


def test_a_debate_ending_twice_or_synced_as_well_has_one_item(db):
    built = build_job(escalated=1, agreed=1, audit_share=1.0)
    for debate in built.escalated + built.agreed:
        assert raised(end(debate)) == []
        assert raised(end(debate)) == []
    assert ReviewItem.objects.count() == 2
    review_items_sync(job=built.job)
    assert review_items_sync_all() == 0
    assert sorted(ReviewItem.objects.values_list("kind", flat=True)) == ["audit", "escalated"]


def test_an_agreed_debate_drawn_for_the_audit_gets_an_audit_item(db):
    built = build_job(agreed=1, audit_share=1.0, judgments_per_pair=3)
    (debate,) = built.agreed
    assert raised(end(debate)) == []
    item = ReviewItem.objects.get()
    assert (item.debate_id, item.kind, item.judgments_needed) == (debate.pk, "audit", 3)


def test_an_agreed_debate_not_drawn_costs_one_query_and_a_failed_one_none(db):
    built = build_job(agreed=1)
    (debate,) = built.agreed
    job = built.job
    # A share just at the pair's draw: not drawn (drawn means below the share).
    DebateJob.objects.filter(pk=job.pk).update(audit_share=audit_draw(job.pk, debate.pair_id))
    with CaptureQueriesContext(connection) as queries:
        assert raised(end(debate)) == []
    assert len(queries) == 1, [q["sql"] for q in queries.captured_queries]
    assert ReviewItem.objects.count() == 0
    DebateJob.objects.filter(pk=job.pk).update(audit_share=0.0)
    with CaptureQueriesContext(connection) as queries:
        assert raised(end(debate)) == []
    assert len(queries) == 1
    Debate.objects.filter(pk=debate.pk).update(status=Debate.Status.FAILED)
    debate.status = Debate.Status.FAILED
    with CaptureQueriesContext(connection) as queries:
        assert raised(end(debate)) == []
    assert len(queries) == 0
    assert ReviewItem.objects.count() == 0


def test_with_a_human_budget_an_ended_debate_is_ranked_at_once(db):
    # Pair 1 retrieved at rank 5, pair 2 at rank 1: pair 2 matters more.
    built = build_job(escalated=2, human_budget=1, ranks={1: 5, 2: 1})
    low, high = built.escalated
    end(low)
    assert ReviewItem.objects.get().budget_rank == 1
    end(high)
    ranks = dict(ReviewItem.objects.values_list("debate_id", "budget_rank"))
    assert ranks == {high.pk: 1, low.pk: 2}
    alice, bob = _annotator("alice"), _annotator("bob")
    assert review_item_claim(annotator=alice).debate_id == high.pk
    assert review_item_claim(annotator=bob) is None  # beyond the budget of 1


def test_raising_the_audit_share_queues_the_audits_it_adds(db, django_capture_on_commit_callbacks):
    built = build_job(agreed=20)
    for debate in built.agreed:
        end(debate)
    assert ReviewItem.objects.count() == 0
    with django_capture_on_commit_callbacks(execute=True):
        debate_job_audit_share_set(job=built.job, share=1.0)
    assert ReviewItem.objects.filter(kind="audit").count() == 20


def test_changing_the_human_budget_renumbers_the_items(db, django_capture_on_commit_callbacks):
    built = build_job(escalated=3, ranks={1: 9, 2: 5, 3: 1})
    for debate in built.escalated:
        end(debate)
    assert set(ReviewItem.objects.values_list("budget_rank", flat=True)) == {None}
    alice = _annotator("alice")
    with django_capture_on_commit_callbacks(execute=True):
        debate_job_budget_set(job=built.job, budget=1)
    by_debate = dict(ReviewItem.objects.values_list("debate_id", "budget_rank"))
    assert [by_debate[d.pk] for d in built.escalated] == [3, 2, 1]
    held = review_item_claim(annotator=alice)
    assert held.debate_id == built.escalated[2].pk
    # A budget lowered to 0 never takes back the pair a human holds: it ranks first.
    DebateJob.objects.filter(pk=built.job.pk).update(human_budget=None)
    ReviewItem.objects.filter(pk=held.pk).update(impact=0.0)
    with django_capture_on_commit_callbacks(execute=True):
        debate_job_budget_set(job=built.job, budget=1)
    assert ReviewItem.objects.get(pk=held.pk).budget_rank == 1
