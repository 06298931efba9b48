"""A job that set no ``max_tokens_cap`` re-asks a cut reply with up to the default, twice
``max_tokens``: the labels JSONL stated that value as if the job had set it (768) while the
API said null. The labels JSONL, the API's job JSON, the job page and the benchmark datasheet
now all state the cap applied and whether it was the default; a job that set one says so."""

import io
import json

import pytest

from assess.refined.benchmark_zip import benchmark_datasheet
from assess.refined.datasheet import datasheet_render
from assess.refined.exports import export_stream
from assess.refined.refine import refinement_get
from debates.models import DebateJob


def _statements(refined, api, page) -> tuple:
    out = io.StringIO()
    export_stream(kind="labels", out=out, qrel_set=refined.refined)
    line = json.loads(out.getvalue().splitlines()[2])  # q1-d3, the job's consensus label
    generation = {k: v for k, v in line["generation"].items() if k != "agents"}
    job = api.get(f"/api/v1/jobs/{refined.job.pk}").json()
    html = page.get(f"/jobs/{refined.job.pk}/").content.decode()
    (budget,) = [part for part in html.split("<dd") if 'id="job-budget-tokens"' in part]
    sheet = datasheet_render(
        sheet=benchmark_datasheet(refinement=refinement_get(qrel_set=refined.refined))
    )
    (token_line,) = [row for row in sheet.splitlines() if row.startswith("- Token budget")]
    return (
        generation,
        (job["max_tokens"], job["max_tokens_cap_applied"], job["max_tokens_cap_default"]),
        job["max_tokens_cap"],
        budget.split(">", 1)[1].split("</dd>")[0],
        token_line,
    )


@pytest.mark.django_db
def test_a_job_without_a_cap_is_said_to_have_the_default_768_everywhere(refined, api_as, client_as):
    assert (refined.job.max_tokens, refined.job.max_tokens_cap) == (384, None)
    assert _statements(refined, api_as("admin"), client_as("admin")) == (
        {"max_tokens": 384, "max_tokens_cap": 768, "max_tokens_cap_default": True},
        (384, 768, True),
        None,  # as launched: a job's JSON sent back launches the same job
        "384 per call; a reply cut at it is asked once more with up to 768 (the default, "
        "twice the budget: the job set no cap)",
        "- Token budget: 384 completion tokens for a turn's first call, 768 for the re-ask of "
        "a reply cut at its budget (the default, twice the first call's: the job set no cap)",
    )


@pytest.mark.django_db
def test_a_job_that_set_a_cap_is_said_to_have_that_cap_everywhere(refined, api_as, client_as):
    DebateJob.objects.filter(pk=refined.job.pk).update(max_tokens_cap=500)
    assert _statements(refined, api_as("admin"), client_as("admin")) == (
        {"max_tokens": 384, "max_tokens_cap": 500, "max_tokens_cap_default": False},
        (384, 500, False),
        500,
        "384 per call; a reply cut at it is asked once more with up to 500",
        "- Token budget: 384 completion tokens for a turn's first call, 500 for the re-ask of "
        "a reply cut at its budget",
    )
