"""An output file that answers one custom_id twice with different replies is refused naming
both lines (which one the model gave cannot be told), a 0-byte file is refused naming the
file; neither changes anything. The same line twice is still one reply."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from debates.batch import BatchFileError, output_lines
from debates.models import BatchRequest
from debates.services.batch import batch_export, batch_import
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.batch import MODEL, output_line

pytestmark = pytest.mark.django_db


def _exported(pool, url) -> tuple:
    agent = {"backend": "openai", "model": MODEL, "base_url": url, "context_window": 8192}
    job = debate_job_launch(spec=JobSpec(pool=pool, agent_a=agent, batch=True))
    out = io.StringIO()
    batch_export(job=job, out=out, batch_ref="f1")
    return job, [output_line(line) for line in out.getvalue().splitlines()]


def _other_answer(line: str) -> str:
    record = json.loads(line)
    message = record["response"]["body"]["choices"][0]["message"]
    message["content"] = json.dumps({"label": 1, "argument": "forged", "evidence": []})
    return json.dumps(record)


def test_two_different_answers_under_one_custom_id_are_refused_naming_both_lines(
    scifact_pool, scripted_server
):
    job, lines = _exported(scifact_pool(2), scripted_server)
    forged = [*lines, _other_answer(lines[1])]

    with pytest.raises(BatchFileError) as refused:
        batch_import(job=job, lines=forged, name="out.jsonl")

    custom_id = json.loads(lines[1])["custom_id"]
    assert str(refused.value) == (
        f"out.jsonl:2 and out.jsonl:{len(forged)}: two different answers under custom_id "
        f"{custom_id!r}; keep one of them"
    )
    assert BatchRequest.objects.filter(job=job, status="answered").count() == 0


def test_a_failure_and_a_reply_under_one_custom_id_are_two_different_answers(
    scifact_pool, scripted_server
):
    job, lines = _exported(scifact_pool(1), scripted_server)
    failed = json.loads(lines[0]) | {"response": None, "error": {"code": "x", "message": "m"}}

    with pytest.raises(BatchFileError, match=r"^out.jsonl:1 and out.jsonl:3: two different"):
        batch_import(job=job, lines=[lines[0], "", json.dumps(failed)], name="out.jsonl")
    assert BatchRequest.objects.get(custom_id=json.loads(lines[0])["custom_id"]).status == "sent"


def test_the_same_line_twice_is_one_reply(scifact_pool, scripted_server):
    job, lines = _exported(scifact_pool(1), scripted_server)

    report = batch_import(job=job, lines=[lines[0], lines[0], *lines[1:]], name="out.jsonl")

    assert (report.answered, report.ignored) == (len(lines), 1)


def test_a_zero_byte_file_is_refused_naming_it(scifact_pool, scripted_server, tmp_path):
    job, _ = _exported(scifact_pool(1), scripted_server)
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")

    with pytest.raises(CommandError) as refused:
        call_command("debate_batch", str(job.pk), "import", str(empty))

    assert str(refused.value) == "empty.jsonl: the file is empty (0 bytes): it holds no output line"
    assert BatchRequest.objects.filter(job=job).exclude(status="sent").count() == 0


def test_reading_no_lines_at_all_is_an_error_but_blank_lines_are_skipped():
    with pytest.raises(BatchFileError, match=r"^x.jsonl: the file is empty \(0 bytes\)"):
        output_lines([], name="x.jsonl")
    assert output_lines(["\n", "  \n"], name="x.jsonl") == []
