"""The stratified audit of a job's agreed labels, on the database: which agreed debates go to
humans, and with what probability.

The design is :mod:`debates.audit_design` (pure): a stratum is the consensus label (the grade
on a graded job) crossed with the round the debaters agreed in, and every agreed pair of a
stratum is audited with the stratum's probability. Here the job's strata are counted, the
audit's human labels tallied per stratum, the allocation made and stored on the job
(``DebateJob.audit_inclusion``, only ever raised), and the debates drawn: an agreed debate
is audited when its reproducible draw (:func:`assess.review.agreement.audit_draw`) is below
its stratum's probability. Since the draw of a pair never changes and probabilities only
rise, a later allocation (a raised share, the Neyman phase) keeps every audit drawn before
and adds the pairs the same rule draws at the new probability: the sample stays a Poisson
sample with the stored probabilities, which each audit item carries
(``ReviewItem.inclusion``, raised with its stratum's).

With a ``proportional`` allocation every stratum is at the job's audit share: the same
pairs as the uniform audit at that share. With ``neyman`` the pilot (a tenth of the share) is
drawn first; once no audit item of the job waits for judgments, the next sync spends the
rest of the share where the pilot found the consensus wrong most often.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, F, Min, QuerySet

from core.roles import Role
from debates.audit_design import (
    NEYMAN_PILOT,
    AuditDesign,
    AuditStratum,
    audit_allocation,
    audit_unit,
    stratum_name,
    unit_stratum,
)
from debates.models import Debate, DebateJob

from ..models import Adjudication, Judgment, ReviewItem
from . import same_pair
from .agreement import audit_draw
from .human_labels import review_final_labels


@dataclass(frozen=True, slots=True)
class StratumFigures:
    """One audit stratum of a job as the job page and the API show it: ``size`` agreed
    labels, drawn with probability ``inclusion``; ``judged`` audited pairs with a human
    label, ``wrong`` of them contradicting the consensus."""

    size: int
    inclusion: float
    judged: int
    wrong: int

    def as_json(self) -> dict[str, float | int]:
        """``{"size", "inclusion", "judged", "wrong"}``."""
        return {
            "size": self.size,
            "inclusion": self.inclusion,
            "judged": self.judged,
            "wrong": self.wrong,
        }


def audit_strata_sizes(*, job: DebateJob) -> dict[str, int]:
    """``{stratum name: agreed debates of job}``, the strata in label, then round order (an
    agreed debate without a label, which the engine never stores, is in none)."""
    rows = (
        Debate.objects.filter(job=job, status=Debate.Status.AGREED, final_label__isnull=False)
        .values_list("final_label", "consensus_round")
        .annotate(n=Count("pk"))
        .order_by("final_label", "consensus_round")
    )
    return {stratum_name(label, round_): n for label, round_, n in rows}


def audit_unit_sizes(*, job: DebateJob) -> dict[str, int]:
    """``{audit unit: agreed debates of job}`` (:func:`debates.audit_design.audit_unit`: the
    stratum for a proportional audit; under Neyman the stratum and the pair's best rank in
    its pool)."""
    if job.audit_allocation != "neyman":
        return audit_strata_sizes(job=job)
    out: dict[str, int] = defaultdict(int)
    for _pk, _pair, unit in _agreed_units(job, Debate.objects.filter(job=job)):
        out[unit] += 1
    return dict(out)


def _agreed_units(job: DebateJob, debates: QuerySet[Debate]) -> Iterator[tuple[int, int, str]]:
    """``(debate id, pair id, audit unit)`` of each agreed, labelled debate of ``debates``
    (the pair's best rank read only when the unit needs it)."""
    agreed = debates.filter(status=Debate.Status.AGREED, final_label__isnull=False)
    allocation = job.audit_allocation
    if allocation != "neyman":
        plain = agreed.values_list("pk", "pair_id", "final_label", "consensus_round")
        for pk, pair_id, label, round_ in plain.iterator(chunk_size=5000):
            yield pk, pair_id, stratum_name(label or 0, round_)
        return
    ranked = (
        agreed.annotate(best_rank=Min("pair__sources__rank"))
        .order_by("final_label", "consensus_round", "pk")
        .values_list("pk", "pair_id", "final_label", "consensus_round", "best_rank")
    )
    for pk, pair_id, label, round_, best in ranked.iterator(chunk_size=5000):
        yield pk, pair_id, audit_unit(label or 0, round_, best, allocation=allocation)


def _audits(job: DebateJob) -> QuerySet[ReviewItem]:
    return ReviewItem.objects.filter(debate__job=job, kind=ReviewItem.Kind.AUDIT)


def audit_tallies(*, job: DebateJob, by_unit: bool = False) -> dict[str, tuple[int, int]]:
    """``{stratum name: (judged, wrong)}`` over ``job``'s audit items with a human label
    (:func:`assess.review.human_labels.review_final_labels`: an adjudication, or the
    majority, median grade on a graded job, of a complete item's live judgments); wrong:
    the human label differs from the consensus label. ``by_unit``: keyed by audit unit
    (:func:`audit_unit_sizes`) instead."""
    human = review_final_labels(job=job)
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    audited = Debate.objects.filter(pk__in=_audits(job).values("debate_id"))
    if by_unit:
        units = {pk: unit for pk, _pair, unit in _agreed_units(job, audited)}
    rows = audited.values_list("pk", "final_label", "consensus_round")
    for debate_id, label, round_ in rows:
        if debate_id in human and label is not None:
            tally = out[units[debate_id] if by_unit else stratum_name(label, round_)]
            tally[0] += 1
            tally[1] += human[debate_id][0] != label
    return {name: (judged, wrong) for name, (judged, wrong) in out.items()}


def audit_pilot_done(*, job: DebateJob) -> bool:
    """True once ``job`` has audit items and none of them waits for judgments (each has all
    the judgments it needs, or an adjudication, or took people's answer on its pair from
    another job's item, :mod:`assess.review.answered`): the Neyman allocation's pilot is in.
    :func:`audit_pilot_waiting` says in words what it waits for otherwise. With a
    human budget, an item beyond it (``budget_rank`` above ``job.human_budget``) is never
    served, so it does not hold the pilot back. A pilot that drew no pair is in once it has
    been drawn (its probabilities committed) after the job's debates were over (finished or
    cancelled): no agreed label is left for it to draw.
    At a pilot of a tenth of the share a small job's pilot often draws nothing (40 agreed
    labels at a share of 0.2: each drawn with probability 0.02, none in 44% of jobs), and
    the second phase must not wait for it forever; it then allocates by the ranks and the
    strata's prior error rates (:attr:`debates.audit_design.AuditStratum.error_sd`)."""
    audits = _audits(job)
    if not audits.exists():
        return _empty_pilot_over(job)
    return not _waiting(job, audits).exists()


def _debates_over(job: DebateJob) -> bool:
    """True when ``job`` will debate no more pairs (finished or cancelled): no agreed label
    is still to come for its audit to draw."""
    return job.status in (DebateJob.Status.FINISHED, DebateJob.Status.CANCELLED)


def _empty_pilot_over(job: DebateJob) -> bool:
    """True when ``job``'s debates are over and a review sync has drawn its pilot (committed
    its probabilities) since, with no pair drawn: nothing is left for the pilot to wait for.
    The sync that first sees the debates over draws the pilot; the next one the second
    phase."""
    return _debates_over(job) and any(job.audit_design.committed.values())


def audit_phase(*, job: DebateJob) -> str:
    """Which phase ``job``'s Neyman audit is in: "pilot" while a later allocation will
    raise a unit's probability (the pilot draws or waits for judgments, or it is in and the
    next review sync draws the second phase), "second" once the committed probabilities
    leave nothing to raise (the second phase is drawn: the agreed labels of debates still to
    end are drawn at their units' probabilities, and once the debates are over nothing more
    is drawn unless the share is raised); "" for a proportional audit, or a share of 0 or 1
    (no phases)."""
    if job.audit_allocation != "neyman" or not 0.0 < job.audit_share < 1.0:
        return ""
    if not (_audits(job).exists() or _empty_pilot_over(job)) or _second_phase_waiting(job):
        return "pilot"
    return "second"


def audit_pilot_waiting(*, job: DebateJob, phase: str | None = None) -> str:
    """What a Neyman audit waits for, in words, by its phase (:func:`audit_phase`, or
    ``phase`` when the caller has it); "" for a proportional audit or once nothing holds it
    back.

    In the pilot, what the next allocation waits for: "The Neyman audit waits for 3 of its
    8 audit items to be judged: 2 can be given to an annotator; 1 to none (every annotator
    has judged its pair on another job's item): it needs a new annotator or an admin's
    adjudication", or, before any pair is drawn, that the pilot draws from agreed labels as
    the debates end, or, once the pilot is in, that the next review sync draws the second
    phase. Once the second phase is drawn no allocation follows, so the words say that:
    "The Neyman audit's second phase is drawn, and nothing more will be drawn unless the
    share is raised; 62 of its 129 audit items wait for judgments: 62 can be given to an
    annotator" (while debates still run: "…, and the agreed labels of the debates still to
    end are drawn at their units' probabilities; …"). An item whose pair people answered on
    another job's item never waits (:mod:`assess.review.answered`)."""
    phase = audit_phase(job=job) if phase is None else phase
    if not phase:
        return ""
    audits = _audits(job)
    waiting = list(_waiting(job, audits).values_list("pk", "debate__pair__query_id",
                                                      "debate__pair__document_id"))  # fmt: skip
    if phase == "pilot" and not waiting:
        if not audits.exists() and not _empty_pilot_over(job):
            return (
                "The Neyman audit's pilot has drawn no pair yet: it draws from the agreed "
                "labels as the debates end"
            )
        if not audits.exists():
            return (
                "The Neyman audit's pilot drew no pair (it audits each agreed label with "
                f"probability {job.audit_share * NEYMAN_PILOT:.3g}); its second phase (the "
                "audits placed where the debate errs most) is drawn at the next review sync: "
                "within a minute with Celery beat running, or now with ./dream manage "
                "review_sync"
            )
        # Only the review sync draws the second phase: a page never writes, and the judgment
        # that completed the pilot did not draw it either.
        return (
            "The Neyman audit's pilot is in; its second phase (the audits placed where the "
            "debate errs most) is drawn at the next review sync: within a minute with Celery "
            "beat running, or now with ./dream manage review_sync"
        )
    if not waiting:
        return ""
    if phase == "pilot":
        words = (
            f"The Neyman audit waits for {len(waiting):,} of its {audits.count():,} audit "
            "items to be judged: "
        )
    else:
        more = (
            "nothing more will be drawn unless the share is raised"
            if _debates_over(job)
            else "the agreed labels of the debates still to end are drawn at their units' "
            "probabilities"
        )
        words = (
            f"The Neyman audit's second phase is drawn, and {more}; {len(waiting):,} of its "
            f"{audits.count():,} audit items wait for judgments: "
        )
    return words + _who_may_judge(waiting)


def _who_may_judge(waiting: list[tuple[int, int, int]]) -> str:
    """To whom the ``waiting`` items ((item id, query pk, document pk)) can be given, in
    words: how many to an annotator, how many to none, or that no annotator exists yet."""
    people = _annotators()
    if not people:  # no account yet: "every annotator has judged it" would be vacuous
        return "there is no annotator yet to give them to (createuser --role annotator)"
    stuck = _given_to_nobody(waiting, people)
    words = f"{len(waiting) - stuck:,} can be given to an annotator"
    if stuck:
        words += (
            f"; {stuck:,} to none (every annotator has judged its pair on another job's "
            "item): it needs a new annotator or an admin's adjudication"
        )
    return words


def _waiting(job: DebateJob, audits: QuerySet[ReviewItem]) -> QuerySet[ReviewItem]:
    """The items of ``audits`` still waiting for judgments (not adjudicated; within the
    job's human budget, since an item beyond it is never served)."""
    waiting = audits.filter(judgments_done__lt=F("judgments_needed")).exclude(
        pk__in=Adjudication.objects.values("item_id")
    )
    if job.human_budget is not None:
        waiting = waiting.filter(budget_rank__lte=job.human_budget)
    return waiting


def _annotators() -> set[int]:
    """The pks of the active annotators."""
    return set(
        get_user_model()
        .objects.filter(is_active=True, groups__name=Role.ANNOTATOR)
        .values_list("pk", flat=True)
    )


def _given_to_nobody(waiting: list[tuple[int, int, int]], people: set[int]) -> int:
    """How many of ``waiting`` ((item id, query pk, document pk)) none of ``people`` (the
    active annotators' pks, not empty) may be given: each has judged the pair, on the item or
    on another job's item (:mod:`assess.review.same_pair`; live judgments and those sent
    back)."""
    judged: dict[tuple[int, int], set[int]] = defaultdict(set)
    rows = Judgment.objects.filter(
        same_pair.COUNTED,
        item__debate__pair__query_id__in={q for _, q, _ in waiting},
    ).values_list("item__debate__pair__query_id", "item__debate__pair__document_id", "annotator")
    for query, document, annotator in rows:
        judged[(query, document)].add(annotator)
    return sum(1 for _, q, d in waiting if people <= judged[(q, d)])


def audit_design_commit(*, job: DebateJob) -> tuple[AuditDesign, bool]:
    """Allocate ``job``'s audit over its strata now (:func:`debates.audit_design.
    audit_allocation` with the job's share and allocation, each stratum's committed
    probability, and for ``neyman`` the audit's judged and wrong pairs per stratum and
    whether the pilot is in) and store the probabilities on the job, never lowering one.
    Returns the job's design after it (``job.audit_inclusion`` updated too) and whether a
    stratum's probability rose above what its debates were drawn with so far. The job row is
    locked while the stored probabilities are merged, so two concurrent commits keep the
    larger of each."""
    design = job.audit_design
    allocated = _allocation_now(job, design)
    with transaction.atomic():
        stored = (
            DebateJob.objects.select_for_update()
            .filter(pk=job.pk)
            .values_list("audit_inclusion", flat=True)
            .first()
        )
        current = AuditDesign.stored(
            share=design.share, allocation=design.allocation, inclusion=stored
        ).committed
        merged = dict(current)
        for name, probability in allocated.items():
            merged[name] = max(probability, current.get(name, 0.0))
        if merged != current:
            DebateJob.objects.filter(pk=job.pk).update(audit_inclusion=merged)
    # Raised: above what the stratum's debates were drawn with so far (its committed
    # probability, or, never committed, what a debate ending was drawn with).
    raised = any(
        p > (current[n] if n in current else design.probability(n)) for n, p in merged.items()
    )
    job.audit_inclusion = merged
    return job.audit_design, raised


def _allocation_now(
    job: DebateJob, design: AuditDesign, *, pilot_done: bool | None = None
) -> dict[str, float]:
    """``{audit unit: probability}`` the job's audit would commit now (reads only);
    ``pilot_done`` when the caller already knows it (None: read)."""
    sizes = audit_unit_sizes(job=job)
    neyman = design.allocation == "neyman"
    tallies = audit_tallies(job=job, by_unit=True) if neyman else {}
    strata = {
        name: AuditStratum(
            size=size,
            committed=design.committed_of(name),
            judged=tallies.get(name, (0, 0))[0],
            wrong=tallies.get(name, (0, 0))[1],
        )
        for name, size in sizes.items()
    }
    return audit_allocation(
        strata,
        share=design.share,
        allocation=design.allocation,
        pilot_done=neyman and (audit_pilot_done(job=job) if pilot_done is None else pilot_done),
    )


def _second_phase_waiting(job: DebateJob) -> bool:
    """True when a Neyman job's allocation with its pilot taken as in would raise some
    audit unit's probability above its committed one (:func:`audit_design_commit`): the
    second phase is not drawn yet (the pilot is in and the next sync draws it, or the pilot
    still waits). False once the committed probabilities spend the share."""
    design = job.audit_design
    allocated = _allocation_now(job, design, pilot_done=True)
    return any(p > design.committed_of(name) + 1e-12 for name, p in allocated.items())


def audit_draws(
    *, job: DebateJob, design: AuditDesign, agreed: QuerySet[Debate]
) -> Iterator[tuple[int, int, float]]:
    """``(debate id, pair id, probability)`` of each debate of ``agreed`` (agreed debates of
    ``job``) drawn for the audit: its :func:`~assess.review.agreement.audit_draw` is below
    its stratum's probability (:meth:`debates.audit_design.AuditDesign.probability`). Reads
    nothing when the design audits nothing."""
    if design.share <= 0 and not any(design.committed.values()):
        return
    chances: dict[str, float] = {}
    for pk, pair_id, name in _agreed_units(job, agreed):
        if name not in chances:
            chances[name] = design.probability(name)
        if audit_draw(job.pk, pair_id) < chances[name]:
            yield pk, pair_id, chances[name]


def audit_inclusions_raise(*, job: DebateJob, design: AuditDesign) -> int:
    """Raise the ``inclusion`` of ``job``'s audit items below their stratum's probability
    in ``design`` to it (one UPDATE per stratum that has such items); return how many."""
    low: dict[float, list[int]] = defaultdict(list)
    audited = Debate.objects.filter(pk__in=_audits(job).values("debate_id"))
    units = {pk: unit for pk, _pair, unit in _agreed_units(job, audited)}
    rows = _audits(job).values_list("pk", "inclusion", "debate_id")
    for pk, inclusion, debate_id in rows:
        if debate_id not in units:
            continue
        probability = design.probability(units[debate_id])
        if inclusion is None or inclusion < probability:
            low[probability].append(pk)
    return sum(
        ReviewItem.objects.filter(pk__in=pks).update(inclusion=probability)
        for probability, pks in low.items()
    )


def audit_strata(*, job: DebateJob) -> dict[str, StratumFigures]:
    """``job``'s audit strata as the job page and the API show them: ``{stratum name:
    StratumFigures}`` with each stratum's size, its probability now (committed, or what a
    debate ending now would be drawn with) and its judged and wrong audited pairs."""
    design = job.audit_design
    tallies = audit_tallies(job=job)
    # Under Neyman a stratum's pairs are drawn by audit unit (rank): its figure is their
    # mean probability, each unit weighted by its size. The strata's sizes are their units'
    # (in label, then round order, as the units are read).
    sizes: dict[str, int] = defaultdict(int)
    drawn: dict[str, float] = defaultdict(float)
    for unit, size in audit_unit_sizes(job=job).items():
        sizes[unit_stratum(unit)] += size
        drawn[unit_stratum(unit)] += size * design.probability(unit)
    return {
        name: StratumFigures(
            size=size,
            # Rounded: a mean of equal probabilities must read 0.05, not 0.05000000000000001.
            inclusion=round(drawn[name] / size, 12) if size else design.probability(name),
            judged=tallies.get(name, (0, 0))[0],
            wrong=tallies.get(name, (0, 0))[1],
        )
        for name, size in sizes.items()
    }


def audit_designs_of(*, job_ids: Iterable[int | None]) -> dict[int, AuditDesign]:
    """``{job id: its audit design}`` for the jobs of ``job_ids`` (None ignored)."""
    ids = sorted({pk for pk in job_ids if pk is not None})
    rows = DebateJob.objects.filter(pk__in=ids).values_list(
        "pk", "audit_share", "audit_allocation", "audit_inclusion"
    )
    return {
        pk: AuditDesign.stored(share=share, allocation=allocation, inclusion=inclusion)
        for pk, share, allocation, inclusion in rows
    }


class DecidingDebate(Protocol):
    """What :func:`pair_inclusion` reads of a pair's final label (``assess.refined.labels.
    FinalLabel``): the job and the consensus of the debate that decided it, and its review's
    kind ("escalated", "audit" or "")."""

    @property
    def job_id(self) -> int | None: ...
    @property
    def consensus_label(self) -> int | None: ...
    @property
    def consensus_round(self) -> int | None: ...
    @property
    def review_kind(self) -> str: ...


def audit_item_inclusions(*, job_ids: Iterable[int | None]) -> dict[int, float]:
    """``{debate id: inclusion}`` of the audit items of ``job_ids``'s debates that carry one
    (items made before inclusions were stored carry none)."""
    ids = sorted({pk for pk in job_ids if pk is not None})
    rows = ReviewItem.objects.filter(
        kind=ReviewItem.Kind.AUDIT, debate__job_id__in=ids, inclusion__isnull=False
    ).values_list("debate_id", "inclusion")
    return {
        pk: inclusion for pk, inclusion in rows.iterator(chunk_size=5000) if inclusion is not None
    }


def pair_inclusion(
    designs: Mapping[int, AuditDesign],
    final: DecidingDebate,
    *,
    best_rank: int | None = None,
    drawn_with: float | None = None,
) -> float | None:
    """A pool pair's probability of going to humans, for its provenance: 1 when its deciding
    debate (``final``) was escalated; when it was drawn for the audit, ``drawn_with``, the
    inclusion its audit item carries (:func:`audit_item_inclusions`); when the debaters
    agreed otherwise (not drawn, or an item without one), its audit unit's probability in
    its job now (``designs``, from :func:`audit_designs_of`; ``best_rank``: the pair's best
    rank in its pool, which names the unit under a Neyman audit); None when no debate
    decided it."""
    if final.review_kind == ReviewItem.Kind.ESCALATED:
        return 1.0
    # The item's probability is the one the pair was drawn with, raised with its unit's by
    # every sync: the unit named by the pair's ranks now can differ (a pool extended since
    # moves a pair to a better rank; a human answer may come from a job on another pool).
    if final.review_kind == ReviewItem.Kind.AUDIT and drawn_with is not None:
        return drawn_with
    design = designs.get(final.job_id) if final.job_id is not None else None
    if final.consensus_label is None or design is None:
        return None
    unit = audit_unit(
        final.consensus_label, final.consensus_round, best_rank, allocation=design.allocation
    )
    return design.probability(unit)
