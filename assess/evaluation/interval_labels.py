"""A refined set's provenance as the intervals' pooled labels (database side).

A refined set's :class:`assess.models.LabelProvenance` rows say, per pool pair, the debate's
consensus label and round, whether the pair was escalated or drawn for the audit, the
human label and the pair's inclusion probability. :func:`pooled_labels` turns them into the
pure estimator's :class:`~assess.evaluation.intervals.PooledLabel` list and counts what the
intervals lack (:mod:`assess.evaluation.interval_missing` says it in words).
"""

from __future__ import annotations

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
    a job's human budget; ``judged_before`` pairs of the original qrels.

    An agreed pair is in the audit stratum (:func:`debates.audit_design.stratum_name`) of its
    machine label, the consensus of the debate that decides it whatever humans said (so it
    never depends on which job's audit drew the pair), drawn when any job sent it to
    people, with the inclusion probability its provenance stored at refinement (the union
    of the jobs' draws; :mod:`assess.review.across_jobs`). A set refined before these were
    stored reads the consensus of the review that decided the pair, drawn when that review
    was an audit, and its job's audit share when no inclusion was stored either."""
    counts = dict.fromkeys(COUNT_KEYS, 0)
    labels: list[iv.PooledLabel] = []
    waiting_audits: set[tuple[str, str]] = set()
    rows = (
        LabelProvenance.objects.filter(qrel_set=refined)
        .values_list(*_POOLED_COLUMNS)
        .order_by("pk")
    )
    for row in rows.iterator(chunk_size=5000):
        kind, label = _pooled_label(row)
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
    "debate_status", "reason", "drawn", "machine_label", "machine_round",
)  # fmt: skip


def _pooled_label(row: tuple) -> tuple[str, iv.PooledLabel | None]:
    """One provenance row (:data:`_POOLED_COLUMNS`) as the count it adds to and the
    estimator's label (None: not in the estimator; see :func:`pooled_labels`)."""
    q, d, label, source, original, consensus, round_, kind, inclusion, share = row[:10]
    status, reason, drawn, machine, machine_round = row[10:]
    if original is not None:
        return "judged_before", None
    human = label if source in HUMAN_SOURCES else None
    if drawn is None:  # refined before the machine label and the draws of every job were kept
        drawn, machine, machine_round = kind == "audit", consensus, round_
    if machine is not None:
        pi = float(share or 0.0) if inclusion is None else inclusion
        human = human if drawn else None
        stratum = stratum_name(machine, machine_round)
        kind = "audited" if human is not None else "agreed"
        return kind, iv.PooledLabel(q, d, machine, human, stratum, drawn, pi)
    if human is not None:
        return "escalated", iv.PooledLabel(q, d, None, human, iv.ESCALATED, True, 1.0)
    # An escalation (or a human tie) no human has decided yet: missing at random among the
    # escalated pairs (see assess.evaluation.intervals). A pending or failed debate, or a
    # pair no job debated, is not humans' to decide: left out, so not relevant.
    if status == ESCALATED_STATUS or reason == _HUMAN_TIE:
        return "unresolved", iv.PooledLabel(q, d, None, None, iv.ESCALATED, True, 1.0)
    return "unresolved", None
