"""Jobs on an adaptive pool (bandit, mtc: :mod:`corpora.pool_strategies`) debate it in
batches: the first :data:`ADAPTIVE_BATCH` pairs of the pool's stored order at launch, then,
each time the job has no open debate left, the next batch chosen by the strategy from every
label known by then (qrels, debate consensus, stage 0, human labels: the same for any
source, each label keeping its own provenance where it is stored), until the job's pair
limit (the pool's budget by default) or the pool runs out.

The database is the truth: the job row is locked while a batch is chosen, so of two workers
ending the last two debates at once one adds the batch and the other finds it open.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from core.broker import tasks_run_in_process
from corpora import pool_strategies
from corpora.models import Pair, Pool
from corpora.services.pools import pool_rankings
from debates.models import Debate, DebateJob, Stage0State, WebhookDelivery
from debates.services.queue import debates_enqueue, job_queue
from debates.services.reuse import debates_reuse
from debates.services.stage0_route import stage0_step_enqueue
from debates.services.webhooks import webhook_job_event
from debates.stage0.labels import labels_known

#: Pairs per batch of an adaptive pool: small enough that the strategy learns between
#: batches, large enough to keep 16 requests in flight for most of a batch.
ADAPTIVE_BATCH = 32

_OPEN = (Debate.Status.PENDING, Debate.Status.RUNNING)


def pool_batch_first(*, job: DebateJob) -> int | None:
    """How many pairs a new ``job`` debates first, in its pool's order. A job without a pair
    limit takes its pool's budget as its limit (stored on the job). Then: the limit for a
    pool whose order is fixed; at most :data:`ADAPTIVE_BATCH` for an adaptive one, whose next
    batches follow as labels arrive (:func:`pool_batch_next`). A batch-file job sends its
    rounds through batch files, hours apart: it takes the pool's stored order up to its
    limit at once, without adapting."""
    pool = job.pool
    if job.pair_limit is None and pool.budget is not None:
        job.pair_limit = pool.budget
        job.save(update_fields=["pair_limit"])
    if not pool.adaptive or job.batch:
        return job.pair_limit
    return min(job.pair_limit, ADAPTIVE_BATCH) if job.pair_limit is not None else ADAPTIVE_BATCH


def pool_batch_room(*, job: DebateJob, limit: int | None) -> int | None:
    """How many more debates ``job`` may add at once, given a ``limit`` asked (None: no
    limit): never past the job's pair limit (0 when it is reached), and on an adaptive pool
    at most :data:`ADAPTIVE_BATCH`. None when nothing caps it."""
    caps = [c for c in (limit,) if c is not None]
    if job.pair_limit is not None:
        caps.append(max(0, job.pair_limit - job.debates.count()))
    if job.pool.adaptive and not job.batch:
        caps.append(ADAPTIVE_BATCH)
    return min(caps) if caps else None


def pool_batch_next(*, job_id: int) -> list[int]:
    """Add the next batch of a running job on an adaptive pool once none of its debates is
    open; returns the new debates' ids left to debate ([] when the job is not such a job,
    still has open debates, reached its pair limit or its pool's end: then it finishes the
    job, which the leases' finishing statement never does for such a job). Debates an earlier
    job with the job's reuse key settled are settled at once
    (:func:`debates.services.reuse.debates_reuse`); a batch settled whole is followed by the
    next at once. The new debates are enqueued after commit when a broker is configured (a
    stage-0 job's go to its stage-0 step first); an in-process run finds them pending. The
    job's debates, by id, are the order in which its pairs were chosen (the pool's stored
    order is the one at build, shared by every job)."""
    if not _job_adaptive(job_id):
        return []
    with transaction.atomic():
        job = DebateJob.objects.select_for_update().select_related("pool").get(pk=job_id)
        if job.status != DebateJob.Status.RUNNING or job.debates.filter(status__in=_OPEN):
            return []
        ids: list[int] = []
        while not ids:
            room = (job.pair_limit or job.pool.pairs.count()) - job.debates.count()
            pairs = _next_pairs(job, min(room, ADAPTIVE_BATCH)) if room > 0 else []
            created = [
                d.pk for d in Debate.objects.bulk_create([Debate(job=job, pair=p) for p in pairs])
            ]
            if not created:
                _job_finish(job)  # the budget is spent or the pool has no pair left
                return []
            # A batch earlier jobs settled whole (reused labels) leaves nothing to run: the
            # next one is chosen at once, from the labels known now.
            reused = set(debates_reuse(job=job, debate_ids=created))
            ids = [pk for pk in created if pk not in reused]
        if job.stage0:
            # The new pairs go through stage 0 first, as at launch.
            job.stage0_state = Stage0State.WAITING
            job.save(update_fields=["stage0_state"])
            if not tasks_run_in_process():
                stage0_step_enqueue(job_id=job.pk)
        elif not tasks_run_in_process():
            debates_enqueue(ids, queue=job_queue(job))
    return ids


def pool_batch_notes(job: DebateJob) -> list[str]:
    """The job's judging order in one line when its pool has a strategy or a budget (shown
    after the progress by ``debate_job ID progress`` and ``run_debates``), else no line:
    the pairs chosen so far of the pool's pairs, and the job's budget."""
    pool = job.pool
    if pool.strategy == Pool.Strategy.DEPTH and pool.budget is None:
        return []
    # The pool's size, not the budget, after "of": a budget of 200 on a 2,778-pair pool is
    # "200 chosen of 2,778 pairs (budget 200)".
    pairs = pool.pairs.count()
    # The job's pair limit is the pool's budget, or the job's own --limit when smaller.
    if not job.pair_limit:
        limit = "no budget: every pair"
    elif pool.budget is not None and job.pair_limit == pool.budget:
        limit = f"budget {job.pair_limit:,}"
    else:
        limit = f"at most {job.pair_limit:,} by the job's limit"
    how = (
        f"{ADAPTIVE_BATCH} at a time, each batch chosen from the labels known by then"
        if pool.adaptive
        else "in the pool's stored order"
    )
    return [
        f"judging order: {pool.get_strategy_display()}; {job.debates.count():,} chosen of "
        f"{pairs:,} pair{'' if pairs == 1 else 's'} ({limit}), {how}"
    ]


def _job_finish(job: DebateJob) -> None:
    """Finish ``job`` (locked by the caller, running, no open debate), with its webhook
    event: the job-finishing statement of the leases leaves direct-call jobs on adaptive
    pools to this module, which alone knows when no batch is left."""
    job.status, job.finished = DebateJob.Status.FINISHED, timezone.now()
    job.save(update_fields=["status", "finished"])
    if job.callback_url:
        webhook_job_event(job_id=job.pk, event=WebhookDelivery.Event.FINISHED)


def _job_adaptive(job_id: int) -> bool:
    """Whether ``job_id`` is a running direct-call job on an adaptive pool (one indexed
    query: every debate end asks it)."""
    return DebateJob.objects.filter(
        pk=job_id,
        status=DebateJob.Status.RUNNING,
        batch=False,
        pool__strategy__in=[s for s in Pool.Strategy.values if s in pool_strategies.ADAPTIVE],
    ).exists()


def _next_pairs(job: DebateJob, count: int) -> list[Pair]:
    """The ``count`` pairs of ``job``'s pool the strategy judges next, from the labels known
    now; pairs this job already debated (escalated, failed, or settled) are never chosen."""
    pool = job.pool
    rankings = pool_rankings(pool=pool, runs=list(pool.runs.all()))
    # Labels from every source; the qrels only from the pool's own set, and not at all when
    # the pool re-judges them (its judged pairs are what it asks about).
    labels = labels_known(
        dataset=pool.dataset, qrel_set=None if pool.include_judged else pool.qrel_set
    )
    pairs = {(p.query_id, p.document_id): p for p in pool.pairs.only("pk", "query", "document")}
    taken = set(job.debates.values_list("pair__query_id", "pair__document_id"))
    order = pool_strategies.pool_order(
        pool.strategy, rankings, labels=labels, taken=taken, budget=count
    )
    return [pairs[k] for k in order if k in pairs]
