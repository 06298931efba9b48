"""Debate jobs built straight in the database, fast (bulk inserts, no LLM, no turns), for the
review-queue tests of this folder: ``build_job(escalated=..., agreed=...)`` makes a finished
job whose debates already ended, with NO review items, like a database made before review
items were created where a debate ends. ``end(debate)`` then announces one debate's end the
way the debate runner does (:data:`debates.signals.debate_ended`)."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone

from tests.fixtures.annot import build_finished_job


@dataclass
class BuiltJob:
    job: object
    escalated: list  # Debate rows, pair order
    agreed: list


def build_job(
    *,
    escalated: int = 0,
    agreed: int = 0,
    audit_share: float = 0.0,
    judgments_per_pair: int = 1,
    human_budget: int | None = None,
    slug: str = "arch",
    ranks: dict[int, int] | None = None,
) -> BuiltJob:
    """A finished job over ``escalated + agreed`` pairs (q00001/d00001, ...), escalated ones
    first. ``ranks`` ({pair number from 1: rank in one run}) gives pairs an impact."""
    from corpora.models import Document, Pair, PairSource, Query, Run
    from debates.models import Debate

    total = escalated + agreed
    job = build_finished_job(
        slug=slug,
        judgments_per_pair=judgments_per_pair,
        audit_share=audit_share,
        human_budget=human_budget,
    )
    pool = job.pool
    dataset = pool.dataset
    numbers = range(1, total + 1)
    queries = Query.objects.bulk_create(
        Query(dataset=dataset, query_id=f"q{i:05d}", text=f"question {i}") for i in numbers
    )
    documents = Document.objects.bulk_create(
        Document(dataset=dataset, doc_id=f"d{i:05d}", title=f"T{i}", text=f"text {i}")
        for i in numbers
    )
    pairs = Pair.objects.bulk_create(
        Pair(pool=pool, query=q, document=d) for q, d in zip(queries, documents, strict=True)
    )
    if ranks:
        run = Run.objects.create(dataset=dataset, name="r")
        PairSource.objects.bulk_create(
            PairSource(pair=pairs[n - 1], run=run, rank=rank, score=1.0)
            for n, rank in ranks.items()
        )
    now = timezone.now()
    debates = Debate.objects.bulk_create(
        Debate(
            job=job,
            pair=pair,
            status=Debate.Status.ESCALATED if i <= escalated else Debate.Status.AGREED,
            final_label=None if i <= escalated else 1,
            consensus_round=None if i <= escalated else 1,
            escalation_reason=Debate.Reason.DISAGREEMENT if i <= escalated else "",
            finished=now,
        )
        for i, pair in zip(numbers, pairs, strict=True)
    )
    return BuiltJob(job=job, escalated=debates[:escalated], agreed=debates[escalated:])


def end(debate) -> list:
    """Announce that ``debate`` ended, as the runner does; returns ``send_robust``'s answers
    (``(receiver, result or exception)``)."""
    from debates.models import Debate
    from debates.signals import debate_ended

    return debate_ended.send_robust(
        sender=Debate, debate_id=debate.pk, job_id=debate.job_id, status=debate.status
    )


def raised(answers: list) -> list[BaseException]:
    """The exceptions among ``send_robust``'s answers."""
    return [result for _, result in answers if isinstance(result, BaseException)]
