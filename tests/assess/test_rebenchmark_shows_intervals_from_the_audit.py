"""A re-benchmark's intervals come from the refined set's provenance: the audited pair's
human label corrects the debate labels, weighted by the inverse of the inclusion probability
its provenance stored at refinement, the job's audit share (the ``holes``
world of tests/fixtures/refine.py, worked by hand)."""

import io
import math

import pytest
from django.core.management import call_command

from assess.evaluation.refined_intervals import rebench_intervals
from assess.review.agreement import audit_draw
from tests.fixtures.refine import refined_at_share

pytestmark = pytest.mark.django_db


def drawn_waiting(world) -> int:
    """The agreed pairs other than (q2, d6) that the job's audit draws at 0.5 (a hash of the
    job's and the pair's ids, so 0, 1 or 2 of them): drawn, their audit not judged."""
    pairs = [world.debate("q1", "d3"), world.debate("q1", "d5")]
    return sum(audit_draw(world.job.pk, d.pair_id) < 0.5 for d in pairs)


@pytest.fixture
def audited(refined):
    # Half the agreed labels audited: the one audit that was drawn weighs 1 / 0.5 = 2.
    return refined_at_share(refined, 0.5)


def test_the_audited_error_is_weighted_by_the_inverse_audit_share(audited):
    found = rebench_intervals(
        original=audited.test, refined=audited.refined, runs=audited.runs, rel_level=1
    )
    assert found.error == ""
    assert found.counts == {
        "agreed": 3, "audited": 1, "audit_waiting": drawn_waiting(audited),
        "audit_over_budget": 0, "escalated": 1,
        "escalated_waiting": 0, "over_budget": 0, "unresolved": 0, "beyond_budget": 0,
        "judged_before": 0,
    }  # fmt: skip
    alpha, beta = found.ppi.by_system["alpha"], found.ppi.by_system["beta"]
    # The model: the label-1 stratum's one audited pair, (q2, d6), is not relevant, so the
    # stratum predicts relevance 0 for its unaudited pair (q1, d3) (both are in the top 3:
    # one model cell); the label-0 stratum has no human label and keeps its machine label.
    # alpha's P@10: q1 has d1 -> 0.1, q2 has d4 -> 0.1: 0.1. beta: q1 d1 -> 0.1, q2 d4 and
    # the escalated d3 -> 0.2: 0.15. The one residual is 0, so nothing is added.
    assert alpha["P@10"].estimate == pytest.approx(0.1)
    assert beta["P@10"].estimate == pytest.approx(0.15)
    # nDCG@10 for alpha: q1 has d1 at rank 2 alone relevant: 0.6309; q2 has d4 at rank 2 of
    # d3, d4 relevant: 0.6309 / 1.6309.
    d2 = 1 / math.log2(3)
    assert alpha["nDCG@10"].estimate == pytest.approx((d2 + d2 / (1 + d2)) / 2)
    assert alpha["nDCG@10"].n_human == 1
    # The stratum without a human label is named once, with the values it moves.
    assert any(n.startswith("stratum 'label 0, round 2' moves ") for n in found.notes)


def test_the_command_and_the_api_show_them_with_the_sample_size(audited, api_as):
    out = io.StringIO()
    call_command("rebenchmark", "holes", "--refined", "test-dream", "--no-per-query", stdout=out)
    text = out.getvalue()
    assert "Intervals (95%) on the refined qrels, prediction-powered" in text
    waiting = drawn_waiting(audited)
    more = f" ({waiting} more drawn, not judged yet)" if waiting else ""
    assert f"human sample: 1 audited of 3 agreed labels{more}, 1 escalated pair judged" in text
    # What they cover, under the per-system table and not only under the pairs: both
    # evaluated queries, q1 and q2, hold pooled pairs ((q1, d3), (q1, d5); (q2, d3), (q2, d6)).
    flat = " ".join(text.split())
    assert (
        "They cover the errors of the pooled pairs' machine labels, conditional on these 2 "
        "queries (the errors move only the 2 queries holding pooled pairs); not how the means "
        "would change with other queries."
    ) in flat
    assert "System pairs: nDCG@10 difference on the refined qrels (a - b)" in text
    body = api_as("researcher").get("/api/v1/datasets/holes/refined/test-dream/rebenchmark").json()
    intervals = body["intervals"]
    assert intervals["level"] == 0.95
    assert intervals["systems"]["alpha"]["P@10"]["estimate"] == pytest.approx(0.1)
    # Every human label behind it: the one audited pair and the one escalated pair.
    p10 = intervals["systems"]["alpha"]["P@10"]
    assert (p10["n_human"], p10["n"], p10["n_audited"], p10["n_escalated"]) == (2, 2, 1, 1)
    assert [(p["a"], p["b"]) for p in intervals["pairs"]] == [("alpha", "beta")]
    assert set(intervals["naive"]) == {"llm_only", "human_only"}
    budget = intervals["budget"]
    assert budget["target_half_width"] == 0.01 and budget["measure"] == "nDCG@10"
    # 1 of 3 agreed labels audited (pi = 1/3) and intervals far wider than +-0.01: the
    # needed share is within a hair of 1, so 3 * (1 - 1/3) rounds up to 2 more labels.
    assert budget["more_human_labels"] == 2
    # The undecided pairs are the pair comparisons themselves, one shape everywhere.
    assert budget["undecided_pairs"] == [p for p in intervals["pairs"] if not p["settled"]]


def test_no_audit_share_gets_words_not_a_number(refined):
    refined = refined_at_share(refined, 0.0)
    found = rebench_intervals(original=refined.test, refined=refined.refined, runs=refined.runs)
    assert found.ppi is None
    assert "intervals need an audit share > 0" in found.error
    assert found.as_json()["error"] == found.error


def test_a_set_refined_before_its_audit_was_judged_says_to_refine_again(refined):
    """A refined set is immutable: answers given after it was made never reach its
    intervals. Its "no interval" words then say so, and what to do, instead of leaving the
    researcher to think nobody has judged anything."""
    import uuid

    from assess.models import Judgment, ReviewItem
    from tests.fixtures.refine import user

    audit = ReviewItem.objects.get(kind="audit", debate__job=refined.job)
    Judgment.objects.filter(item=audit).delete()
    ReviewItem.objects.filter(pk=audit.pk).update(judgments_done=0)
    refined = refined_at_share(refined, 0.5)
    found = rebench_intervals(original=refined.test, refined=refined.refined, runs=refined.runs)
    assert found.error == (
        "no audited pair has a human label yet (intervals need an audit share > 0 and some "
        "audited pairs judged)"
    )

    Judgment.objects.create(item=audit, annotator=user("bob"), label=0, client_id=uuid.uuid4())
    found = rebench_intervals(original=refined.test, refined=refined.refined, runs=refined.runs)
    assert found.ppi is None
    assert found.error.endswith(
        "; 1 human answer on this pool's audits and escalations came after this set was "
        "refined: refine the pool again to use them"
    )
