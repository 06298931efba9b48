"""A job of simulated debaters whose truth file lists none of the pool's pairs as relevant
(the truth is the very qrels the pool left out) warns, on its page and its API body, that
every 'relevant' label will be an error; a truth that knows a pooled pair as relevant gives
no such warning."""

import pytest

from corpora.services import pool_build, qrel_set_get
from debates.services.launch import JobSpec, debate_job_launch, debate_job_warnings
from debates.simulated import truth_pool_note
from tests.fixtures.simulated import simulated_agent

# Unjudged pairs pooled at depth 3 from energy's test qrels: q1 d2, q1 d4, q2 d1, q2 d2.
RUN = ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 2 A", "q1 Q0 d4 3 1 A", "q2 Q0 d1 1 .9 A", "q2 Q0 d2 2 .8 A"]
SAME_AS_TEST = "q1 0 d1 1\nq1 0 d3 0\nq2 0 d3 2\nq2 0 d4 -1\n"


def test_the_note_counts_the_pairs_and_those_the_truth_lists_as_non_relevant():
    truth = {"q1": {"d1": 1, "d2": 0}}
    note = truth_pool_note(truth=truth, pairs=[("q1", "d2"), ("q2", "d9")])
    assert note.startswith(
        "SIMULATED: the truth file lists none of this pool's 2 pairs as relevant (1 of them "
        "as non-relevant, the others not at all)"
    )
    assert "./dream manage hide_qrels" in note
    assert truth_pool_note(truth=truth, pairs=[("q1", "d1")]) == ""
    assert truth_pool_note(truth=truth, pairs=[]) == ""


@pytest.fixture(name="pool")
def pool_fixture(energy, import_run):
    run = import_run(energy, "a", RUN)
    test = qrel_set_get(dataset=energy, name="test")
    return pool_build(dataset=energy, qrel_set=test, runs=[run], depth=3).pool


@pytest.mark.django_db
def test_a_truth_equal_to_the_pools_own_qrels_is_warned_of(pool, truth_dir):
    same = truth_dir / "same.qrels"
    same.write_text(SAME_AS_TEST, encoding="utf-8")
    agent = simulated_agent(same, seed=1)
    job = debate_job_launch(spec=JobSpec(pool=pool, agent_a=agent), start=False)
    job.refresh_from_db()
    assert job.truth_note.startswith(
        "SIMULATED: the truth file lists none of this pool's 4 pairs as relevant (0 of them"
    )
    assert job.truth_note in debate_job_warnings(job=job)


@pytest.mark.django_db
def test_a_truth_that_knows_a_pooled_pair_as_relevant_gives_no_warning(pool, truth_dir):
    agent = simulated_agent(truth_dir / "energy.qrels", seed=1)  # q1 d2 is relevant there
    job = debate_job_launch(spec=JobSpec(pool=pool, agent_a=agent, agent_b=agent), start=False)
    job.refresh_from_db()
    assert job.truth_note == ""
    assert debate_job_warnings(job=job) == []
