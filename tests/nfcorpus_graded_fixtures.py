"""A graded debate job over real NFCorpus pairs (../shared/data/nfcorpus-test), no LLM.

``build_nfcorpus_graded(...)`` imports nfcorpus-test (qrels ``test``: 11,758 rows of grade 1,
576 of grade 2), makes a pool of the first ``pairs`` unjudged pairs (for the first queries
in id order, each with the first documents in id order it has no judgment for), a graded
job (G = 2, consensus exact) and one debate per pair: escalated after two rounds of 2
against 0, or agreed on the grade given in ``agreed``.
"""

from __future__ import annotations

from .annot_fixtures import EMBEDDED
from .conftest import shared_dataset


def build_nfcorpus_graded(*, escalated: int = 3, agreed: tuple[int, ...] = ()):
    from assess.review.services import review_items_sync
    from corpora.models import Pair, Pool
    from corpora.services import dataset_import_beir
    from debates.models import Debate, DebateJob, Turn

    dataset = dataset_import_beir(path=shared_dataset("nfcorpus-test"), name="nfcorpus")
    test = dataset.qrel_sets.get(name="test")
    pool = Pool.objects.create(dataset=dataset, qrel_set=test, name="graded", depth=10)
    job = DebateJob.objects.create(
        pool=pool,
        agent_a=EMBEDDED,
        agent_b=EMBEDDED,
        rounds=2,
        prompt_version="dream-graded-v1",
        scale=DebateJob.Scale.GRADED,
        max_grade=2,
        consensus=DebateJob.Consensus.EXACT,
        status=DebateJob.Status.FINISHED,
    )
    judged = set(test.qrels.values_list("query_id", "document_id"))
    documents = list(dataset.documents.order_by("doc_id")[:50])
    outcomes = [None] * escalated + list(agreed)
    debates = []
    for query in dataset.queries.filter(qrels__qrel_set=test).distinct().order_by("query_id"):
        for document in documents:
            if len(debates) == len(outcomes):
                break
            if (query.pk, document.pk) in judged:
                continue
            grade = outcomes[len(debates)]
            pair = Pair.objects.create(pool=pool, query=query, document=document)
            debate = Debate.objects.create(
                job=job,
                pair=pair,
                status=Debate.Status.ESCALATED if grade is None else Debate.Status.AGREED,
                final_label=grade,
                consensus_round=None if grade is None else 1,
                escalation_reason=Debate.Reason.DISAGREEMENT if grade is None else "",
                calls=4 if grade is None else 2,
            )
            for number in range(1, 3 if grade is None else 2):
                for agent, stance, label in (("A", "relevant", 2), ("B", "irrelevant", 0)):
                    Turn.objects.create(
                        debate=debate,
                        round=number,
                        agent=agent,
                        stance=stance,
                        label=label if grade is None else grade,
                        argument=f"Agent {agent} argues (round {number}).",
                        evidence=[],
                        raw="{}",
                        model="scripted",
                    )
            debates.append(debate)
        if len(debates) == len(outcomes):
            break
    review_items_sync(job=job)
    return dataset, pool, job, debates
