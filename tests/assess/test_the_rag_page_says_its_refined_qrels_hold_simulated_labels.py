"""The RAG alignment page scores runs with the refined qrels as the re-benchmark does, so a
refined set of simulated labels is said there too: its choice reads "(refined, SIMULATED
labels)" and the "SIMULATED labels: ..." line stands above the table.

The ``holes_rag`` world of tests/fixtures/refine.py, its job's debaters made simulated and
the pool refined again: 2 of its consensus labels are simulated debaters'."""

import html

import pytest

from assess.evaluation.rag_eval import rag_evaluate
from assess.refined.refine import qrels_refine
from debates.llm.scripted import RuleClient
from debates.models import DebateJob
from tests.fixtures.refine import HOLES_SIMULATED_AGENT, rag_rule

pytestmark = pytest.mark.django_db

AGENT = HOLES_SIMULATED_AGENT
LINE = (
    "SIMULATED labels: 2 debate labels from simulated debaters (backend simulated); for "
    "planning a study, never a benchmark."
)


def _answered(world):
    rag_evaluate(
        dataset=world.dataset, runs=world.runs, k=1, original=world.test,
        refined=world.refined, client=RuleClient(rag_rule, model="rule-generator"),
    )  # fmt: skip


def _page(client) -> str:
    url = "/datasets/holes/rag/?original=test&refined=test-dream&k=1"
    return html.unescape(client.get(url).content.decode())


def test_the_line_stands_above_the_table(holes_rag, client_as):
    DebateJob.objects.filter(pk=holes_rag.job.pk).update(agent_a=AGENT, agent_b=AGENT)
    holes_rag.refined.delete()
    holes_rag.refined = qrels_refine(pool=holes_rag.pool, name="test-dream").qrel_set
    _answered(holes_rag)
    shown = _page(client_as("researcher"))
    assert f'<p class="warning" id="rag-simulated" role="note"><strong>{LINE}</strong></p>' in shown
    assert ">test-dream (refined, SIMULATED labels)</option>" in shown


def test_real_labels_are_not_marked(holes_rag, client_as):
    _answered(holes_rag)
    shown = _page(client_as("researcher"))
    assert "RAGAlign" in shown and "SIMULATED" not in shown
