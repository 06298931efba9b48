"""Checking the qrels' own labels: how a check-judged job turns a debate's outcome into a
confirmation or a suspect original label. Pure: no database.

A job with ``check_judged`` debates only the pool's judged pairs (``Pair.original_relevance``
set), exactly as any other job: the agents see the query, reference answers, title and chunk
(:class:`debates.engine.PairText`), never the original grade, so their consensus is an
independent second opinion. Only once the debate has ended is the consensus compared with
the original grade, on the side of relevance (grade >= :data:`RELEVANCE_LEVEL` is relevant,
as :func:`debates.assessment.gold_label` reads qrels):

- the same side: the original label is *confirmed*; the debate stays agreed and needs no
  human (a check-judged job draws no audit);
- the other side: the original label is *suspect*; the debate is escalated with reason
  :data:`SUSPECT_ORIGINAL`, so its pair goes to humans like any escalation, and a human
  verdict that differs from the original becomes a correction in the refined qrels
  (:mod:`assess.refined.corrections`).

This is UMBRELA's oldest request (castorini/umbrela#1, checking whether the existing labels
are correct), done the DREAM way: agents of opposite initial stance first, humans for what
they contradict.
"""

from __future__ import annotations

from dataclasses import replace

from debates.engine import DebateOutcome

#: The escalation reason of a consensus that contradicts the original grade.
SUSPECT_ORIGINAL = "suspect_original"
#: The lowest grade read as relevant when a consensus is compared with the original grade.
RELEVANCE_LEVEL = 1


def relevant_side(grade: int) -> bool:
    """Whether ``grade`` (a 1/0 label or a grade 0..G; a qrels grade may be negative) is on
    the relevant side: ``grade >= RELEVANCE_LEVEL``."""
    return grade >= RELEVANCE_LEVEL


def contradicts_original(label: int, original: int) -> bool:
    """Whether the consensus ``label`` (1/0, or a grade on a graded job) and the ``original``
    qrels grade fall on different sides of relevance, e.g. (1, 0) and (0, 2) do, (2, 1) and
    (0, -1) do not."""
    return relevant_side(label) != relevant_side(original)


def check_judged_outcome(outcome: DebateOutcome, *, original: int | None) -> DebateOutcome:
    """``outcome`` as a check-judged job stores it: an agreed consensus that contradicts the
    ``original`` grade becomes an escalation with reason :data:`SUSPECT_ORIGINAL` (no final
    label: humans decide); any other outcome, or ``original`` None (the job checks nothing,
    or the pair is unjudged), is returned unchanged."""
    if original is None or outcome.status != "agreed" or outcome.final_label is None:
        return outcome
    if not contradicts_original(outcome.final_label, original):
        return outcome
    return replace(
        outcome,
        status="escalated",
        final_label=None,
        consensus_round=None,
        escalation_reason=SUSPECT_ORIGINAL,
    )
