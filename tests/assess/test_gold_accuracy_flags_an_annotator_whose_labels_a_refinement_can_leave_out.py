"""Each annotator's answers on known-answer pairs give an accuracy with its Wilson interval and
recall on known positives and negatives (hand-worked); under the admin's floor, after enough
answers, the annotator is flagged, their labels are listed, can go back to the queue, and a
refinement can leave them out, saying so in its provenance."""

import pytest

from assess.models import GoldPair, Judgment, ReviewItem
from assess.refined.refine import qrels_refine
from assess.review import gold
from assess.review.quality import (
    QualityError,
    annotator_judgments_return,
    annotator_labels,
    annotator_quality,
    quality_policy,
    quality_policy_set,
)
from assess.review.services import judgment_record


def test_three_of_five_right_is_sixty_percent_with_its_wilson_interval():
    # Known 1, 1, 0, 0, 0 answered 1, 0, 0, 0, 1.
    score = gold.gold_score([(1, 1), (1, 0), (0, 0), (0, 0), (0, 1)])
    assert (score.accuracy.successes, score.accuracy.n) == (3, 5)
    assert score.accuracy.estimate == 0.6
    # Wilson, z = 1.96: centre (0.6 + 3.8415/10) / 1.7683 = 0.5566, half width
    # 1.1084 x sqrt(0.048 + 0.0384) = 0.3258.
    assert round(score.accuracy.low, 4) == 0.2307
    assert round(score.accuracy.high, 4) == 0.8824
    assert (score.positives.successes, score.positives.n) == (1, 2)
    assert (score.negatives.successes, score.negatives.n) == (2, 3)


def test_on_a_graded_pair_the_side_of_relevance_counts_not_the_exact_grade():
    score = gold.gold_score([(2, 1), (2, 0), (0, 0), (1, 2)])
    assert (score.accuracy.successes, score.accuracy.n) == (3, 4)


def test_the_floor_flags_only_after_enough_answers():
    low = gold.gold_score([(1, 0)] * 3 + [(1, 1)] * 2)  # 40%
    assert not gold.gold_flagged(low, floor=0.8, min_answers=6)
    assert gold.gold_flagged(low, floor=0.8, min_answers=5)
    assert not gold.gold_flagged(low, floor=0.4, min_answers=5)  # at the floor is not under it


def _gold_items(job, annotator, labels):
    """Give ``annotator`` one gold item per known pair of ``job`` and their answers."""
    for n, (pair, label) in enumerate(zip(GoldPair.objects.filter(job=job), labels, strict=False)):
        item = ReviewItem.objects.create(
            gold=pair, assigned_to=annotator, kind=ReviewItem.Kind.GOLD, judgments_needed=1
        )
        judgment_record(
            item=item,
            annotator=annotator,
            label=label,
            # 32 hex digits whatever the id: four decimal digits broke at user id 10,000.
            client_id=f"{annotator.pk:016x}{n:016x}",
        )


@pytest.fixture(name="graded_people")
def graded_people_fixture(make_review_job, annotators):
    """A job with 2 escalated pairs and 4 known pairs (q001: g001, g002 relevant, g003, g004
    not); alice answers all 4 right and judges pair 1 relevant; bob answers 1 of 4 right and
    judges pair 2 not relevant."""
    from assess.review.gold_queue import gold_pairs_draw

    built = make_review_job(escalated=2, gold_share=0.2, known_relevant=2, known_irrelevant=2)
    gold_pairs_draw(job=built.job)
    GoldPair.objects.filter(job=built.job, basis="cross-query").delete()
    alice, bob = annotators(2)
    order = list(GoldPair.objects.filter(job=built.job).values_list("label", flat=True))
    _gold_items(built.job, alice, order)
    _gold_items(built.job, bob, [1 - order[0], 1 - order[1], 1 - order[2], order[3]])
    for user, debate, label, n in (
        (alice, built.escalated[0], 1, 1),
        (bob, built.escalated[1], 0, 2),
    ):
        judgment_record(
            item=debate.review,
            annotator=user,
            label=label,
            client_id=f"00000000-0000-4000-8000-{n:012d}",
        )
    return built, alice, bob


@pytest.mark.django_db
def test_each_annotators_accuracy_and_recall_come_from_their_gold_answers(graded_people):
    built, alice, bob = graded_people
    figures = annotator_quality()
    a, b = figures[alice.pk].score, figures[bob.pk].score
    assert (a.accuracy.successes, a.accuracy.n, a.positives.n, a.negatives.n) == (4, 4, 2, 2)
    assert (b.accuracy.successes, b.accuracy.n) == (1, 4)
    assert b.positives.successes + b.negatives.successes == 1
    # Default floor: 80% after 10 answers; four answers are not enough to flag.
    assert not figures[bob.pk].flagged
    quality_policy_set(accuracy_floor=0.5, min_answers=4, admin=None)
    assert quality_policy().min_answers == 4
    figures = annotator_quality()
    assert figures[bob.pk].flagged and not figures[alice.pk].flagged
    # Bob's labels of debates' pairs, for re-judging (never his gold answers).
    listed = annotator_labels(annotator=bob)
    assert [(x.query_id, x.doc_id, x.label) for x in listed] == [("q002", "d002", 0)]
    item = ReviewItem.objects.get(debate__job=built.job, debate__pair__query__query_id="q002")
    assert [x.item_id for x in listed] == [item.public_id]


@pytest.mark.django_db
def test_the_floor_must_be_a_share_and_need_one_answer_at_least():
    with pytest.raises(QualityError, match="between 0 and 1"):
        quality_policy_set(accuracy_floor=1.5, min_answers=3, admin=None)
    with pytest.raises(QualityError, match="at least 1"):
        quality_policy_set(accuracy_floor=0.5, min_answers=0, admin=None)


@pytest.mark.django_db
def test_a_refinement_can_leave_the_flagged_annotators_labels_out(graded_people):
    built, alice, bob = graded_people
    quality_policy_set(accuracy_floor=0.5, min_answers=4, admin=None)
    pool = built.job.pool

    kept = qrels_refine(pool=pool, name="all", allow_partial=True)
    by_doc = {p.document.doc_id: p for p in kept.refinement.provenance.select_related("document")}
    assert (by_doc["d001"].label, by_doc["d002"].label) == (1, 0)
    assert kept.refinement.exclude_flagged is False
    # Each human label carries its annotator's gold record as of the refinement.
    assert by_doc["d002"].judgments[0]["gold_answers"] == 4
    assert by_doc["d002"].judgments[0]["gold_accuracy"] == 0.25

    left = qrels_refine(pool=pool, name="trusted", allow_partial=True, exclude_flagged=True)
    by_doc = {p.document.doc_id: p for p in left.refinement.provenance.select_related("document")}
    assert by_doc["d001"].label == 1
    assert by_doc["d002"].label is None and by_doc["d002"].source == "unresolved"
    assert left.refinement.exclude_flagged is True
    assert left.refinement.excluded_annotators == [
        {
            "annotator": "ann2",
            "gold_correct": 1,
            "gold_answers": 4,
            "gold_accuracy": 0.25,
            "floor": 0.5,
            "min_answers": 4,
        }
    ]


@pytest.mark.django_db
def test_a_flagged_annotators_labels_go_back_to_the_queue(graded_people):
    built, alice, bob = graded_people
    with pytest.raises(QualityError, match="flagged"):
        annotator_judgments_return(annotator=bob, admin=None)
    quality_policy_set(accuracy_floor=0.5, min_answers=4, admin=None)
    assert annotator_judgments_return(annotator=bob, admin=None) == 1
    item = built.escalated[1].review
    item.refresh_from_db()
    assert item.judgments_done == 0
    assert Judgment.objects.get(item=item, annotator=bob).undone_at is not None
    # His gold answers stay: they are what flagged him.
    assert (
        Judgment.objects.filter(annotator=bob, item__gold__isnull=False, undone_at=None).count()
        == 4
    )


@pytest.mark.django_db
def test_the_annotators_page_and_the_api_show_accuracy_with_its_interval(
    graded_people, client, make_user, api_as
):
    built, alice, bob = graded_people
    admin = make_user("admin", "boss")
    client.force_login(admin)
    html = client.get("/review/annotators/").content.decode()
    # Bob: 1 of 4 right; Wilson 95%: 0.0456-0.6994.
    assert '25% <span class="muted small">(1 of 4; 95% CI 5–70%)</span>' in html
    assert '100% <span class="muted small">(4 of 4; 95% CI 51–100%)</span>' in html
    assert 'class="flagged"' not in html  # 4 answers: under the default 10 needed
    response = client.post("/review/annotators/floor/", {"floor_percent": "50", "min_answers": "4"})
    assert response.status_code == 302
    html = client.get("/review/annotators/").content.decode()
    assert html.count('class="flagged"') == 1 and 'id="annotator-ann2" class="flagged"' in html
    detail = client.get("/review/annotator/ann2/").content.decode()
    assert 'id="labels-return-form"' in detail and "d002" in detail

    body = api_as("researcher").get("/api/v1/annotators").json()
    assert body["floor"] == {"accuracy_floor": 0.5, "min_answers": 4}
    bob_row = next(a for a in body["annotators"] if a["username"] == "ann2")
    accuracy = bob_row["gold"]["accuracy"]
    assert (accuracy["successes"], accuracy["n"], accuracy["estimate"]) == (1, 4, 0.25)
    assert (round(accuracy["low"], 4), round(accuracy["high"], 4)) == (0.0456, 0.6994)
    assert bob_row["flagged"] is True
    labels = api_as("admin").get("/api/v1/annotators/ann2/labels").json()["labels"]
    assert [(x["query_id"], x["doc_id"], x["label"]) for x in labels] == [("q002", "d002", 0)]
    # The label names its review item by the item's public id, as the judging URLs do.
    item = ReviewItem.objects.get(debate__job=built.job, debate__pair__query__query_id="q002")
    assert [x["item_id"] for x in labels] == [str(item.public_id)]


@pytest.mark.django_db
def test_an_annotators_own_page_counts_only_judgments_before_today(graded_people, client):
    built, alice, bob = graded_people
    client.force_login(bob)
    html = client.get("/review/me/").content.decode()
    assert "No judgments counted yet." in html  # everything was saved today
    Judgment.objects.filter(annotator=bob).update(
        created=Judgment.objects.filter(annotator=bob).first().created.replace(year=2020)
    )
    html = client.get("/review/me/").content.decode()
    assert "(1 of 4; 95% CI 5–70%)" in html


@pytest.mark.django_db
def test_labels_sent_back_never_return_to_their_annotator(graded_people, annotators):
    from assess.review.services import review_item_claim

    built, alice, bob = graded_people
    quality_policy_set(accuracy_floor=0.5, min_answers=4, admin=None)
    annotator_judgments_return(annotator=bob, admin=None)
    assert review_item_claim(annotator=bob) is None  # his returned pair is not his again
    built.job.gold_share = 0.0  # carol's first pair is then her real one, never gold
    built.job.save(update_fields=["gold_share"])
    (carol,) = annotators(1, prefix="other")
    assert review_item_claim(annotator=carol).debate_id == built.escalated[1].pk


@pytest.mark.django_db
def test_the_disagreements_csv_says_where_each_label_came_from_and_who_gave_it(graded_people):
    import csv
    import io

    from assess.refined.export_formats import DISAGREEMENT_HEADER
    from assess.refined.exports import export_stream

    built, alice, bob = graded_people
    report = qrels_refine(pool=built.job.pool, name="listed", allow_partial=True)
    out = io.StringIO()
    export_stream(kind="disagreements", out=out, qrel_set=report.qrel_set)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert list(rows[0]) == list(DISAGREEMENT_HEADER)
    by_doc = {r["doc_id"]: r for r in rows}
    assert (by_doc["d002"]["label source"], by_doc["d002"]["human judgments"]) == (
        "single-human",
        "ann2=0 (gold 25% of 4)",
    )
    assert by_doc["d001"]["human judgments"] == "ann1=1 (gold 100% of 4)"
