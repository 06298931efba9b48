"""The datasheet's section on the refined measures' 95% intervals: the method, the human
labels behind them (audited and escalated), each run's estimates, the settled run pairs and
Kendall's tau of the original scores and the PPI estimates. Pure: no database.

The figures are computed by evaluation (``assess.evaluation.refined_intervals``, which this
package may not import) and handed in as plain values by ``assess.datasheet_intervals``.
Values from the database (run names, notes, errors) are written with the datasheet's own
writers (``code``, ``text`` and ``flat``: :func:`assess.refined.datasheet_markdown.md_code`,
``md_inline``, ``one_line``), so this module never decides how untrusted text is escaped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from core.text import plural

from .datasheet_ranking import RankingSheet

HEADING = "## Intervals on the refined measures"

# Why a run's value on the shipped qrels and its estimate differ, said once beside them.
PLAIN_VS_ESTIMATE = (
    "The qrels hold the labels as decided (the debates' consensus where no human judged a "
    "pair), so a run's value on them, which trec_eval or ir_measures compute from this zip, "
    "takes the debate labels' errors as they are; the estimate beside it corrects the errors "
    "that the audit measured, so the two differ by what the audit found wrong (and, on "
    "graded qrels, nDCG@10's binary gains)."
)

# The method, with its sources; the formulas are in assess/evaluation/intervals.py.
INTERVALS_METHOD = (
    "Each run's measures as they would be with a human label on every pooled pair are "
    "estimated by a model-assisted (GREG) "
    "survey estimator (Sarndal, Swensson and Wretman 1992) in the spirit of "
    "prediction-powered inference (Angelopoulos, Bates, Fannjiang, Jordan and Zrnic, "
    "Science 382, 2023): the audit, a probability sample of the agreed pairs, gives per "
    "consensus stratum and rank band how often humans call such a pair relevant; the "
    "measure is computed with the unaudited pairs at that probability, then corrected by "
    "the audited pairs' residuals weighted by their inclusion probabilities (escalated "
    "pairs are all labelled by humans). Each cell's variance is at least that of its "
    "human-relevant rate at the 95% point of its Jeffreys posterior, a floor beyond the GREG "
    "variance that is a heuristic, tuned in simulation. Each interval is the t quantile on "
    "n_b - 1 degrees of freedom times its standard error, n_b the human labels (audited or "
    "escalated) that bear on that value (the effective number of its variance's terms, "
    "among the pairs in the top k it reads); with n_b below 5 (a convention) it is every value the "
    "unjudged pairs "
    "allow. nDCG@10 has binary gains here. Intervals are at 95%, conditional on the "
    "evaluated queries; how they are computed and checked: `docs/rebenchmarking.md` of "
    '{software}, section "Intervals".'
)


@dataclass(frozen=True, slots=True)
class IntervalCell:
    """One 95% interval: the point ``estimate``, its ``low`` and ``high`` ends, the
    ``n_human`` human labels behind it (audited and escalated) and ``n_bearing`` (n_b), the
    human labels (audited or escalated) that bear on this value (None: not known);
    ``plain`` the run's value on the zip's qrels as they are (what ir_measures computes from
    them; None: not known); ``whole_range`` True when fewer than 5 human labels bear on it,
    so ``low``..``high`` is every value the pairs without a human label allow, not a 95%
    interval."""

    estimate: float
    low: float
    high: float
    n_human: int
    n_bearing: int | None = None
    plain: float | None = None
    whole_range: bool = False


@dataclass(frozen=True, slots=True)
class IntervalsSheet:
    """The refined measures' 95% intervals (computed outside this package, by
    ``assess.evaluation.refined_intervals.refinement_intervals``, and handed in as plain
    values), or ``error`` saying why there are none.

    ``systems``: ``{run name: {measure: IntervalCell}}``; ``audited``: agreed pairs with an
    audit human label (the estimator's sample); ``escalated``: escalated pairs, all
    human-labelled (their labels enter every estimate as they are); ``agreed``:
    machine-labelled pairs (the debates' consensus); ``audit_waiting``: agreed pairs drawn for
    the audit whose human label is not in yet; ``unresolved``: pool pairs without a final
    label, left out of the qrels (the notes say how the intervals take them, when computed);
    ``beyond_budget``: a budgeted pool's pairs beyond its budget, left unjudged by design
    (not in ``unresolved``; not relevant in the point values and the intervals);
    ``pairs`` system pairs compared on nDCG@10 and ``settled`` of them with their order
    settled at 95%; ``tau``: Kendall's tau between the runs' original
    nDCG@10 and their PPI estimates, with its interval (low, high); ``caveat``: the measured
    coverage sentence (our own text, written as it is); ``notes``: what the estimator noted
    (strata without a human label...), which, like ``error`` and the run names, may quote
    ids from the database and are escaped; ``ranking``: the same re-benchmark's ranking
    agreement and RBP, rendered as a section of its own (None: not computed)."""

    error: str = ""
    systems: Mapping[str, Mapping[str, IntervalCell]] = field(default_factory=dict)
    audited: int = 0
    escalated: int = 0
    agreed: int = 0
    audit_waiting: int = 0
    unresolved: int = 0
    beyond_budget: int = 0
    pairs: int = 0
    settled: int = 0
    tau: tuple[float, float, float] | None = None
    caveat: str = ""
    notes: tuple[str, ...] = ()
    ranking: RankingSheet | None = None


# Beside a cell whose bracket is its whole range, as the page and the printout mark it.
WHOLE_RANGE = "whole range"


def _cell(c: IntervalCell) -> str:
    plain = "" if c.plain is None else f"{c.plain:.4f} on the qrels, estimate "
    marked = f"{WHOLE_RANGE}; " if c.whole_range else ""
    bearing = "" if c.n_bearing is None else f"; n_b = {c.n_bearing:,}"
    return (
        f"{plain}{c.estimate:.4f} [{c.low:.4f}, {c.high:.4f}] ({marked}n = {c.n_human:,}{bearing})"
    )


def _estimates(v: IntervalsSheet, code: Callable[[str], str]) -> list[str]:
    """Per run its cells, the settled pairs and Kendall's tau, each with its n."""
    split = f"{v.audited:,} audited + {v.escalated:,} escalated"
    every = [c for by in v.systems.values() for c in by.values()]
    plain = (
        "the value on this zip's qrels as they are, then "
        if any(c.plain is not None for c in every)
        else ""
    )
    ranged = (
        f'; "{WHOLE_RANGE}": fewer than 5 human labels bear on the value (n_b < 5), so the '
        "bracket is every value the pairs without a human label allow, not a 95% interval"
        if any(c.whole_range for c in every)
        else ""
    )
    lines = [
        f"- Per run: {plain}estimate [95% interval] (n = human labels behind it, {split}; "
        f"n_b = the human labels (audited or escalated) that bear on it{ranged}):"
    ]
    for system, by in sorted(v.systems.items()):
        # nDCG@10 first (the measure the rest of the section is about), then by name.
        order = sorted(by, key=lambda m: (m != "nDCG@10", m))
        cells = "; ".join(f"{code(m)} {_cell(by[m])}" for m in order)
        lines.append(f"  - {code(system)}: {cells}")
    n = f"n = {v.audited + v.escalated:,} human labels ({split})"
    if v.pairs:
        lines.append(
            f"- Run pairs whose nDCG@10 order is settled at 95%: {v.settled:,} of {v.pairs:,} "
            f"({v.settled / v.pairs:.0%}), {n}; settled: the 95% interval on the pair's "
            "paired per-query difference excludes 0, each pair's interval on its own, not "
            f"adjusted for the {plural(v.pairs, 'pair')} compared (of truly tied pairs, about "
            "5% may look settled; the tau interval below is adjusted)"
        )
    if v.tau is not None:
        tau, low, high = v.tau
        lines.append(
            f"- Kendall's tau, original vs PPI estimates (nDCG@10) [95% interval]: {tau:.3f} "
            f"[{low:.3f}, {high:.3f}], {n}; not the tau-b of the ranking agreement below, "
            "which ranks the runs on the refined qrels' debate labels"
            + ("; with two runs tau is 1 or -1 and nothing between" if v.pairs == 1 else "")
        )
    return lines


def _sample_sizes(v: IntervalsSheet) -> str:
    """The sample sizes line: human labels, drawn audits waiting, machine labels, pairs
    without a final label (how the intervals take the missing ones is in the notes, when
    intervals were computed: with ``error`` the notes say nothing of intervals) and, apart,
    a budgeted pool's pairs beyond its budget, left unjudged by design."""
    waiting = f" ({v.audit_waiting:,} more drawn, not judged yet)" if v.audit_waiting else ""
    them = "it" if v.unresolved == 1 else "them"
    how = "" if v.error else f"; the notes say how the intervals take {them}"
    unresolved = f" (so not relevant in the point values{how})" if v.unresolved else ""
    return (
        f"- Sample sizes: {plural(v.audited + v.escalated, 'human label')} ("
        f"{plural(v.audited, 'audited agreed pair')}{waiting}, "
        f"{plural(v.escalated, 'escalated pair')}); "
        f"{plural(v.agreed, 'machine label')} (the debates' consensus); "
        f"{plural(v.unresolved, 'pair')} without a final label, left out of the qrels{unresolved}"
        + _beyond_words(v)
    )


def _beyond_words(v: IntervalsSheet) -> str:
    """`` + 1 pair beyond the pool's budget, ...`` for the sample sizes line, "" when none:
    the same pairs the labels section counts apart from the unresolved ones."""
    if not v.beyond_budget:
        return ""
    them = "it" if v.beyond_budget == 1 else "them"
    also = "" if v.error else " and the intervals"
    return (
        f" + {plural(v.beyond_budget, 'pair')} beyond the pool's budget, left unjudged by "
        f"design (out of the qrels too, the point values{also} count {them} as not relevant)"
    )


def interval_lines(
    v: IntervalsSheet | None,
    *,
    code: Callable[[str], str],
    text: Callable[[str], str],
    flat: Callable[[str], str],
    software: str = "DREAM Assess (version unknown)",
) -> list[str]:
    """The section's Markdown lines: the method (citing the manual of ``software``, the
    DREAM Assess that wrote the file, already inert Markdown), why a run's value on the
    qrels and its estimate differ, the sample sizes, then the estimates or why there are
    none, the caveat and the notes. ``code`` writes a run or measure name as an inert code
    span, ``text`` database text as inert Markdown, ``flat`` our own text on one line.
    ``v`` None: the section says none was computed."""
    lines = [HEADING, ""]
    if v is None:
        return [*lines, "No interval was computed for this file."]
    method = INTERVALS_METHOD.format(software=software)
    if any(c.plain is not None for by in v.systems.values() for c in by.values()):
        method += " " + PLAIN_VS_ESTIMATE
    lines += [method, "", _sample_sizes(v)]
    if v.error:
        lines.append(f"- No interval: {text(v.error)}")
    else:
        lines += _estimates(v, code)
    if v.caveat:
        lines.append(f"- Caveat: {flat(v.caveat)}")
    lines += [f"- Note: {text(note)}" for note in v.notes]
    return lines
