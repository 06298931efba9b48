"""Stored RAG answers are scored when a report is made, against the reference answers as they
are then: after ``import_answers`` rewrites a query's answers, the figures follow without
asking the generator again.

The ``holes_rag`` world at k = 1
(tests/assess/test_rag_eval_scores_answers_and_ragalign_with_both_qrel_sets.py):
the generator answers q1 "It is the first answer." from d3 (alpha, gamma),
q2 "Forty two, surely" from d4 (gamma) and "unknown" otherwise. With q2's reference changed
from "forty two" to "unknown":

    run    q1 correct  q2 correct  accuracy  exact match (q2 "unknown" == "unknown")
    alpha  T           T           1.0       0.5
    beta   F           T           0.5       0.5
    gamma  T           F           0.5       0.0
"""

import pytest

from assess.evaluation.rag_eval import rag_evaluate, rag_stored_report
from corpora.models import Query
from debates.llm.scripted import RuleClient, ScriptedClient
from tests.fixtures.refine import rag_rule

BEFORE = {"alpha": (0.5, 0.0), "beta": (0.0, 0.0), "gamma": (1.0, 0.0)}
AFTER = {"alpha": (1.0, 0.5), "beta": (0.5, 0.5), "gamma": (0.5, 0.0)}


def figures(report) -> dict:
    return {s.run: (s.accuracy, s.exact_match) for s in report.systems}


def evaluate(world, client):
    return rag_evaluate(
        dataset=world.dataset,
        runs=world.runs,
        k=1,
        original=world.test,
        refined=world.refined,
        client=client,
    )


@pytest.mark.django_db
def test_new_reference_answers_rescore_the_stored_answers(holes_rag):
    assert figures(evaluate(holes_rag, RuleClient(rag_rule, model="rule-generator"))) == BEFORE
    Query.objects.filter(dataset=holes_rag.dataset, query_id="q2").update(answers=["unknown"])
    silent = ScriptedClient([], model="rule-generator")  # any call would fail the test
    again = evaluate(holes_rag, silent)
    assert silent.calls == []
    assert figures(again) == AFTER
    assert [s.per_query["q2"][2] for s in again.systems] == [True, True, False]
    stored = rag_stored_report(
        dataset=holes_rag.dataset, original=holes_rag.test, refined=holes_rag.refined, k=1
    )
    assert figures(stored) == AFTER
    # gamma's F1 on q2: "forty two surely" against "unknown" shares no token.
    gamma = next(s for s in stored.systems if s.run == "gamma")
    assert gamma.f1 == pytest.approx((2 / 3 + 0.0) / 2)


@pytest.mark.django_db
def test_a_query_whose_answers_were_removed_leaves_the_stored_report(holes_rag):
    evaluate(holes_rag, RuleClient(rag_rule, model="rule-generator"))
    Query.objects.filter(dataset=holes_rag.dataset, query_id="q2").update(answers=[])
    stored = rag_stored_report(
        dataset=holes_rag.dataset, original=holes_rag.test, refined=holes_rag.refined, k=1
    )
    assert stored.queries == ["q1"]
    assert figures(stored) == {"alpha": (1.0, 0.0), "beta": (0.0, 0.0), "gamma": (1.0, 0.0)}
