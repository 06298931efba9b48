"""rag_eval answers each query from each run's top k chunks, scores the answers, and computes
Success@k, RAGAlign@k with the original and the refined qrels, and the correlation across
systems; stored answers are reused, never generated twice.

Worked by hand at k = 1 (top chunk per run; the generator answers q1 only from d3, the hole,
and q2 only from d4)::

    run    top q1/q2  correct   hit orig  hit refined  RAGAlign orig  RAGAlign refined
    alpha  d3 / d6    T / F     F / F     T / F        0.5            1.0
    beta   d1 / d5    F / F     T / F     T / F        0.5            0.5
    gamma  d3 / d4    T / T     F / T     T / T        0.5            1.0
"""

import pytest
from scipy import stats

from assess.evaluation.rag_eval import rag_evaluate
from assess.models import RagGeneration
from debates.llm.scripted import RuleClient, ScriptedClient
from tests.fixtures.refine import rag_rule


def evaluate(world, client, **extra):
    return rag_evaluate(
        dataset=world.dataset,
        runs=world.runs,
        k=1,
        original=world.test,
        refined=world.refined,
        client=client,
        **extra,
    )


@pytest.mark.django_db
def test_accuracy_success_and_ragalign_per_system(holes_rag):
    client = RuleClient(rag_rule, model="rule-generator")
    report = evaluate(holes_rag, client)
    got = {
        s.run: (
            s.accuracy,
            s.success_original,
            s.success_refined,
            s.align_original,
            s.align_refined,
            s.generated,
        )
        for s in report.systems
    }
    assert got == {
        "alpha": (0.5, 0.0, 0.5, 0.5, 1.0, 2),
        "beta": (0.0, 0.5, 0.5, 0.5, 0.5, 2),
        "gamma": (1.0, 0.5, 1.0, 0.5, 1.0, 2),
    }
    assert report.queries == ["q1", "q2"]
    assert len(client.calls) == 6
    # One passage per prompt (k = 1), the run's top chunk.
    alpha_q1 = RagGeneration.objects.get(run__name="alpha", query__query_id="q1")
    assert alpha_q1.doc_ids == ["d3"] and alpha_q1.correct and not alpha_q1.exact_match
    # SQuAD F1: "it is first answer" vs "first answer": precision 2/4, recall 1 → 2/3.
    assert alpha_q1.answer == "It is the first answer."
    assert alpha_q1.f1 == pytest.approx(2 / 3)
    assert (alpha_q1.model, alpha_q1.prompt_version, alpha_q1.k) == ("rule-generator", "rag-v1", 1)
    pearson = stats.pearsonr([0.0, 0.5, 0.5], [0.5, 0.0, 1.0])
    assert report.correlation_original.pearson_r == pytest.approx(pearson.statistic)
    pearson_refined = stats.pearsonr([0.5, 0.5, 1.0], [0.5, 0.0, 1.0])
    assert report.correlation_refined.pearson_r == pytest.approx(pearson_refined.statistic)


@pytest.mark.django_db
def test_stored_answers_are_reused_without_calling_the_generator(holes_rag):
    evaluate(holes_rag, RuleClient(rag_rule, model="rule-generator"))
    silent = ScriptedClient([], model="rule-generator")  # any call would fail the test
    again = evaluate(holes_rag, silent)
    assert silent.calls == []
    assert [(s.generated, s.reused) for s in again.systems] == [(0, 2)] * 3
    assert RagGeneration.objects.count() == 6
    # Another model is another generation.
    other = RuleClient(rag_rule, model="other-model")
    evaluate(holes_rag, other, limit=1)
    assert len(other.calls) == 3 and RagGeneration.objects.count() == 9
