"""The judging, adjudication, annotator, guidelines and debate-job pages carry no inline
script, event handler attribute or inline style (the Content-Security-Policy would block
them); scripts come from /static/ only, judge.js and guidelines.js only on the judging
page."""

import uuid

import pytest

from assess.review.services import judgment_record, review_item_claim
from tests.fixtures.ui import html_elements

BASE_SCRIPTS = ["/static/vendor/htmx-2.0.11.min.js", "/static/app.js"]


@pytest.fixture
def pages(make_review_job, annotators, tiny_dataset):
    review = make_review_job(escalated=2, agreed=1, audit_share=1.0, judgments_per_pair=2)
    alice, bob = annotators(2)
    for user, label in ((alice, 1), (bob, 0)):
        item = review_item_claim(annotator=user)
        judgment_record(item=item, annotator=user, label=label, client_id=uuid.uuid4())
    job = review.job.pk
    item = review.escalated[0].review.public_id
    return [
        ("annotator", "/judge/", BASE_SCRIPTS + ["/static/judge.js", "/static/guidelines.js"]),
        ("admin", "/jobs/", BASE_SCRIPTS),
        ("admin", "/jobs/new/", BASE_SCRIPTS),
        ("admin", f"/jobs/{job}/", BASE_SCRIPTS),
        ("researcher", f"/jobs/{job}/", BASE_SCRIPTS),
        ("admin", "/review/disagreements/", BASE_SCRIPTS),
        ("admin", f"/review/items/{item}/", BASE_SCRIPTS),
        ("admin", "/review/annotators/", BASE_SCRIPTS),
        ("admin", "/datasets/tiny/guidelines/", BASE_SCRIPTS),
        ("annotator", "/datasets/tiny/guidelines/", BASE_SCRIPTS),
    ]


def test_every_page_is_free_of_inline_script_handlers_and_styles(client_as, pages):
    for who, url, scripts in pages:
        response = client_as(who).get(url)
        assert response.status_code == 200, url
        elements, inline_scripts = html_elements(response.content.decode())
        assert inline_scripts == [], url
        assert [a.get("src") for tag, a in elements if tag == "script"] == scripts, url
        assert [tag for tag, _ in elements if tag == "style"] == [], url
        for tag, attrs in elements:
            assert "style" not in attrs, (url, tag)
            assert [a for a in attrs if a.startswith("on")] == [], (url, tag)
            for name in ("href", "src", "action", "formaction"):
                assert not (attrs.get(name) or "").lower().startswith("javascript:"), url
