"""The strata of the intervals' human sample: the pooled labels, their weighting classes and
response rates, strata the audit missed, and the notes that name them. Pure, no database;
the estimator itself is :mod:`assess.evaluation.intervals`, which re-exports the names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from core.proportions import collapse_targets, response_factors
from core.text import plural

ESCALATED = "escalated"  # the stratum of the pairs humans decide (no machine label)


class IntervalError(ValueError):
    """The human sample cannot support an interval; the message says what is missing."""


@dataclass(frozen=True)
class PooledLabel:
    """One pooled pair's labels.

    ``machine``: the machine label (grade), or None for a pair with none (escalated: humans
    decide it, inclusion 1). ``human``: the human label when the pair is in the human sample
    and judged, else None. ``stratum``: the sampling stratum's name (e.g. ``"label 1, round
    1"``). ``drawn``: True when the pair was drawn into the human sample (audit or
    escalation), whether or not its human label is in yet. ``inclusion``: the design's
    inclusion probability of the pair (its stratum's, or its own under an impact-weighted
    design), in (0, 1] (escalated pairs: 1).
    """

    query_id: str
    doc_id: str
    machine: int | None
    human: int | None
    stratum: str
    drawn: bool
    inclusion: float


def response_rates(members: Sequence[PooledLabel], name: str) -> dict[float, float]:
    """The response factor per weighting class of one stratum
    (:func:`core.proportions.response_factors`): a class is the stratum's pairs of one
    inclusion probability (under a Neyman audit, one audit unit, whose pairs were drawn
    alike: a stratum's units are drawn at different rates, and the queue serves them in its
    own order, so missing at random is only plausible within a unit). A class whose drawn
    pairs are all unanswered has no respondent to stand for them: it joins the class of
    nearest probability that has one (collapsing weighting classes, Kalton and
    Flores-Cervantes, J. Official Statistics 19(2), 2003), and the joined group's answered
    pairs weigh its drawn pairs' 1 / pi in all. Raises IntervalError when a pair of the
    stratum could never be drawn (inclusion 0)."""
    if any(m.inclusion <= 0 for m in members):
        raise IntervalError(
            f"stratum {name!r}: {len(members):,} machine-labelled pairs with audit share 0 "
            "(intervals need an audit share > 0)"
        )
    factors = response_factors(
        [m.drawn and m.human is not None for m in members],
        [m.drawn for m in members],
        [m.inclusion for m in members],
    )
    return {m.inclusion: factor for m, factor in zip(members, factors, strict=True)}


# A stratum needs this many human labels to stand alone in the model (see strata_collapse).
STRATUM_LABELS = 2


def strata_collapse(
    strata: Mapping[str, Sequence[PooledLabel]], *, rel_level: int = 1
) -> tuple[dict[str, list[PooledLabel]], list[str]]:
    """``strata`` with each machine-labelled stratum that has fewer than STRATUM_LABELS human
    labels merged into the stratum of the same binary machine label (grade >= ``rel_level``:
    the label the estimator reads; a grade-3 stratum joins a grade-1 one at level 1) that has
    the most (collapsed
    strata: Cochran, *Sampling Techniques*, 3rd ed., 1977, sec. 5A.12; Kish, *Survey
    Sampling*, 1965, sec. 8.6), and one note per merge.

    Why: a stratum the audit's draw missed (11 pairs at a 10% audit are all missed one time
    in three) would keep its machine labels with no error and no variance, even when its
    sibling's audit overturned every label it saw. A stratum with one human label is the
    one-unit-per-stratum case of the same books: its model is that label (a share of 0 or 1),
    so its residual is 0 whatever its other pairs are, and it predicts them all at that
    label with certainty; the variance of its correction cannot be estimated from it. Under
    the Poisson design every pair kept its own inclusion probability, so the union is still a
    probability sample; its audited pairs then speak for the merged pairs too (predicted at
    the union's rate of relevance, their uncertainty in the interval). A stratum with no
    same-label sibling that has a human label stays as it is (:func:`strata_notes` names one
    with none, and every value its pairs move spans its range, :func:`blinded_strata`; an
    interval its one label cannot measure spans its range too,
    :func:`assess.evaluation.interval_range.bounded`). Merging by grade alone left a grade
    stratum the audit missed at its machine labels, silently: in a reviewer's example, 30
    grade-3 pairs, none drawn, all wrong, gave nDCG@10 [0.961, 0.998] for a true 0.896."""
    machine = {name: ms for name, ms in strata.items() if name != ESCALATED}
    answered = {name: sum(1 for m in ms if m.human is not None) for name, ms in machine.items()}
    targets = collapse_targets(
        answered,
        {name: {(m.machine or 0) >= rel_level for m in ms} for name, ms in machine.items()},
        minimum=STRATUM_LABELS,
    )
    out = {name: list(members) for name, members in strata.items() if name not in targets}
    notes: list[str] = []
    for name in sorted(targets):
        target = targets[name]
        members = strata[name]
        out[target] += [replace(m, stratum=target) for m in members]
        has = plural(answered[name], "human label") if answered[name] else "no human label"
        notes.append(
            f"stratum {name!r} ({plural(len(members), 'pair')}) has {has}: collapsed with "
            f"{target!r} (the same binary machine label), whose audited pairs speak for both"
        )
    return out, notes


def strata_notes(strata: Mapping[str, Sequence[PooledLabel]]) -> list[str]:
    """The notes on the strata before any value is measured: none since a stratum without a
    human label (one that collapsing could not join to another) is said once, with the
    values it moves, by :func:`assess.evaluation.interval_missing.blind_note` (each such
    value is its whole range: the stratum's errors are neither corrected nor in the
    variance). Raises IntervalError when escalated pairs wait for humans and none of them is
    judged."""
    notes: list[str] = []
    for name, members in sorted(strata.items()):
        if name == ESCALATED and not any(m.human is not None for m in members):
            # Nothing to predict the waiting pairs from, and counting them as not relevant
            # would give an interval blind to them: refused, with what is missing.
            raise IntervalError(
                f"intervals need some escalated pairs judged: none of the {len(members):,} "
                "escalated pairs has a human label yet"
            )
    return notes


def unjudged_escalations(pool: Sequence[PooledLabel]) -> int:
    """How many pairs without a machine label have no human label yet."""
    return sum(1 for label in pool if label.machine is None and label.human is None)


def blinded_strata(
    blind: Mapping[str, Mapping[str, str]], ranked: Mapping[str, Sequence[str]], measure: str
) -> set[str]:
    """The strata with no human label whose pairs can move one system's ``measure``
    (``nDCG@10``, ``P@10`` or ``R@100``). ``blind``: {query_id: {doc_id: stratum}}, the
    pairs of strata without a human label even after :func:`strata_collapse`; ``ranked``:
    the system's {query_id: [doc_id in rank order]} over the evaluated queries. A P@10
    moves through a pair in its top 10; an nDCG@10 or R@100 through any pair of an
    evaluated query, since the ideal DCG and the count of relevant documents, their
    denominators, read every label of the query. Their errors are neither corrected nor in the
    variance, so such a value gets its whole range, as a value no audited pair reaches."""
    found: set[str] = set()
    for q, pairs in blind.items():
        if q not in ranked:
            continue
        top = set(ranked[q][:10]) if measure == "P@10" else pairs.keys()
        found.update(name for doc, name in pairs.items() if doc in top)
    return found
