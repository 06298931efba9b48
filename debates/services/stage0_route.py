"""Stage 0 of a debate job: before any debate, the dataset's cheap calibrated judge
(:mod:`debates.stage0`) settles the pairs it is sure of, and only the others are debated.

A job launched with ``stage0`` does not start its debates at launch. Its stage-0 step
(:func:`debate_job_stage0_prepare`) runs first, once, wherever the job runs (a Celery task
with a broker, the in-process runner without one):

1. *training*: when the dataset has no ready stage-0 judge, or its newest one was trained
   on other labels than the dataset has now (:func:`debates.stage0.stage0_judge_stale`),
   one is trained (:func:`debates.stage0.stage0_judge_train`), the step's progress written
   on the job with the reason in words (:func:`debates.stage0.stage0_judge_stale_reason`,
   :func:`debates.stage0.stage0_judge_missing_reason`), which the final note repeats;
2. *routing*: the band is chosen on human labels of pooled pairs (the judge's
   ``band_calibration``, an equal-probability sample of them, :func:`debates.stage0_band.
   band_sample`) by fixed-sequence testing at the job's alpha, delta and beta
   (:func:`debates.stage0_band.band_choose`); every
   pending pair is scored, and a pair whose calibrated P(relevant) lies outside the band is
   settled: agreed, ``settled_by`` "stage0", round 0, no LLM call. Its audit stratum is
   "label L, round 0", audited at the job's audit share like any agreed label. The simulated
   labels the judge was trained on and the band set on are recorded first
   (``DebateJob.stage0_simulated_labels``): when there are any, every stage-0 label of the
   job counts as simulated (:mod:`assess.models.simulated`) and the note says so;
3. *done*: the job's note says what stage 0 did, or why it settled nothing (too few human
   labels: how many more; a judge that could not be trained: why). The debates then start.

The step is claimed with one ``UPDATE`` whose row count says who won, so two processes never
run it twice; a claim older than :data:`STALE_CLAIM` (its process died) is taken over.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.broker import task_named
from debates.models import Debate, DebateJob, Stage0State
from debates.services.common import LOCAL_QUEUE, DebateJobError, DebateJobOptionError
from debates.signals import debate_job_human_changed
from debates.stage0_band import (
    LEVEL_MAX,
    LEVEL_MIN,
    BandLabel,
    Stage0Band,
    band_choose,
    band_sample,
)

if TYPE_CHECKING:
    from debates.models import Stage0Judge
    from debates.stage0.lexical import Lexicon

log = logging.getLogger(__name__)

#: The registered name of :func:`debates.tasks.run_stage0`, the task of the stage-0 step.
STAGE0_TASK = "debates.run_stage0"
STALE_CLAIM = timedelta(hours=1)  # a stage-0 step this old is taken to have died
SCORE_BATCH = 5_000  # pairs scored and settled per transaction


class Stage0RouteError(Exception):
    """Stage 0 cannot run for this job (no judge could be trained); its message says why."""


def _claim(job: DebateJob) -> bool:
    """Take the job's stage-0 step: waiting, or held by a process silent for
    :data:`STALE_CLAIM` (every note renews the claim); only while the job runs."""
    now = timezone.now()
    waiting = Q(stage0_state=Stage0State.WAITING)
    stale = Q(
        stage0_state__in=[Stage0State.TRAINING, Stage0State.ROUTING],
        stage0_claimed__lt=now - STALE_CLAIM,
    )
    won = DebateJob.objects.filter(
        waiting | stale, pk=job.pk, status=DebateJob.Status.RUNNING
    ).update(stage0_state=Stage0State.TRAINING, stage0_claimed=now)
    return bool(won)


def _note(job: DebateJob, text: str, state: str | None = None) -> None:
    # Every note is also the step's heartbeat: a claim renewed is never taken as dead.
    values: dict[str, object] = {"stage0_note": text, "stage0_claimed": timezone.now()}
    if state is not None:
        values["stage0_state"] = state
    DebateJob.objects.filter(pk=job.pk).update(**values)


def _judge_ready(
    job: DebateJob, progress: Callable[[str], None] | None, corpus: Callable[[], Lexicon]
) -> tuple[Stage0Judge, str]:
    """The dataset's current stage-0 judge, trained first when there is none or it is stale,
    and why it was trained, in words for the final note ("" when it was not)."""
    from debates.stage0 import (
        NO_JUDGE,
        NO_JUDGE_BEFORE,
        Stage0Error,
        stage0_judge_current,
        stage0_judge_missing_reason,
        stage0_judge_stale_reason,
        stage0_judge_train,
    )

    dataset = job.pool.dataset
    judge = stage0_judge_current(dataset=dataset)
    # A judge trained before the newest labels (human labels of an earlier job, say) would
    # set its band without them: a new one is trained on everything known now. The reason
    # is kept for the note: a retrain costs minutes, and the user should see why.
    if judge is None:
        why = stage0_judge_missing_reason(dataset=dataset)
    else:
        why = stage0_judge_stale_reason(judge=judge)
        if not why:
            return judge, ""

    def step(stage: str, done: int, total: int) -> None:
        text = f"training a stage-0 judge for {dataset.slug} ({why}): {stage} ({done}/{total})"
        _note(job, text)
        if progress is not None:
            progress(text)

    try:
        judge = stage0_judge_train(dataset=dataset, progress=step, lexicon=corpus())
    except Stage0Error as exc:
        raise Stage0RouteError(f"{exc} (a new judge was being trained: {why})") from None
    return judge, NO_JUDGE_BEFORE if why == NO_JUDGE else why


def stage0_band_for(*, job: DebateJob, judge: Stage0Judge) -> Stage0Band:
    """The band of ``job``: both sides chosen at the job's alpha, delta and beta
    (:func:`debates.stage0_band.band_choose`) on the equal-probability sample
    (:func:`debates.stage0_band.band_sample`) of ``judge``'s human labels of pooled pairs
    (``band_calibration``, which the judge never fitted on). Its message also says how many
    labels the sample kept of how many, and at what rate."""
    # Pooled pairs only, both sides: stage 0 settles a pool's pairs, mostly holes with a few
    # percent relevant; a collection's qrels (mostly relevant pairs) would make settling
    # "non-relevant" look wrong and settling "relevant" look safe (debates.stage0_band).
    rows = [
        BandLabel(
            key=f"{row['query_id']}\t{row['doc_id']}",
            p=float(row["p"]),
            label=1 if int(row["label"]) > 0 else 0,
            inclusion=float(row["inclusion"]),
            floor=float(row["floor"]),
            simulated=bool(row.get("simulated")),
        )
        for row in judge.band_calibration or []
    ]
    kept, rate = band_sample(rows)
    band = band_choose(
        [row.p for row in kept],
        [row.label for row in kept],
        alpha=job.stage0_alpha,
        delta=job.stage0_delta,
        beta=job.stage0_beta,
    )
    simulated = sum(1 for row in kept if row.simulated)
    sample = (
        f"band set on {len(kept):,} of {len(rows):,} human labels of pooled pairs (an "
        f"equal-probability sample at rate {rate:.3g})"
    )
    if not rows:  # where such labels come from, for a newcomer on a fresh import
        sample = (
            "no human label of a pooled pair yet: people judge a job's escalated and audited "
            "pairs at /judge/, and a later job's stage 0 sets its band on those labels"
        )
    return replace(band, message=f"{band.message}; {sample}", simulated=simulated)


def stage0_simulated_sentence(*, trained: int, band: int) -> str:
    """What a stage-0 judge's simulated labels were, for the job's stage-0 line: "SIMULATED:
    the judge was trained on 12 simulated labels and its band set on 3 simulated human
    labels, so its labels count as simulated"; "" when both counts are 0."""
    if not trained and not band:
        return ""
    return (
        f"SIMULATED: the judge was trained on {trained:,} simulated "
        f"label{'s' if trained != 1 else ''} and its band set on {band:,} simulated human "
        f"label{'s' if band != 1 else ''}, so its labels count as simulated"
    )


def _settle(
    job: DebateJob, judge: Stage0Judge, band: Stage0Band, corpus: Callable[[], Lexicon]
) -> tuple[int, int]:
    """Score the job's pending debates and settle those outside the band; return (scored,
    settled). Each batch is one transaction; only debates still pending are touched."""
    from debates.stage0 import stage0_pairs_score

    # Pairs not scored yet only: a pool extended after stage 0 ran gets its new pairs routed
    # without the earlier ones being routed again.
    pending = Debate.objects.filter(
        job=job, status=Debate.Status.PENDING, calls=0, stage0_p__isnull=True
    ).order_by("pk")
    scored = settled = 0
    ids = list(pending.values_list("pk", flat=True))
    # The corpus statistics of the judge's term-matching scalars, once for every batch.
    lexicon = corpus() if ids else None
    for start in range(0, len(ids), SCORE_BATCH):
        batch = pending.filter(pk__in=ids[start : start + SCORE_BATCH]).select_related("pair")
        debates = list(batch)
        scores = stage0_pairs_score(judge=judge, pairs=[d.pair for d in debates], lexicon=lexicon)
        by_label: dict[int, list[int]] = {0: [], 1: []}
        for debate, p in zip(debates, scores, strict=True):
            debate.stage0_p = float(p)
            label = band.label_of(float(p))
            if label is not None:
                by_label[label].append(debate.pk)
        now = timezone.now()
        with transaction.atomic():
            Debate.objects.bulk_update(debates, ["stage0_p"], batch_size=2000)
            for label, pks in by_label.items():
                # Guarded: a debate a worker took meanwhile is not pending any more.
                settled += Debate.objects.filter(
                    pk__in=pks, status=Debate.Status.PENDING, calls=0
                ).update(
                    status=Debate.Status.AGREED,
                    final_label=label,
                    consensus_round=0,
                    settled_by="stage0",
                    started=now,
                    finished=now,
                )
        scored += len(debates)
        _note(job, f"scored {scored:,} of {len(ids):,} pairs, settled {settled:,}")
    return scored, settled


def debate_job_stage0_prepare(
    *, job: DebateJob, progress: Callable[[str], None] | None = None
) -> bool:
    """Run ``job``'s stage-0 step (see the module docstring) unless it is done or another
    process runs it; return True when this call ran it. Never raises for a judge that cannot
    be trained or a band that settles nothing: the job's ``stage0_note`` says so and every
    pair is debated. ``progress`` gets each step's words as they are written."""
    if not job.stage0 or not _claim(job):
        return False
    try:
        note = _route(job, progress)
    except Exception as exc:  # one failure path: the job goes on, every pair debated
        log.exception("job %s: stage 0 failed", job.pk)
        note = (
            f"stage 0 failed ({type(exc).__name__}: {exc}); the pairs it did not settle are debated"
        )
    except BaseException:
        # Interrupted (Ctrl-C, a worker's time limit): the step is given back, not lost.
        DebateJob.objects.filter(pk=job.pk).update(
            stage0_state=Stage0State.WAITING, stage0_claimed=None
        )
        raise
    _note(job, note, Stage0State.DONE)
    if progress is not None:
        progress(note)
    # The settled labels are agreed labels: the review queue draws their audit now.
    debate_job_human_changed.send_robust(sender=DebateJob, job_id=job.pk, field="audit_share")
    job.refresh_from_db()
    return True


def stage0_options_check(
    *, stage0: bool, scale: str, batch: bool, levels: dict[str, float]
) -> None:
    """Refuse stage-0 settings it cannot honour (:class:`DebateJobError`): ``levels``
    (``stage0_alpha``, ``stage0_delta``, ``stage0_beta``) outside [LEVEL_MIN, LEVEL_MAX],
    beta up to 1 (no bound), as a :class:`DebateJobOptionError` naming the level (its flag
    on the command line); a graded scale (its judge says relevant or not) or batch mode
    (its labels are settled before direct debates)."""
    for name, value in levels.items():
        top = 1.0 if name == "stage0_beta" else LEVEL_MAX
        if isinstance(value, bool) or not LEVEL_MIN <= value <= top:
            raise DebateJobOptionError(
                name, f"must be between {LEVEL_MIN} and {top}, got {value!r}"
            )
    if stage0 and scale == "graded":
        raise DebateJobError("stage0: stage 0 judges binary relevance; a graded job cannot use it")
    if stage0 and batch:
        raise DebateJobError("stage0: batch jobs cannot use stage 0 yet; launch a direct job")


def debate_job_stage0_nothing_left(*, job: DebateJob) -> None:
    """End ``job``'s stage-0 step before it starts when reuse left it no pending pair to
    score (every pair took an earlier job's outcome): done, in words, not left "waiting".
    Nothing for a job without stage 0 or whose step already ran."""
    if job.stage0:
        DebateJob.objects.filter(pk=job.pk, stage0_state=Stage0State.WAITING).update(
            stage0_state=Stage0State.DONE,
            stage0_note="stage 0 settled nothing: every pair took an earlier job's outcome "
            "(reused), so no pair was left for it to score",
        )


def _route(job: DebateJob, progress: Callable[[str], None] | None) -> str:
    """Train if needed, choose the band, settle: what the step did, in words."""
    from debates.stage0 import stage0_lexicon_build

    # The corpus statistics, built at most once for the step: by training when the judge
    # is retrained, then reused to score the job's pairs.
    corpus = functools.cache(lambda: stage0_lexicon_build(dataset=job.pool.dataset))
    try:
        judge, why = _judge_ready(job, progress, corpus)
        _note(job, "choosing the band and scoring the pairs", Stage0State.ROUTING)
        band = stage0_band_for(job=job, judge=judge)
        # Recorded before any label is settled: a stage-0 label is never without its mark.
        DebateJob.objects.filter(pk=job.pk).update(
            stage0_band=band.dump(),
            stage0_model_hash=judge.model_hash,
            stage0_simulated_labels=judge.simulated_labels + band.simulated,
        )
        scored, settled = _settle(job, judge, band, corpus) if band.settles else (0, 0)
        said = band.message
        if band.settles:
            said = f"{band.message}; it settled {settled:,} of {scored:,} pairs"
        simulated = stage0_simulated_sentence(trained=judge.simulated_labels, band=band.simulated)
        return _final_note(simulated, said, f"a new judge was trained first: {why}" if why else "")
    except Stage0RouteError as exc:
        return f"stage 0 settled nothing: {exc}"


def _final_note(simulated: str, said: str, trained: str) -> str:
    """The step's note: ``simulated`` (the mark) first, ``said`` then ``trained`` (why a
    judge was trained, or ""), whole: its last words may be what a newcomer must do next
    (where the band's human labels come from)."""
    head = f"{simulated}. " if simulated else ""
    tail = f"; {trained}" if trained else ""
    return f"{head}{said}{tail}"


def stage0_waiting(job: DebateJob) -> bool:
    """Whether ``job``'s debates must wait for its stage-0 step (not yet done)."""
    return bool(job.stage0) and job.stage0_state != Stage0State.DONE


def stage0_steps_requeue(*, now: datetime | None = None) -> int:
    """Send again the stage-0 step of running jobs whose step went silent for
    :data:`STALE_CLAIM` (its worker died without giving it back): the next worker takes it
    over. Called by the periodic requeue of expired debates. Returns how many were sent."""
    now = now or timezone.now()
    stale = DebateJob.objects.filter(
        status=DebateJob.Status.RUNNING,
        stage0_state__in=[Stage0State.TRAINING, Stage0State.ROUTING],
        stage0_claimed__lt=now - STALE_CLAIM,
    ).values_list("pk", flat=True)
    ids = list(stale)
    for job_id in ids:
        stage0_step_enqueue(job_id=job_id)
    return len(ids)


def stage0_step_enqueue(*, job_id: int) -> None:
    """Send the job's stage-0 step to the workers once the transaction commits (to the
    default queue, whose prefork workers do CPU work): the task runs the step, then enqueues
    the debates left pending."""
    transaction.on_commit(lambda: task_named(STAGE0_TASK).apply_async((job_id,), queue=LOCAL_QUEUE))
