"""`run_debates --human-budget 2` on a pool whose four pairs all
escalate (each agent keeps its initial stance) sends exactly the two pairs of highest impact
to the review queue. Ranks in one run: q1/d1 at 4 (1/log2(5) = 0.4307), q1/d2 at 1 (1.0),
q1/d10 at 2 (0.6309), q2/d3 at 11 (0): served d2, then d10, then nothing."""

import uuid

import pytest
from django.core.management import call_command

from assess.review.services import judgment_record, review_item_claim
from corpora.models import PairSource, Run
from debates.llm.base import LLMResult
from debates.llm.scripted import RuleClient
from debates.models import DebateJob
from tests.fixtures.engine import stance_in
from tests.fixtures.jobs import reply

RANKS = {("q1", "d1"): 4, ("q1", "d2"): 1, ("q1", "d10"): 2, ("q2", "d3"): 11}


def keep_stance(messages):
    label = int(stance_in(messages) == "relevant")
    return LLMResult(reply(label), "rule", 100, 10, 5.0, "stop")


@pytest.fixture
def stubborn_agents(monkeypatch):
    client = RuleClient(keep_stance)
    monkeypatch.setattr(
        "debates.services.backends.agent_client_get", lambda *, config, api_key=None: client
    )
    return client


@pytest.mark.django_db
def test_a_budget_of_two_queues_the_two_highest_impact_pairs(
    small_pool, stubborn_agents, annotators, fresh_cache
):
    run = Run.objects.create(dataset=small_pool.dataset, name="bm25")
    for pair in small_pool.pairs.select_related("query", "document"):
        rank = RANKS[(pair.query.query_id, pair.document.doc_id)]
        PairSource.objects.create(pair=pair, run=run, rank=rank, score=1.0)
    call_command(
        "run_debates",
        "small/pool",
        "--rounds",
        "1",
        "--human-budget",
        "2",
        "--gold-share",
        "0",  # the two pairs of the budget only, no known-answer pair between them
        "--no-progress",
    )
    job = DebateJob.objects.get()
    assert job.human_budget == 2
    assert set(job.debates.values_list("status", flat=True)) == {"escalated"}
    (alice,) = annotators(1)
    served = []
    while (item := review_item_claim(annotator=alice)) is not None:
        judgment_record(item=item, annotator=alice, label=1, client_id=uuid.uuid4())
        served.append(item.debate.pair.document.doc_id)
    assert served == ["d2", "d10"]
