"""How the refined-metric intervals are reported: the human labels behind each one (audited
and escalated), a pair comparison as one JSON object, the words that keep the two Kendall
taus of a re-benchmark apart, and the note for a relevance level no judgment reaches. Pure,
no database; shared by :mod:`assess.evaluation.refined_intervals` (the re-benchmark's page,
printout, API and the datasheet) and :mod:`assess.evaluation.budget` (the job's planner).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from core.text import plural

from .interval_comparisons import PairComparison
from .interval_range import MIN_BEARING
from .intervals import Interval

# A re-benchmark shows two Kendall taus that can even differ in sign; each is named by what
# it compares. The first ranks the runs on the refined qrels' point values (debate labels,
# human labels where there are some); the second ranks them by the GREG estimates, the debate
# labels corrected by the audit (prediction-powered inference, PPI).
TAU_DEBATE_LABELS = "original vs refined qrels (debate labels)"
TAU_PPI = "original vs PPI estimates"


@dataclass(frozen=True)
class SampleSize:
    """The human labels behind an interval: ``audited`` agreed pairs with an audit label (the
    estimator's sample, weighted by their inclusion probabilities) and ``escalated`` pairs,
    all judged by humans (a take-all stratum, inclusion 1), whose labels enter every estimate
    as they are. The naive machine-only interval has no audited label behind it."""

    audited: int
    escalated: int

    @property
    def total(self) -> int:
        """Every human label behind the interval."""
        return self.audited + self.escalated

    def text(self) -> str:
        """``1,069 (395 audited, 674 escalated)``."""
        return f"{self.total:,} ({self.audited:,} audited, {self.escalated:,} escalated)"

    def as_json(self) -> dict[str, int]:
        """``{"n": total, "n_audited", "n_escalated"}``."""
        return {"n": self.total, "n_audited": self.audited, "n_escalated": self.escalated}


def sample_of(interval: Interval, *, escalated: int) -> SampleSize:
    """The :class:`SampleSize` of ``interval``, whose ``n_human`` counts its audited labels,
    with the ``escalated`` pairs' human labels the refined set holds."""
    return SampleSize(interval.n_human, escalated)


def interval_json(interval: Interval, sample: SampleSize) -> dict[str, float | int | None]:
    """``{"estimate", "low", "high", "n_human", "n", "n_audited", "n_escalated",
    "n_bearing", "whole_range"}``: ``n_human`` and ``n`` both count every human label behind
    it (audited and escalated); ``n_bearing`` (n_b) the human labels (audited or escalated)
    that bear on this value, on which its width rests (fewer than 5: the interval is the
    value's whole range, and ``whole_range`` is true: :func:`whole_range`; None: no sample
    behind it, as for the LLM-only bootstrap)."""
    return {
        "estimate": interval.estimate,
        "low": interval.low,
        "high": interval.high,
        "n_human": sample.total,
        **sample.as_json(),
        "n_bearing": interval.n_bearing,
        "whole_range": whole_range(interval),
    }


def bearing_text(interval: Interval) -> str:
    """``n_b = 7``: the human labels (audited or escalated) that bear on the value of
    ``interval`` (its ``n_bearing``), shown beside it; "" when no sample is behind it."""
    return "" if interval.n_bearing is None else f"n_b = {interval.n_bearing:,}"


# Beside a value whose bracket is its whole range for want of labels, in place of a 95%
# interval, wherever a "[95%]" column or heading would call it one (page, printout, API
# tables, datasheet).
WHOLE_RANGE = "whole range"
WHOLE_RANGE_NOTE = (
    f"'{WHOLE_RANGE}': fewer than {MIN_BEARING} human labels bear on the value (n_b < "
    f"{MIN_BEARING}), so the bracket is every value the pairs without a human label allow, "
    "not a 95% interval"
)


def whole_range(interval: Interval) -> bool:
    """Whether ``interval`` is its value's whole range rather than a 95% interval: fewer than
    :data:`~assess.evaluation.interval_range.MIN_BEARING` human labels bear on it (its
    ``n_bearing`` known and below; the minimum-sample rule of
    :mod:`assess.evaluation.intervals`)."""
    return interval.n_bearing is not None and interval.n_bearing < MIN_BEARING


def sizes_text(interval: Interval, sample: SampleSize | None = None) -> str:
    """``(whole range; n = 2; n_b = 1)`` after an interval: :data:`WHOLE_RANGE` when
    :func:`whole_range`, ``n`` the human labels behind it when ``sample`` is given, and n_b
    (:func:`bearing_text`); "" when none applies."""
    parts = [WHOLE_RANGE if whole_range(interval) else ""]
    parts += [f"n = {sample.total:,}" if sample else "", bearing_text(interval)]
    shown = [part for part in parts if part]
    return f"({'; '.join(shown)})" if shown else ""


def pair_json(pair: PairComparison, sample: SampleSize) -> dict[str, Any]:
    """One system pair's nDCG@10 difference as the API gives it everywhere (the re-benchmark's
    ``pairs`` and ``budget.undecided_pairs``, the job's ``budget.undecided_pairs``): ``{"a",
    "b", "difference", "low", "high", "settled", "n", "n_audited", "n_escalated",
    "n_bearing", "whole_range"}`` (a - b, its 95% interval, whether the interval excludes 0,
    the human labels behind it, n_b, the human labels (audited or escalated) that bear on
    it, moving the two systems unalike, and whether the interval is the whole range for
    fewer than 5 of them: :func:`whole_range`)."""
    d = pair.difference
    return {
        "a": pair.a,
        "b": pair.b,
        "difference": d.estimate,
        "low": d.low,
        "high": d.high,
        "settled": pair.settled,
        **sample.as_json(),
        "n_bearing": d.n_bearing,
        "whole_range": whole_range(d),
    }


def level_note(*, rel_level: int, grades: Iterable[int]) -> str:
    """A note when no judgment reaches ``rel_level`` (``grades``: every grade of the original
    qrels and of the pool's labels, machine and human), else "". Then no document is
    relevant at that level and every interval's measure is 0 (its estimate 0; a width comes
    only from the variance floor of :mod:`assess.evaluation.intervals`): said in words, as
    ir_measures and trec_eval give 0 for a relevance level above every grade (nothing is
    refused; the leaderboards' nDCG@10 keeps its graded gains)."""
    top = max(grades, default=None)
    if top is not None and top >= rel_level:
        return ""
    highest = "no grade at all" if top is None else f"the highest grade is {top}"
    return (
        f"no judgment reaches relevance level {rel_level} ({highest}): every measure is 0, "
        "and an interval wider than 0 shows only the estimator's allowance for label errors "
        "its sample did not see"
    )


@dataclass(frozen=True)
class SampleSource:
    """The human labels of a refined set's sample that one debate job's reviews gave:
    ``job`` (its id), its ``audit_share``, ``audited`` labels of agreed pairs its audit drew
    (weighted by that job's inclusion probabilities) and ``escalated`` labels of pairs it
    escalated; ``reused`` labels of the set taken over from its debates (label reuse); and
    ``on_pool`` False when the job debated another pool, whose reviews of the same query
    and document count here (:mod:`assess.refined.same_pairs`); ``audits_waiting`` pairs
    of the set its audit drew that have no human label yet and ``escalations_waiting`` pairs
    it escalated that people have not decided (so a job whose labels all wait is listed
    too, not left out as if the set held none of its pairs)."""

    job: int
    audit_share: float
    audited: int
    escalated: int
    reused: int = 0
    on_pool: bool = True
    audits_waiting: int = 0
    escalations_waiting: int = 0

    def text(self) -> str:
        """``job 1 (audit share 50%): 1 audited, 0 escalated``, with ``; 2 labels reused from
        it`` when some were and ``; no human label yet: 7 drawn audits, 57 escalations``
        when some wait."""
        words = (
            f"job {self.job} (audit share {self.audit_share:.0%}): {self.audited:,} audited, "
            f"{self.escalated:,} escalated"
        )
        if self.reused:
            words += f"; {self.reused:,} label{'s' if self.reused != 1 else ''} reused from it"
        waiting = [
            plural(n, what)
            for n, what in (
                (self.audits_waiting, "drawn audit"),
                (self.escalations_waiting, "escalation"),
            )
            if n
        ]
        if waiting:
            words += f"; no human label yet: {', '.join(waiting)}"
        return words


def sources_note(sources: Iterable[SampleSource], *, figures: bool = True) -> str:
    """A note naming the jobs on other pools whose human labels are in the sample (through
    pairs this set shares with their pools, and label reuse), with their audit shares: a
    pair weighs by the union of every job's draws of it, 1 - prod_j (1 - pi_j)
    (:mod:`assess.review.across_jobs`); "" when every human label came from a job on the
    set's pool. ``figures`` False names the jobs only, for a report that lists every job's
    figures just before ("by job: ...")."""
    borrowed = [s for s in sources if not s.on_pool and (s.audited or s.escalated)]
    if not borrowed:
        return ""
    named = "; ".join(s.text() if figures else f"job {s.job}" for s in borrowed)
    return (
        f"human labels from jobs on other pools are in this sample ({named}): their reviews "
        "of the same pairs count here, and a pair any of these jobs could draw is weighted by "
        "its chance of being drawn by at least one of them"
    )


def job_sources_note(sources: Iterable[SampleSource], *, job: int, audit_share: float) -> str:
    """For one job's budget planner: a note when human labels of the sample came from other
    jobs (e.g. reused labels audited by the job they were reused from), naming them with
    their audit shares and this job's own share, so that a job with audit share 0 is never
    read as having drawn an audit; "" when every human label is ``job``'s own."""
    others = [s for s in sources if s.job != job and (s.audited or s.escalated)]
    if not others:
        return ""
    named = "; ".join(s.text() for s in others)
    return (
        f"the human sample is not all this job's: {named}; this job's own audit share is "
        f"{audit_share:.0%}"
    )
