"""The job page's audit area names the allocation and gives each stratum's agreed labels,
inclusion probability, judged and wrong audited pairs."""

import re
import uuid

from assess.models import ReviewItem
from assess.review.services import judgment_record


def test_the_job_page_lists_the_strata(client_as, make_review_job, annotators):
    # Job and pair ids fixed (6501, pairs 6501..6541): the draw hashes them, and a quarter of
    # these 40 agreed labels is 8 audits, so there is one to judge whatever ran before.
    review = make_review_job(escalated=1, agreed=40, audit_share=0.25, pk=6501)
    assert ReviewItem.objects.filter(kind=ReviewItem.Kind.AUDIT).count() == 8
    (alice,) = annotators(1)
    item = ReviewItem.objects.filter(kind=ReviewItem.Kind.AUDIT).order_by("pk").first()
    judgment_record(item=item, annotator=alice, label=0, client_id=uuid.uuid4())

    page = client_as("researcher").get(f"/jobs/{review.job.pk}/").content.decode()

    table = page[
        page.index('id="job-audit-strata"') : page.index(
            "</table>", page.index('id="job-audit-strata"')
        )
    ]
    assert "proportional allocation" in table
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", table)
    assert cells == ["label 1, round 1", "40", "0.250", "1", "1"]
