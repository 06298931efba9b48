"""With identical ids excluded, RAG evaluation neither gives the generator the query's own
document as context nor counts it for hit@k: at k = 1 the ``leaky`` run's first
non-self document answers the question.

Generator rule: "lower" when d1 (solar panels lower energy bills) is in the context,
"neighbours" when d2 is, else "unknown". References: q1 "lower", q2 "neighbours".

    identical ids   q1 context  q2 context  accuracy  Success@1 (q1-d1, q2-d2 relevant)
    excluded        d1          d3          0.5       0.5
    kept            q1          q2          0.0       0.0
"""

import pytest

from assess.evaluation.rag_eval import rag_evaluate
from corpora.models import Query
from corpora.services import dataset_import_beir, qrel_set_get, run_import
from debates.llm.scripted import RuleClient


def rule(messages) -> str:
    prompt = messages[-1]["content"]
    if "lower energy bills" in prompt:
        return "lower"
    return "neighbours" if "annoys neighbours" in prompt else "unknown"


@pytest.mark.django_db
@pytest.mark.parametrize(("policy", "figures"), [("exclude", (0.5, 0.5)), ("keep", (0.0, 0.0))])
def test_the_context_and_hit_at_1_skip_the_own_document(
    selfish_folder, leaky_file, policy, figures
):
    dataset = dataset_import_beir(path=selfish_folder, name="selfish", identical_ids=policy)
    Query.objects.filter(dataset=dataset, query_id="q1").update(answers=["lower"])
    Query.objects.filter(dataset=dataset, query_id="q2").update(answers=["neighbours"])
    run = run_import(dataset=dataset, path=leaky_file)
    report = rag_evaluate(
        dataset=dataset,
        runs=[run],
        k=1,
        original=qrel_set_get(dataset=dataset, name="test"),
        client=RuleClient(rule, model="rule-generator"),
    )
    (system,) = report.systems
    assert (system.accuracy, system.success_original) == figures
