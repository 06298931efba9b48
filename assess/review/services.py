"""Services of human review: the review queue, claims, judgments, undo and adjudication.

The review queue
----------------
A :class:`~assess.models.ReviewItem` is created for every escalated debate and, for an
audit, for a reproducible random share of agreed debates. They are created where that
happens, never when a page is read: when a debate ends (:func:`review_item_for_debate`, run by
:mod:`assess.review.receivers` on :data:`debates.signals.debate_ended`), when a job's audit
share changes (:func:`review_items_sync`), and as a safety net by the periodic task and the
``review_sync`` command (:func:`review_items_sync_all`).

Annotators claim items one at a time with a lease (:func:`review_item_claim`): ONE SQL
statement picks the next free item with ``FOR UPDATE SKIP LOCKED`` and leases it, so two
annotators never hold the same item at once; a lease that expires returns the item to the
queue. An item needing several judgments never goes twice to the same annotator, and nobody
sees another annotator's label (the judging page shows the debate only).

A judgment (:func:`judgment_record`) is idempotent on the browser's ``client_id``: a re-send
of the same submission finds the stored judgment and changes nothing. An undo
(:func:`judgment_undo`) names the judgment it undoes by that id, so a re-sent undo finds it
undone and changes nothing either.
"""

from __future__ import annotations

import json
import math
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from core.text import text_storable
from corpora.models import PairSource
from debates.audit_design import AuditDesign, audit_unit
from debates.models import Debate, DebateJob

from ..models import Adjudication, Guidelines, Judgment, ReviewItem
from . import answered, audit, budget
from .active_time import (
    JudgmentTimes,
    judgment_times,
    seconds_setting,
)
from .agreement import audit_draw
from .claim_sql import CLAIM_SQL
from .gold_queue import gold_item_claim, gold_pairs_draw
from .judgment_rules import JudgingConflict, JudgingError, judgment_refusal_check, lease_seconds

NOTE_MAX_CHARS = 2000
MAX_SECONDS_ON_TASK = 24 * 3600.0
# Key of the PostgreSQL advisory lock that serialises renumbering one job's budget ranks
# (the second key is the job id).
_RANKS_LOCK = 0x52414E4B


def review_lease_seconds() -> float:
    """How long a claimed pair stays reserved for its annotator (seconds).

    ``DREAM_REVIEW_LEASE_SECONDS`` (setting or environment), default 900 (15 minutes).
    """
    return seconds_setting("DREAM_REVIEW_LEASE_SECONDS", 900)


def undo_window_seconds() -> float:
    """How long after saving a judgment its annotator may undo it (seconds):
    ``DREAM_UNDO_SECONDS``, default 900 (15 minutes, one lease)."""
    return seconds_setting("DREAM_UNDO_SECONDS", 900)


# ---------------------------------------------------------------------------------------------
# The review queue


def review_items_sync(*, job: DebateJob, agreed_since: datetime | None = None) -> int:
    """Create the missing review items of ``job``; return how many were created.

    - every escalated debate gets an ``escalated`` item (inclusion 1);
    - the audit is allocated over the job's strata (consensus label x round) and stored,
      probabilities only ever rising (:func:`assess.review.audit.audit_design_commit`); an
      agreed debate gets an ``audit`` item when its pair's draw
      (:func:`assess.review.agreement.audit_draw`, SHA-256 of "job id:pair id") is below its
      stratum's probability, which the item carries as its ``inclusion``; the audit items
      drawn before get their stratum's raised probability. A proportional job's strata are
      all at ``job.audit_share``: the sample is the same whenever and however often this runs.

    Both kinds want ``job.judgments_per_pair`` judgments, except an item whose pair people
    already answered on another job's item, which takes that answer and asks nobody (an
    audit; an escalation reused from an earlier job: :mod:`assess.review.answered`, which
    also refreshes the job's items taken so, first). The new items are created in debate
    order, escalated and audit items mixed, so the queue (oldest item first, see
    :func:`review_item_claim`) serves audits alongside escalations. ``agreed_since`` limits
    the audit draw to agreed debates finished at or after that time (or with no finish time),
    unless a stratum's probability rose. Idempotent and safe to run concurrently, also with
    :func:`review_item_for_debate` (one item per debate, conflicts ignored). Cost: one pass
    over the job's agreed debates that have no item yet, and one over its audit items.
    Called when a job's audit share changes, by the periodic task and the ``review_sync``
    command; never by a page.
    """
    answered.review_answers_refresh(job=job)
    design, raised = audit.audit_design_commit(job=job)
    without_item = job.debates.exclude(Exists(ReviewItem.objects.filter(debate=OuterRef("pk"))))
    pair_of: dict[int, int] = {}
    new: list[ReviewItem] = []
    for pk, pair_id in without_item.filter(status=Debate.Status.ESCALATED).values_list(
        "pk", "pair_id"
    ):
        new.append(ReviewItem(debate_id=pk, kind=ReviewItem.Kind.ESCALATED, inclusion=1.0))
        pair_of[pk] = pair_id
    agreed = without_item.filter(status=Debate.Status.AGREED)
    if agreed_since is not None and not raised:
        agreed = agreed.filter(Q(finished__isnull=True) | Q(finished__gte=agreed_since))
    for pk, pair_id, chance in audit.audit_draws(job=job, design=design, agreed=agreed):
        new.append(ReviewItem(debate_id=pk, kind=ReviewItem.Kind.AUDIT, inclusion=chance))
        pair_of[pk] = pair_id
    new.sort(key=lambda item: item.debate_id or 0)
    impacts = _pair_impacts(set(pair_of.values()))
    for item in new:
        item.judgments_needed = job.judgments_per_pair
        item.impact = impacts.get(pair_of[item.debate_id or 0], 0.0)
    answered.items_take_answers(job=job, items=new)
    created = ReviewItem.objects.bulk_create(new, batch_size=2000, ignore_conflicts=True)
    audit.audit_inclusions_raise(job=job, design=design)
    if created or ReviewItem.objects.filter(debate__job=job, budget_rank__isnull=True).exists():
        review_budget_renumber(job=job)
    return len(created)


# --- the human budget: how many pairs humans see, highest impact first ------------------


def _pair_impacts(pair_ids: set[int]) -> dict[int, float]:
    """{pair id: impact} (assess.review.budget.pair_impact over its PairSource ranks)."""
    ranks: dict[int, list[int]] = {}
    ids = sorted(pair_ids)
    for start in range(0, len(ids), 5000):
        for pair_id, rank in PairSource.objects.filter(
            pair_id__in=ids[start : start + 5000]
        ).values_list("pair_id", "rank"):
            ranks.setdefault(pair_id, []).append(rank)
    return {pair_id: budget.pair_impact(r) for pair_id, r in ranks.items()}


def review_budget_renumber(*, job: DebateJob, now: datetime | None = None) -> None:
    """Give every review item of ``job`` its ``budget_rank`` (1-based), in the budget order of
    :func:`assess.review.budget.budget_order`: items a human holds (live lease), judged or
    adjudicated first, then impact descending, query id, doc id, each audit's place filled
    by an audit in :func:`assess.review.budget.budget_draw` order (so the audits a budget
    leaves out are missing at random). The claim serves an item only while its rank is
    within ``job.human_budget``, so raising the budget releases the next items in this
    order. Writes only the ranks that changed. Renumberings of one job run one at a time (a
    PostgreSQL advisory lock), each reading the items after the previous one wrote, so two
    of them never leave two items with one rank."""
    now = now or timezone.now()
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_advisory_xact_lock(%s::int4, %s::int4)",
                    [_RANKS_LOCK, job.pk % 2**31],
                )
        _budget_ranks_write(job, now)


def _budget_ranks_write(job: DebateJob, now: datetime) -> None:
    rows = ReviewItem.objects.filter(debate__job=job).values_list(
        "pk",
        "impact",
        "debate__pair__query__query_id",
        "debate__pair__document__doc_id",
        "judgments_done",
        "lease_expires_at",
        "adjudication",
        "budget_rank",
        "kind",
        "debate__pair_id",
    )
    entries, current = [], {}
    for pk, impact, query_id, doc_id, done, lease, adjudicated, rank, kind, pair in rows:
        started = bool(done) or adjudicated is not None or (lease is not None and lease > now)
        audit = kind == ReviewItem.Kind.AUDIT
        draw = budget.budget_draw(job.pk, pair) if audit else 0.0
        entries.append(budget.BudgetEntry(pk, impact, query_id, doc_id, started, audit, draw))
        current[pk] = rank
    changed = [
        ReviewItem(pk=pk, budget_rank=rank)
        for rank, pk in enumerate(budget.budget_order(entries), start=1)
        if current[pk] != rank
    ]
    ReviewItem.objects.bulk_update(changed, ["budget_rank"], batch_size=2000)


def review_items_sync_all() -> int:
    """:func:`review_items_sync` for every job; return the items created. Cancelled jobs too:
    the debates they finished before the cancel are kept, escalated ones need a human.

    A safety net (the periodic task, the ``review_sync`` command for a database made before
    items were created when a debate ends): normally :func:`review_item_for_debate` has
    created every item already and this creates none."""
    return sum(review_items_sync(job=job) for job in DebateJob.objects.all())


# Once per finished debate, in the LLM workers' hot path: plain statements, the same text on
# PostgreSQL and SQLite, without the ORM's compile step (~1 ms each). An agreed debate not
# drawn for the audit costs the first one only; an escalated debate four; a drawn audit
# three to five more, through the ORM, to find whether people answered its pair on another
# job's item (assess.review.answered: the job, the pair, the answered items, and when some
# are, their adjudications and judgments).
_DEBATE_ENDED_SQL = """
    SELECT d.status, d.pair_id, d.job_id, j.audit_share, j.judgments_per_pair, d.final_label,
           d.consensus_round, j.audit_allocation, j.audit_inclusion
      FROM {debate} d JOIN {job} j ON j.id = d.job_id
     WHERE d.id = %s
"""
_PAIR_RANKS_SQL = "SELECT rank FROM {source} WHERE pair_id = %s"


def _pair_ranks(cursor: Any, tables: dict[str, str], pair_id: int) -> list[int]:
    cursor.execute(_PAIR_RANKS_SQL.format(**tables), [pair_id])
    return [rank for (rank,) in cursor.fetchall()]


_JOB_BUDGET_SQL = "SELECT human_budget FROM {job} WHERE id = %s"
# ON CONFLICT: a debate ending twice, or a sync running alongside, leaves one item. The
# public id is made here, in Python: a column default is the model's, which SQL never sees.
_ITEM_INSERT_SQL = """
    INSERT INTO {item} (debate_id, kind, judgments_needed, judgments_done, impact, created,
                        public_id, inclusion, answered_by_id)
    VALUES (%s, %s, %s, 0, %s, %s, %s, %s, %s)
    ON CONFLICT (debate_id) DO NOTHING
"""


# Stored as the database wants a UUID (a uuid column on PostgreSQL, 32 hex digits on SQLite).
_PUBLIC_ID = ReviewItem._meta.get_field("public_id")


def review_item_for_debate(*, debate_id: int) -> bool:
    """Put a debate that just ended in the review queue if it needs a human; True when this
    call created its item.

    An escalated debate gets an ``escalated`` item; an agreed one an ``audit`` item when its
    pair is drawn for the job's audit (the draw :func:`review_items_sync` makes: below its
    stratum's probability, :meth:`debates.audit_design.AuditDesign.probability`, which the
    item carries as its ``inclusion``; 1 for an escalated item). Both want the job's
    ``judgments_per_pair`` judgments (an audit of a pair people already answered on another
    job's item none: it takes that answer, :mod:`assess.review.answered`) and carry the
    pair's impact
    (:func:`assess.review.budget.pair_impact`). The
    outcome is read from the database, not taken from the caller. Idempotent: a debate
    ending twice, or a sync running alongside, leaves one item. A new item, when the job has
    a human budget, renumbers the job's budget ranks (:func:`review_budget_renumber`; without
    a budget the claim ignores ranks, and a budget set later renumbers,
    :func:`review_items_on_job_change`).
    """
    tables = {
        "debate": Debate._meta.db_table,
        "job": DebateJob._meta.db_table,
        "source": PairSource._meta.db_table,
        "item": ReviewItem._meta.db_table,
    }
    with connection.cursor() as cursor:
        cursor.execute(_DEBATE_ENDED_SQL.format(**tables), [debate_id])
        row = cursor.fetchone()
        if row is None:
            return False
        status, pair_id, job_id, share, judgments_per_pair, label, round_, allocation, stored = row
        # The pair's ranks name its audit unit under Neyman; otherwise they are read only
        # for a pair that goes to humans (most agreed debates end here undrawn).
        ranks = _pair_ranks(cursor, tables, pair_id) if allocation == "neyman" else None
        if status == Debate.Status.ESCALATED:
            kind, inclusion = ReviewItem.Kind.ESCALATED, 1.0
        elif status == Debate.Status.AGREED and label is not None:
            design = AuditDesign.stored(share=share, allocation=allocation, inclusion=stored)
            best = min(ranks, default=None) if ranks else None
            inclusion = design.probability(audit_unit(label, round_, best, allocation=allocation))
            if not audit_draw(job_id, pair_id) < inclusion:
                return False
            kind = ReviewItem.Kind.AUDIT
        else:
            return False
        impact = budget.pair_impact(
            _pair_ranks(cursor, tables, pair_id) if ranks is None else ranks
        )
        created_at = connection.ops.adapt_datetimefield_value(timezone.now())
        public_id = _PUBLIC_ID.get_db_prep_value(uuid.uuid4(), connection)
        # A drawn pair people already answered on another job's item takes that answer.
        answer = _answered_elsewhere(job_id, pair_id) if kind == ReviewItem.Kind.AUDIT else None
        needed = judgments_per_pair if answer is None else 0
        params = [debate_id, kind, needed, impact, created_at, public_id, inclusion, answer]
        cursor.execute(_ITEM_INSERT_SQL.format(**tables), params)
        if not cursor.rowcount:
            return False
        # Read again after the insert committed: a budget set meanwhile is either seen here,
        # or its own renumbering (after its commit) sees this item.
        cursor.execute(_JOB_BUDGET_SQL.format(**tables), [job_id])
        (human_budget,) = cursor.fetchone()
    if human_budget is not None:
        review_budget_renumber(job=DebateJob.objects.only("pk", "human_budget").get(pk=job_id))
    return True


def _answered_elsewhere(job_id: int, pair_id: int) -> int | None:
    job = DebateJob.objects.only("pk", "scale", "max_grade").get(pk=job_id)
    return answered.pair_ids_answered(job=job, pair_ids=[pair_id]).get(pair_id)


def review_items_on_job_change(*, job: DebateJob, field: str) -> int:
    """Bring ``job``'s review queue in line with a changed audit share or human budget
    (``field``): a raised share queues the audits it adds (:func:`review_items_sync`), a
    changed budget renumbers the items (:func:`review_budget_renumber`, items a human holds
    or judged first). Returns the items created."""
    if field == "gold_share":
        gold_pairs_draw(job=job)  # the pairs a raised share needs, drawn now, not on a claim
        return 0
    created = review_items_sync(job=job)
    if field == "human_budget" and not created:
        review_budget_renumber(job=job)
    return created


def _held_item(annotator: Any, now: datetime, exclude: list[int]) -> ReviewItem | None:
    return (
        ReviewItem.objects.filter(
            leased_to=annotator,
            lease_expires_at__gt=now,
            judgments_done__lt=F("judgments_needed"),
        )
        .exclude(pk__in=exclude)
        .order_by("claimed_at", "pk")
        .first()
    )


def review_item_claim(
    *,
    annotator: Any,
    exclude_ids: list[int] | tuple[int, ...] = (),
    now: datetime | None = None,
    create: bool = True,
) -> ReviewItem | None:
    """Lease the next pair for ``annotator``, or None when the queue holds nothing for them.

    An annotator who already holds a live lease gets that item back (a reload or a new login
    resumes the same pair). Otherwise one SQL statement (``FOR UPDATE SKIP LOCKED`` on
    PostgreSQL) leases the item of highest impact, then the oldest (creation time, then id;
    escalated and audit items alike, so audits are served while escalations keep coming) that
    still needs judgments,
    is not leased (or its lease expired), has no adjudication, was not judged by this
    annotator (undone judgments aside), whose query and document they did not judge on
    another job's item (:mod:`assess.review.same_pair`), nor given to them as a known-answer
    pair of its job
    (a pool extended after the gold draw may hold a gold pair), is within its job's human
    budget (its ``budget_rank`` at most ``human_budget``; highest impact first, see
    :func:`review_budget_renumber`) and is not in ``exclude_ids`` (the pairs skipped in
    this login session; any of them the annotator holds is given back first, so that one
    annotator never holds two pairs). The lease lasts :func:`review_lease_seconds`. The
    claim creates no debate's item: escalated debates and drawn audits got theirs when the
    debate ended (:func:`review_item_for_debate`). At a gold position of the annotator's work on the
    leased item's job, their item of a known-answer pair is leased instead
    (:func:`assess.review.gold_queue.gold_item_claim`, which creates it when new, unless
    ``create`` is False: a page being read inserts nothing) and the first item is given back.
    """
    now = now or timezone.now()
    exclude = sorted({int(pk) for pk in exclude_ids})
    if exclude:
        # Passing over a pair one holds gives it back: an annotator holds one pair at a
        # time, so a client cannot gather leases by excluding the pairs it holds.
        ReviewItem.objects.filter(pk__in=exclude, leased_to=annotator).update(
            leased_to=None, lease_expires_at=None
        )
    held = _held_item(annotator, now, exclude)
    if held is not None:
        return held
    vendor = connection.vendor
    if vendor not in CLAIM_SQL:
        raise NotImplementedError(f"claiming needs PostgreSQL or SQLite, not {vendor}")
    expires = now + timedelta(seconds=review_lease_seconds())
    skipped: Any = exclude if vendor == "postgresql" else json.dumps(exclude)
    params = [annotator.pk, expires, now, now, annotator.pk, annotator.pk, annotator.pk, skipped]
    row = _run_claim(vendor, params)
    if row is None:
        return None
    item = ReviewItem.objects.select_related("debate__job").get(pk=row[0])
    assert item.debate is not None  # the claim statement serves debates' items only
    # At a gold position of this annotator's work on the job, a known-answer pair comes
    # instead, looking like any audit; the item just leased goes back to the queue.
    gold_item = gold_item_claim(
        annotator=annotator,
        job=item.debate.job,
        expires=expires,
        now=now,
        exclude_ids=exclude,
        create=create,
    )
    if gold_item is None:
        return item
    ReviewItem.objects.filter(pk=item.pk, leased_to=annotator).update(
        leased_to=None, lease_expires_at=None
    )
    return gold_item


def _run_claim(vendor: str, params: list[Any]) -> tuple | None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(CLAIM_SQL[vendor], params)
        return cursor.fetchone()


def review_item_release(*, item: ReviewItem, annotator: Any) -> bool:
    """Give a pair back to the queue (a skip): its lease ends if ``annotator`` holds it.
    Returns True if a lease was released."""
    return bool(
        ReviewItem.objects.filter(pk=item.pk, leased_to=annotator).update(
            leased_to=None, lease_expires_at=None
        )
    )


# ---------------------------------------------------------------------------------------------
# Judgments


@dataclass(frozen=True, slots=True)
class Recorded:
    """What :func:`judgment_record` did: the judgment, and whether it is new (False for a
    re-send of a submission already stored)."""

    judgment: Judgment
    created: bool


def _clean_seconds(seconds: float) -> float:
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        return 0.0
    if not math.isfinite(value) or value < 0:
        return 0.0
    return min(value, MAX_SECONDS_ON_TASK)


def review_item_top_grade(*, item: ReviewItem) -> int:
    """G, the top label a human may give ``item``: its debate job's ``max_grade`` for a
    graded job (labels 0..G), 1 for a binary one (labels 1/0). A gold item takes its gold
    pair's job's scale."""
    # One join per kind of item: an OR over both would multiply a job's debates by its
    # gold items before filtering.
    if item.debate_id is not None:
        jobs = DebateJob.objects.filter(debates__pk=item.debate_id)
    else:
        jobs = DebateJob.objects.filter(gold_pairs__pk=item.gold_id or 0)
    scale, top = jobs.values_list("scale", "max_grade")[0]
    return int(top) if scale == DebateJob.Scale.GRADED else 1


def _check_label(label: int, top: int) -> None:
    if isinstance(label, bool) or not isinstance(label, int) or not 0 <= label <= top:
        if top == 1:
            raise JudgingError(f"label must be 1 (relevant) or 0 (not relevant), got {label!r}")
        raise JudgingError(f"this pair takes a grade from 0 to {top}, got {label!r}")


def _uuid(value: uuid.UUID | str, *, what: str) -> uuid.UUID:
    """``value`` as a UUID; JudgingError naming ``what`` when it is not one."""
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(value)
    except (ValueError, AttributeError, TypeError):
        raise JudgingError(f"{what} {value!r} is not a UUID") from None


# A judgment nobody timed (the simulated annotator's): no seconds, never a click-through.
UNTIMED = JudgmentTimes(0.0, None, False)


def _times(
    item: ReviewItem, annotator: Any, seconds: float, active: float | None, now: datetime
) -> JudgmentTimes:
    wall = _clean_seconds(seconds)
    return judgment_times(item=item, annotator=annotator, wall=wall, page=active, now=now)


def judgment_record(
    *,
    item: ReviewItem,
    annotator: Any,
    label: int,
    client_id: uuid.UUID | str,
    note: str = "",
    seconds: float = 0.0,
    active_seconds: float | None = None,
    guidelines: Guidelines | None = None,
    now: datetime | None = None,
    timed: bool = True,
    leased_only: bool = False,
) -> Recorded:
    """Save ``annotator``'s ``label`` for ``item``: 1 relevant or 0 not, or on a graded
    job's pair a grade 0..G (:func:`review_item_top_grade`); one transaction.

    Idempotent on ``client_id`` (a UUID made by the browser): a re-send of a stored submission
    returns the stored judgment with ``created=False`` and changes nothing. The item row is
    locked; the save is accepted when the annotator holds the lease, even an expired one, or
    nobody else holds a live lease. Saving adds one to ``judgments_done`` and ends the lease.
    ``seconds`` is the time on task the browser measured (wall clock since the pair was
    shown; seconds, clamped to 0..86,400), the note is cut to 2,000 characters.
    ``active_seconds`` is the active time the page measured since its last heartbeat
    (seconds; None: not sent); the judgment stores the item's ``lease_active_seconds`` (what
    this annotator's heartbeats reported) plus it, clamped to 0..86,400, or None (not
    measured) when neither exists, and the click-through flag
    (:func:`assess.review.active_time.judgment_times` has the rules and settings).
    ``guidelines``: the version the annotator confirmed (:mod:`assess.review.guidelines`).
    ``timed=False`` records a judgment nobody timed (the simulated annotator's): no active
    seconds and never a click-through, so it cannot count as a fast human answer.
    ``leased_only=True`` (the API's answers) takes one only from the lease's holder, its
    seconds capped by the lease (:func:`~assess.review.judgment_rules.lease_seconds`).

    Raises JudgingConflict when another annotator holds a live lease on the pair, the pair
    already has the judgments it needs or an adjudication, or this annotator already judged
    it; JudgingError for a label outside the pair's scale (0/1, or 0..G), an invalid client
    id, or a client id already used for another pair or annotator.
    """
    _check_label(label, review_item_top_grade(item=item))
    client_uuid = _uuid(client_id, what="client id")
    now = now or timezone.now()
    with transaction.atomic():
        locked = ReviewItem.objects.select_for_update().get(pk=item.pk)
        # Checked under the item lock: two copies of one submission arriving together
        # queue on the lock, and the second finds the first's row here.
        stored = Judgment.objects.filter(client_id=client_uuid).first()
        if stored is not None:
            if stored.item_id != locked.pk or stored.annotator_id != annotator.pk:
                raise JudgingError("this submission id was already used for another pair")
            return Recorded(stored, False)
        judgment_refusal_check(locked, annotator, now, leased_only=leased_only)
        if leased_only:
            seconds = lease_seconds(locked, seconds, now)
        times = _times(locked, annotator, seconds, active_seconds, now) if timed else UNTIMED
        try:
            with transaction.atomic():
                judgment = Judgment.objects.create(
                    item=locked,
                    annotator=annotator,
                    label=label,
                    note=text_storable((note or "").strip()[:NOTE_MAX_CHARS]),
                    client_id=client_uuid,
                    seconds_on_task=times.wall,
                    active_seconds=times.active,
                    click_through=times.click_through,
                    guidelines=guidelines,
                )
        except IntegrityError:
            # The same client id on another item (a different item row lock) raced us.
            raise JudgingError("this submission id was already used for another pair") from None
        # The lease ends with its active time: an undo gives the pair back counting from 0.
        ReviewItem.objects.filter(pk=locked.pk).update(
            judgments_done=F("judgments_done") + 1,
            leased_to=None,
            lease_expires_at=None,
            lease_active_seconds=0.0,
        )
    return Recorded(judgment, True)


def judgment_undo(
    *,
    annotator: Any,
    client_id: uuid.UUID | str | None = None,
    now: datetime | None = None,
) -> ReviewItem:
    """Undo one judgment of ``annotator`` and give its pair back to them; one transaction.

    ``client_id`` names the judgment (the id its submission carried; the judging page shows
    the newest live one, see :func:`assess.review.selectors.undoable_judgment`); None takes the
    annotator's newest live judgment. Idempotent: when the named judgment is already undone
    (a re-sent undo whose first answer was lost, or two undos racing) nothing changes and its
    item is returned as the first undo returned it, so a re-send never undoes the judgment
    before it. The item row is locked first and the judgment read again under the lock; the
    judgment is marked with a conditional update and ``judgments_done`` goes down by one only
    when that update changed it, so two concurrent undos count once.

    Allowed within :func:`undo_window_seconds` of saving, while no other annotator holds a
    live lease on the pair and no admin adjudicated it. The judgment is kept, marked
    ``undone_at``; the pair is leased to the annotator afresh (:func:`review_lease_seconds`)
    and any other lease they hold is released (that pair goes back to the queue). Returns the
    item. Raises JudgingError when there is nothing to undo (no such judgment of theirs, or
    saved too long ago) or ``client_id`` is not a UUID, JudgingConflict when the pair is held
    by someone else or decided.
    """
    now = now or timezone.now()
    since = now - timedelta(seconds=undo_window_seconds())
    nothing = "Nothing to undo: no judgment of yours in the last 15 minutes."
    mine = Judgment.objects.filter(annotator=annotator)
    if client_id is None:
        target = mine.filter(undone_at__isnull=True).order_by("-created", "-pk").first()
    else:
        target = mine.filter(client_id=_uuid(client_id, what="undo id")).first()
    if target is None:
        raise JudgingError(nothing)
    with transaction.atomic():
        # Lock first, then read the judgment again: a concurrent undo of the same judgment
        # waits here and finds it undone.
        item = ReviewItem.objects.select_for_update().get(pk=target.item_id)
        last = Judgment.objects.get(pk=target.pk)
        if last.undone_at is not None:
            return ReviewItem.objects.select_related("debate").get(pk=item.pk)
        if last.created < since:
            raise JudgingError(nothing)
        if (
            item.leased_to_id not in (None, annotator.pk)
            and item.lease_expires_at is not None
            and item.lease_expires_at > now
        ):
            raise JudgingConflict("Too late to undo: another annotator is judging this pair.")
        if Adjudication.objects.filter(item=item).exists():
            raise JudgingConflict("Too late to undo: an admin has decided this pair.")
        changed = Judgment.objects.filter(pk=last.pk, undone_at__isnull=True).update(undone_at=now)
        if changed == 1:
            ReviewItem.objects.filter(leased_to=annotator).exclude(pk=item.pk).update(
                leased_to=None, lease_expires_at=None
            )
            ReviewItem.objects.filter(pk=item.pk).update(
                judgments_done=F("judgments_done") - 1,
                leased_to=annotator,
                lease_expires_at=now + timedelta(seconds=review_lease_seconds()),
                claimed_at=now,
            )
    return ReviewItem.objects.select_related("debate").get(pk=item.pk)


def adjudication_record(
    *, item: ReviewItem, admin: Any, label: int, note: str = ""
) -> Adjudication:
    """Record (or replace) an admin's final label for ``item`` (1/0, or a grade 0..G on a
    graded job's pair); it wins over every human judgment and the debate. Ends any lease on
    the item. Raises JudgingError for a label outside the pair's scale or for a gold item
    (a known-answer pair has its answer; it is never decided)."""
    if item.debate_id is None:
        raise JudgingError("a known-answer pair is not adjudicated")
    _check_label(label, review_item_top_grade(item=item))
    with transaction.atomic():
        adjudication, _ = Adjudication.objects.update_or_create(
            item=item,
            defaults={
                "admin": admin,
                "label": label,
                "note": text_storable((note or "").strip()[:NOTE_MAX_CHARS]),
            },
        )
        ReviewItem.objects.filter(pk=item.pk).update(leased_to=None, lease_expires_at=None)
    return adjudication


# ---------------------------------------------------------------------------------------------
# (other assess services below)
