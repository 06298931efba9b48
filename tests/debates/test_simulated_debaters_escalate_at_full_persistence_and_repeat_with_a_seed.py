"""Simulated debaters that never leave their stance escalate every pair after R rounds; the
same seed gives the same labels in two clients and another seed other labels; a truth file
outside DREAM_SIMULATION_DIRS, bad rates and a graded job are refused naming the field."""

import pytest

from assess.pipeline import pipeline_run
from corpora.models import Document, Query
from debates import prompts
from debates.llm.base import GenerationParams
from debates.models import Debate, Turn
from debates.parsing import ParsedReply, parse_reply
from debates.services.backends import agent_config_build
from debates.services.common import DebateJobError
from debates.simulated_client import SimulatedClient
from tests.fixtures.jobs import pipeline_spec
from tests.fixtures.simulated import simulated_agent


def _labels(energy, agent, out) -> dict:
    pipeline_run(
        dataset=energy,
        echo=lambda _: None,
        spec=pipeline_spec(retrievers=["bm25"], depth=3, agent=agent, rounds=3, out_dir=out),
    )
    return {
        (t.debate.pair_id, t.round, t.agent): t.label for t in Turn.objects.select_related("debate")
    }


@pytest.mark.django_db
def test_debaters_that_always_keep_their_stance_escalate_every_pair(energy, truth_dir, tmp_path):
    agent = simulated_agent(truth_dir / "energy.qrels", persistence=1.0, seed=3)
    _labels(energy, agent, tmp_path / "out")
    debates = list(Debate.objects.all())
    assert debates
    assert {(d.status, d.escalation_reason, d.final_label) for d in debates} == {
        ("escalated", "disagreement", None)
    }
    assert Turn.objects.count() == len(debates) * 3 * 2


def _client_labels(truth, seed: int) -> dict:
    """Every energy (query, document) pair's label from each stance in rounds 1-3, as a
    simulated client parses them from its replies to real debate prompts."""
    config = agent_config_build(
        fields=simulated_agent(truth, sensitivity=0.5, specificity=0.5, persistence=0.5, seed=seed)
    )
    client = SimulatedClient(config)
    system = prompts.shared_system_prompt(answer_aware=False)
    out = {}
    for query in Query.objects.order_by("query_id"):
        for doc in Document.objects.order_by("doc_id"):
            for agent in ("A", "B"):
                for round_ in (1, 2, 3):
                    turn = ParsedReply(label=1, argument="a", evidence=())
                    user = prompts.shared_user_prompt(
                        agent=agent,
                        round=round_,
                        query=query.text,
                        answers=(),
                        title=doc.title,
                        chunk=doc.text,
                        turn_a=turn if round_ > 1 else None,
                        turn_b=turn if round_ > 1 else None,
                    )
                    messages = [
                        {"role": "system", "content": system},
                        {"role": "user", "content": user},
                    ]
                    reply = client.chat(messages, GenerationParams())
                    key = (query.query_id, doc.doc_id, agent, round_)
                    out[key] = parse_reply(reply.text).label
    return out


@pytest.mark.django_db
def test_the_same_seed_gives_the_same_labels_and_another_seed_others(energy, truth_dir):
    truth = truth_dir / "energy.qrels"
    first = _client_labels(truth, seed=7)
    assert len(first) == 3 * 4 * 2 * 3
    assert set(first.values()) == {0, 1}
    assert _client_labels(truth, seed=7) == first
    assert _client_labels(truth, seed=8) != first


@pytest.mark.django_db
def test_a_truth_file_outside_the_allowed_folders_is_refused(energy, truth_dir, tmp_path, settings):
    outside = tmp_path / "elsewhere.qrels"
    outside.write_text("q1 0 d1 1\n", encoding="utf-8")
    with pytest.raises(
        DebateJobError, match=r"agent A: truth .*elsewhere\.qrels .*DREAM_SIMULATION_DIRS"
    ):
        agent_config_build(fields=simulated_agent(outside))
    settings.DREAM_SIMULATION_DIRS = []
    with pytest.raises(DebateJobError, match="truth: the simulated backend is off"):
        agent_config_build(fields=simulated_agent(truth_dir / "energy.qrels"))


@pytest.mark.django_db
def test_a_rate_outside_zero_to_one_is_refused_naming_it(energy, truth_dir):
    agent = simulated_agent(truth_dir / "energy.qrels", specificity=1.2)
    with pytest.raises(
        DebateJobError, match=r"agent A: specificity: must be between 0 and 1, got 1\.2"
    ):
        agent_config_build(fields=agent)


@pytest.mark.django_db
def test_a_graded_job_with_simulated_debaters_is_refused(energy, truth_dir, tmp_path):
    agent = simulated_agent(truth_dir / "energy.qrels")
    with pytest.raises(DebateJobError, match="scale: the simulated backend answers binary"):
        pipeline_run(
            dataset=energy,
            echo=lambda _: None,
            spec=pipeline_spec(
                retrievers=["bm25"], depth=3, agent=agent, scale="graded", out_dir=tmp_path
            ),
        )
