"""pipeline --scale graded debates in grades 0..G (G from the qrels) and the refined qrels it
exports hold the consensus grades; the command passes --scale and --consensus through."""

import pytest
from django.core.management import call_command

from assess.pipeline import pipeline_run
from corpora.formats import parse_trec_qrels
from debates.llm.scripted import RuleClient
from debates.models import Debate, DebateJob
from debates.services import DebateJobError
from tests.fixtures.jobs import pipeline_spec, reply

AGENT = {"backend": "test", "name": "grader"}


def grades(messages):
    """Both agents, whatever their stance: 2 for the solar tax credit, 1 for the heat pump,
    0 for any other chunk, so every debate agrees in round 1."""
    chunk = messages[-1]["content"].split("<<<CHUNK", 1)[1]
    return reply(2 if "solar tax credit" in chunk else 1 if "heat pump" in chunk else 0)


@pytest.mark.django_db
def test_the_refined_export_holds_the_grades_the_agents_agreed_on(energy, fake_llms, tmp_path):
    client = RuleClient(grades)
    fake_llms(grader=client)
    lines: list[str] = []

    report = pipeline_run(
        dataset=energy,
        echo=lines.append,
        spec=pipeline_spec(
            retrievers=["bm25"],
            depth=3,
            agent=AGENT,
            scale="graded",
            consensus="exact",
            out_dir=tmp_path,
        ),
    )

    job = DebateJob.objects.get()
    assert (job.scale, job.max_grade, job.consensus) == ("graded", 2, "exact")
    agreed = dict(
        Debate.objects.filter(status="agreed").values_list("pair__document__doc_id", "final_label")
    )
    assert agreed and set(agreed.values()) <= {0, 1, 2}
    original = {("q1", "d1"): 1, ("q1", "d3"): 0, ("q2", "d3"): 2, ("q2", "d4"): -1}
    rows = {(r.query_id, r.doc_id): r.relevance for r in parse_trec_qrels(report.refined_file)}
    new = {key: grade for key, grade in rows.items() if key not in original}
    assert {key: rows[key] for key in original} == original
    expected = {
        (d.pair.query.query_id, d.pair.document.doc_id): d.final_label
        for d in Debate.objects.filter(status="agreed").select_related(
            "pair__query", "pair__document"
        )
    }
    assert new == expected
    assert 2 in new.values()  # a consensus grade 2 is exported as 2, not clamped to 1
    by_grade = next(line for line in lines if line.startswith("  agreed by grade:"))
    counts = [list(new.values()).count(g) for g in range(3)]
    assert by_grade == (
        f"  agreed by grade: grade 0: {counts[0]}, grade 1: {counts[1]}, grade 2: {counts[2]}"
    )
    assert "graded 0..2 (consensus exact)" in "\n".join(lines)


@pytest.mark.django_db
def test_a_pool_debated_in_binary_is_not_reused_for_a_graded_run(energy, fake_llms, tmp_path):
    fake_llms(grader=RuleClient(grades))
    common = {"retrievers": ["bm25"], "depth": 3, "agent": AGENT, "out_dir": tmp_path}
    pipeline_run(dataset=energy, echo=lambda _: None, spec=pipeline_spec(**common))

    with pytest.raises(DebateJobError, match="graded"):
        pipeline_run(
            dataset=energy, echo=lambda _: None, spec=pipeline_spec(**common, scale="graded")
        )
    assert DebateJob.objects.count() == 1


@pytest.mark.django_db
def test_the_command_passes_scale_and_consensus_to_the_pipeline(energy, monkeypatch):
    seen = {}
    monkeypatch.setattr(
        "assess.management.commands.pipeline.pipeline_run", lambda **kwargs: seen.update(kwargs)
    )
    call_command("pipeline", "energy", "--scale", "graded", "--consensus", "binary")
    assert (seen["spec"].job.scale, seen["spec"].job.consensus) == ("graded", "binary")
    call_command("pipeline", "energy")
    assert (seen["spec"].job.scale, seen["spec"].job.consensus) == ("binary", "exact")
