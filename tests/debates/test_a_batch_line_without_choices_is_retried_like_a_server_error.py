"""A 200 line whose completion has ``choices: []`` carries no reply: it is a failed line,
its request due again for the next batch (counted as a failure, given up after the third as
a 500 is), never a label and never a refusal of the file."""

import io
import json

import pytest

from debates.batch import output_lines
from debates.models import BatchRequest, Debate, Turn
from debates.services.batch import MAX_LINE_FAILURES, batch_export, batch_import
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.batch import MODEL, output_line

pytestmark = pytest.mark.django_db


def _no_choices(line: str) -> str:
    record = json.loads(line)
    record["response"]["body"]["choices"] = []
    return json.dumps(record)


def test_a_line_with_empty_choices_reads_as_a_failure():
    line = json.dumps(
        {
            "custom_id": "dream-j1-d1-r1-A-a1",
            "response": {"status_code": 200, "body": {"choices": [], "usage": {}}},
            "error": None,
        }
    )

    [read] = output_lines([line], name="out.jsonl")

    assert (read.body, read.error) == (None, "HTTP 200 without a completion (choices: [])")


def test_a_request_answered_with_empty_choices_is_due_again_then_given_up(
    scifact_pool, scripted_server, django_capture_on_commit_callbacks
):
    agent = {"backend": "openai", "model": MODEL, "base_url": scripted_server}
    job = debate_job_launch(spec=JobSpec(pool=scifact_pool(1), agent_a=agent, batch=True))
    out = io.StringIO()
    batch_export(job=job, out=out, batch_ref="f1")
    first, second = out.getvalue().splitlines()
    custom_id = json.loads(first)["custom_id"]

    report = batch_import(
        job=job, lines=[_no_choices(output_line(first)), output_line(second)], name="out.jsonl"
    )

    request = BatchRequest.objects.get(job=job, custom_id=custom_id)
    assert (report.answered, report.failed, report.given_up) == (1, 1, 0)
    assert (request.status, request.failures) == ("due", 1)
    assert request.error == "HTTP 200 without a completion (choices: [])"
    assert Turn.objects.filter(debate__job=job, agent="A").count() == 0
    for attempt in range(2, MAX_LINE_FAILURES + 1):
        again = io.StringIO()
        batch_export(job=job, out=again, batch_ref=f"f{attempt}")
        [line] = [x for x in again.getvalue().splitlines() if custom_id in x]
        # The third failure fails the debate once the import's transaction commits.
        with django_capture_on_commit_callbacks(execute=True):
            batch_import(job=job, lines=[_no_choices(output_line(line))], name="o.jsonl")
    debate = Debate.objects.get(job=job)
    assert debate.status == "failed"
    assert debate.last_error == (
        f"batch request {custom_id} failed {MAX_LINE_FAILURES} times: "
        "HTTP 200 without a completion (choices: [])"
    )
