"""The human sample of several jobs together: a pool pair that several jobs of the dataset
could send to people, for its refined set's provenance.

A pair's human label counts in a refined set whichever job's review gave it (the reviews'
votes merge, :mod:`assess.refined.labels`), so the set's human sample is the union of the
jobs' draws. Each job draws a pair when its hash of job and pair
(:func:`assess.review.agreement.audit_draw`) is below the job's probability for it: the
jobs' draws are independent, and the pair is in the union with probability
1 - prod_j (1 - pi_j) (:func:`debates.audit_design.inclusion_union`, which says why). A pair
counts as **drawn** when any job sends it to people: it escalated there, or that job's
audit drew it, or will at its next sync (the hash is known now; a job whose review sync has
not run yet has simply not written the item). A drawn pair whose human label is not in yet
is then missing at random within its weighting class (:mod:`assess.evaluation.intervals`),
whichever job drew it: counting only the deciding job's draws would make a class look
answered while another job's people still have its pairs, and weigh its answered pairs by
1 / pi instead of 1 / (pi x response rate).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from corpora.selectors import pair_best_ranks
from debates.audit_design import audit_unit, inclusion_union
from debates.models import Debate, DebateJob

from ..models import ReviewItem
from .agreement import audit_draw
from .audit import DecidingDebate, audit_designs_of

_BATCH = 2000


@dataclass(frozen=True, slots=True)
class JobChance:
    """One job's chance of sending a pair to people: ``probability`` (1 escalated; an agreed
    pair's audit probability), ``graded`` (the job's scale is graded) and ``drawn`` (it did
    send the pair: escalated, drawn for its audit, or drawn by its next sync)."""

    probability: float
    graded: bool
    drawn: bool


#: {job id: that job's chance of sending the pair to people}.
JobChances = dict[int, JobChance]

# A settled debate as _settled_debates reads it: (pk, job id, pair id, status, label, round,
# graded, (query pk, document pk)).
_Row = tuple[int, int, int, str, int | None, int | None, bool, tuple[int, int]]


def _settled_debates(pairs: set[tuple[int, int]]) -> list[_Row]:
    """Every agreed or escalated debate of the query and document of each of ``pairs``, in
    any job of the dataset (any pool)."""
    queries = sorted({q for q, _ in pairs})
    rows: list[_Row] = []
    for start in range(0, len(queries), _BATCH):
        found = Debate.objects.filter(
            pair__query_id__in=queries[start : start + _BATCH],
            status__in=(Debate.Status.AGREED, Debate.Status.ESCALATED),
        ).values_list(
            "pk", "job_id", "pair_id", "status", "final_label", "consensus_round",
            "job__scale", "pair__query_id", "pair__document_id",
        )  # fmt: skip
        for pk, job, pair_id, status, label, round_, scale, query, doc in found.iterator(
            chunk_size=5000
        ):
            if (query, doc) in pairs:
                graded = scale == DebateJob.Scale.GRADED
                rows.append((pk, job, pair_id, status, label, round_, graded, (query, doc)))
    return rows


def _audit_items(debate_ids: list[int]) -> dict[int, float | None]:
    """``{debate id: its audit item's inclusion (None on an item made before they were
    stored)}`` of the debates of ``debate_ids`` drawn for their job's audit."""
    out: dict[int, float | None] = {}
    for start in range(0, len(debate_ids), _BATCH):
        out.update(
            ReviewItem.objects.filter(
                kind=ReviewItem.Kind.AUDIT, debate_id__in=debate_ids[start : start + _BATCH]
            ).values_list("debate_id", "inclusion")
        )
    return out


def pair_job_inclusions(*, pairs: Iterable[tuple[int, int]]) -> dict[tuple[int, int], JobChances]:
    """``{(query pk, document pk): {job id: JobChance}}`` for each pair of ``pairs`` over
    every settled debate of its query and document, in any job of the dataset (any pool):
    the probability that job's review sends the pair to people, 1 for an escalated debate,
    for an agreed one the inclusion of its audit item when it was drawn and carries one,
    else its audit unit's probability in its job now (the unit named by the pair's best
    rank in that job's pool); whether it did (module docstring: an agreed pair without an
    item counts as drawn when its hash is below that probability, the draw the job's next
    sync makes). Debates that did not settle (pending, running, failed) could not be drawn
    and are left out. :func:`pair_inclusion_across_jobs` and :func:`pair_drawn_across_jobs`
    combine them."""
    rows = _settled_debates(set(pairs))
    designs = audit_designs_of(job_ids=[row[1] for row in rows])
    items = _audit_items([row[0] for row in rows])
    neyman = {job for job, design in designs.items() if design.allocation == "neyman"}
    ranks = pair_best_ranks(pair_ids={row[2] for row in rows if row[1] in neyman})
    out: dict[tuple[int, int], JobChances] = defaultdict(dict)
    for pk, job, pair_id, status, label, round_, graded, pair in rows:
        design = designs.get(job)
        if status == Debate.Status.ESCALATED:
            out[pair][job] = JobChance(1.0, graded, drawn=True)
        elif (stored := items.get(pk)) is not None:
            out[pair][job] = JobChance(stored, graded, drawn=True)
        elif label is not None and design is not None:
            unit = audit_unit(label, round_, ranks.get(pair_id), allocation=design.allocation)
            chance = design.probability(unit)
            drawn = pk in items or audit_draw(job, pair_id) < chance
            out[pair][job] = JobChance(chance, graded, drawn=drawn)
    return dict(out)


def pair_inclusion_across_jobs(
    own: float | None, final: DecidingDebate, jobs: JobChances, *, graded: bool
) -> float | None:
    """A pool pair's probability of having its human label in the refined set's sample,
    when several jobs of the dataset could send it to people: the union of the deciding
    job's chance ``own`` (:func:`assess.review.audit.pair_inclusion`) and every other job's
    in ``jobs`` (from :func:`pair_job_inclusions`) on the same scale (``graded``; the votes
    of a job on the other scale never count for the pair), combined as independent draws,
    1 - prod_j (1 - pi_j) (module docstring). ``own`` alone when no other job could draw
    the pair; None when ``own`` is None (no debate decided the pair)."""
    if own is None:
        return None
    others = [
        c.probability for job, c in jobs.items() if job != final.job_id and c.graded == graded
    ]
    return inclusion_union([own, *others]) if others else own


def pair_drawn_across_jobs(final: DecidingDebate, jobs: JobChances, *, graded: bool) -> bool:
    """Whether any job on the pair's scale (``graded``) sent it to people (module
    docstring): the review that describes ``final`` (escalated or audit), or a job of
    ``jobs`` (from :func:`pair_job_inclusions`) that escalated it or drew it."""
    if final.review_kind in (ReviewItem.Kind.ESCALATED, ReviewItem.Kind.AUDIT):
        return True
    return any(c.drawn for c in jobs.values() if c.graded == graded)
