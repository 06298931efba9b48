"""Known-answer (gold) pairs from the original qrels join each annotator's queue at the job's
gold share, at reproducible places, look like audits on the judging page, and never become
labels of a refined set."""

import io
import json

import pytest

from assess.models import GoldPair, Judgment, LabelProvenance, ReviewItem
from assess.refined.exports import export_stream
from assess.refined.refine import qrels_refine
from assess.review import gold
from assess.review.gold_queue import gold_pairs_draw
from assess.review.services import judgment_record, review_item_claim


def _judge_all(annotator, label_of, start=0):
    """Claim and judge until the queue is empty; return the items in judging order."""
    seen = []
    while (item := review_item_claim(annotator=annotator)) is not None:
        judgment_record(
            item=item,
            annotator=annotator,
            label=label_of(item),
            client_id=f"00000000-0000-4000-8000-{start + len(seen):012d}",
        )
        seen.append(item)
    return seen


def test_each_block_of_twenty_places_holds_one_gold_place_at_five_percent():
    flags = [gold.gold_position(7, 3, i, 0.05) for i in range(400)]
    assert sum(flags) == 20
    assert [sum(flags[b * 20 : (b + 1) * 20]) for b in range(20)] == [1] * 20
    # Reproducible, and not the same places for another annotator or job.
    assert flags == [gold.gold_position(7, 3, i, 0.05) for i in range(400)]
    assert flags != [gold.gold_position(7, 4, i, 0.05) for i in range(400)]
    assert flags != [gold.gold_position(8, 3, i, 0.05) for i in range(400)]


def test_a_quarter_share_gives_one_gold_place_in_four_and_zero_gives_none():
    assert sum(gold.gold_position(1, 1, i, 0.25) for i in range(400)) == 100
    # 0.3: blocks of 3 places holding 0.9 gold places on average (rounded per block).
    assert abs(sum(gold.gold_position(1, 1, i, 0.3) for i in range(1000)) - 300) <= 1
    assert not any(gold.gold_position(1, 1, i, 0.0) for i in range(100))


def test_the_draw_size_covers_an_annotator_who_judges_the_whole_pool():
    assert gold.gold_draw_size(0.05, 1900) == 100  # 0.05 / 0.95 x 1,900
    assert gold.gold_draw_size(0.05, 19) == gold.MIN_DRAW
    assert gold.gold_draw_size(0.5, 10**6) == gold.MAX_DRAW
    assert gold.gold_draw_size(0.0, 1000) == 0


def test_cross_query_negatives_skip_judged_and_near_pairs_and_balance_the_draw():
    relevant = [("q1", "a"), ("q1", "b"), ("q2", "c")]
    found = gold.cross_query_negatives(
        job_id=1,
        query_ids=["q1", "q2"],
        relevant=relevant,
        judged={("q2", "a")},
        near={("q1", "c")},
        pooled=set(),
        size=10,
    )
    # q1 may only take c (its own a, b are relevant; c is ranked near), and c is near;
    # q2 may take b only (a is judged for it, c is its own).
    assert sorted((c.query_id, c.doc_id) for c in found) == [("q2", "b")]
    assert all(c.label == 0 and c.basis == gold.CROSS_QUERY for c in found)
    positives = [gold.GoldCandidate(f"q{i}", "d", 1, gold.POSITIVE) for i in range(10)]
    negatives = [gold.GoldCandidate(f"q{i}", "e", 0, gold.NEGATIVE) for i in range(3)]
    chosen = gold.gold_candidates_choose(
        job_id=1, positives=positives, negatives=negatives, cross_query=[], size=8
    )
    assert sum(c.label for c in chosen) == 5 and len(chosen) == 8  # 3 negatives, rest positive


@pytest.mark.django_db
def test_gold_pairs_come_from_the_pools_qrels_and_are_drawn_once(make_review_job):
    built = make_review_job(escalated=4, gold_share=0.25, known_relevant=3, known_irrelevant=2)
    job = built.job
    created = gold_pairs_draw(job=job)
    assert gold_pairs_draw(job=job) == 0
    assert created == GoldPair.objects.filter(job=job).count()
    judged = GoldPair.objects.filter(job=job, query__query_id="q001")
    assert sorted(judged.values_list("document__doc_id", "label", "basis")) == [
        ("g001", 1, "qrels-relevant"),
        ("g002", 1, "qrels-relevant"),
        ("g003", 1, "qrels-relevant"),
        ("g004", 0, "qrels-nonrelevant"),
        ("g005", 0, "qrels-nonrelevant"),
    ]
    # Too few judged negatives: the rest are other queries paired with q001's relevant chunks.
    cross = GoldPair.objects.filter(job=job, basis="cross-query")
    assert cross.exists()
    assert set(cross.values_list("document__doc_id", flat=True)) <= {"g001", "g002", "g003"}
    assert not cross.filter(query__query_id="q001").exists()


@pytest.mark.django_db
def test_an_annotator_meets_gold_pairs_exactly_at_their_gold_places(make_review_job, annotators):
    built = make_review_job(escalated=40, gold_share=0.25, known_relevant=6, known_irrelevant=6)
    (ann,) = annotators(1)
    seen = _judge_all(ann, lambda item: 0)
    real = [item for item in seen if item.debate_id is not None]
    golds = [item for item in seen if item.gold_id is not None]
    assert len(real) == 40
    assert [item.gold_id is not None for item in seen] == [
        gold.gold_position(built.job.pk, ann.pk, i, 0.25) for i in range(len(seen))
    ]
    # One in four places (the last block may be cut short when the real pairs run out).
    assert len(golds) == sum(gold.gold_position(built.job.pk, ann.pk, i, 0.25) for i in range(53))
    assert 12 <= len(golds) <= 14
    assert len({item.gold_id for item in golds}) == len(golds)  # never the same pair twice
    assert all(
        item.kind == ReviewItem.Kind.GOLD and item.assigned_to_id == ann.pk for item in golds
    )


@pytest.mark.django_db
def test_without_a_gold_share_no_gold_pair_is_served(make_review_job, annotators):
    make_review_job(escalated=10, gold_share=0.0, known_relevant=4, known_irrelevant=4)
    (ann,) = annotators(1)
    seen = _judge_all(ann, lambda item: 1)
    assert len(seen) == 10 and all(item.debate_id is not None for item in seen)
    assert not GoldPair.objects.exists()


@pytest.mark.django_db
def test_a_gold_pair_looks_like_an_audit_on_the_judging_page(make_review_job, annotators, client):
    built = make_review_job(
        escalated=0, agreed=8, audit_share=1.0, gold_share=0.5, known_relevant=4
    )
    (ann,) = annotators(1)
    client.force_login(ann)
    pages = {}
    for n in range(8):
        response = client.get("/judge/")
        item = ReviewItem.objects.get(leased_to=ann, lease_expires_at__isnull=False)
        html = response.content.decode()
        pages[item.kind] = html
        client.post(
            f"/judge/{item.public_id}/submit/",
            {"client_id": f"00000000-0000-4000-8000-{n:012d}", "label": "1", "seconds": "3"},
        )
        if len(pages) == 2:
            break
    assert set(pages) == {"audit", "gold"}, built.job.pk
    for html in pages.values():
        assert "pair-debate" not in html  # no debate on either
        assert "gold" not in html.lower().replace("g00", "")
        assert "known" not in html.lower()
        assert 'id="pair-chunk"' in html


@pytest.mark.django_db
def test_answers_on_gold_pairs_never_become_labels_of_a_refined_set(make_review_job, annotators):
    built = make_review_job(escalated=12, gold_share=0.25, known_relevant=3, known_irrelevant=3)
    (ann,) = annotators(1)
    # The annotator says the opposite of every known answer.
    seen = _judge_all(ann, lambda item: 1 - item.gold.label if item.gold_id else 1)
    assert any(item.gold_id for item in seen)
    report = qrels_refine(pool=built.job.pool, name="refined", allow_partial=True)
    assert LabelProvenance.objects.filter(refinement=report.refinement).count() == 12
    assert not LabelProvenance.objects.filter(
        refinement=report.refinement, document__doc_id__startswith="g"
    ).exists()
    out = io.StringIO()
    export_stream(kind="labels", out=out, qrel_set=report.qrel_set)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    gold_rows = {(r["query_id"], r["doc_id"]): r for r in lines if r["doc_id"].startswith("g")}
    # Only the original qrels rows of the known pairs, with their original grades.
    assert {k: (r["label"], r["source"]) for k, r in gold_rows.items()} == {
        ("q001", "g001"): (1, "original"),
        ("q001", "g002"): (1, "original"),
        ("q001", "g003"): (1, "original"),
        ("q001", "g004"): (0, "original"),
        ("q001", "g005"): (0, "original"),
        ("q001", "g006"): (0, "original"),
    }
    assert Judgment.objects.filter(item__gold__isnull=False).count() == sum(
        1 for item in seen if item.gold_id
    )


def test_counting_gold_places_by_blocks_matches_counting_them_one_by_one():
    for share in (0.05, 0.25, 0.3):
        for start, stop in ((0, 400), (7, 93), (19, 21), (40, 40), (123, 1000)):
            brute = sum(gold.gold_position(3, 9, i, share) for i in range(start, stop))
            assert gold.gold_places_between(3, 9, start, stop, share) == brute


@pytest.mark.django_db
def test_the_queue_count_drops_by_one_after_every_answer_gold_or_not(make_review_job, annotators):
    from assess.review.selectors import judging_status

    make_review_job(escalated=30, gold_share=0.25, known_relevant=8, known_irrelevant=8)
    (ann,) = annotators(1)
    counts, kinds = [], []
    while (item := review_item_claim(annotator=ann)) is not None:
        counts.append(judging_status(annotator=ann).queue)
        kinds.append(item.kind)
        judgment_record(
            item=item,
            annotator=ann,
            label=1,
            client_id=f"00000000-0000-4000-8000-{len(counts):012d}",
        )
    assert "gold" in kinds and "escalated" in kinds
    assert counts == list(range(len(counts), 0, -1))
    assert judging_status(annotator=ann).queue == 0


@pytest.mark.django_db
def test_a_skipped_gold_pair_uses_up_its_place(make_review_job, annotators):
    from assess.review.services import review_item_release

    built = make_review_job(escalated=30, gold_share=0.25, known_relevant=8, known_irrelevant=8)
    (ann,) = annotators(1)
    skipped: list[int] = []
    place = 0  # the places the annotator went through: judged pairs and gold pairs met
    for n in range(30):
        item = review_item_claim(annotator=ann, exclude_ids=skipped)
        if item is None:
            break
        # What comes is decided by the place alone: skipping a gold pair moves on as
        # judging it would, so it neither brings another gold pair at once nor escapes them.
        assert (item.gold_id is not None) == gold.gold_position(built.job.pk, ann.pk, place, 0.25)
        place += 1
        if item.gold_id is not None and len(skipped) < 3:
            review_item_release(item=item, annotator=ann)
            skipped.append(item.pk)
            continue
        judgment_record(
            item=item, annotator=ann, label=1, client_id=f"00000000-0000-4000-8000-{n:012d}"
        )
    assert len(skipped) == 3


@pytest.mark.django_db
def test_nobody_may_answer_or_adjudicate_another_annotators_gold_pair(
    make_review_job, annotators, make_user, client
):
    from assess.review.services import JudgingConflict, JudgingError, adjudication_record

    make_review_job(escalated=4, gold_share=0.5, known_relevant=4)
    alice, bob = annotators(2)
    seen = _judge_all(alice, lambda item: 1)
    mine = next(item for item in seen if item.gold_id)
    Judgment.objects.filter(item=mine).update(undone_at=mine.created)  # open it again
    ReviewItem.objects.filter(pk=mine.pk).update(judgments_done=0, leased_to=None)
    with pytest.raises(JudgingConflict, match="not in your queue"):
        judgment_record(
            item=mine, annotator=bob, label=0, client_id="00000000-0000-4000-8000-999999999999"
        )
    with pytest.raises(JudgingError, match="not adjudicated"):
        adjudication_record(item=mine, admin=make_user("admin", "boss"), label=0)
    client.force_login(make_user("admin", "boss2"))
    assert client.get(f"/review/items/{mine.public_id}/").status_code == 404


@pytest.mark.django_db
def test_a_benchmark_without_known_answers_for_the_pools_queries_draws_once_and_serves_none(
    make_review_job, annotators
):
    from assess.review.gold_queue import gold_draw_due
    from assess.review.selectors import judging_status

    built = make_review_job(escalated=12, gold_share=0.25)  # no qrels at all
    (ann,) = annotators(1)
    seen = _judge_all(ann, lambda item: 1)
    assert len(seen) == 12 and all(item.debate_id for item in seen)
    built.job.refresh_from_db()
    # Drawn once, for this share: the later gold places did not draw again.
    assert built.job.gold_drawn_at_share == 0.25 and not gold_draw_due(built.job)
    assert not GoldPair.objects.exists()
    assert judging_status(annotator=ann).queue == 0


@pytest.mark.django_db
def test_opening_the_judging_page_at_a_gold_place_inserts_nothing(
    make_review_job, annotator_at_first_place, client
):
    built = make_review_job(escalated=6, gold_share=0.5, known_relevant=4, known_irrelevant=4)
    # An annotator whose very first place is a gold place.
    ann = annotator_at_first_place(built.job, 0.5)
    client.force_login(ann)
    assert client.get("/judge/").status_code == 200
    # A read leases a debate's pair: no gold item, no draw.
    assert not ReviewItem.objects.filter(kind="gold").exists()
    assert not GoldPair.objects.exists()
    held = ReviewItem.objects.get(leased_to=ann)
    assert held.debate_id is not None
    # Its place went to that pair; the gold pair it owed comes with the next claim that may
    # insert (answering, a POST), and later places follow the blocks.
    served = []
    for n in range(4):
        client.post(
            f"/judge/{held.public_id}/submit/",
            {"client_id": f"00000000-0000-4000-8000-{n:012d}", "label": "1"},
        )
        held = ReviewItem.objects.get(leased_to=ann, lease_expires_at__isnull=False)
        served.append(held.kind)
    assert served[0] == "gold"
    # Every gold place up to the last place reached was served (2 real answers, place 0
    # made up): gold items given = gold places among the places used.
    given = ReviewItem.objects.filter(kind="gold", assigned_to=ann).count()
    real = Judgment.objects.filter(annotator=ann, item__debate__isnull=False).count()
    assert given == gold.gold_places_between(built.job.pk, ann.pk, 0, real + given, 0.5) or (
        given == gold.gold_places_between(built.job.pk, ann.pk, 0, real + given + 1, 0.5)
    )
    assert GoldPair.objects.exists()
