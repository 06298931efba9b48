"""A binomial share with its confidence interval, for every app that reports one. Pure: no
database, no network.

- The Wilson score interval (E. B. Wilson, "Probable inference, the law of succession, and
  statistical inference", JASA 22(158), 1927) for a binomial proportion. Unlike the normal
  (Wald) interval it stays inside [0, 1] and is not empty when no error (or no success) was
  found.
- The mean of two independent shares (a balanced accuracy: the mean of the recalls of two
  classes, measured on disjoint pairs) with the MOVER interval built from their Wilson
  intervals (G. Y. Zou and A. Donner, "Construction of confidence limits about effect
  measures: a general approach", Statistics in Medicine 27(10), 2008; for a difference of
  two shares it is R. G. Newcombe's method 10, Statistics in Medicine 17(8), 1998). Like
  its parts it stays inside [0, 1] and is asymmetric near the ends, where a normal interval
  around the mean would overshoot or vanish.
- The weighting-class adjustment for drawn pairs whose label is not in yet
  (:func:`response_factors`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TypeVar

Z_95 = 1.959963984540054  # two-sided 95% quantile of the standard normal


@dataclass(frozen=True, slots=True)
class Proportion:
    """``successes`` of ``n`` with its point estimate and a confidence interval (shares);
    ``weighted``: the estimate weighs each item by 1 / its inclusion probability, so it is not
    ``successes / n``, and the interval is taken at ``n_effective`` (an effective sample
    size, :func:`assess.review.agreement.audit_effective_size`; None when not weighted)
    instead of ``n`` (:func:`assess.review.agreement.audit_error_rate`)."""

    successes: int
    n: int
    estimate: float | None
    low: float | None
    high: float | None
    confidence: float = 0.95
    weighted: bool = False
    n_effective: float | None = None

    def as_json(self) -> dict[str, int | float | None]:
        """``{"successes", "n", "estimate", "low", "high", "confidence"}``: the shape every
        API answer and ``--json`` printout gives a share in."""
        return {
            "successes": self.successes,
            "n": self.n,
            "estimate": self.estimate,
            "low": self.low,
            "high": self.high,
            "confidence": self.confidence,
        }


def wilson_interval(successes: int, n: int, *, z: float = Z_95) -> Proportion:
    """The share ``successes / n`` with its Wilson score interval (default 95%, z = 1.96).

    centre = (p + z^2 / 2n) / (1 + z^2 / n),
    half width = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / 4n^2).
    ``n = 0`` gives an estimate and interval of None. Raises ValueError unless
    0 <= successes <= n.
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return Proportion(successes, n, None, None, None)
    p = successes / n
    return Proportion(successes, n, p, *wilson_bounds(p, n, z))


def wilson_bounds(p: float, n: float, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval's ends for a share ``p`` of ``n`` (n > 0, not necessarily
    whole: an effective sample size), clipped to [0, 1]; exactly 0 at p = 0, 1 at p = 1."""
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # At p = 0 (or 1) the bound is exactly 0 (or 1): centre and half width are then equal,
    # but their floating-point difference can leave 3e-18 where a page or the API should read 0.
    low = 0.0 if p == 0 else max(0.0, centre - half)
    high = 1.0 if p == 1 else min(1.0, centre + half)
    return low, high


def mean_interval(a: Proportion, b: Proportion) -> tuple[float, float] | None:
    """The MOVER interval (module docstring) of the mean of two independent shares ``a`` and
    ``b`` from their own intervals (Wilson, at the same confidence):

    low = m - sqrt((a - a.low)^2 + (b - b.low)^2) / 2,
    high = m + sqrt((a.high - a)^2 + (b.high - b)^2) / 2, with m = (a + b) / 2.

    None when either share is undefined (n = 0)."""
    if a.estimate is None or b.estimate is None:
        return None
    if a.low is None or a.high is None or b.low is None or b.high is None:
        return None
    mean = (a.estimate + b.estimate) / 2
    below = math.hypot(a.estimate - a.low, b.estimate - b.low) / 2
    above = math.hypot(a.high - a.estimate, b.high - b.estimate) / 2
    return max(0.0, mean - below), min(1.0, mean + above)


def response_factors(
    answered: Sequence[bool], drawn: Sequence[bool], inclusion: Sequence[float]
) -> list[float]:
    """Per pair of one stratum, the factor its inclusion probability is multiplied by when
    the drawn pairs not ``answered`` yet are missing at random within weighting classes
    (Kalton and Flores-Cervantes, "Weighting methods", J. Official Statistics 19(2), 2003:
    weighting classes and collapsing them).

    A class is the stratum's pairs of one ``inclusion`` probability. A class with a drawn
    pair but no answered one joins the class at the nearest probability that has an
    answered pair (the lower one on a tie); one with no drawn pair, or in a stratum with no
    answered pair at all, stays alone. A group's factor is the sum of 1 / pi over its
    answered pairs divided by the sum of 1 / pi over its drawn pairs (1 with no drawn pair,
    0 with no answered one), so its answered pairs, weighed 1 / (pi x factor), stand for
    its drawn pairs' 1 / pi in all; for one class it is the share answered. An answered
    pair must be drawn. Raises ValueError when a drawn pair's probability is not > 0.

    Why not the share answered in a joined group: each pair keeps its own pi, so the
    answered pairs of a small class (pi 0.02, weight 50) scaled by the group's count rate
    would stand for the other class's pairs at the small class's weight, many times more
    than they were drawn for."""
    classes: dict[float, list[int]] = {}
    for i, pi in enumerate(inclusion):
        if drawn[i] and pi <= 0:
            raise ValueError(f"a drawn pair needs an inclusion probability > 0, got {pi}")
        classes.setdefault(pi, []).append(i)
    replied = [pi for pi, members in classes.items() if any(answered[i] for i in members)]
    groups: dict[float, list[int]] = {}
    for pi, members in classes.items():
        joins = replied and pi not in replied and any(drawn[i] for i in members)
        group = min(replied, key=lambda a: (abs(a - pi), a)) if joins else pi
        groups.setdefault(group, []).extend(members)
    out = [1.0] * len(inclusion)
    for members in groups.values():
        drawn_weight = sum(1.0 / inclusion[i] for i in members if drawn[i])
        answered_weight = sum(1.0 / inclusion[i] for i in members if answered[i])
        for i in members:
            out[i] = answered_weight / drawn_weight if drawn_weight else 1.0
    return out


_Stratum = TypeVar("_Stratum", bound=Hashable)


def collapse_targets(
    answered: Mapping[_Stratum, int],
    labels: Mapping[_Stratum, AbstractSet[object]],
    *,
    minimum: int = 1,
) -> dict[_Stratum, _Stratum]:
    """Which stratum each stratum with fewer than ``minimum`` answered pairs joins:
    ``answered`` counts each stratum's answered (human-labelled) pairs, ``labels`` the machine
    labels its pairs carry. Such a stratum with one label joins the stratum of that same
    label with the most answers (the larger name as text on a tie), unless it is that
    stratum itself; one with no such sibling that has answers, or with several labels, is
    not in the result (collapsed strata: Cochran, *Sampling Techniques*, 3rd ed., 1977, sec.
    5A.12; Kish, *Survey Sampling*, 1965, sec. 8.6). A target has answers and is the most
    answered of its label, so it never joins another: the result does not depend on the order
    strata are taken in. ``minimum`` 1: only strata with no answer join; 2: also those with
    one, whose residual from their own mean is 0 whatever the truth, so their variance
    cannot be estimated (Cochran sec. 5A.12, one unit per stratum)."""
    targets: dict[_Stratum, _Stratum] = {}
    for stratum, count in answered.items():
        if count >= minimum or len(labels[stratum]) != 1:
            continue
        siblings = [
            other for other in answered if answered[other] and labels[other] == labels[stratum]
        ]
        if not siblings:
            continue
        target = max(siblings, key=lambda o: (answered[o], str(o)))
        if target != stratum:
            targets[stratum] = target
    return targets
