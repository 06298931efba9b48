"""What the refined-metric intervals say about the human labels they lack. Pure, no database.

Three kinds of missing label, each treated its own way, and said in the same words on every
surface that shows the intervals (the re-benchmark's page, printout, plot and API
``intervals.notes``, the job page's planner and the API's ``budget.notes``, the benchmark
zip's datasheet), all from :func:`missing_notes`:

- A pool pair with no final label is left out of the refined qrels, so their point values
  count it as not relevant. In the intervals, an escalation (humans must decide it: awaiting
  a human, its review incomplete, a human tie, over a job's human budget) is missing at
  random among the escalated pairs, predicted at the judged escalations' share of relevant;
  any other (a debate pending or failed, a pair never debated) is no escalation: not
  relevant there too, its label outside every interval.
- A budgeted pool's pair beyond its budget (reason ``beyond budget``: never debated, left
  unjudged by design) is taken like a pair never debated, not relevant everywhere, but
  counted and said apart from the unresolved pairs: it is not due, no job will judge it.
- An agreed pair drawn for the audit whose human label is not in yet keeps its debate label
  in the refined qrels and the point values; the intervals take its human label as missing
  at random within its weighting class (its stratum's pairs drawn at its rate; under a
  Neyman audit, its audit unit), weighting the judged ones up.

Missing at random is an assumption, not the design, in both cases: the review queue serves
the pairs of highest impact first, so the judged ones may not stand for the waiting ones. A
job's human budget makes that sure for escalations (it serves them by impact); its audits
beyond a budget are left out at random (:func:`assess.review.budget.budget_order`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.text import plural

from .interval_strata import PooledLabel, strata_collapse


@dataclass(frozen=True)
class MissingLabels:
    """How many labels a refined set's intervals lack, by kind: ``unresolved`` pool pairs
    with no final label, of which ``escalations`` are humans' to decide and ``over_budget``
    of those wait beyond a job's human budget; ``audits``: agreed pairs drawn for the audit
    with no human label yet (their debate label is final), of which ``audits_unseen`` are in
    a stratum with no human label at all (:func:`audits_unseen`) and ``audits_over_budget``
    wait beyond their jobs' human budgets, so no annotator is given them; ``beyond_budget``:
    a budgeted pool's pairs beyond its budget, left unjudged by design (not in
    ``unresolved``)."""

    unresolved: int = 0
    escalations: int = 0
    over_budget: int = 0
    audits: int = 0
    audits_unseen: int = 0
    audits_over_budget: int = 0
    beyond_budget: int = 0

    @classmethod
    def of(cls, counts: Mapping[str, int], pool: Sequence[PooledLabel] = ()) -> MissingLabels:
        """From a refined set's interval ``counts`` (``unresolved``, ``escalated_waiting``,
        ``over_budget``, ``audit_waiting``, ``audit_over_budget``, ``beyond_budget``; absent
        keys count 0) and, for
        ``audits_unseen``, its pooled labels ``pool``."""
        return cls(
            unresolved=counts.get("unresolved", 0),
            escalations=counts.get("escalated_waiting", 0),
            over_budget=counts.get("over_budget", 0),
            audits=counts.get("audit_waiting", 0),
            audits_unseen=audits_unseen(pool),
            audits_over_budget=counts.get("audit_over_budget", 0),
            beyond_budget=counts.get("beyond_budget", 0),
        )


def _them(n: int) -> str:
    return "it" if n == 1 else "them"


def unresolved_note(m: MissingLabels, *, intervals: bool = True) -> str:
    """What the pool pairs with no final label are in the refined qrels and the point values
    (not relevant) and, with ``intervals``, in the intervals: the escalations missing at
    random among the escalated pairs, the others not relevant there too. "" when none."""
    total, waiting = m.unresolved, m.escalations
    if not total:
        return ""
    words = (
        f"{plural(total, 'pool pair has', 'pool pairs have')} no final label: left out of the "
        f"refined qrels, so the point values count {_them(total)} as not relevant"
    )
    if not intervals:
        return words
    others = total - waiting
    never = "a debate pending or failed, or a pair never debated"
    if waiting == total:
        return (
            words + f"; the intervals take {_them(total)} as missing at random among the "
            f"escalated pairs ({'an escalation' if total == 1 else 'escalations'} humans "
            "must decide)"
        )
    if not waiting:
        return (
            words + f"; the intervals count {_them(total)} as not relevant too ({never}: no "
            f"escalation), so no interval covers {'its label' if total == 1 else 'their labels'}"
        )
    return (
        words + f"; the intervals take the {plural(waiting, 'escalated one')} as missing at "
        f"random among the escalated pairs, and count the other {others:,} ({never}) as not "
        "relevant too, outside every interval"
    )


def beyond_budget_note(m: MissingLabels, *, intervals: bool = True) -> str:
    """What a budgeted pool's pairs beyond its budget (never debated, left unjudged by
    design) are in the refined qrels and the point values (not relevant) and, with
    ``intervals``, in the intervals (not relevant too, as a pair never debated): said apart
    from :func:`unresolved_note`, since no job will judge them. "" when none."""
    n = m.beyond_budget
    if not n:
        return ""
    words = (
        f"{plural(n, 'pool pair is', 'pool pairs are')} beyond the pool's budget, left "
        f"unjudged by design (never debated, not due): left out of the refined qrels, so the "
        f"point values count {_them(n)} as not relevant"
    )
    if not intervals:
        return words
    return (
        words + f"; the intervals count {_them(n)} as not relevant too, so no interval covers "
        f"{'its label' if n == 1 else 'their labels'}"
    )


def escalations_note(m: MissingLabels) -> str:
    """The assumption the intervals make for escalations with no human label yet, and, only
    when some of them wait beyond a job's human budget, that budget's part in it; "" when
    none waits."""
    n = m.escalations
    if not n:
        return ""
    its, it = ("its", "it") if n == 1 else ("their", "they")
    if m.over_budget:
        k = m.over_budget
        beyond = "it waits" if n == 1 else f"{k:,} of them wait{'s' if k == 1 else ''}"
        why = (
            f"{beyond} beyond a job's human budget, which serves escalations by their impact, "
            "so the judged ones are those that weigh most"
        )
    else:
        waiting = "the one waiting" if n == 1 else "those waiting"
        why = (
            "the review queue serves the pairs of highest impact first, so the judged ones "
            f"may weigh more than {waiting}"
        )
    return (
        f"{plural(n, 'escalated pair has', 'escalated pairs have')} no human label yet: "
        f"predicted at the judged escalations' share of relevant, {its} uncertainty in the "
        f"intervals (wider for {_them(n)}); that {it} {'is' if n == 1 else 'are'} missing at "
        f"random among the escalated pairs is an assumption, not a design: {why}; "
        f"{'raise the budget, ' if m.over_budget else ''}judge {_them(n)} and refine again "
        "to drop it"
    )


def audits_note(m: MissingLabels) -> str:
    """What the intervals do with agreed pairs drawn for the audit whose human label is not
    in yet: missing at random within their weighting class, except those of a stratum with
    no human label at all (``audits_unseen``), which keep their debate labels there too (the
    stratum's own note says its errors are not seen); and, when some wait beyond a job's
    human budget (``audits_over_budget``: never given to an annotator), that the budget must
    be raised for them to be judged; "" when there are none."""
    n, unseen = m.audits, m.audits_unseen
    if not n:
        return ""
    its = "its" if n == 1 else "their"
    words = (
        f"{plural(n, 'pair drawn for the audit has', 'pairs drawn for the audit have')} no "
        f"human label yet: {its} debate label{'' if n == 1 else 's'} stand{'s' if n == 1 else ''} "
        "in the refined qrels and the point values"
    )
    act = _audits_action(m)
    if unseen == n:
        return (
            words + f", and in the intervals too, {its} stratum having no human label at all; "
            f"{act} for the intervals to see {its} errors"
        )
    modelled = n - unseen
    one = modelled == 1  # the pairs taken as missing at random read in the singular
    labels = "label" if one else "labels"
    whose = f"the human {labels} of {modelled:,} of them" if unseen else f"{its} human {labels}"
    if not unseen:
        rest = ""
    elif unseen == 1:
        rest = (
            "; the other one, in a stratum with no human label at all, keeps its debate "
            "label there too"
        )
    else:
        rest = (
            f"; the other {unseen:,}, in strata with no human label at all, keep their debate "
            "labels there too"
        )
    theirs = "its" if one else "their"
    return (
        words + f"; the intervals take {whose} as missing at random among the pairs of "
        f"{theirs} stratum drawn at the same rate (under a Neyman audit, {theirs} audit "
        f"unit), so the intervals are wider and rest on that assumption{rest}; {act} to "
        "drop it"
    )


def _audits_action(m: MissingLabels) -> str:
    """What would give the waiting audits their human labels: judge them and refine again,
    after raising the budget when some wait beyond a job's human budget, since
    :mod:`assess.review.audit` never serves those."""
    n, beyond = m.audits, m.audits_over_budget
    act = f"judge {_them(n)} and refine again"
    if not beyond:
        return act
    waits = "it waits" if n == 1 else f"{beyond:,} of them wait{'s' if beyond == 1 else ''}"
    return (
        f"{waits} beyond a job's human budget, so no annotator is given "
        f"{'it' if beyond == 1 else 'them'}: raise the budget, {act}"
    )


def audits_unseen(pool: Sequence[PooledLabel]) -> int:
    """How many agreed pairs drawn for the audit with no human label yet are in a stratum
    that has no human label even after the estimator's collapsing of strata
    (:func:`~assess.evaluation.interval_strata.strata_collapse`): nothing stands for them,
    so they keep their machine labels in the intervals."""
    strata: dict[str, list[PooledLabel]] = {}
    for label in pool:
        if label.machine is not None:
            strata.setdefault(label.stratum, []).append(label)
    merged, _notes = strata_collapse(strata)
    return sum(
        sum(1 for m in members if m.drawn and m.human is None)
        for members in merged.values()
        if not any(m.human is not None for m in members)
    )


def missing_notes(m: MissingLabels, *, intervals: bool = True) -> list[str]:
    """Every note on the labels the intervals lack (:func:`unresolved_note`,
    :func:`beyond_budget_note`, then, with ``intervals`` computed, :func:`escalations_note`
    and :func:`audits_note`), empty ones left out."""
    notes = [unresolved_note(m, intervals=intervals), beyond_budget_note(m, intervals=intervals)]
    if intervals:
        notes += [escalations_note(m), audits_note(m)]
    return [note for note in notes if note]


def audit_waiting_words(m: MissingLabels) -> str:
    """`` (62 more drawn, not judged yet)`` for a sample line, "" when no drawn audit
    pair waits."""
    return f" ({m.audits:,} more drawn, not judged yet)" if m.audits else ""


def one_sided_note(values: Sequence[str]) -> str:
    """The note naming the ``values`` ("system measure") whose estimate is at the lowest or
    highest value the labels allow: a reader should know that end of the interval is a
    bound of the range, not of the estimate's error."""
    return (
        f"{', '.join(values)}: the estimate is at the lowest or highest value the pairs "
        "without a human label allow, so its interval stops there (one-sided)"
    )


def unchecked_note(values: Sequence[str]) -> str:
    """The note naming the ``values`` ("system measure") whose interval is their whole range
    because no audited pair of the human sample moves them
    (:func:`assess.evaluation.intervals.bounded`'s ``informed``)."""
    return (
        f"{', '.join(values)}: no audited pair of the human sample falls where the value is "
        "read (its top k), so nothing checks its machine labels: the interval is every value "
        "the pairs without a human label allow"
    )


def unmeasured_note(values: Sequence[str]) -> str:
    """The note naming the ``values`` ("system measure") whose interval is their whole range
    because the human sample's variance for them is 0 although audited pairs move them: those
    pairs' human labels equal their model's prediction exactly (as a stratum's only human
    label always does: it is its model), which says nothing of the other pairs' labels."""
    return (
        f"{', '.join(values)}: the human sample gives no measure of the error of the machine "
        "labels it rests on (the audited pairs that move it match their model exactly, as a "
        "stratum's only human label does): the interval is every value the pairs without a "
        "human label allow"
    )


def unmeasured_difference_note(values: Sequence[str]) -> str:
    """The note naming the system pairs' ``values`` ("a - b measure") whose difference
    interval is its whole range because the human sample's variance for the difference is 0
    although the pairs without a human label can move it: every audited pair that moves one
    system moves the other alike, which says nothing of the pairs only one of them ranks."""
    return (
        f"{', '.join(values)}: the human sample gives no measure of the error of this "
        "difference (every audited pair moves both systems alike, while pairs without a human "
        "label move one of them): its interval is every value those pairs allow, so it does "
        "not settle the order"
    )


def few_labels_difference_note(values: Sequence[tuple[str, str]], *, minimum: int) -> str:
    """The note naming the system pairs' ``values`` (("a - b measure", n_b)) whose difference
    interval is its whole range because fewer than ``minimum`` human labels bear on the
    difference (move the two systems unalike): too few terms to estimate its variance."""
    named = ", ".join(f"{value} (n_b = {n})" for value, n in values)
    return (
        f"{named}: too few human labels (audited or escalated) bear on "
        f"{'this difference' if len(values) == 1 else 'these differences'} (at least {minimum} "
        "needed): its interval is every value the pairs without a human label allow, so it "
        "does not settle the order"
    )


def difference_notes(
    unmeasured: Sequence[str], few: Sequence[tuple[str, str]], *, minimum: int
) -> list[str]:
    """The notes on the system pairs only their range settles
    (:func:`assess.evaluation.interval_comparisons.range_only_differences`): those no human
    label bears on, then those too few do."""
    notes = [unmeasured_difference_note(unmeasured)] if unmeasured else []
    return notes + ([few_labels_difference_note(few, minimum=minimum)] if few else [])


def label_grades(
    *, fixed: Mapping[str, Mapping[str, int]], pool: Sequence[PooledLabel]
) -> list[int]:
    """Every grade the labels hold: the fixed judgments' and each pooled pair's machine and
    human label (what :func:`~assess.evaluation.interval_reports.level_note` reads)."""
    grades = [g for judged in fixed.values() for g in judged.values()]
    return grades + [g for x in pool for g in (x.machine, x.human) if g is not None]


def labels_reach(
    *, fixed: Mapping[str, Mapping[str, int]], pool: Sequence[PooledLabel], rel_level: int
) -> bool:
    """Whether any grade, fixed or pooled (machine or human), reaches ``rel_level``."""
    return any(g >= rel_level for g in label_grades(fixed=fixed, pool=pool))


def few_labels_note(values: Sequence[tuple[str, str]], *, minimum: int) -> str:
    """The note naming the ``values`` (("system measure", n_b)) whose interval is their whole
    range because fewer than ``minimum`` human labels (audited or escalated) bear on them
    (:func:`assess.evaluation.interval_range.sample_bears_on`): a variance estimated from so
    few terms is not to be trusted (the rule, a convention, is
    :data:`assess.evaluation.interval_range.MIN_BEARING`'s)."""
    if len(values) == 1:
        value, n = values[0]
        # n_b, as beside the interval: a bare "n" there counts every human label instead.
        return (
            f"{value}: too few human labels (audited or escalated) bear on this run's value "
            f"(n_b = {n}; at least {minimum} needed): the interval is every value the pairs "
            "without a human label allow"
        )
    named = ", ".join(f"{value} (n_b = {n})" for value, n in values)
    return (
        f"{named}: too few human labels (audited or escalated) bear on these runs' values (at "
        f"least {minimum} "
        "needed): each interval is every value the pairs without a human label allow"
    )


def blind_note(values: Sequence[tuple[str, str]]) -> str:
    """The note naming the ``values`` (("system measure", the strata named)) whose interval is
    their whole range because a stratum with no human label, not even after collapsing with
    the strata of the same binary machine label, holds pairs that move them: its machine
    labels' errors are neither corrected nor in the variance."""
    by_strata: dict[str, list[str]] = {}
    for value, strata in values:
        by_strata.setdefault(strata, []).append(value)
    named = "; ".join(
        f"stratum {strata} moves {', '.join(found)}" for strata, found in sorted(by_strata.items())
    )
    return (
        f"{named}: no human label checks that stratum's machine labels (none of its pairs, nor "
        "of any stratum with the same binary label, was audited), so each of these intervals "
        "is every value the pairs without a human label allow"
    )


def mark_notes(marks: Mapping[str, Sequence[tuple[str, str]]], *, minimum: int) -> list[str]:
    """The notes on the values the intervals marked, in a fixed order. ``marks``: {mark:
    [("system measure", detail)]} for the marks "at_bound", "blind" (detail: the strata
    named), "unseen", "few" (detail: n_b) and "unmeasured"
    (:func:`assess.evaluation.intervals.refined_intervals`); ``minimum``: the n_b an
    interval needs (:data:`assess.evaluation.interval_range.MIN_BEARING`)."""
    notes = []
    if marks["at_bound"]:
        notes.append(one_sided_note([value for value, _ in marks["at_bound"]]))
    if marks["blind"]:
        notes.append(blind_note(marks["blind"]))
    if marks["unseen"]:
        notes.append(unchecked_note([value for value, _ in marks["unseen"]]))
    if marks["few"]:
        notes.append(few_labels_note(marks["few"], minimum=minimum))
    if marks["unmeasured"]:
        notes.append(unmeasured_note([value for value, _ in marks["unmeasured"]]))
    return notes
