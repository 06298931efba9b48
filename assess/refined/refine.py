"""Refined QrelSets built from a pool's final labels (database side).

:func:`qrels_refine` writes a new, immutable QrelSet (origin "refined"): the pool's original
qrels copied unchanged plus one row per new final label
(:func:`assess.refined.pool_labels.final_labels_collect` resolves them), and one
:class:`~assess.models.LabelProvenance` row per pool pair
(:mod:`assess.refined.provenance`). Refined sets are written once, here, and never updated.
:func:`refine_check` gives the refusals known before any label is resolved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Q, QuerySet

from core.fixes import FixableError, OptionFix
from core.names import name_problem
from corpora.formats import relevance_level_check
from corpora.identical import skip_identical
from corpora.models import Dataset, Pool, Qrel, QrelSet
from corpora.ordering import code_point
from corpora.services import qrel_set_grades_record
from debates.models import Debate, DebateJob

from ..models import LabelProvenance, Refinement
from . import labels as final
from .corrections import corrections_write
from .pool_labels import BATCH_SIZE, PoolLabel, final_labels_collect
from .provenance import RefinementPeople, label_provenance_write, refinement_people_get

NAME_MAX = 100  # QrelSet.name's length
# "new" is the address of the refine form (datasets/<slug>/refined/new/) and "."/".." are
# path steps: a refined set of such a name would have no page.
RESERVED_NAMES = frozenset({"new"})


class RefineError(FixableError):
    """A refinement that is refused (name taken, too many unresolved pairs, empty pool...);
    ``fix`` the option that would get past it, when there is one (:mod:`core.fixes`)."""


#: The option that refines from the resolved labels only.
ALLOW_PARTIAL_FIX = OptionFix(
    "allow_partial",
    True,
    "to refine with the resolved labels only (the unresolved pairs stay unjudged and are listed)",
)


@dataclass
class RefineReport:
    """What :func:`qrels_refine` wrote: the refined set, its Refinement row, the counts, the
    unresolved pairs the summary counts ``(query_id, doc_id, reason)`` in canonical order,
    and ``beyond_budget``, the pairs of a budgeted pool beyond its budget (left unjudged by
    design, outside the summary: :func:`budget_holes`)."""

    qrel_set: QrelSet
    refinement: Refinement
    summary: final.ResolutionSummary
    unresolved: list[tuple[str, str, str]]
    beyond_budget: int = 0


def budget_holes(pool: Pool, labels: Sequence[PoolLabel]) -> frozenset[tuple[str, str]]:
    """The ``(query_id, doc_id)`` of the pairs of a budgeted ``pool`` (``labels``: its final
    labels) left beyond the budget: holes by design, which neither block a refinement nor
    count among its unresolved pairs. Empty without a budget.

    The budget B is min(budget, pairs). It is spent once a job on the pool finished on its
    own with a pair limit of at least B (an adaptive job that found fewer pairs to choose,
    the others labelled elsewhere, finished too); until then, B minus the pairs this pool's
    jobs put to a debate are still due (no job ran yet, or one stopped at a smaller
    ``--limit``; labels taken from other pools do not spend this pool's budget): that many
    never-debated pairs, the first in the pool's stored order, stay unresolved ("not
    debated") and only the rest are beyond. (A bandit or mtc job chooses its pairs as labels
    arrive, so there which pairs are due is the stored order's guess; how many is exact.)
    A refinement stores them with the reason ``beyond budget``
    (:data:`assess.refined.labels.BEYOND_BUDGET`)."""
    if pool.budget is None:
        return frozenset()
    never = [
        (p.final.query_id, p.final.doc_id) for p in labels if p.final.reason == final.NOT_DEBATED
    ]
    whole = min(pool.budget, len(labels))
    jobs = DebateJob.objects.filter(pool=pool)
    spent = jobs.filter(
        Q(pair_limit__isnull=True) | Q(pair_limit__gte=whole), status=DebateJob.Status.FINISHED
    ).exists()
    debated = Debate.objects.filter(job__pool=pool).values("pair").distinct().count()
    due = 0 if spent else max(0, whole - debated)
    if due:
        order = {
            (q, d): o
            for q, d, o in pool.pairs.values_list(
                "query__query_id", "document__doc_id", "pool_order"
            )
        }
        # Stored order first, then query id and doc id by code point (Python's str order).
        never.sort(key=lambda key: (order.get(key) is None, order.get(key) or 0, key))
    return frozenset(never[due:])


#: Unresolved reasons of an escalated pair no human has settled yet: its disagreement is open.
OPEN_DISAGREEMENT_REASONS = (
    final.AWAITING_HUMAN,
    final.REVIEW_INCOMPLETE,
    final.HUMAN_TIE,
    final.OVER_BUDGET,
)


def open_disagreements_count(by_reason: Mapping[str, int] | None) -> int:
    """How many pairs of a refinement's unresolved ``by_reason`` counts (a summary's, or a
    stored ``Refinement.counts["by_reason"]``) are escalated pairs no human settled yet."""
    return sum((by_reason or {}).get(reason, 0) for reason in OPEN_DISAGREEMENT_REASONS)


def open_disagreements_sentence(count: int) -> str:
    """The sentence every interface gives after refining: how many escalated pairs no human
    settled yet (``count``). With none it says so without claiming no disagreement is open:
    the Disagreements page may still list pairs whose human answers disagree with each other
    or with the consensus, which the set takes the human label of until adjudicated."""
    if not count:
        return (
            "No escalated pair is still open: humans settled every one. Pairs whose human "
            "answers disagree with each other or with the consensus stay on the Disagreements "
            "page until an admin adjudicates them; meanwhile the human label stands."
        )
    pairs = "1 disagreement is" if count == 1 else f"{count:,} disagreements are"
    return (
        f"{pairs} still open (escalated pairs no human has settled yet): they stay unjudged "
        "in this set; refine again once they are judged."
    )


def refined_name_check(*, name: str) -> str:
    """``name`` if it can name a refined qrel set: a name by the one rule of
    :mod:`core.names` (1-100 letters, digits, ``-``, ``_`` or ``.``, starting with a letter or
    digit, no ``..``), and not ``new`` (the refined pages' URLs could not address it).
    Raises :class:`RefineError` saying why not."""
    if name in RESERVED_NAMES or (name and set(name) == {"."}):
        raise RefineError(
            f"{name!r} cannot be the name of a refined set (its page address would not work)"
        )
    problem = name_problem(name, field="name", max_length=NAME_MAX)
    if problem:
        # A long or invisible name is not repeated back: the reason says what is wrong.
        shown = f"{name!r} " if len(name) <= NAME_MAX and name.isprintable() else ""
        raise RefineError(
            f"refined qrel set name {shown}must be 1-100 letters, digits, '-', '_' or '.' "
            f"({problem})"
        )
    return name


def _name_taken(name: str, dataset: Dataset) -> RefineError:
    return RefineError(
        f"qrel set {name!r} already exists in {dataset.slug!r}; refined sets are immutable, "
        "choose another name"
    )


def _unresolved_message(summary: final.ResolutionSummary, limit: float) -> str:
    reasons = ", ".join(f"{n:,} {r}" for r, n in summary.by_reason.items())
    return (
        f"{summary.unresolved:,} of {summary.pairs:,} pairs ({summary.unresolved_share:.1%}) "
        f"have no final label ({reasons}); more than the {limit:.1%} allowed: finish the "
        "debates and human reviews"
    )


def qrels_refine(
    *,
    pool: Pool,
    name: str,
    allow_partial: bool = False,
    max_unresolved_share: float = final.DEFAULT_MAX_UNRESOLVED_SHARE,
    created_by=None,
    relevant_grade: int = 1,
    exclude_flagged: bool = False,
    progress: Callable[[str], None] = lambda stage: None,
) -> RefineReport:
    """Create the refined QrelSet ``name`` (origin "refined") from ``pool``'s final labels.

    The new set holds every row of the pool's qrel set, grades unchanged (negatives and
    zeros included), plus one row per resolved pair that the original set does not judge,
    graded by :func:`assess.refined.labels.final_grade`: a binary label 1 becomes
    ``relevant_grade`` (default 1; e.g. 2 on TREC DL, whose binary measures count grade
    >= 2), 0 stays 0; a graded job's label (consensus, human median, adjudication) is
    written as it is, 0..G. ``relevant_grade`` is stored on the Refinement and on every
    provenance row with a binary label. A judged pair (pools with ``include_judged``) keeps
    its original grade unless humans decided it on the other side (a correction,
    :mod:`assess.refined.corrections`). Every pool pair gets a LabelProvenance row (unresolved
    ones with their reason and no qrels row). The refined set's grade counts are recorded
    (:func:`corpora.services.qrel_set_grades_record`). With ``exclude_flagged``, the
    judgments of annotators the gold accuracy floor flags now (``flagged`` in
    :func:`assess.review.quality.annotator_quality`) are left out, as if never made; who
    was left out, with their gold figures and the floor, is stored on the Refinement. Each
    provenance row's human judgments carry their annotator's gold accuracy at this time.

    Refused, writing nothing, when the name is taken in the dataset, the pool has no pairs,
    ``relevant_grade`` is not an integer from 1 up to the original set's top grade (at least
    1), or the share of unresolved pairs exceeds ``max_unresolved_share`` (default 5%) and
    ``allow_partial`` is False. One transaction (``progress(stage)`` is told each step as it
    starts, inside it). Returns a :class:`RefineReport`. Raises :class:`RefineError`.
    """
    _refine_arguments_check(name, relevant_grade, max_unresolved_share)
    with transaction.atomic():
        pool = (
            Pool.objects.select_for_update().select_related("dataset", "qrel_set").get(pk=pool.pk)
        )
        progress(f"step 1 of 3: resolving the final labels of {pool.pairs.count():,} pairs")
        people = refinement_people_get(exclude_flagged=exclude_flagged)
        labels, summary, holes = _refine_labels(
            pool,
            name=name,
            relevant_grade=relevant_grade,
            max_unresolved_share=max_unresolved_share,
            allow_partial=allow_partial,
            excluded=people.excluded_ids,
        )
        progress(f"step 2 of 3: writing the refined set ({summary.resolved:,} final labels)")
        refined = _refined_set_create(pool, name)
        original_rows = _copy_original(pool.qrel_set, refined)
        qrel_pk = _refined_rows_write(
            refined, labels, relevant_grade, exclude_identical=pool.dataset.exclude_identical_ids
        )
        refinement = _refinement_create(
            refined,
            pool,
            summary,
            original_rows=original_rows,
            allow_partial=allow_partial,
            max_unresolved_share=max_unresolved_share,
            created_by=created_by,
            relevant_grade=relevant_grade,
            people=people,
            beyond_budget=len(holes),
        )
        progress(f"step 3 of 3: writing the provenance of {len(labels):,} pairs")
        label_provenance_write(refinement=refinement, labels=labels, qrel_pk=qrel_pk, people=people)
        qrel_set_grades_record(qrel_set=refined)
    return RefineReport(
        qrel_set=refined,
        refinement=refinement,
        summary=summary,
        unresolved=_unresolved(labels, holes),
        beyond_budget=len(holes),
    )


def _unresolved(
    labels: Sequence[PoolLabel], holes: frozenset[tuple[str, str]]
) -> list[tuple[str, str, str]]:
    """The unresolved pairs the summary counts (not ``holes``, those beyond a budget)."""
    return [
        (p.final.query_id, p.final.doc_id, p.final.reason)
        for p in labels
        if not p.final.resolved and (p.final.query_id, p.final.doc_id) not in holes
    ]


def refine_check(
    *,
    pool: Pool,
    name: str,
    relevant_grade: int = 1,
    max_unresolved_share: float = final.DEFAULT_MAX_UNRESOLVED_SHARE,
) -> None:
    """The refusals of :func:`qrels_refine` known without resolving a label, for a page or
    the API to give at once before refining in the background: a name a refined set cannot
    have or that is taken in the dataset, a relevant grade that is not one of the original
    qrels' grades, an unresolved share outside 0..1, a pool without pairs. Raises
    :class:`RefineError`; reads only. (Too many unresolved pairs needs every label resolved:
    :func:`qrels_refine` refuses that.)"""
    _refine_arguments_check(name, relevant_grade, max_unresolved_share)
    pool = Pool.objects.select_related("dataset", "qrel_set").get(pk=pool.pk)
    _refine_target_check(pool, name, relevant_grade)
    if not pool.pairs.exists():
        raise RefineError(f"pool {pool.name!r} has no pairs to refine")


def _refine_target_check(pool: Pool, name: str, relevant_grade: int) -> None:
    """Raise :class:`RefineError` when ``name`` is taken in ``pool``'s dataset or
    ``relevant_grade`` is above the top grade of its qrels."""
    dataset, original = pool.dataset, pool.qrel_set
    if QrelSet.objects.filter(dataset=dataset, name=name).exists():
        raise _name_taken(name, dataset)
    relevant_grade_check(original=original, relevant_grade=relevant_grade)


def relevant_grade_check(*, original: QrelSet, relevant_grade: int) -> None:
    """Raise :class:`RefineError` unless ``relevant_grade`` (the grade a binary "relevant"
    label is written as) is a whole number from 1 to the top grade of the ``original``
    qrels (1 for binary ones), in :func:`corpora.formats.relevance_level_check`'s words."""
    try:
        relevance_level_check(
            relevant_grade,
            what="the relevant grade",
            top=max(original.grade_max or 1, 1),
            source=f"the top grade of qrels {original.name!r}",
        )
    except ValueError as exc:
        raise RefineError(str(exc)) from None


def _refine_arguments_check(name: str, relevant_grade: int, max_unresolved_share: float) -> None:
    """Raise :class:`RefineError` for a name a refined set cannot have, a relevant grade
    that is not a grade, or an unresolved share outside 0..1 (checks without the database)."""
    refined_name_check(name=name)
    try:
        final.check_relevant_grade(relevant_grade)
    except ValueError as exc:
        raise RefineError(str(exc)) from None
    if not 0.0 <= max_unresolved_share <= 1.0:
        raise RefineError(
            f"the unresolved share must be between 0 and 1, got {max_unresolved_share}"
        )


def _refine_labels(
    pool: Pool,
    *,
    name: str,
    relevant_grade: int,
    max_unresolved_share: float,
    allow_partial: bool,
    excluded: frozenset[int] = frozenset(),
) -> tuple[list[PoolLabel], final.ResolutionSummary, frozenset[tuple[str, str]]]:
    """The final labels of ``pool`` (locked, with its dataset and qrel set), their summary and the
    pairs beyond its budget (:func:`budget_holes`), once the refinement is allowed: raises
    :class:`RefineError` when ``name`` is taken in the dataset, ``relevant_grade`` is above the
    original set's top grade, the pool has no pairs, or too many pairs are unresolved and
    ``allow_partial`` is False."""
    _refine_target_check(pool, name, relevant_grade)
    labels = final_labels_collect(pool=pool, exclude_annotators=excluded)
    if not labels:
        raise RefineError(f"pool {pool.name!r} has no pairs to refine")
    # Pairs beyond a budgeted pool's budget stay holes by design: they block nothing.
    holes = budget_holes(pool, labels)
    kept = [p.final for p in labels if (p.final.query_id, p.final.doc_id) not in holes]
    summary = final.summarise(kept)
    if summary.unresolved_share > max_unresolved_share and not allow_partial:
        raise RefineError(_unresolved_message(summary, max_unresolved_share), ALLOW_PARTIAL_FIX)
    return _holes_marked(labels, holes), summary, holes


def _holes_marked(labels: list[PoolLabel], holes: frozenset[tuple[str, str]]) -> list[PoolLabel]:
    """``labels`` with each of the ``holes`` (pairs beyond the budget) given the reason
    ``beyond budget`` instead of ``not debated``, so its provenance row, the exports and
    the pages tell a pair left out on purpose from one still due."""
    if not holes:
        return labels
    return [
        replace(p, final=final.beyond_budget_mark(p.final))
        if (p.final.query_id, p.final.doc_id) in holes
        else p
        for p in labels
    ]


def _refined_set_create(pool: Pool, name: str) -> QrelSet:
    """Create the empty refined QrelSet ``name`` in ``pool``'s dataset. Raises
    :class:`RefineError` when a concurrent refinement took the name first."""
    dataset, original = pool.dataset, pool.qrel_set
    try:
        # A savepoint: a concurrent refinement that took the name first must surface as
        # a RefineError, not an IntegrityError.
        with transaction.atomic():
            return QrelSet.objects.create(
                dataset=dataset,
                name=name,
                origin=QrelSet.Origin.REFINED,
                source=f"pool {pool.name} over qrels {original.name}: original judgments + "
                "final labels (consensus, human, adjudicated)",
            )
    except IntegrityError:
        raise _name_taken(name, dataset) from None


def _refined_rows_write(
    refined: QrelSet,
    labels: Sequence[PoolLabel],
    relevant_grade: int,
    *,
    exclude_identical: bool,
) -> dict[tuple[int, int], int]:
    """Add to ``refined`` a row per resolved pair the original does not judge (graded by
    :func:`~.labels.final_grade`), re-grade its corrections (:mod:`.corrections`); return
    {(query pk, doc pk): refined row pk} of those rows and of the judged resolved pairs."""
    new = [p for p in labels if p.final.resolved and p.final.original_grade is None]
    # Never add a query's own document (a pool built before the dataset excluded
    # identical ids may hold one); original rows are copied untouched.
    new, _ = skip_identical_labels(new, enabled=exclude_identical)
    created = Qrel.objects.bulk_create(
        [
            Qrel(
                qrel_set=refined,
                query_id=p.query_pk,
                document_id=p.document_pk,
                relevance=grade,
            )
            for p in new
            # Every kept label is resolved, so each has a grade (None only when unresolved).
            if (grade := final.final_grade(p.final, relevant_grade)) is not None
        ],
        batch_size=BATCH_SIZE,
    )
    qrel_pk = {(q.query_id, q.document_id): q.pk for q in created}
    kept = [p for p in labels if p.final.resolved and p.final.original_grade is not None]
    qrel_pk.update(_refined_pks(refined, kept))
    corrections_write(refined=refined, labels=kept, relevant_grade=relevant_grade)
    return qrel_pk


def skip_identical_labels(
    labels: Sequence[PoolLabel], *, enabled: bool
) -> tuple[list[PoolLabel], int]:
    """``(labels kept, labels skipped)``: with ``enabled``, labels of a query's own document
    (doc id = query id) are left out (:func:`corpora.identical.skip_identical`)."""
    rows, skipped = skip_identical(
        [(p.final.query_id, p.final.doc_id, p) for p in labels], enabled=enabled
    )
    return [row[2] for row in rows], skipped


def _copy_original(original: QrelSet, refined: QrelSet) -> int:
    """Copy every row of ``original`` into ``refined`` inside the database; return the count."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO corpora_qrel (qrel_set_id, query_id, document_id, relevance) "
            "SELECT %s, query_id, document_id, relevance FROM corpora_qrel WHERE qrel_set_id = %s",
            [refined.pk, original.pk],
        )
        return cursor.rowcount


def _refined_pks(refined: QrelSet, kept: Sequence[PoolLabel]) -> dict[tuple[int, int], int]:
    wanted = {(p.query_pk, p.document_pk) for p in kept}
    if not wanted:
        return {}
    rows = Qrel.objects.filter(qrel_set=refined, query_id__in={q for q, _ in wanted}).values_list(
        "query_id", "document_id", "pk"
    )
    return {(q, d): pk for q, d, pk in rows if (q, d) in wanted}


def _refinement_create(
    refined: QrelSet,
    pool: Pool,
    summary: final.ResolutionSummary,
    *,
    original_rows: int,
    allow_partial: bool,
    max_unresolved_share: float,
    created_by: Any,
    relevant_grade: int,
    people: RefinementPeople,
    beyond_budget: int,
) -> Refinement:
    """The Refinement row of ``refined``: its pool, counts, options, who was left out, and
    the pool's budget then with the ``beyond_budget`` pairs it left unjudged (outside
    ``summary.pairs``)."""
    return Refinement.objects.create(
        qrel_set=refined,
        pool=pool,
        original=pool.qrel_set,
        allow_partial=allow_partial,
        max_unresolved_share=max_unresolved_share,
        pairs=summary.pairs,
        unresolved=summary.unresolved,
        budget=pool.budget,
        beyond_budget=beyond_budget,
        original_rows=original_rows,
        new_relevant=summary.new_relevant,
        new_nonrelevant=summary.new_nonrelevant,
        kept_original=summary.kept_original,
        counts={
            "by_source": summary.by_source,
            "by_reason": summary.by_reason,
            "overrides_consensus": summary.overrides_consensus,
            "disagree_with_original": summary.disagree_with_original,
            "corrections": summary.corrections,
        },
        jobs=sorted(set(pool.debate_jobs.values_list("pk", flat=True))),
        created_by=created_by,
        relevant_grade=relevant_grade,
        exclude_flagged=people.asked,
        excluded_annotators=people.excluded,
    )


def refinement_get(*, qrel_set: QrelSet) -> Refinement:
    """The Refinement that made ``qrel_set``. Raises ``Refinement.DoesNotExist`` (an imported
    set has none)."""
    return Refinement.objects.select_related("pool", "original", "qrel_set__dataset").get(
        qrel_set=qrel_set
    )


def refinement_unresolved(*, refinement: Refinement) -> QuerySet[LabelProvenance]:
    """The refinement's unresolved pairs (those its ``unresolved`` counts: still due) as a
    queryset of LabelProvenance, in canonical order (query id, then doc id, by code point);
    the pairs beyond its pool's budget are :func:`refinement_beyond_budget_get`'s. A set
    refined before that reason was stored (``Refinement.beyond_budget`` empty) has its pairs
    beyond the budget here too, as ``not debated`` (:class:`RefinementBudget` counts them)."""
    rows = LabelProvenance.objects.filter(refinement=refinement, label__isnull=True)
    return _canonical(rows.exclude(reason=final.BEYOND_BUDGET))


def refinement_beyond_budget_get(*, refinement: Refinement) -> QuerySet[LabelProvenance]:
    """The pairs beyond the refinement's pool's budget (reason ``beyond budget``: never
    debated, left unjudged by design, outside ``Refinement.pairs``) as a queryset of
    LabelProvenance in canonical order; empty for a set refined before that reason was
    stored (its pairs beyond the budget are among :func:`refinement_unresolved`'s)."""
    rows = LabelProvenance.objects.filter(refinement=refinement, label__isnull=True)
    return _canonical(rows.filter(reason=final.BEYOND_BUDGET))


def _canonical(rows: QuerySet[LabelProvenance]) -> QuerySet[LabelProvenance]:
    """``rows`` with their query and document, by query id then doc id (code point)."""
    return rows.select_related("query", "document").order_by(
        code_point("query__query_id"), code_point("document__doc_id")
    )


@dataclass(frozen=True)
class RefinementBudget:
    """The budget a refinement was made under: ``budget`` the pool's budget then (None: no
    budget), ``beyond`` the pool pairs beyond it (left unjudged by design, outside
    ``Refinement.pairs``), ``pool_pairs`` every pair of the pool (pairs + beyond), and
    ``recorded`` False for a set refined before these were stored: then ``beyond`` is read
    from its provenance rows (one per pool pair, exact) and ``budget`` is the pool's now."""

    budget: int | None
    beyond: int
    pool_pairs: int
    recorded: bool = True


def refinement_budget_get(*, refinement: Refinement) -> RefinementBudget:
    """The budget ``refinement`` was made under (:class:`RefinementBudget`), from its own
    fields; only a set refined before they were stored reads its provenance rows (one
    COUNT) and its pool. Reads only."""
    return refinement_budgets_get(refinements=[refinement])[refinement.pk]


def refinement_budgets_get(*, refinements: Sequence[Refinement]) -> dict[int, RefinementBudget]:
    """``{refinement pk: RefinementBudget}`` for each of ``refinements``, as
    :func:`refinement_budget_get` says, with one grouped COUNT for all the sets refined
    before the budget was stored (none when every set stored it), so a list of sets costs
    no query per row; a legacy set reads ``refinement.pool`` (select it related). Reads
    only."""
    legacy = [r.pk for r in refinements if r.beyond_budget is None]
    rows = dict(
        LabelProvenance.objects.filter(refinement__in=legacy)
        .values_list("refinement")
        .annotate(n=Count("pk"))
        .values_list("refinement", "n")
        if legacy
        else ()
    )
    found = {}
    for r in refinements:
        if r.beyond_budget is not None:
            found[r.pk] = RefinementBudget(r.budget, r.beyond_budget, r.pairs + r.beyond_budget)
            continue
        beyond = max(rows.get(r.pk, 0) - r.pairs, 0)
        found[r.pk] = RefinementBudget(r.pool.budget, beyond, r.pairs + beyond, recorded=False)
    return found
