"""A graded job's pair (G = 2) is judged with grades: the page shows the rubric and one
button per grade 2, 1, 0 (keys 2/1/0); a grade is saved as it is, a grade above G or a 2 on
a binary pair is refused with 400 and saves nothing; the adjudication form offers the same
grades. Binary pairs keep their two buttons."""

import re
import uuid

from assess.models import Judgment
from debates.models import DebateJob
from debates.rubric import rubric

HX = {"HX-Request": "true"}


def _item_id(html: str) -> str:
    """The public id of the pair the fragment shows ("" for none)."""
    return re.search(r'id="judge-item"[^>]*data-item="([^"]*)"', html).group(1)


def _buttons(html: str) -> list[tuple[str, str]]:
    return re.findall(r'name="label" value="(\d)" data-key="(\d)"', html)


def _graded(review, top=2):
    DebateJob.objects.filter(pk=review.job.pk).update(scale="graded", max_grade=top)


def test_the_page_shows_the_rubric_and_takes_each_grade(client, make_review_job, annotators):
    review = make_review_job(escalated=3)
    _graded(review)
    (alice,) = annotators(1)
    client.force_login(alice)
    html = client.get("/judge/").content.decode()
    assert _buttons(html) == [("2", "2"), ("1", "1"), ("0", "0")]
    rubric_html = re.search(
        r'<section class="rubric" id="judge-rubric">(.*?)</section>', html, re.S
    )
    items = re.findall(r"<li>(.*?)</li>", rubric_html.group(1))
    expected = [line.replace("'", "&#x27;") for line in reversed(rubric(2))]
    assert items == expected
    assert items[0].startswith("2 (highly relevant): the chunk is dedicated to the query")
    for grade in ("2", "0", "1"):
        item = _item_id(html)
        body = {"client_id": str(uuid.uuid4()), "label": grade, "seconds": "1"}
        answer = client.post(f"/judge/{item}/submit/", body, headers=HX)
        assert answer.status_code == 200
        html = answer.content.decode()
    labels = list(Judgment.objects.order_by("created").values_list("item__debate_id", "label"))
    assert labels == [(d.pk, g) for d, g in zip(review.escalated, (2, 0, 1), strict=True)]


def test_a_grade_outside_the_scale_is_refused(client, make_review_job, annotators):
    review = make_review_job(escalated=2)
    _graded(review)
    (alice,) = annotators(1)
    client.force_login(alice)
    item = _item_id(client.get("/judge/").content.decode())
    body = {"client_id": str(uuid.uuid4()), "label": "3", "seconds": "1"}
    answer = client.post(f"/judge/{item}/submit/", body, headers=HX)
    assert answer.status_code == 400
    assert answer.content.decode() == "Not saved: this pair takes a grade from 0 to 2, got 3"
    assert not Judgment.objects.exists()


def test_binary_pairs_keep_relevant_and_not_relevant_only(client, make_review_job, annotators):
    make_review_job(escalated=1)
    (alice,) = annotators(1)
    client.force_login(alice)
    html = client.get("/judge/").content.decode()
    assert _buttons(html) == [("1", "1"), ("0", "0")]
    assert "judge-rubric" not in html
    body = {"client_id": str(uuid.uuid4()), "label": "2", "seconds": "1"}
    answer = client.post(f"/judge/{_item_id(html)}/submit/", body, headers=HX)
    assert answer.status_code == 400
    assert "label must be 1 (relevant) or 0 (not relevant), got 2" in answer.content.decode()
    assert not Judgment.objects.exists()


def test_the_adjudication_form_offers_the_grades(client_as, make_review_job):
    review = make_review_job(escalated=1)
    _graded(review)
    item = review.escalated[0].review
    client = client_as("admin")
    html = client.get(f"/review/items/{item.public_id}/").content.decode()
    values = re.findall(r'name="label" value="(\d)"', html)
    assert values == ["2", "1", "0"]
    assert "2 (highly relevant)" in html
    answer = client.post(f"/review/items/{item.public_id}/", {"label": "2", "note": ""})
    assert answer.status_code == 302
    item.refresh_from_db()
    assert item.adjudication.label == 2
