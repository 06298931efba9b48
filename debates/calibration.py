"""Calibration of probabilities against 0/1 outcomes: expected calibration error with
equal-mass bins, the Brier score and the reliability diagram's bins. Pure: no database.

Inputs are predicted probabilities ``p`` (P(relevant) in [0, 1]) and outcomes ``y`` (1 when
the human label says relevant, 0 when not), of equal length. Any source of probabilities
can be scored: the debaters' label probabilities, or a calibrated judge's P(relevant).

- **Reliability bins** (DeGroot and Fienberg, 1983, "The comparison and evaluation of
  forecasters", The Statistician 32; Guo et al., 2017, "On Calibration of Modern Neural
  Networks", ICML, arXiv 1706.04599, section 2): the points sorted by ``p`` and cut into
  ``bins`` groups of equal size (equal mass: adaptive bins, Nixon et al., 2019, "Measuring
  Calibration in Deep Learning", CVPR workshops, arXiv 1904.01685, section 4); points sharing
  one ``p`` stay in one bin, so bins may differ in size and there may be fewer than asked.
  Each bin gives its count, its mean ``p`` and its observed rate of ``y`` = 1.
- **Expected calibration error**: the count-weighted mean over those bins of
  ``|observed rate - mean p|`` (Guo et al. 2017 eq. 3 with Nixon et al.'s adaptive bins).
- **Brier score** (Brier, 1950, "Verification of forecasts expressed in terms of
  probability", Monthly Weather Review 78(1)): the mean of ``(p - y)^2``; 0 is perfect, 0.25
  is always saying 0.5.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_BINS = 10


@dataclass(frozen=True, slots=True)
class ReliabilityBin:
    """One bin of a reliability diagram: ``count`` points, their mean predicted probability
    ``mean_p`` and the share ``observed`` of them whose outcome is 1 (both in [0, 1])."""

    count: int
    mean_p: float
    observed: float


@dataclass(frozen=True, slots=True)
class Calibration:
    """The figures of one set of (p, y): ``n`` points, ``ece`` and ``brier`` (in [0, 1]) and
    the reliability ``bins`` the ECE was computed from."""

    n: int
    ece: float
    brier: float
    bins: tuple[ReliabilityBin, ...]


def _checked(p: Sequence[float], y: Sequence[int]) -> tuple[list[float], list[int]]:
    """``p`` and ``y`` as lists, or ValueError saying what is wrong."""
    if len(p) != len(y):
        raise ValueError(f"p and y differ in length: {len(p)} probabilities, {len(y)} outcomes")
    if not p:
        raise ValueError("no points: calibration needs at least one (p, y)")
    probabilities = [float(value) for value in p]
    for index, value in enumerate(probabilities):
        if math.isnan(value) or not 0.0 <= value <= 1.0:
            raise ValueError(f"p[{index}] = {value} is not a probability in [0, 1]")
    outcomes: list[int] = []
    for index, outcome in enumerate(y):
        if outcome not in (0, 1) or isinstance(outcome, float):
            raise ValueError(f"y[{index}] = {outcome!r} is not an outcome 0 or 1")
        outcomes.append(int(outcome))
    return probabilities, outcomes


def reliability_bins(
    p: Sequence[float], y: Sequence[int], bins: int = DEFAULT_BINS
) -> tuple[ReliabilityBin, ...]:
    """The equal-mass reliability bins of (p, y), lowest ``p`` first (module docstring).

    Bin k holds the sorted points from index round(k n / bins) up to the next such index,
    extended so equal ``p`` values never straddle two bins; empty bins are dropped. Example:
    p = (0.1, 0.3, 0.6, 0.8), y = (0, 1, 1, 1), 2 bins: (2, 0.2, 0.5), (2, 0.7, 1.0).
    Raises ValueError when the lengths differ, there is no point, a ``p`` is outside [0, 1],
    a ``y`` is not 0 or 1, or ``bins`` < 1.
    """
    if bins < 1:
        raise ValueError(f"bins must be at least 1, got {bins}")
    probabilities, outcomes = _checked(p, y)
    points = sorted(zip(probabilities, outcomes, strict=True))
    n = len(points)
    out: list[ReliabilityBin] = []
    start = 0
    for k in range(1, bins + 1):
        stop = max(start, round(k * n / bins))
        while 0 < stop < n and points[stop][0] == points[stop - 1][0]:
            stop += 1  # ties stay together
        if stop > start:
            group = points[start:stop]
            out.append(
                ReliabilityBin(
                    count=len(group),
                    mean_p=sum(q for q, _ in group) / len(group),
                    observed=sum(o for _, o in group) / len(group),
                )
            )
        start = stop
    return tuple(out)


def expected_calibration_error(
    p: Sequence[float], y: Sequence[int], bins: int = DEFAULT_BINS
) -> float:
    """ECE with equal-mass bins: sum over :func:`reliability_bins` of count / n times
    |observed - mean_p|, in [0, 1]. Example above: 2/4 * |0.5 - 0.2| + 2/4 * |1.0 - 0.7| =
    0.3. Raises ValueError as :func:`reliability_bins` does."""
    found = reliability_bins(p, y, bins)
    n = sum(b.count for b in found)
    return sum(b.count / n * abs(b.observed - b.mean_p) for b in found)


def brier_score(p: Sequence[float], y: Sequence[int]) -> float:
    """Mean of (p - y)^2, in [0, 1] (Brier 1950). Example above: (0.01 + 0.49 + 0.16 +
    0.04) / 4 = 0.175. Raises ValueError as :func:`reliability_bins` does (bins aside)."""
    probabilities, outcomes = _checked(p, y)
    return sum((q - o) ** 2 for q, o in zip(probabilities, outcomes, strict=True)) / len(outcomes)


def calibration_summary(
    p: Sequence[float], y: Sequence[int], bins: int = DEFAULT_BINS
) -> Calibration:
    """n, ECE, Brier score and reliability bins of (p, y) at once. Raises ValueError as
    :func:`reliability_bins` does."""
    found = reliability_bins(p, y, bins)
    return Calibration(
        n=len(p),
        ece=expected_calibration_error(p, y, bins),
        brier=brier_score(p, y),
        bins=found,
    )
