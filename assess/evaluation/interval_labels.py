"""A refined set's provenance as the intervals' pooled labels (database side).

A refined set's :class:`assess.models.LabelProvenance` rows say, per pool pair, the debate's
consensus label and round, whether the pair was escalated or drawn for the audit, the
human label and the pair's inclusion probability. :func:`pooled_labels` turns them into the
pure estimator's :class:`~assess.evaluation.intervals.PooledLabel` list and counts what the
intervals lack (:mod:`assess.evaluation.interval_missing` says it in words).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping

from assess.models import LabelProvenance, ReviewItem
from assess.models.overrides import HUMAN_SOURCES
from corpora.models import QrelSet
from debates.audit_design import stratum_name
from debates.models import Debate

from . import intervals as iv

ESCALATED_STATUS = Debate.Status.ESCALATED.value  # LabelProvenance.debate_status of one
# Unresolved reasons (assess.refined.labels, which this package may not import): a pair
# humans must settle (HUMAN_TIE) waits like an escalation; OVER_BUDGET: an escalation beyond
# its job's human budget.
_HUMAN_TIE = "human tie"
_OVER_BUDGET = "over the human budget"
# A budgeted pool's never-debated pair beyond its budget: left unjudged by design, so counted
# apart from the unresolved pairs still due (not relevant in the intervals all the same).
_BEYOND_BUDGET = "beyond budget"

#: The keys of :func:`pooled_labels`'s counts.
COUNT_KEYS = (
    "agreed",
    "audited",
    "audit_waiting",
    "audit_over_budget",
    "escalated",
    "escalated_waiting",
    "over_budget",
    "unresolved",
    "beyond_budget",
    "judged_before",
)


def pooled_labels(*, refined: QrelSet) -> tuple[list[iv.PooledLabel], dict[str, int]]:
    """The refined set's pool pairs as the estimator's labels, and counts by kind
    (:data:`COUNT_KEYS`): ``agreed`` machine-labelled pairs, of which ``audited`` have their
    audit's human label and ``audit_waiting`` were drawn for the audit and have none yet,
    ``audit_over_budget`` of those beyond their jobs' human budgets (:func:`_audits_over_budget`);
    ``escalated`` human-labelled pairs without a machine label; ``unresolved`` pairs with no
    final label, of which ``escalated_waiting`` are humans' to decide (awaiting, incomplete,
    tied or over the human budget; in the estimator) and ``over_budget`` of those wait beyond
    a job's human budget; ``beyond_budget`` a budgeted pool's pairs beyond its budget (reason
    ``beyond budget``: never debated, left unjudged by design; not in ``unresolved``, not in
    the estimator, so not relevant like the unresolved pairs that are no escalation; a set
    refined before that reason was stored counts them unresolved, as ``not debated``);
    ``judged_before`` pairs of the original qrels.

    An agreed pair is in the audit stratum (:func:`debates.audit_design.stratum_name`) of its
    machine label, the consensus of the debate that decides it whatever humans said (so it
    never depends on which job's audit drew the pair), drawn when any job sent it to
    people, with the inclusion probability its provenance stored at refinement (the union
    of the jobs' draws; :mod:`assess.review.across_jobs`). A set refined before these were
    stored reads the consensus of the review that decided the pair, drawn when that review
    was an audit; when no inclusion was stored either, the share of its job's agreed pairs
    of its stratum in the set that were drawn (:func:`legacy_inclusions`), not the job's
    audit share now, which may have been raised or lowered since the draw."""
    counts = dict.fromkeys(COUNT_KEYS, 0)
    labels: list[iv.PooledLabel] = []
    waiting_audits: set[tuple[str, str]] = set()
    rows = list(
        LabelProvenance.objects.filter(qrel_set=refined)
        .values_list(*_POOLED_COLUMNS)
        .order_by("pk")
    )
    legacy = legacy_inclusions(_legacy_draws(rows))
    for row in rows:
        kind, label = _pooled_label(row, legacy)
        counts[kind] += 1
        counts["agreed"] += kind == "audited"  # an audited pair is an agreed one with its label
        if label is None:
            continue
        labels.append(label)
        if label.human is None and label.machine is None:
            counts["escalated_waiting"] += 1
            counts["over_budget"] += row[11] == _OVER_BUDGET  # its reason
        elif label.human is None and label.drawn:
            counts["audit_waiting"] += 1
            waiting_audits.add((label.query_id, label.doc_id))
    counts["audit_over_budget"] = _audits_over_budget(refined, waiting_audits)
    return labels, counts


def _audits_over_budget(refined: QrelSet, waiting: set[tuple[str, str]]) -> int:
    """How many of the ``waiting`` drawn audit pairs ((query id, doc id)) no annotator is
    given: each of their audit review items, in any job of the dataset, is ranked beyond its
    job's human budget (``assess.review.audit`` never serves those). An item that takes
    another job's answer asks nobody, so only the items that want judgments count. Read
    now, not at refinement: a raised budget serves them from then on."""
    if not waiting:
        return 0
    served: dict[tuple[str, str], bool] = {}
    rows = ReviewItem.objects.filter(
        kind=ReviewItem.Kind.AUDIT,
        judgments_needed__gt=0,
        debate__pair__pool__dataset_id=refined.dataset_id,
        debate__pair__query__query_id__in={q for q, _ in waiting},
    ).values_list(
        "debate__pair__query__query_id",
        "debate__pair__document__doc_id",
        "budget_rank",
        "debate__job__human_budget",
    )
    for q, d, rank, budget in rows.iterator(chunk_size=5000):
        if (q, d) in waiting:
            beyond = rank is not None and budget is not None and rank > budget
            served[(q, d)] = served.get((q, d), False) or not beyond
    return sum(not s for s in served.values())


#: What :func:`pooled_labels` reads of each provenance row, in :func:`_pooled_label`'s order.
_POOLED_COLUMNS = (
    "query__query_id", "document__doc_id", "label", "source", "original_relevance",
    "consensus_label", "consensus_round", "review_kind", "inclusion", "job__audit_share",
    "debate_status", "reason", "drawn", "machine_label", "machine_round", "job_id",
)  # fmt: skip


def _machine_drawn(row: tuple) -> tuple[int | None, int | None, bool]:
    """(machine label, its round, drawn) of a provenance row (:data:`_POOLED_COLUMNS`); a set
    refined before the machine label and the draws of every job were kept reads the
    consensus of the review that decided the pair, drawn when that review was an audit."""
    consensus, round_, kind, drawn, machine, machine_round = (
        row[5], row[6], row[7], row[12], row[13], row[14]
    )  # fmt: skip
    if drawn is None:
        return consensus, round_, kind == "audit"
    return machine, machine_round, bool(drawn)


def _legacy_draws(rows: list[tuple]) -> list[tuple[tuple[int | None, str], bool]]:
    """((job id, stratum), drawn) of each agreed pair whose row stored no inclusion."""
    found = []
    for row in rows:
        machine, machine_round, drawn = _machine_drawn(row)
        if row[4] is None and machine is not None and row[8] is None:
            found.append(((row[15], stratum_name(machine, machine_round)), drawn))
    return found


def legacy_inclusions(
    draws: Iterable[tuple[Hashable, bool]],
) -> dict[Hashable, float]:
    """``{group: drawn / pairs}`` over ``draws`` ((group, drawn) per agreed pair; a group is
    a job and a stratum), for groups with a drawn pair: the inclusion probability of pairs
    whose draw's probability was not stored (sets refined before it was).

    Such a set was drawn by the job's uniform audit (one probability per job, hence per job
    and stratum), at the share the job had then, which nothing recorded: the share now may
    have been raised (the audit then weighs too little) or lowered (too much) since. Given its
    size n, a Bernoulli sample of N pairs at one probability is a simple random sample of n
    of them whatever the probability was, so each pair's inclusion probability given the
    sample's size is n / N (Sarndal, Swensson and Wretman, *Model Assisted Survey Sampling*,
    1992, on Bernoulli sampling; conditioning on the size, as Holt and Smith, JRSS A 142,
    1979, condition on post-strata's sizes). A group with no drawn pair is not in the result
    (its weight is never used; the job's share stands)."""
    sizes: dict[Hashable, list[int]] = {}
    for group, drawn in draws:
        tally = sizes.setdefault(group, [0, 0])
        tally[0] += bool(drawn)
        tally[1] += 1
    return {group: n / total for group, (n, total) in sizes.items() if n}


def _pooled_label(
    row: tuple, legacy: Mapping[Hashable, float]
) -> tuple[str, iv.PooledLabel | None]:
    """One provenance row (:data:`_POOLED_COLUMNS`) as the count it adds to and the
    estimator's label (None: not in the estimator; see :func:`pooled_labels`); ``legacy``:
    :func:`legacy_inclusions` of the rows that stored no inclusion."""
    q, d, label, source, original, _consensus, _round, _kind, inclusion, share = row[:10]
    status, reason = row[10:12]
    if original is not None:
        return "judged_before", None
    human = label if source in HUMAN_SOURCES else None
    machine, machine_round, drawn = _machine_drawn(row)
    if machine is not None:
        stratum = stratum_name(machine, machine_round)
        fallback = legacy.get((row[15], stratum), float(share or 0.0))
        pi = fallback if inclusion is None else inclusion
        human = human if drawn else None
        kind = "audited" if human is not None else "agreed"
        return kind, iv.PooledLabel(q, d, machine, human, stratum, drawn, pi)
    if human is not None:
        return "escalated", iv.PooledLabel(q, d, None, human, iv.ESCALATED, True, 1.0)
    # An escalation (or a human tie) no human has decided yet: missing at random among the
    # escalated pairs (see assess.evaluation.intervals). A pending or failed debate, or a
    # pair no job debated, is not humans' to decide: left out, so not relevant.
    if status == ESCALATED_STATUS or reason == _HUMAN_TIE:
        return "unresolved", iv.PooledLabel(q, d, None, None, iv.ESCALATED, True, 1.0)
    return ("beyond_budget" if reason == _BEYOND_BUDGET else "unresolved"), None
