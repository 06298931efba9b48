"""A graded job takes G from its pool's qrels, stores scale, G, rule and the graded prompt
version with the job and every turn, and its consensus grade reaches the refined qrels as
it is (2, not clamped to 1)."""

import pytest

from assess.refined.refine import qrels_refine
from corpora.selectors import qrels_top_grade
from corpora.services import dataset_import_beir
from debates.llm.scripted import ScriptedClient
from debates.models import DebateJob
from debates.services import DebateJobError, debate_job_run_inline
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.datasets import write_beir
from tests.fixtures.jobs import AGENT_A, AGENT_B, SMALL_CORPUS, SMALL_QUERIES, pool_of, reply

GRADED_QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t1\nq2\td10\t0\n"


@pytest.fixture
def graded_pool(tmp_path):
    folder = write_beir(
        tmp_path / "graded",
        corpus=[*SMALL_CORPUS],
        queries=SMALL_QUERIES,
        qrels={"test": GRADED_QRELS},
    )
    dataset = dataset_import_beir(path=folder, name="graded")
    # Canonical order: q1 d10, then q2 d3; both unjudged.
    return pool_of(dataset, [("q2", "d3"), ("q1", "d10")])


@pytest.mark.django_db
def test_the_top_grade_of_a_qrel_set_is_its_highest_grade_at_least_one(graded_pool, tmp_path):
    assert qrels_top_grade(qrel_set=graded_pool.qrel_set) == 2
    folder = write_beir(
        tmp_path / "negatives",
        corpus=SMALL_CORPUS,
        queries=SMALL_QUERIES,
        qrels={"test": "query-id\tcorpus-id\tscore\nq1\td1\t0\nq1\td2\t-1\n"},
    )
    dataset = dataset_import_beir(path=folder, name="negatives")
    assert qrels_top_grade(qrel_set=dataset.qrel_sets.get()) == 1


@pytest.mark.django_db
def test_a_graded_job_debates_in_grades_and_refines_with_the_consensus_grade(
    graded_pool, fake_llms
):
    agent_a = ScriptedClient([reply(2), reply(1)])
    agent_b = ScriptedClient([reply(2), reply(0)])
    fake_llms(a=agent_a, b=agent_b)
    job = debate_job_launch(
        spec=JobSpec(pool=graded_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1, scale="graded"),
        start=False,
    )
    assert (job.scale, job.max_grade, job.consensus, job.prompt_version) == (
        "graded",
        2,
        "exact",
        "dream-graded-v2",
    )

    debate_job_run_inline(job=job)

    job.refresh_from_db()
    assert job.status == DebateJob.Status.FINISHED
    outcomes = [
        (d.pair.query.query_id, d.pair.document.doc_id, d.status, d.final_label)
        for d in job.debates.select_related("pair__query", "pair__document").order_by("pk")
    ]
    assert outcomes == [("q1", "d10", "agreed", 2), ("q2", "d3", "escalated", None)]
    turns = list(
        job.debates.get(final_label=2).turns.values_list("agent", "label", "prompt_version")
    )
    assert turns == [("A", 2, "dream-graded-v2"), ("B", 2, "dream-graded-v2")]
    assert "0 to 2" in agent_a.calls[0].messages[0]["content"]

    refined = qrels_refine(pool=graded_pool, name="graded-refined", allow_partial=True).qrel_set
    rows = sorted(refined.qrels.values_list("query__query_id", "document__doc_id", "relevance"))
    assert rows == [("q1", "d1", 2), ("q1", "d10", 2), ("q1", "d2", 1), ("q2", "d10", 0)]


@pytest.mark.django_db
def test_binary_consensus_is_stored_on_the_job_and_applied(graded_pool, fake_llms):
    fake_llms(a=ScriptedClient([reply(2), reply(1)]), b=ScriptedClient([reply(1), reply(2)]))
    job = debate_job_launch(
        spec=JobSpec(
            pool=graded_pool,
            agent_a=AGENT_A,
            agent_b=AGENT_B,
            rounds=1,
            scale="graded",
            consensus="binary",
        ),
        start=False,
    )
    debate_job_run_inline(job=job)
    labels = list(job.debates.order_by("pk").values_list("status", "final_label"))
    assert labels == [("agreed", 1), ("agreed", 1)]


@pytest.mark.django_db
def test_a_binary_job_keeps_the_paper_settings(graded_pool, fake_llms):
    job = debate_job_launch(
        spec=JobSpec(pool=graded_pool, agent_a=AGENT_A, agent_b=AGENT_B), start=False
    )
    assert (job.scale, job.max_grade, job.consensus, job.prompt_version) == (
        "binary",
        1,
        "exact",
        "dream-v2",
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    "settings",
    [
        {"scale": "graded", "max_grade": 9},
        {"scale": "binary", "max_grade": 2},
        {"scale": "graded", "consensus": "majority"},
        {"scale": "graded", "prompt_version": "dream-v1"},
    ],
)
def test_settings_outside_the_graded_scales_are_refused_and_create_nothing(
    graded_pool, fake_llms, settings
):
    with pytest.raises(DebateJobError):
        debate_job_launch(
            spec=JobSpec(pool=graded_pool, agent_a=AGENT_A, agent_b=AGENT_B, **settings),
            start=False,
        )
    assert not DebateJob.objects.exists()
