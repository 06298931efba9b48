"""Reuse of settled debates across jobs: a new job takes over the agreed labels that earlier
jobs of its dataset reached with the same reuse key (:mod:`debates.reuse`), and asks only
the other pairs.

When a job's debates are created (at launch, when its pool grows, for an adaptive pool's
next batch) :func:`debates_reuse` looks, for each new debate's pair, at the latest debate
that settled the same query and document in another job with the job's key (a key names its
dataset, so no other dataset's debate can match). When that debate agreed, the new debate is
settled at once with its label and round: ``settled_by`` "reused", ``reused_from`` the
first debate of the chain (a reused label reused again points to where it was debated), no
LLM call, no token, so every cost page counts it as free. A failed latest debate is not
reused (its pair is asked again), nor is a stage-0 label (no debate made it).

An escalated latest debate is reused only when people have already answered its pair: a
review of the same query and document, in any job of the dataset on the new job's scale,
has all its judgments and a label from them (no tie), or an adjudication (the app that
owns reviews says which pairs: ``assess`` registers :func:`human_answers_register`;
debates may not import it). Asking
the LLM again would be wasted: the same settings escalated the pair, and a human label
wins over any debate label in the refined qrels. The new debate is then settled as
escalated, with the earlier debate's escalation reason, ``settled_by`` "reused" and
``reused_from`` as above, no call; it has no label of its own (``final_label`` stays empty,
so no stratum, agreement or audit of the new job counts it as a debate label), and its
review takes the people's answer it found instead of asking them again
(:mod:`assess.review.answered`): the refined qrels name that human label's own job and
annotators. An escalated pair nobody has answered yet is asked again, as before. A job
launched without reuse (``DebateJob.reuse`` False) asks every pair.

A reused label is an agreed label of the new job like any other: its audit stratum is its
label and round, and the review queue draws its audit at the job's share once the launch
commits (:data:`debates.signals.debate_job_human_changed`). At launch
:func:`reuse_note_set` stores what the new job's pool shares with earlier jobs, which the
job page and the API show among the job's warnings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.db import transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from debates.models import Debate, DebateJob
from debates.signals import debate_job_human_changed

#: Debates looked up and settled per query (a job's new debates are handled in such slices).
REUSE_BATCH = 2000
_SETTLED = (Debate.Status.AGREED, Debate.Status.ESCALATED)


# A settled debate as _latest_settled reads it: (pk, status, label, round, reused from,
# escalation reason).
_Settled = tuple[int, str, int | None, int | None, int | None, str]

#: ``f(job=..., pairs={(query pk, document pk), ...}) -> the pairs of pairs people have
#: already answered`` (a review with all its judgments and no tie, or adjudicated, on
#: ``job``'s scale).
HumanAnswers = Callable[..., set[tuple[int, int]]]
_HUMAN_ANSWERS: list[HumanAnswers] = []


def human_answers_register(source: HumanAnswers) -> None:
    """Add ``source`` of the pairs people have already answered (``assess`` registers its
    reviews; debates may not import it). Registering the same function again does nothing."""
    if source not in _HUMAN_ANSWERS:
        _HUMAN_ANSWERS.append(source)


def _human_answered(job: DebateJob, pairs: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """The pairs of ``pairs`` that a registered source says people have answered."""
    found: set[tuple[int, int]] = set()
    for source in _HUMAN_ANSWERS:
        found |= source(job=job, pairs=pairs)
    return found


def _latest_settled(job: DebateJob, pairs: set[tuple[int, int]]) -> dict[tuple[int, int], _Settled]:
    """{(query pk, document pk): (debate pk, status, label, round, reused from, escalation
    reason)} of the latest
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
            "escalation_reason",
        )
    )
    latest: dict[tuple[int, int], _Settled] = {}
    for query, document, pk, status, label, round_, chain, reason in rows.iterator(
        chunk_size=REUSE_BATCH
    ):
        if (query, document) in pairs:
            latest[(query, document)] = (pk, status, label, round_, chain, reason)
    return latest


def debates_reuse(*, job: DebateJob, debate_ids: Sequence[int]) -> list[int]:
    """Settle each debate of ``debate_ids`` (new debates of ``job``: pending, never called)
    whose pair's latest settled debate with the job's reuse key, in another job, agreed:
    agreed with that label and round, ``settled_by`` "reused", ``reused_from`` the debate
    first debated, no call; or escalated on a pair people have already answered: escalated
    with its reason, no label, likewise reused (module docstring). Returns the ids settled
    so (in ``debate_ids`` order); [] for a
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
    latest = _latest_settled(job, set(new))
    escalated = {pair for pair, found in latest.items() if found[1] == Debate.Status.ESCALATED}
    answered = _human_answered(job, escalated) if escalated else set()
    settled = []
    for pair, (source, status, label, round_, chain, reason) in latest.items():
        agreed = status == Debate.Status.AGREED and label is not None
        if not agreed and pair not in answered:
            continue
        settled.append(
            Debate(
                pk=new[pair],
                status=status,
                # An escalation keeps no label: people's answer is its pair's label.
                final_label=label if agreed else None,
                consensus_round=round_ if agreed else None,
                escalation_reason="" if agreed else reason,
                settled_by="reused",
                reused_from_id=chain or source,
                started=now,
                finished=now,
            )
        )
    fields = ["status", "final_label", "consensus_round", "escalation_reason", "settled_by"]
    fields += ["reused_from", "started", "finished"]
    Debate.objects.bulk_update(settled, fields, batch_size=REUSE_BATCH)
    order = {pk: place for place, pk in enumerate(debate_ids)}
    return sorted((debate.pk for debate in settled), key=order.__getitem__)


def reuse_note_set(*, job: DebateJob) -> str:
    """Store and return what ``job``'s debates share with other jobs of its dataset, in
    words: "30 of its 40 pairs are already in jobs 3 and 5 of this dataset: 25
    reused (agreed there with the same reuse key; no LLM call), 5 asked again (escalated or
    failed there, or other settings)", naming between them, when there are some, the
    escalated pairs whose human label was taken; with reuse off the shared pairs are all
    asked again, and it says so. "" (stored too) when no other job has any of its pairs."""
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
        reused = job.debates.filter(settled_by="reused")
        agreed = reused.filter(status=Debate.Status.AGREED).count()
        human = reused.filter(status=Debate.Status.ESCALATED).count()
        note = f"{count:,} of its {total:,} pairs are already in {named} of this dataset: "
        if job.reuse:
            note += f"{agreed:,} reused (agreed there with the same reuse key; no LLM call), "
            if human:
                note += (
                    f"{human:,} already judged by people (escalated there with the same reuse "
                    "key; their human label is taken, no LLM call), "
                )
            note += (
                f"{count - agreed - human:,} asked again (escalated or failed there, or other "
                "settings)"
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
