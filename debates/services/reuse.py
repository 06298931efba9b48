"""Reuse of settled debates across jobs: a new job takes over the agreed labels that earlier
jobs of its dataset reached with the same reuse key (:mod:`debates.reuse`), and asks only
the other pairs.

When a job's debates are created (at launch, when its pool grows, for an adaptive pool's
next batch) :func:`debates_reuse` looks, for each new debate's pair, at the latest debate
that settled the same query and document in another job with the job's key (a key names its
dataset, so no other dataset's debate can match). When that debate agreed, the new debate is
settled at once with its label and round: ``settled_by`` "reused", ``reused_from`` the
first debate of the chain (a reused label reused again points to where it was debated), no
LLM call, no token, so every cost page counts it as free. An escalated or failed latest
debate is not reused (its pair is asked again), nor is a stage-0 label (no debate made it).
A job launched without reuse (``DebateJob.reuse`` False) asks every pair.

A reused label is an agreed label of the new job like any other: its audit stratum is its
label and round, and the review queue draws its audit at the job's share once the launch
commits (:data:`debates.signals.debate_job_human_changed`). At launch
:func:`reuse_note_set` stores what the new job's pool shares with earlier jobs, which the
job page and the API show among the job's warnings.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from debates.models import Debate, DebateJob
from debates.signals import debate_job_human_changed

#: Debates looked up and settled per query (a job's new debates are handled in such slices).
REUSE_BATCH = 2000
_SETTLED = (Debate.Status.AGREED, Debate.Status.ESCALATED)


# A settled debate as _latest_settled reads it: (pk, status, label, round, reused from).
_Settled = tuple[int, str, int | None, int | None, int | None]


def _latest_settled(job: DebateJob, pairs: set[tuple[int, int]]) -> dict[tuple[int, int], _Settled]:
    """{(query pk, document pk): (debate pk, status, label, round, reused from)} of the latest
    debate (finish time, then id) that settled each of ``pairs`` in another job with ``job``'s
    reuse key; stage-0 labels left out."""
    queries = {q for q, _ in pairs}
    rows = (
        Debate.objects.filter(
            job__reuse_key=job.reuse_key, status__in=_SETTLED, pair__query_id__in=queries
        )
        .exclude(job=job)
        .exclude(settled_by="stage0")
        .order_by(F("finished").asc(nulls_first=True), "pk")
        .values_list(
            "pair__query_id",
            "pair__document_id",
            "pk",
            "status",
            "final_label",
            "consensus_round",
            "reused_from_id",
        )
    )
    latest: dict[tuple[int, int], _Settled] = {}
    for query, document, pk, status, label, round_, chain in rows.iterator(chunk_size=REUSE_BATCH):
        if (query, document) in pairs:
            latest[(query, document)] = (pk, status, label, round_, chain)
    return latest


def debates_reuse(*, job: DebateJob, debate_ids: Sequence[int]) -> list[int]:
    """Settle each debate of ``debate_ids`` (new debates of ``job``: pending, never called)
    whose pair's latest settled debate with the job's reuse key, in another job, agreed:
    agreed with that label and round, ``settled_by`` "reused", ``reused_from`` the debate
    first debated, no call. Returns the ids settled so (in ``debate_ids`` order); [] for a
    job without reuse or key. Call it inside the transaction that created the debates: once
    it commits, the review queue hears of the new agreed labels (their audit draw). A job
    checking the qrels' judged pairs reuses nothing: its consensus must be compared with
    the original grade as it is reached (:mod:`debates.check_judged`)."""
    if not job.reuse or not job.reuse_key or not debate_ids or job.check_judged:
        return []
    reused: list[int] = []
    for start in range(0, len(debate_ids), REUSE_BATCH):
        reused += _reuse_batch(job, debate_ids[start : start + REUSE_BATCH])
    if reused:
        job_id = job.pk
        transaction.on_commit(
            lambda: debate_job_human_changed.send_robust(
                sender=DebateJob, job_id=job_id, field="audit_share"
            )
        )
    return reused


def _reuse_batch(job: DebateJob, debate_ids: Sequence[int]) -> list[int]:
    """:func:`debates_reuse` for one slice of ids."""
    new = {
        (query, document): pk
        for pk, query, document in Debate.objects.filter(
            pk__in=debate_ids, job=job, status=Debate.Status.PENDING, calls=0
        ).values_list("pk", "pair__query_id", "pair__document_id")
    }
    if not new:
        return []
    now = timezone.now()
    settled = []
    for pair, (source, status, label, round_, chain) in _latest_settled(job, set(new)).items():
        if status != Debate.Status.AGREED or label is None:
            continue
        settled.append(
            Debate(
                pk=new[pair],
                status=Debate.Status.AGREED,
                final_label=label,
                consensus_round=round_,
                settled_by="reused",
                reused_from_id=chain or source,
                started=now,
                finished=now,
            )
        )
    fields = ["status", "final_label", "consensus_round", "settled_by", "reused_from", "started"]
    Debate.objects.bulk_update(settled, [*fields, "finished"], batch_size=REUSE_BATCH)
    order = {pk: place for place, pk in enumerate(debate_ids)}
    return sorted((debate.pk for debate in settled), key=order.__getitem__)


def reuse_note_set(*, job: DebateJob) -> str:
    """Store and return what ``job``'s debates share with other jobs of its dataset, in
    words: "30 of its 40 pairs are already in jobs 3 and 5 of this dataset: 25
    reused (agreed there with the same reuse key; no LLM call), 5 asked again (escalated or
    failed there, or other settings)"; with reuse off the shared pairs are all asked again,
    and it says so. "" (stored too) when no other job has any of its pairs."""
    earlier = Debate.objects.filter(
        job__pool__dataset_id=job.pool.dataset_id,
        pair__query_id=OuterRef("pair__query_id"),
        pair__document_id=OuterRef("pair__document_id"),
    ).exclude(job_id=job.pk)
    shared = job.debates.filter(Exists(earlier))
    count = shared.count()
    note = ""
    if count:
        total = job.debates.count()
        named = _jobs_named(_sharing_jobs(job))
        reused = job.debates.filter(settled_by="reused").count()
        note = f"{count:,} of its {total:,} pairs are already in {named} of this dataset: "
        if job.reuse:
            note += (
                f"{reused:,} reused (agreed there with the same reuse key; no LLM call), "
                f"{count - reused:,} asked again (escalated or failed there, or other settings)"
            )
        else:
            note += "all asked again (launched without reuse)"
    DebateJob.objects.filter(pk=job.pk).update(reuse_note=note[:500])
    job.reuse_note = note[:500]
    return job.reuse_note


def _sharing_jobs(job: DebateJob) -> list[int]:
    """The other jobs of ``job``'s dataset that debated one of its pairs (query and
    document), by id."""
    mine = Debate.objects.filter(
        job=job,
        pair__query_id=OuterRef("pair__query_id"),
        pair__document_id=OuterRef("pair__document_id"),
    )
    others = (
        Debate.objects.filter(job__pool__dataset_id=job.pool.dataset_id)
        .exclude(job_id=job.pk)
        .filter(Exists(mine))
        .values_list("job_id", flat=True)
        .distinct()
    )
    return sorted(set(others))


def _jobs_named(jobs: list[int]) -> str:
    """ "job 3", "jobs 3 and 5", "jobs 3, 5 and 8", or "jobs 3, 5, 8 and 4 more"."""
    if len(jobs) == 1:
        return f"job {jobs[0]}"
    shown = [str(pk) for pk in jobs[:3]]
    if len(jobs) > 3:
        return f"jobs {', '.join(shown)} and {len(jobs) - 3} more"
    return f"jobs {', '.join(shown[:-1])} and {shown[-1]}"
