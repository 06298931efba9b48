"""Each system's change of a measure from the original to the refined qrels (Δ = refined −
original) with its 95% interval, and the words the re-benchmark's surfaces (the page's
rank-changes table and plots, the API, the ``rebenchmark`` printout) put beside it. Pure: no
database.

Method. The original score ``b`` is exact: every label of the original qrels is fixed (no
sample is drawn from them), so it carries no sampling error. The Δ's interval is therefore
the refined measure's prediction-powered interval (:mod:`assess.evaluation.intervals`: the
GREG estimator over the audit, Särndal, Swensson and Wretman, *Model Assisted Survey
Sampling*, 1992; prediction-powered inference, Angelopoulos et al., Science 2023;
docs/rebenchmarking.md) shifted by that constant: ``[low − b, high − b]`` around
``estimate − b``, with the refined interval's coverage and its human sample. ``b`` is taken
as the estimator defines the measure (:func:`assess.evaluation.intervals.query_measure` on
the original qrels made binary at the relevance level: binary gains for nDCG@10), so that Δ
compares like with like; on graded qrels it differs from the leaderboard's nDCG@10, whose
gains are the grades, and the prediction-powered Δ (the debate labels corrected by the
audit) can differ from the plain Δ of the debate labels as they are, even in sign.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.text import plural

from .interval_comparisons import PairComparison
from .interval_reports import WHOLE_RANGE_NOTE, SampleSize, interval_json, sizes_text, whole_range
from .intervals import INTERVAL_MEASURES, Interval

# Why the other measures of the re-benchmark have no interval: said once, wherever a Δ of
# theirs is shown beside the ones that have one.
ONLY_THESE = (
    f"the estimator gives intervals for {', '.join(INTERVAL_MEASURES)} only (binary "
    "relevance at the relevance level)"
)


@dataclass(frozen=True)
class DeltaIntervals:
    """``intervals``: ``{measure: {system: Interval}}``, each system's Δ (refined estimate −
    original score) with its 95% interval, for the measures of :data:`INTERVAL_MEASURES`;
    ``original``: ``{measure: {system: b}}``, the original scores subtracted (the
    estimator's definition, see the module docstring); ``samples``: ``{measure: {system:
    SampleSize}}``, every human label behind each (audited and escalated). ``missing``: why
    there is no interval at all (no audit, a set not made by refine...), "" when there
    are."""

    intervals: dict[str, dict[str, Interval]] = field(default_factory=dict)
    original: dict[str, dict[str, float]] = field(default_factory=dict)
    samples: dict[str, dict[str, SampleSize]] = field(default_factory=dict)
    missing: str = ""

    def get(self, measure: str, system: str) -> Interval | None:
        """The Δ interval of ``system`` on ``measure``, or None when there is none."""
        return self.intervals.get(measure, {}).get(system)

    def cell(self, measure: str, system: str) -> str:
        """``-0.1220 [-0.2309, -0.0131] (n = 2; n_b = 7)``, n every human label behind it,
        n_b the human labels (audited or escalated) that bear on it, led by "whole range"
        when fewer than 5 do (:func:`~assess.evaluation.interval_reports.sizes_text`);
        ``n/a`` when there is no interval (the table's note says why)."""
        found = self.get(measure, system)
        if found is None:
            return "n/a"
        sample = self.samples[measure][system]
        bracket = f"{_signed(found.estimate)} [{_signed(found.low)}, {_signed(found.high)}]"
        return f"{bracket} {sizes_text(found, sample)}"

    def sample_text(self, measure: str) -> str:
        """The human labels behind ``measure``'s Δ intervals, ``2 (1 audited, 1
        escalated)``, one figure for all systems when they share the sample (as the GREG
        estimator's systems do), else each system's; "" when there is no interval."""
        texts = {s: sample.text() for s, sample in self.samples.get(measure, {}).items()}
        if len(set(texts.values())) == 1:
            return next(iter(texts.values()))
        return "; ".join(f"{s}: {text}" for s, text in sorted(texts.items()))

    def why_none(self, measure: str) -> str:
        """Why ``measure`` has no Δ interval ("" when it has them)."""
        if self.missing:
            return self.missing
        return "" if measure in self.intervals else ONLY_THESE

    def _range_words(self, measure: str) -> str:
        """``; 'whole range': ...`` when a Δ interval of ``measure`` is its whole range
        (:func:`~assess.evaluation.interval_reports.whole_range`), else ""."""
        marked = any(whole_range(i) for i in self.intervals.get(measure, {}).values())
        return f"; {WHOLE_RANGE_NOTE}" if marked else ""

    def table_note(self, measure: str, rel_level: int) -> str:
        """The rank-changes table's sentence on its ``Δ measure [95%]`` column."""
        if measure not in self.intervals:
            return f"Δ {measure} [95%]: n/a, no interval: {self.why_none(measure)}."
        return (
            f"Δ {measure} [95%]: the prediction-powered refined estimate minus the original "
            f"score, with its 95% interval, n = {self.sample_text(measure)} human labels "
            f"(the sample of the intervals below{self._range_words(measure)}). The original "
            "score is exact, so the "
            "interval is the refined one shifted by it; both sides count relevance as "
            f"grade >= {rel_level} with binary gains (the intervals' definition), so it can "
            f"differ from the plain Δ {measure}, which takes the refined qrels' debate labels "
            "as they are, uncorrected by the audit."
        )

    def plot_caption(self, measures: Sequence[str], rel_level: int) -> str:
        """The Δ plot's caption over ``measures``: what the dots and error bars are, with n,
        and which panels have none and why."""
        have = [m for m in measures if m in self.intervals]
        if not have:
            reason = self.missing or ONLY_THESE
            return f"Bars: plain Δ of the refined qrels' labels. No 95% interval: {reason}."
        samples = {self.sample_text(m) for m in have}
        n = samples.pop() if len(samples) == 1 else "; ".join(self.sample_text(m) for m in have)
        words = (
            "Bars: plain Δ of the refined qrels' labels (debate labels as they are). Dots with "
            "error bars: the prediction-powered Δ (refined estimate − original score, "
            f"relevance grade >= {rel_level}, binary gains) and its 95% PPI interval, "
            f"n = {n} human labels."
        )
        without = [m for m in measures if m not in self.intervals]
        if without:
            words += f" No interval on {', '.join(without)}: {ONLY_THESE}."
        return words

    def as_json(self) -> dict[str, Any]:
        """The API's ``deltas``: ``{"method", "level", "error", "measures": {measure: {system:
        INTERVAL + "original"}}}``, INTERVAL as
        :func:`~assess.evaluation.interval_reports.interval_json` (``estimate``, ``low``,
        ``high``: the Δ), ``original`` the score subtracted; ``error`` why there is none."""
        return {
            "method": "refined prediction-powered interval minus the exact original score "
            "(binary relevance at the relevance level, as the intervals)",
            "level": 0.95,
            "error": self.missing,
            "measures": {
                measure: {
                    system: {
                        **interval_json(found, self.samples[measure][system]),
                        "original": self.original[measure][system],
                    }
                    for system, found in by.items()
                }
                for measure, by in self.intervals.items()
            },
        }


def delta_intervals(
    *,
    refined: Mapping[str, Mapping[str, Interval]],
    original: Mapping[str, Mapping[str, float]],
    samples: Mapping[str, Mapping[str, SampleSize]],
) -> DeltaIntervals:
    """Each system's Δ interval: ``refined`` ``{measure: {system: Interval}}`` (95%,
    prediction-powered) minus ``original`` ``{measure: {system: exact score}}``, ends and
    estimate alike (see the module docstring); ``samples`` the human labels behind each
    refined interval. Only (measure, system) in both are kept. Pure."""
    intervals: dict[str, dict[str, Interval]] = {}
    kept: dict[str, dict[str, float]] = {}
    for measure, by in refined.items():
        for system, found in by.items():
            if system not in original.get(measure, {}):
                continue
            b = original[measure][system]
            shifted = Interval(
                found.estimate - b, found.low - b, found.high - b, found.n_human, found.n_bearing
            )
            intervals.setdefault(measure, {})[system] = shifted
            kept.setdefault(measure, {})[system] = b
    return DeltaIntervals(
        intervals=intervals,
        original=kept,
        samples={m: {s: samples[m][s] for s in by} for m, by in intervals.items()},
    )


def order_caption(pairs: Sequence[PairComparison] | None, missing: str = "") -> str:
    """The rank plot's words on the refined order: ``refined order settled for 1 of 3 system
    pairs at 95% (prediction-powered nDCG@10 difference; undecided: a-b, ...)``; with no pair
    (one system) "", and without intervals ``missing`` said as the reason none is known."""
    if pairs is None:
        return f"Refined order not tested: no interval ({missing})." if missing else ""
    if not pairs:
        return ""
    settled = sum(p.settled for p in pairs)
    undecided = [f"{p.a}-{p.b}" for p in pairs if not p.settled]
    words = (
        f"Refined order settled for {settled:,} of {plural(len(pairs), 'system pair')} at "
        "95% (the prediction-powered nDCG@10 difference of each pair, binary gains)"
    )
    if undecided:
        shown = ", ".join(undecided[:6]) + (", ..." if len(undecided) > 6 else "")
        words += f"; undecided: {shown}: label errors could reverse them"
    return words + "."


def _signed(value: float) -> str:
    """``+0.0123``, ``-0.0040`` or ``0.0000`` (a change, with its sign)."""
    return "0.0000" if round(value, 4) == 0 else f"{value:+.4f}"


def not_refined_note(name: str) -> str:
    """What a re-benchmark says when its "refined" side ``name`` was not made by ``refine``
    (an imported set compared as the second qrels): the tables' "refined" is that set, and
    its labels are no debate's."""
    return (
        f"qrel set {name!r} was imported, not made by refine: it is compared as the second "
        'qrel set, so "refined" below means this set and its labels are not debate labels'
    )


def not_refined(name: str) -> DeltaIntervals:
    """The Δ intervals of a refined side that was not made by ``refine`` (an imported set):
    none, and why."""
    return DeltaIntervals(
        missing=f"qrel set {name!r} was not made by refine, so no label has a provenance to "
        "sample from"
    )
