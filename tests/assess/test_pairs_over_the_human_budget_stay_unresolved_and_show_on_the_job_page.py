"""With a human budget of 2 on the hand-made pool of fixtures/budget
(order 2, 4, 5, 6, 1, 3; escalated pairs 1-4, audited 5-6), the escalated pairs beyond the
budget (q001, q003) stay unresolved with the reason "over the human budget" and are listed
by `refine --allow-partial`; the job page shows how many items are over the budget and the
share of the total impact it covers (2.630930 / 4.648713 = 0.566), and an admin raises the
budget there."""

import io
import re

from django.core.management import call_command

from assess.refined.labels import OVER_BUDGET
from debates.models import DebateJob


def test_refine_allow_partial_lists_the_escalated_pairs_over_the_budget(budget_job):
    out = io.StringIO()
    call_command("refine", "annot/p", "--name", "budgeted", "--allow-partial", stdout=out)
    listed = re.findall(r"^\s+(q\d+)\s+(d\d+)\s+(.+?)\s*$", out.getvalue(), re.M)
    assert listed == [
        ("q001", "d001", OVER_BUDGET),
        ("q002", "d002", "escalated, awaiting human"),
        ("q003", "d003", OVER_BUDGET),
        ("q004", "d004", "escalated, awaiting human"),
    ]
    assert OVER_BUDGET == "over the human budget"


def test_the_job_page_shows_the_budget_and_an_admin_raises_it(budget_job, client_as):
    job, _ = budget_job
    client = client_as("admin")
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    line = re.search(r'<p id="job-budget">(.*?)</p>', page, re.S).group(1)
    text = re.sub(r"<[^>]+>", "", line)
    assert "Human budget: 2 of 6 pairs for humans" in text
    assert "4 over the human budget" in text
    assert "the budget covers 0.566 of their total impact" in text
    assert 'id="job-budget-form"' in page

    response = client.post(f"/jobs/{job.pk}/budget/", {"human_budget": "3"})
    assert response.status_code == 302
    assert DebateJob.objects.get(pk=job.pk).human_budget == 3
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert "3 over the human budget" in re.sub(r"<[^>]+>", "", page)

    client.post(f"/jobs/{job.pk}/budget/", {"human_budget": ""})
    assert DebateJob.objects.get(pk=job.pk).human_budget is None
    assert 'id="job-budget"' not in client.get(f"/jobs/{job.pk}/").content.decode()


def test_a_researcher_cannot_change_the_budget(budget_job, client_as):
    job, _ = budget_job
    response = client_as("researcher").post(f"/jobs/{job.pk}/budget/", {"human_budget": "9"})
    assert response.status_code in (302, 403)
    assert DebateJob.objects.get(pk=job.pk).human_budget == 2
