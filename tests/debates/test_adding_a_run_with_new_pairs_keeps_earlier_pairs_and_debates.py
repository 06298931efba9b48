"""A run added to a pool that has been debated adds exactly its new pairs and provenance rows;
the earlier pairs keep their primary keys and their finished debates are not touched (and no
debate is created for the new pairs until the job is extended)."""

import pytest

from corpora.models import Pair, PairSource
from corpora.services import pool_build, qrel_set_get
from debates.llm.scripted import ScriptedClient
from debates.models import Debate, Turn
from debates.services import debate_job_run_inline
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.jobs import AGENT_A, AGENT_B, reply

# Judged in "test": q1 d1 (1), q1 d3 (0), q2 d3 (2), q2 d4 (-1).
RUN_A = ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 2 A", "q2 Q0 d3 1 .9 A", "q2 Q0 d1 2 .8 A"]
# Top 2 of D: q1 d4, d2 (d2 already pooled); q2 d2, d1 (d1 already pooled); q1 d1 at rank 3
# is below the depth.
RUN_D = [
    "q1 Q0 d4 1 5 D",
    "q1 Q0 d2 2 4 D",
    "q1 Q0 d1 3 3.5 D",
    "q2 Q0 d2 1 3 D",
    "q2 Q0 d1 2 1 D",
]


def pairs() -> dict[tuple[str, str], int]:
    return {
        (q, d): pk
        for q, d, pk in Pair.objects.values_list("query__query_id", "document__doc_id", "pk")
    }


def debates() -> list[tuple]:
    return list(
        Debate.objects.order_by("pk").values_list(
            "pk", "pair_id", "status", "final_label", "consensus_round", "calls", "finished"
        )
    )


@pytest.mark.django_db
def test_a_run_with_new_pairs_adds_them_and_leaves_earlier_pairs_and_debates_alone(
    energy, import_run, fake_llms
):
    test = qrel_set_get(dataset=energy, name="test")
    a = import_run(energy, "a", RUN_A)
    d = import_run(energy, "d", RUN_D)
    first = pool_build(dataset=energy, qrel_set=test, runs=[a], depth=2)
    before = pairs()
    assert set(before) == {("q1", "d2"), ("q2", "d1")}

    fake_llms(a=ScriptedClient([reply(1), reply(0)]), b=ScriptedClient([reply(1), reply(0)]))
    job = debate_job_launch(
        spec=JobSpec(pool=first.pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1), start=False
    )
    debate_job_run_inline(job=job)
    debated = debates()
    assert [(status, label) for _, _, status, label, *_ in debated] == [
        ("agreed", 1),
        ("agreed", 0),
    ]
    turns = list(Turn.objects.order_by("pk").values_list("pk", "debate_id", "label", "raw"))
    assert len(turns) == 4

    report = pool_build(dataset=energy, qrel_set=test, runs=[d], depth=2)
    assert report.pool.pk == first.pool.pk
    assert (report.created_pairs, report.created_sources) == (2, 4)
    after = pairs()
    assert set(after) - set(before) == {("q1", "d4"), ("q2", "d2")}
    assert {key: after[key] for key in before} == before
    assert all(pk > max(before.values()) for key, pk in after.items() if key not in before)
    assert list(
        Pair.objects.filter(pk__in=[after[("q1", "d4")], after[("q2", "d2")]]).values_list(
            "original_relevance", flat=True
        )
    ) == [None, None]
    assert sorted(
        PairSource.objects.values_list(
            "pair__query__query_id", "pair__document__doc_id", "run__name", "rank", "score"
        )
    ) == [
        ("q1", "d2", "a", 2, 2.0),
        ("q1", "d2", "d", 2, 4.0),
        ("q1", "d4", "d", 1, 5.0),
        ("q2", "d1", "a", 2, 0.8),
        ("q2", "d1", "d", 2, 1.0),
        ("q2", "d2", "d", 1, 3.0),
    ]
    assert debates() == debated
    assert list(Turn.objects.order_by("pk").values_list("pk", "debate_id", "label", "raw")) == turns
