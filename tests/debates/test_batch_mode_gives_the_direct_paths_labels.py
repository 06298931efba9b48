"""A job in batch mode advances round by round through export and import of batch files and
ends with the labels, rounds, turns and calls the direct path gets from the same model; an
output file is imported whole or not at all, a line seen twice counts once, and a job
stopped between export and import resumes without sending any request twice."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from debates.batch import BatchFileError
from debates.models import BatchRequest, Debate, Turn
from debates.services.batch import batch_export, batch_import
from debates.services.launch import JobSpec, debate_job_launch, debate_job_wait
from tests.fixtures.batch import MODEL, debate_outcomes, output_line

pytestmark = pytest.mark.django_db


def _agent(url: str) -> dict:
    return {"backend": "openai", "model": MODEL, "base_url": url, "context_window": 8192}


def _launch(pool, url, *, batch: bool, concurrency: int = 1):
    spec = JobSpec(
        pool=pool,
        agent_a=_agent(url),
        rounds=2,
        max_tokens=384,
        concurrency=concurrency,
        batch=batch,
        reuse=False,  # each path asks every pair: batch mode is no part of the reuse key
    )
    return debate_job_launch(spec=spec)


def _round_trip(job) -> tuple[int, object]:
    """Export the due requests, answer them with the scripted model, import; returns the
    lines sent and the import report."""
    out = io.StringIO()
    sent = batch_export(job=job, out=out, batch_ref="test")
    if not sent:  # nothing to answer (an empty output file is refused)
        return sent, None
    lines = [output_line(line) for line in out.getvalue().splitlines()]
    return sent, batch_import(job=job, lines=lines, name="out.jsonl")


# A batch asks both turns of a round together, as the direct path does with two or more
# requests in flight (debates.engine.debate_pair's pair runner: B is asked even when A's reply
# turns out unreadable); so the direct path runs with concurrency 2, outside a transaction.
@pytest.mark.django_db(transaction=True)
def test_a_200_pair_scifact_job_ends_in_batch_mode_with_the_direct_paths_labels(
    scifact_pool, scripted_server
):
    pool = scifact_pool(200)
    direct = _launch(pool, scripted_server, batch=False, concurrency=2)
    debate_job_wait(job=direct)
    batch = _launch(pool, scripted_server, batch=True)

    rounds = []
    while True:
        sent, report = _round_trip(batch)
        if not sent:
            break
        rounds.append(sent)
        assert len(rounds) < 10
    batch.refresh_from_db()

    assert batch.status == "finished"
    assert debate_outcomes(batch) == debate_outcomes(direct)
    statuses = [row[0] for row in debate_outcomes(batch).values()]
    assert statuses.count("agreed") > 20 and statuses.count("escalated") > 20
    # Round 1 of all 200 pairs first (A and B), then ever fewer: round 2 and re-asks.
    assert rounds[0] == 400 and all(b < a for a, b in zip(rounds, rounds[1:], strict=False))
    assert BatchRequest.objects.filter(job=batch).exclude(status="answered").count() == 0


def test_an_output_file_is_imported_whole_or_not_at_all(scifact_pool, scripted_server):
    job = _launch(scifact_pool(3), scripted_server, batch=True)
    out = io.StringIO()
    batch_export(job=job, out=out, batch_ref="f1")
    lines = [output_line(line) for line in out.getvalue().splitlines()]

    stranger = json.loads(lines[0]) | {"custom_id": "dream-j999-d1-r1-A-a1"}
    with pytest.raises(BatchFileError, match=r"out.jsonl:3: custom_id 'dream-j999-d1-r1-A-a1' was"):
        batch_import(job=job, lines=[*lines[:2], json.dumps(stranger)], name="out.jsonl")
    with pytest.raises(BatchFileError, match=r"out.jsonl:2: not JSON .*a truncated file"):
        batch_import(job=job, lines=[lines[0], lines[1][:40]], name="out.jsonl")
    assert BatchRequest.objects.filter(job=job, status="answered").count() == 0

    report = batch_import(job=job, lines=[*lines, lines[0]], name="out.jsonl")
    assert (report.answered, report.ignored) == (len(lines), 1)
    again = batch_import(job=job, lines=lines, name="out.jsonl")
    assert (again.answered, again.ignored) == (0, len(lines))


def test_a_failed_line_is_due_again_and_a_stopped_job_sends_nothing_twice(
    scifact_pool, scripted_server
):
    job = _launch(scifact_pool(2), scripted_server, batch=True)
    first = io.StringIO()
    assert batch_export(job=job, out=first, batch_ref="f1") == 4
    # Stopped here (the process ended): exporting again sends nothing already sent.
    assert batch_export(job=job, out=io.StringIO(), batch_ref="f2") == 0
    sent = first.getvalue().splitlines()

    lines = [output_line(sent[0], fail=True), *map(output_line, sent[1:])]
    report = batch_import(job=job, lines=lines, name="out.jsonl")
    assert (report.answered, report.failed) == (3, 1)
    retry = io.StringIO()
    batch_export(job=job, out=retry, batch_ref="f3")
    assert json.loads(sent[0])["custom_id"] in retry.getvalue()
    assert json.loads(retry.getvalue().splitlines()[0])["body"] == json.loads(sent[0])["body"]


def test_the_commands_export_and_import_files(scifact_pool, scripted_server, tmp_path, capsys):
    job = _launch(scifact_pool(2), scripted_server, batch=True)
    requests = tmp_path / "in.jsonl"
    call_command("debate_batch", str(job.pk), "export", "--out", str(requests))
    assert "4 request(s) written" in capsys.readouterr().out
    outputs = tmp_path / "out.jsonl"
    outputs.write_text("".join(output_line(x) + "\n" for x in requests.read_text().splitlines()))
    call_command("debate_batch", str(job.pk), "import", str(outputs))
    assert "4 replies stored, 0 lines seen before" in capsys.readouterr().out
    outputs.write_text('{"custom_id": 3\n')
    with pytest.raises(CommandError, match="out.jsonl:1: not JSON"):
        call_command("debate_batch", str(job.pk), "import", str(outputs))


def test_batch_mode_needs_openai_agents(scifact_pool):
    from debates.services.common import DebateJobError

    with pytest.raises(DebateJobError, match="batch mode needs both agents on the openai backend"):
        debate_job_launch(spec=JobSpec(pool=scifact_pool(1), batch=True))


def test_a_reasoning_models_refusal_in_a_batch_is_sent_again_as_the_direct_client_would(
    scifact_pool, scripted_server
):
    from debates.llm.openai_backend import refusal_adaptation

    refused = "HTTP 400: Unsupported parameter: 'max_tokens' is not supported with this model."
    assert refusal_adaptation(refused, {"max_tokens": 9}) == (True, False)
    assert refusal_adaptation(
        "'max_tokens' or 'max_completion_tokens' is too large", {"max_tokens": 9}
    ) == (False, False)
    job = _launch(scifact_pool(1), scripted_server, batch=True)
    out = io.StringIO()
    batch_export(job=job, out=out, batch_ref="f1")
    first = json.loads(out.getvalue().splitlines()[0])
    line = json.dumps(
        {
            "custom_id": first["custom_id"],
            "response": {"status_code": 400, "body": {"error": {"message": refused[10:]}}},
            "error": None,
        }
    )
    report = batch_import(job=job, lines=[line], name="out.jsonl")
    request = BatchRequest.objects.get(custom_id=first["custom_id"])
    assert (report.failed, request.status, request.failures) == (1, "due", 0)
    assert "max_completion_tokens" in request.body and "max_tokens" not in request.body


def test_a_debate_whose_reply_is_no_chat_completion_fails_alone_and_retry_sends_it_again(
    scifact_pool, scripted_server
):
    from debates.services.jobs import debate_job_retry_failed

    job = _launch(scifact_pool(2), scripted_server, batch=True)
    out = io.StringIO()
    batch_export(job=job, out=out, batch_ref="f1")
    lines = [output_line(x) for x in out.getvalue().splitlines()]
    broken = json.loads(lines[0])
    broken["response"]["body"] = {"not": "a completion"}
    batch_import(job=job, lines=[json.dumps(broken), *lines[1:]], name="out.jsonl")

    failed = Debate.objects.get(job=job, status="failed")
    assert failed.last_error.startswith("ValueError: not a chat completion")
    assert Debate.objects.filter(job=job, status="failed").count() == 1
    assert debate_job_retry_failed(job=job) == 1
    assert Debate.objects.get(pk=failed.pk).status == "pending"


def test_a_batch_jobs_debate_is_never_run_by_a_direct_call(scifact_pool, scripted_server):
    from debates.services.run import debate_run

    job = _launch(scifact_pool(1), scripted_server, batch=True)
    debate = Debate.objects.get(job=job)
    assert debate_run(debate_id=debate.pk).status == "pending"
    assert Turn.objects.filter(debate=debate).count() == 0
