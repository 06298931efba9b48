"""The pipeline (and so ``./dream demo``) prints the job's stage-0 note, "  stage 0: ...",
before its debates' summary, once, wherever stage 0 ran: here, its steps echoed as they
happen; in another process (a Celery worker when there is a broker), from the note the step
stored; in an earlier run of a reused job, from the same stored note."""

import pytest

import assess.pipeline
from assess.pipeline import pipeline_run
from debates.models import DebateJob
from tests.fixtures.jobs import pipeline_spec

pytestmark = pytest.mark.django_db(transaction=True)


def _run(dataset, tmp_path) -> list[str]:
    lines: list[str] = []
    spec = pipeline_spec(
        agent={"backend": "test"},
        retrievers=["bm25"],
        queries=2,
        depth=3,
        rounds=1,
        stage0=True,
        out_dir=tmp_path / "out",
    )
    pipeline_run(dataset=dataset, spec=spec, echo=lines.append)
    return lines


def _stage0_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("  stage 0: ")]


def _note_line() -> str:
    note = DebateJob.objects.get().stage0_note
    # A fresh dataset: no human label of a pooled pair, so stage 0 settles nothing and its
    # note ends by saying where such labels come from.
    assert note.startswith("stage 0 settles nothing: "), note
    assert "a later job's stage 0 sets its band on those labels" in note, note
    return f"  stage 0: {note}"


def _before_the_debates_summary(lines: list[str], line: str) -> bool:
    summary = next(i for i, text in enumerate(lines) if text.startswith("debates: "))
    return lines.index(line) < summary


def test_stage0_run_here_prints_its_steps_then_its_note_once_and_a_rerun_prints_the_note(
    stage0_dataset, fake_llms, tmp_path
):
    lines = _run(stage0_dataset, tmp_path)
    note = _note_line()
    shown = _stage0_lines(lines)
    assert shown[0] == (
        "  stage 0: training a stage-0 judge for stage0 (no judge yet): collecting labels (0/6)"
    )
    assert shown[-1] == note and shown.count(note) == 1
    assert _before_the_debates_summary(lines, note)
    # The job is reused: its stage 0 ran in the first run, and the stored note is printed.
    again = _run(stage0_dataset, tmp_path)
    assert _stage0_lines(again) == [note]
    assert _before_the_debates_summary(again, note)


def test_stage0_run_by_another_process_prints_its_stored_note(
    stage0_dataset, fake_llms, tmp_path, monkeypatch
):
    # As with a broker: the pipeline leaves the step to whoever runs the debates (a worker;
    # here the in-process runner, which like a worker's task echoes nothing of it).
    monkeypatch.setattr(assess.pipeline, "tasks_run_in_process", lambda: False)
    lines = _run(stage0_dataset, tmp_path)
    note = _note_line()
    assert _stage0_lines(lines) == [note]
    assert _before_the_debates_summary(lines, note)
