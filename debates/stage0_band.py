"""Which pairs stage 0 may settle: the band of its confidence, chosen on human labels so that
its labels agree with humans. Pure, no database.

Stage 0 (:mod:`debates.stage0`) gives each pair a calibrated P(relevant) p. It settles a pair
as relevant when p >= ``high`` and as non-relevant when p <= ``low``; the pairs in between are
debated. The bounds are chosen on a human-labelled calibration set by **fixed-sequence
testing** (Bauer, "Multiple testing in clinical trials", Stat. Med. 1991; used for selective
LLM judging by Jung, Brahman and Choi, "Trust or Escalate", ICLR 2025, and for choosing a
threshold by Angelopoulos et al., "Learn then Test", 2021):

- The candidate thresholds of a side are fixed before the data are seen
  (:data:`HIGH_GRID`, from the most confident down; :data:`LOW_GRID`, the mirror).
- At threshold t the null hypothesis is "the error rate among the calibration pairs stage 0
  would settle at t is above alpha". With n such pairs and k of them labelled otherwise by
  humans, its p-value is the binomial tail P(Bin(n, alpha) <= k).
- The thresholds are tested in order while the null is rejected at level delta / 2; the side's
  bound is the last rejected threshold. Testing in a fixed order spends no level on the
  number of thresholds tried. A threshold with too few pairs beyond it to ever be rejected
  is passed over (that depends on the scores only, not on the labels).

Each side then has error <= alpha among the pairs it settles with probability >= 1 - delta/2
(for pairs exchangeable with the calibration set), so both sides together keep the error of
every settled label <= alpha with probability >= 1 - delta (a union bound). A side that
cannot reject even its most confident threshold settles nothing; with no error at all a
side needs :func:`labels_needed` calibration pairs beyond its threshold.

**Holes given up (``beta``).** An error rate bounds wrong labels, not lost relevant pairs: on
a pool of holes a few percent relevant, the non-relevant side can keep its error under alpha
and still label a third of the relevant holes "non-relevant" (measured on NFCorpus,
docs/measured.md), and a benchmark refined to find holes would hide them as judged. So the
non-relevant side may also bound its *miss rate*: the chance that a relevant pair has P at or
below the threshold. At threshold t its second null is "that chance is above beta"; with m
relevant calibration pairs, j of them at or below t, its p-value is P(Bin(m, beta) <= j)
(given m, the relevant calibration pairs are a simple random sample of the calibration pools'
relevant pairs, since the band sample is an equal-probability sample of those pools). The
side rejects at t only when both nulls are rejected at level delta/2: an intersection-union
test (Berger, "Multiparameter hypothesis testing and acceptance sampling", Technometrics
1982), which needs no further split of the level, its p-value the larger of the two. Walking
the same fixed sequence, the side's bound keeps both its error rate <= alpha and its miss
rate <= beta with probability >= 1 - delta/2. Both are rates of the population the
calibration pairs come from: a job's own share of relevant pairs settled non-relevant
scatters around its miss rate (with 30 relevant holes and a miss rate of exactly 0.1, more
than 3 are missed about a third of the time), as its own error share scatters around the
error rate. With no relevant pair below the threshold the side needs :func:`relevant_needed`
relevant calibration pairs (29 at beta 0.1, delta 0.1): a pool with few relevant pairs may
never let it settle, the honest answer when nothing shows how many holes settling would give
up. ``beta`` >= 1 turns the bound off (the side then bounds its error only, as before this
bound existed).

Which labels calibrate (:func:`band_sample`). The guarantee holds for the pairs the band is
applied to only if the calibration pairs are exchangeable with them, and stage 0 settles a
job's *pooled* pairs before any debate: a pool's holes, of which only a few percent are
relevant. So both sides are chosen on human labels of pooled pairs (a review's escalations and
audits), never on a collection's qrels: those list the pairs its original pools judged, most
of them relevant on SciFact and NFCorpus, on which settling "non-relevant" looks wrong most of
the time and settling "relevant" looks safe (measured: a relevant side set on them promised 30%
errors and gave 84% on holes). Nor are the review's labels taken as they come: a job sends
every escalated pair to people but only a share of the agreed ones, so they over-represent the
pairs the debaters disagreed on. Each label is kept with probability ``rate / inclusion``
(``inclusion``: the chance its pair went to people, 1 for an escalation, its audit stratum's
probability for an audit; ``rate``: the smallest probability with which any settled pair of
the labels' jobs went to people), by a seeded hash of the pair independent of the audit's
own draw, so every settled pair of those jobs ends in the calibration set with the same
probability ``rate``: given its size, a simple random sample of their pooled pairs. A job
whose agreed labels were never audited (``floor`` 0) gives none: its escalations alone are
no sample of its pool.

Assumptions, stated because the guarantee rests on them: the calibration pools' pairs are
drawn like the pairs stage 0 settles (pools of the same kind on the same collection); every
escalated pair and every audit drawn gets its human label in the end (labels still open are
missing at random); the binomial test takes the calibration pairs as independent draws, but
they come in clusters (the pairs of one query), so with strongly query-dependent errors the
level is optimistic; passing over the leading thresholds with too few pairs conditions on the
scores, which keeps the test valid when the error rate does not rise as confidence rises (a
calibrated judge's does not). The holes bound leans harder on two of these: relevant holes
cluster in a few queries, so its m relevant pairs are fewer independent draws than m; and
most relevant pairs reach people as escalations, so escalations still waiting for a label
must be missing at random too. The audit of stage-0 labels (their own strata) measures the
error on the job's pairs and counts the holes its "not relevant" labels lost.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
from scipy.stats import binom

# Candidate thresholds, most confident first: P(relevant) >= t for the relevant side,
# P(relevant) <= 1 - t for the non-relevant side; steps of 0.005 from 0.995 down to 0.505, so
# the two sides never meet (a pair at exactly 0.5 is always debated).
HIGH_GRID: tuple[float, ...] = tuple(round(0.995 - 0.005 * i, 3) for i in range(99))
LOW_GRID: tuple[float, ...] = tuple(round(1.0 - t, 3) for t in HIGH_GRID)
DEFAULT_ALPHA = 0.1
DEFAULT_DELTA = 0.1
#: The share of the relevant pairs the non-relevant side may give up (1: no bound).
DEFAULT_BETA = 0.1
#: A job's alpha and delta: probabilities strictly between 0 and 1, written as a closed range
#: for the API's schema and the form; beta may also be 1 (no bound).
LEVEL_MIN, LEVEL_MAX = 0.001, 0.999


def labels_needed(*, alpha: float, delta: float) -> int:
    """The fewest calibration pairs one side must settle, all agreeing with humans, to reject
    its null at level ``delta / 2``: the smallest n with (1 - alpha)^n <= delta / 2. For
    alpha = delta = 0.1: 29."""
    _levels_check(alpha, delta)
    return math.ceil(math.log(delta / 2) / math.log(1 - alpha))


def relevant_needed(*, beta: float, delta: float) -> int:
    """The fewest relevant calibration pairs the non-relevant side needs, none of them at or
    below its threshold, to reject its miss-rate null at level ``delta / 2``: the smallest m
    with (1 - beta)^m <= delta / 2. For beta = delta = 0.1: 29; 0 when ``beta`` >= 1 (no
    bound)."""
    if beta >= 1.0:
        return 0
    return labels_needed(alpha=beta, delta=delta)


@dataclass(frozen=True)
class BandSide:
    """One side of the band. ``bound``: the threshold chosen (None: this side settles
    nothing); ``settled``: calibration pairs beyond it; ``errors``: those of them humans
    labelled otherwise; ``p_value``: the test's p-value at the bound (None when none; with
    a miss-rate bound, the larger of the two). ``missed``: on the non-relevant side with a
    miss-rate bound, the relevant calibration pairs at or below the bound (the holes it
    would give up; None otherwise)."""

    bound: float | None
    settled: int
    errors: int
    p_value: float | None
    missed: int | None = None


@dataclass(frozen=True)
class Stage0Band:
    """The band chosen on ``n`` calibration pairs at ``alpha`` (the error rate allowed among
    settled labels) and ``delta`` (the chance the guarantee fails). ``low``/``high`` are the
    two sides; ``message`` says in words what stage 0 will do, and why not when it settles
    nothing (how many more human labels it needs). ``simulated``: how many of the ``n`` are
    simulated human labels (the simulated annotator's), set by whoever knows
    (:func:`debates.services.stage0_route.stage0_band_for`); a band set on any makes its
    stage-0 labels simulated. ``beta``: the share of the relevant pairs the non-relevant
    side may give up (None or >= 1: not bounded; None on bands stored before the bound
    existed); ``relevant``: the relevant pairs among the ``n``."""

    alpha: float
    delta: float
    n: int
    low: BandSide
    high: BandSide
    needed: int
    message: str
    simulated: int = 0
    beta: float | None = None
    relevant: int = 0

    @property
    def holes_bounded(self) -> bool:
        """Whether the non-relevant side also bounds the share of relevant pairs it gives up."""
        return self.beta is not None and self.beta < 1.0

    @property
    def settles(self) -> bool:
        """Whether either side settles anything."""
        return self.low.bound is not None or self.high.bound is not None

    def label_of(self, p: float) -> int | None:
        """The label stage 0 gives a pair of calibrated P(relevant) ``p``: 1, 0, or None
        (debate it)."""
        if self.high.bound is not None and p >= self.high.bound:
            return 1
        if self.low.bound is not None and p <= self.low.bound:
            return 0
        return None

    def dump(self) -> dict[str, Any]:
        """The band as a JSON-ready dict (stored on the job; :func:`band_load` reads it)."""
        return asdict(self)


def band_load(data: dict[str, Any]) -> Stage0Band:
    """The band :meth:`Stage0Band.dump` stored. Raises KeyError/TypeError on another shape."""
    fields = dict(data)
    fields["low"] = BandSide(**fields["low"])
    fields["high"] = BandSide(**fields["high"])
    return Stage0Band(**fields)


@dataclass(frozen=True)
class BandLabel:
    """One human label of a pooled pair that may calibrate the band: ``key`` names the pair
    ("<query id>\t<doc id>"), ``p`` is stage 0's calibrated P(relevant) of it, ``label``
    the person's (0/1), ``inclusion`` the probability its pair went to people (1 for an
    escalation; an audit's stratum probability) and ``floor`` the smallest such probability
    over the settled pairs of its job (0 when an agreed stratum was never audited);
    ``simulated``: the simulated annotator gave the label."""

    key: str
    p: float
    label: int
    inclusion: float
    floor: float
    simulated: bool = False


def band_draw(key: str) -> float:
    """The band sample's reproducible draw of a pair, in [0, 1): the first 64 bits of
    ``sha256("stage0-band:<key>")`` over 2^64 (another salt than the audit's draw, so the
    two are independent)."""
    digest = hashlib.sha256(f"stage0-band:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def band_sample(labels: Sequence[BandLabel]) -> tuple[list[BandLabel], float]:
    """The equal-probability sample of ``labels`` that calibrates the band (module
    docstring) and its rate: ``rate`` = the smallest positive ``floor``; a label is kept
    when its ``floor`` is positive and :func:`band_draw` of its key < ``rate / inclusion``.
    No usable label: ``([], 0.0)``. Raises ValueError on an inclusion outside (0, 1] or a
    floor above a label's inclusion. Order kept."""
    for row in labels:
        if not 0.0 < row.inclusion <= 1.0 or not 0.0 <= row.floor <= row.inclusion:
            raise ValueError(
                f"pair {row.key!r}: inclusion {row.inclusion} and floor {row.floor} must "
                "satisfy 0 <= floor <= inclusion <= 1, inclusion > 0"
            )
    floors = [row.floor for row in labels if row.floor > 0]
    if not floors:
        return [], 0.0
    rate = min(floors)
    kept = [r for r in labels if r.floor > 0 and band_draw(r.key) < rate / r.inclusion]
    return kept, rate


def _levels_check(alpha: float, delta: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1 (exclusive), got {alpha}")
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be between 0 and 1 (exclusive), got {delta}")


@dataclass(frozen=True)
class FirstTest:
    """What a side saw at the first threshold it tested (for the words of a side that
    settles nothing): the ``threshold``, the ``pairs`` beyond it, the ``errors`` among them
    and, with a holes bound, the relevant pairs beyond it (``missed``; None without)."""

    threshold: float
    pairs: int
    errors: int
    missed: int | None


def _side(
    scores: Sequence[float],
    wrong: Sequence[bool],
    grid: Sequence[float],
    beyond: Any,
    alpha: float,
    level: float,
    misses: tuple[Sequence[float], float] | None = None,
) -> tuple[BandSide, FirstTest | None]:
    """Fixed-sequence testing along ``grid``: the last threshold whose null is rejected.

    A threshold with fewer calibration pairs beyond it than any rejection needs
    (``(1 - alpha)^n > level`` even with no error) is passed over, not tested: which
    thresholds those are depends on the scores alone, so given the scores the order of the
    tests is still fixed before the labels are read, as the procedure requires. ``misses``
    (the relevant pairs' scores, beta): also test the miss-rate null at each threshold and
    reject only when both are rejected (the module docstring). Passing over does not
    disturb that second test either, for another reason: along the grid the count of
    relevant pairs beyond the threshold never falls and its p-value rises with it, so a
    rejection at a later threshold implies one at every threshold passed over before it.
    Also returns what the first threshold tested saw (None: none testable)."""
    chosen = BandSide(None, 0, 0, None, None)
    first = None
    for threshold in grid:
        inside = [w for s, w in zip(scores, wrong, strict=True) if beyond(s, threshold)]
        n, k = len(inside), sum(inside)
        if (1 - alpha) ** n > level:
            continue
        p_value = float(binom.cdf(k, n, alpha))
        missed = None
        if misses is not None:
            relevant, beta = misses
            missed = sum(1 for s in relevant if beyond(s, threshold))
            p_value = max(p_value, float(binom.cdf(missed, len(relevant), beta)))
        first = first or FirstTest(threshold, n, k, missed)
        if p_value > level:
            break
        chosen = BandSide(threshold, n, k, p_value, missed)
    return chosen, first


def band_choose(
    p: Sequence[float],
    y: Sequence[int],
    *,
    alpha: float = DEFAULT_ALPHA,
    delta: float = DEFAULT_DELTA,
    beta: float | None = None,
) -> Stage0Band:
    """Choose stage 0's band on calibration pairs: ``p`` their calibrated P(relevant) in
    [0, 1], ``y`` their human labels (0/1), same length. Fixed-sequence testing per side at
    level delta/2 (see the module docstring); ``beta`` in (0, 1) also bounds the chance that
    a relevant pair is settled non-relevant (an intersection-union test at the same level);
    None or >= 1: no such bound. Raises ValueError on lengths that differ, p outside [0, 1],
    a label other than 0/1, alpha/delta outside (0, 1) or a beta that is not above 0."""
    _levels_check(alpha, delta)
    if beta is not None and not beta > 0.0:  # written so that NaN is refused too
        raise ValueError(f"beta must be above 0 (1 or more: no bound), got {beta}")
    if len(p) != len(y):
        raise ValueError(f"p and y differ in length: {len(p)} and {len(y)}")
    if any(not 0.0 <= value <= 1.0 for value in p):
        raise ValueError("every P(relevant) must lie in [0, 1]")
    if any(label not in (0, 1) for label in y):
        raise ValueError("human labels must be 0 or 1")
    level = delta / 2
    relevant = [score for score, label in zip(p, y, strict=True) if label == 1]
    misses = (relevant, beta) if beta is not None and beta < 1.0 else None
    wrong = {"relevant": [label == 0 for label in y], "non-relevant": [label == 1 for label in y]}
    high, first_high = _side(p, wrong["relevant"], HIGH_GRID, lambda s, t: s >= t, alpha, level)
    low, first_low = _side(
        p, wrong["non-relevant"], LOW_GRID, lambda s, t: s <= t, alpha, level, misses
    )
    # The side as the error test alone would set it: when it settles and the side with the
    # holes bound does not, the holes bound is what stopped it, and the words say so.
    alone = _side(p, wrong["non-relevant"], LOW_GRID, lambda s, t: s <= t, alpha, level)[0]
    needed = labels_needed(alpha=alpha, delta=delta)
    band = Stage0Band(alpha, delta, len(p), low, high, needed, "", 0, beta, len(relevant))
    first = {"relevant": first_high, "non-relevant": first_low}
    return replace(band, message=_message(band, first, alone))


def _message(band: Stage0Band, first: dict[str, FirstTest | None], alone: BandSide) -> str:
    holes = (
        f" and a chance of at most {band.beta:g} that a relevant pair (hole) is settled "
        "non-relevant"
        if band.holes_bounded
        else ""
    )
    guarantee = (
        f"error <= {band.alpha:g} among settled labels{holes}, with probability >= "
        f"{1 - band.delta:g} (fixed-sequence testing on {band.n:,} human labels)"
    )
    stopped = band.holes_bounded and band.low.bound is None
    reason = _holes_reason(band, first["non-relevant"]) if stopped else ""
    if band.settles:
        sides = []
        if band.high.bound is not None:
            sides.append(f"relevant when P(relevant) >= {band.high.bound:g}")
        if band.low.bound is not None:
            sides.append(f"non-relevant when P(relevant) <= {band.low.bound:g}")
        text = f"stage 0 settles {' and '.join(sides)}: {guarantee}"
        return f"{text}; it settles no pair non-relevant: {reason}" if reason else text
    if stopped and alone.bound is not None:
        return (
            f"stage 0 settles nothing: on {band.n:,} human labels its non-relevant side "
            f"would keep its error <= {band.alpha:g} (P(relevant) <= {alone.bound:g}: "
            f"{alone.settled:,} pairs, {alone.errors:,} of them relevant), but {reason}"
        )
    # Without any error, a side needs `needed` pairs beyond its most confident threshold.
    more = max(band.needed - band.n, 0)
    if more:
        text = (
            f"stage 0 settles nothing: setting its band at alpha {band.alpha:g}, delta "
            f"{band.delta:g} needs at least {band.needed:,} human-labelled pairs on a side, "
            f"all agreeing with it; it has {band.n:,} ({more:,} more at the least)"
        )
    else:
        text = (
            f"stage 0 settles nothing: on {band.n:,} human labels no threshold keeps its "
            f"error <= {band.alpha:g} with probability >= {1 - band.delta:g}; "
            + _outlook(band, first)
        )
    return f"{text}; and to settle non-relevant pairs {reason}" if reason else text


def _holes_reason(band: Stage0Band, first: FirstTest | None) -> str:
    """Why the holes bound keeps the non-relevant side from settling: too few relevant pairs
    among the labels to show it at all, or more of them below its first testable threshold
    than the test can clear (and, at that share, about how many labels in all would)."""
    beta = band.beta if band.beta is not None else 1.0
    needed = relevant_needed(beta=beta, delta=band.delta)
    if band.relevant < needed:
        return (
            f"it must show that a relevant pair (hole) is settled non-relevant with a chance "
            f"of at most {beta:g}, which needs at least {needed:,} relevant pairs among its "
            f"human labels; it has {band.relevant:,}"
        )
    if first is None or first.missed is None:
        return (
            f"no threshold of its side has enough pairs beyond it to test (it has "
            f"{band.relevant:,} relevant pairs among its labels)"
        )
    words = (
        f"{first.missed:,} of its {band.relevant:,} relevant labels lie at or below its first "
        f"testable threshold (P(relevant) <= {first.threshold:g}), too many to show a chance "
        f"of at most {beta:g} that a relevant pair (hole) is settled non-relevant"
    )
    m = _pairs_to_reject(band.relevant, first.missed, beta, band.delta / 2)
    if m is None:
        return f"{words}; at that share no number of labels shows it: it needs a better judge"
    total = math.ceil(band.n * m / band.relevant)
    return f"{words}; at that share about {total:,} human labels in all would show it"


def _outlook(band: Stage0Band, first: dict[str, FirstTest | None]) -> str:
    """What would let a side settle, from what its first testable threshold saw (None: no
    threshold testable). At an error rate below alpha, more labels at that rate reject the
    null: about how many in all (the band sample grown in proportion); at or above it, no
    number of labels will. A non-relevant side held by the holes bound is left to
    :func:`_holes_reason`."""
    words, best, held = [], None, False
    for name, seen in first.items():
        if seen is None:
            continue
        n, k = seen.pairs, seen.errors
        words.append(f"the {name} side saw {k:,} errors in {n:,} pairs ({k / n:.0%})")
        if name == "non-relevant" and band.holes_bounded:
            held = True  # when it settles depends on the holes test too
            continue
        m = _pairs_to_reject(n, k, band.alpha, band.delta / 2)
        if m is not None:
            total = math.ceil(band.n * m / n)
            best = total if best is None else min(best, total)
    if not words:
        return (
            f"it needs more human labels (at least {band.needed:,} agreeing ones beyond a "
            "threshold) or a better judge"
        )
    seen_words = "beyond its most confident testable threshold " + " and ".join(words)
    if best is None and held:
        return seen_words
    if best is None:
        return (
            f"{seen_words}: at those rates no number of human labels lets a side settle; it "
            "needs a better judge"
        )
    side = "the relevant side" if held else "a side"
    return (
        f"{seen_words}: at those rates about {best:,} human labels in all "
        f"({max(best - band.n, 1):,} more) would let {side} settle, or a better judge fewer"
    )


def _pairs_to_reject(n: int, k: int, alpha: float, level: float) -> int | None:
    """The fewest pairs m >= n beyond a threshold that reject its null at ``level`` if their
    errors keep the rate k/n (P(Bin(m, alpha) <= floor(m k / n)) <= level); None when k/n >=
    alpha (no m does) or m would pass 10^7."""
    if k / n >= alpha:
        return None
    # Every m in turn (the floor makes the tail jump up at each new allowed error, so the
    # first m is not found by bisection), 100,000 at a time.
    for start in range(n, 10**7, 100_000):
        m = np.arange(start, start + 100_000)
        hits = np.flatnonzero(binom.cdf((m * k) // n, m, alpha) <= level)
        if hits.size:
            return int(m[hits[0]])
    return None
