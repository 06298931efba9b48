"""What a simulated refinement study checks beyond each system's own interval: the paired
difference intervals of every system pair, the orders they call settled, and the interval on
Kendall's tau between the original and the refined leaderboard
(:mod:`assess.evaluation.interval_comparisons`). Pure, no database; every label behind these
figures is simulated (:mod:`assess.evaluation.simulation`).

The claims checked, per measure, against the perfect assessor's completion of the pool:
- a difference interval (95%, paired) contains the true difference about 95% of the time;
- a pair whose interval excludes 0 ("settled") is ordered as the truth orders it, but for
  about 2.5% of the pairs whose true difference is near 0 (each interval is at 95% on its own,
  no multiplicity adjustment, as the re-benchmark page says);
- the tau interval (Bonferroni over the pairs, conservative by construction) contains the true
  tau, that between the original scores and the completed ones, at least 95% of the time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .interval_comparisons import kendall_tau_interval, pair_comparisons, sign
from .intervals import SystemIntervals
from .metrics import kendall_tau


@dataclass
class ComparisonTally:
    """Coverage of one measure's pair-difference and tau intervals over a study.

    ``pairs``: (replication, system pair) difference intervals made; ``covered``: those that
    contain the true difference; ``settled``: those that exclude 0; ``wrongly_settled``: the
    settled ones whose sign differs from the true difference's (a true difference of exactly
    0 counts as wrong: no order is right). ``tau_*`` the same for the tau interval, one per
    replication; ``tau_undefined``: replications where tau has no value (fewer than two
    systems, or a constant side)."""

    pairs: int = 0
    covered: int = 0
    width_sum: float = 0.0
    settled: int = 0
    wrongly_settled: int = 0
    tau_intervals: int = 0
    tau_covered: int = 0
    tau_width_sum: float = 0.0
    tau_undefined: int = 0

    def add(
        self,
        found: SystemIntervals,
        measure: str,
        truths: Mapping[str, float],
        original: Mapping[str, float],
    ) -> None:
        """Count one replication: ``found`` the prediction-powered intervals, ``truths``
        ``{system: the completed value of measure}``, ``original`` ``{system: its value
        under the starting qrels}`` (the leaderboard tau compares against)."""
        for pair in pair_comparisons(found, measure):
            true_diff = truths[pair.a] - truths[pair.b]
            interval = pair.difference
            self.pairs += 1
            self.covered += interval.contains(true_diff)
            self.width_sum += interval.high - interval.low
            if pair.settled:
                # A true difference of 0 (up to rounding) has no right order.
                truth_sign = sign(true_diff)
                self.settled += 1
                self.wrongly_settled += truth_sign == 0 or truth_sign != sign(interval.estimate)
        tau = kendall_tau_interval(found, original, measure=measure)
        # kendall_tau rounds the scores: exactly tied systems, differing by float rounding
        # only, are tied.
        true_tau, _ = kendall_tau(dict(original), dict(truths))
        if tau is None or true_tau is None:
            self.tau_undefined += 1
            return
        _, low, high = tau
        self.tau_intervals += 1
        self.tau_covered += low - 1e-12 <= true_tau <= high + 1e-12
        self.tau_width_sum += high - low

    def summary(self) -> dict[str, object]:
        """``{"pairs", "coverage", "mean_width", "settled_share", "wrongly_settled",
        "wrongly_settled_share" (of the settled), "tau": {"intervals", "coverage",
        "mean_width", "undefined"}}``; a share is None when nothing was counted."""

        def share(part: float, whole: int) -> float | None:
            return round(part / whole, 4) if whole else None

        return {
            "pairs": self.pairs,
            "coverage": share(self.covered, self.pairs),
            "mean_width": share(self.width_sum, self.pairs),
            "settled_share": share(self.settled, self.pairs),
            "wrongly_settled": self.wrongly_settled,
            "wrongly_settled_share": share(self.wrongly_settled, self.settled),
            "tau": {
                "intervals": self.tau_intervals,
                "coverage": share(self.tau_covered, self.tau_intervals),
                "mean_width": share(self.tau_width_sum, self.tau_intervals),
                "undefined": self.tau_undefined,
            },
        }
