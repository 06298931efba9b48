"""Only a request that was exported (written to a batch file or sent in a batch) may be
answered by an imported line: after round 1 came back, a hand-made file answering the
requests now due (round 2, re-asks) is refused naming the file and line, and changes
nothing; once those requests are exported, the same answers are taken."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from debates.batch import BatchFileError, request_line
from debates.models import BatchRequest, Debate, Turn
from debates.services.batch import batch_export, batch_import
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.batch import MODEL, output_line

pytestmark = pytest.mark.django_db


def _batch_job(pool, url):
    agent = {"backend": "openai", "model": MODEL, "base_url": url, "context_window": 8192}
    return debate_job_launch(spec=JobSpec(pool=pool, agent_a=agent, rounds=3, batch=True))


def _state(job) -> tuple:
    requests = sorted(BatchRequest.objects.filter(job=job).values_list("custom_id", "status"))
    debates = sorted(Debate.objects.filter(job=job).values_list("pk", "status"))
    return requests, debates, Turn.objects.filter(debate__job=job).count()


def _round_one_imported(job) -> list[BatchRequest]:
    out = io.StringIO()
    batch_export(job=job, out=out, batch_ref="round1.jsonl")
    answers = [output_line(line) for line in out.getvalue().splitlines()]
    batch_import(job=job, lines=answers, name="round1-out.jsonl")
    due = list(BatchRequest.objects.filter(job=job, status="due").order_by("custom_id"))
    assert due, "the scripted model leaves some pairs disagreeing or re-asked after round 1"
    assert all(request.sent is None for request in due)
    return due


def _hand_made(due: list[BatchRequest]) -> list[str]:
    return [output_line(request_line(custom_id=r.custom_id, body=r.body)) for r in due]


def test_answers_to_requests_made_due_but_never_exported_are_refused(scifact_pool, scripted_server):
    job = _batch_job(scifact_pool(8), scripted_server)
    due = _round_one_imported(job)
    before = _state(job)

    with pytest.raises(BatchFileError) as refused:
        batch_import(job=job, lines=_hand_made(due), name="forged.jsonl")

    assert str(refused.value) == (
        f"forged.jsonl:1: custom_id {due[0].custom_id!r} was never exported (job {job.pk} has "
        "it due, in no batch file or batch yet): only a request that was sent can be answered"
    )
    assert _state(job) == before


def test_one_never_exported_line_refuses_the_whole_file(scifact_pool, scripted_server):
    job = _batch_job(scifact_pool(8), scripted_server)
    due = _round_one_imported(job)
    first = io.StringIO()
    # Export only the first due request: the file answers it (fine) and the rest (not sent).
    assert batch_export(job=job, out=first, batch_ref="round2.jsonl", limit=1) == 1
    before = _state(job)
    lines = _hand_made(due)
    assert len(lines) >= 2

    with pytest.raises(BatchFileError, match=r"^forged.jsonl:2: custom_id .* was never exported"):
        batch_import(job=job, lines=lines, name="forged.jsonl")
    assert _state(job) == before


def test_once_exported_the_same_answers_are_imported(scifact_pool, scripted_server):
    job = _batch_job(scifact_pool(8), scripted_server)
    due = _round_one_imported(job)
    out = io.StringIO()
    assert batch_export(job=job, out=out, batch_ref="round2.jsonl") >= len(due)
    exported = {json.loads(line)["custom_id"] for line in out.getvalue().splitlines()}
    assert {r.custom_id for r in due} <= exported

    report = batch_import(job=job, lines=_hand_made(due), name="round2-out.jsonl")

    assert report.answered == len(due)
    assert BatchRequest.objects.get(pk=due[0].pk).status == "answered"


def test_the_import_command_names_the_file_and_line_of_a_reply_never_exported(
    scifact_pool, scripted_server, tmp_path
):
    job = _batch_job(scifact_pool(8), scripted_server)
    due = _round_one_imported(job)
    forged = tmp_path / "forged.jsonl"
    forged.write_text("".join(line + "\n" for line in _hand_made(due)))

    with pytest.raises(CommandError, match=r"^forged.jsonl:1: custom_id .* was never exported"):
        call_command("debate_batch", str(job.pk), "import", str(forged))
    assert BatchRequest.objects.filter(job=job, status="answered").exclude(sent=None).count() > 0
    assert BatchRequest.objects.filter(job=job, status="answered", sent=None).count() == 0
