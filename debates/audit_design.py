"""The audit's sampling design: which agreed labels go to humans, with what probability.
Pure, no database.

An agreed debate label is audited by a human with a known inclusion probability; the
intervals on refined metrics (``assess.evaluation.intervals``) weight each audited pair by
the inverse of it. The design is *stratified*: a stratum is the consensus label (the grade
on graded jobs) crossed with the round the debaters agreed in (:func:`stratum_name`), and
every pair of a stratum (of an audit unit, under ``neyman``) has the same probability. Two
allocations of a job's audit share s:

- ``proportional``: every stratum at s (a uniform audit);
- ``neyman``: two phases, over *audit units*: a stratum split by the pair's best rank in its
  pool (:func:`audit_unit`: "label 1, round 2, rank 3"; ranks past 10, or none, are one
  unit "…, below 10"). A pilot audits every unit at ``s * NEYMAN_PILOT``; once its labels
  are in, the rest of the budget (s times the agreed labels, in all) goes where a wrong
  label costs the estimate most: unit u's probability is proportional to its stratum's
  label error standard deviation, sqrt(e_h (1 - e_h)) with e_h estimated from the pilot
  over the whole stratum, times the DCG discount 1 / log2(r + 1) of its rank r (Neyman
  allocation, Neyman 1934; Cochran, *Sampling Techniques*, 3rd ed., 1977, sec. 5.5; the
  two-phase version, sec. 12.3). Why the rank: the error of the estimate on nDCG@10 is
  each unaudited wrong label's effect on it, and that effect is about proportional to the
  pair's discount (a wrong label at rank 1 moves DCG three times as much as one at rank
  10), so the variance a unit adds is about (its size) x (error variance) x (discount)^2,
  and Neyman's rule for a weighted total puts pi proportional to the square root of
  that per pair (Sarndal, Swensson and Wretman 1992, sec. 3.7.4). A unit never falls
  below its pilot probability, and probabilities above 1 are capped and their excess
  spread over the others. In the simulated studies of docs/measured.md ("The pilot at a
  tenth of the share") this needs 0.58 of the uniform audit's labels for the same nDCG@10
  width on SciFact and 0.68-0.73 on NFCorpus, Cranfield and Vaswani with twelve systems;
  the same rule without the rank (strata only) needed 0.72 on SciFact and more than
  uniform on NFCorpus.

Merlo et al. (2026) show that stratifying the human sample on the LLM's label cuts the
labels an interval needs; in the simulated studies of docs/measured.md the Neyman audit
needs the share of labels quoted there for the same mean width.

Probabilities only ever rise (a stratum's committed probability is a floor for the next
allocation), and a pair is drawn when its reproducible draw (``audit_draw``, uniform on
[0, 1)) is below its stratum's probability, so raising a share, or the second phase, keeps
every pair drawn before and adds pairs with the same draw rule: the sample stays a Poisson
sample with the stored probabilities.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

AuditAllocation = Literal["proportional", "neyman"]
ALLOCATIONS: tuple[str, ...] = get_args(AuditAllocation)
# The pilot's share of the audit budget, spent before the Neyman phase. What the pilot spends
# is spread as a uniform audit would be, so the smaller it is the more of the budget goes
# where the debate errs; it only has to tell the strata's error rates apart (Cochran 1977,
# sec. 12.3, leaves its size to the cost of a wrong allocation), and the rates are pooled over
# each stratum's ranks. A tenth needed 3-4 points fewer of the uniform audit's labels than
# half on the twelve-system studies of docs/measured.md, and never more (Cranfield and
# Vaswani were not used to choose it).
NEYMAN_PILOT = 0.1


def stratum_name(label: int, round_: int | None) -> str:
    """The audit stratum of an agreed label: ``"label 1, round 2"`` (round None: ``"label 1,
    round -"``, a label agreed outside a debate round)."""
    return f"label {label}, round {'-' if round_ is None else round_}"


BELOW_10 = "below 10"  # the audit unit of a pair ranked past 10 in its pool, or unranked


def audit_unit(label: int, round_: int | None, best_rank: int | None, *, allocation: str) -> str:
    """The name a pair's audit probability is kept under: its stratum's
    (:func:`stratum_name`) for a ``proportional`` audit; for ``neyman`` its stratum and its
    best rank (1-based) over the runs that put it in its pool: ``"label 1, round 2, rank
    3"``, or ``"label 1, round 2, below 10"`` past rank 10 or without a rank."""
    name = stratum_name(label, round_)
    if allocation != "neyman":
        return name
    if best_rank is None or best_rank > 10:
        return f"{name}, {BELOW_10}"
    return f"{name}, rank {best_rank}"


def unit_stratum(unit: str) -> str:
    """The stratum of an audit unit (:func:`audit_unit`); a stratum's own name unchanged."""
    head, _, tail = unit.rpartition(", ")
    return head if head and (tail == BELOW_10 or tail.startswith("rank ")) else unit


def unit_weight(unit: str) -> float:
    """The DCG discount of an audit unit's rank, 1 / log2(rank + 1) (Jarvelin and
    Kekalainen, TOIS 2002): how much a wrong label there moves the estimate, relatively.
    Below 10: the discount at rank 11, 1 / log2(12), the largest a pair past the cut-off of
    nDCG@10 can have on a deeper measure. A stratum's own name (a proportional audit): 1."""
    tail = unit.rpartition(", ")[2]
    if tail.startswith("rank ") and tail[5:].isdigit():
        return 1.0 / math.log2(int(tail[5:]) + 1)
    return 1.0 / math.log2(12) if tail == BELOW_10 else 1.0


def inclusion_union(probabilities: Iterable[float]) -> float:
    """The probability that a pair is in the human sample of several jobs taken together,
    from each job's probability of sending it to people (each in [0, 1]; 1 for a job that
    escalated it, 0 for one that never could, e.g. its debate failed).

    Several jobs of a dataset may debate one pair, and each draws its own audit: the pair's
    human label, from whichever job's review gave it, counts once in the refined qrels (the
    reviews' votes merge), so an interval that combines the jobs' samples has for its sample
    the *union* of the jobs' draws, and must weight a pair by the inverse of its chance of
    being in that union (Horvitz and Thompson 1952), not by one job's. How the union's
    chance follows from the jobs' depends on how the draws are made: a job draws the pair
    when u < pi_job, with u = :func:`assess.review.agreement.audit_draw` (job id, pair id),
    SHA-256 of "job id:pair id". The jobs' u are thus different hashes, independent for
    all purposes of sampling (as independent as any two seeded random streams), so the
    pair escapes every draw with probability prod_j (1 - pi_j) and

        pi_union = 1 - prod_j (1 - pi_j).

    (Had every job used one draw u(pair), with the same seed, the union would be u <
    max_j pi_j, and its chance max_j pi_j: smaller, the jobs' samples then nested, not
    independent. The draw being per job, max_j pi_j would understate the chance and
    over-weight the pairs that several jobs audited.) The union is at least every pi_j, 1
    as soon as one job escalated the pair, and exactly pi_j when one job alone could draw
    it (the other terms 0), so a pair of a single job keeps its job's probability. The same
    probabilities in any order give the same float. Returns 0.0 for no probability."""
    chances = [min(max(float(p), 0.0), 1.0) for p in probabilities]
    drawn = [p for p in chances if p > 0.0]
    if len(drawn) <= 1:
        return drawn[0] if drawn else 0.0
    # In one order (ascending): a product of three or more factors rounds differently in
    # another, and the intervals compare these probabilities exactly (weighting classes).
    escape = 1.0
    for p in sorted(drawn):
        escape *= 1.0 - p
    return 1.0 - escape


@dataclass(frozen=True)
class AuditStratum:
    """What the allocation knows of one stratum.

    ``size``: agreed labels in it (>= 0); ``committed``: the probability already applied to it
    (0 when none); ``judged``: audited pairs with a human label; ``wrong``: how many of those
    the human label contradicts (0 <= wrong <= judged).
    """

    size: int
    committed: float = 0.0
    judged: int = 0
    wrong: int = 0

    @property
    def error_sd(self) -> float:
        """The standard deviation of the stratum's label error, sqrt(e (1 - e)), with e the
        posterior mean of its error rate under a uniform prior, (wrong + 1) / (judged + 2)
        (Laplace's rule: a stratum no human has checked counts as the least certain)."""
        e = (self.wrong + 1) / (self.judged + 2)
        return math.sqrt(e * (1 - e))


def audit_allocation(
    strata: Mapping[str, AuditStratum], *, share: float, allocation: str, pilot_done: bool
) -> dict[str, float]:
    """Each stratum's audit inclusion probability, in [0, 1].

    ``share``: the audit budget as a share of all agreed labels, in [0, 1]; ``allocation``:
    one of :data:`ALLOCATIONS`; ``pilot_done``: for ``neyman``, True once the pilot's audit
    labels are in (before that, every stratum gets the pilot probability). Never below a
    stratum's ``committed`` probability. Raises ValueError for an unknown allocation or a
    share outside [0, 1].
    """
    if allocation not in ALLOCATIONS:
        raise ValueError(f"audit allocation: one of {', '.join(ALLOCATIONS)}, got {allocation!r}")
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"audit share must be between 0 and 1, got {share}")
    if allocation == "proportional" or share in (0.0, 1.0):
        return {name: max(share, s.committed) for name, s in strata.items()}
    pilot = share * NEYMAN_PILOT
    floor = {name: max(pilot, s.committed) for name, s in strata.items()}
    if not pilot_done:
        return floor
    return _neyman(strata, floor, budget=share * sum(s.size for s in strata.values()))


def neyman_weights(strata: Mapping[str, AuditStratum]) -> dict[str, float]:
    """Each audit unit's Neyman weight: its stratum's label error SD (:attr:`AuditStratum.
    error_sd` over the judged and wrong pairs of all the stratum's units: the pilot is too
    thin to estimate an error rate per rank) times its :func:`unit_weight`."""
    pooled: dict[str, tuple[int, int]] = {}
    for name, s in strata.items():
        judged, wrong = pooled.get(unit_stratum(name), (0, 0))
        pooled[unit_stratum(name)] = (judged + s.judged, wrong + s.wrong)
    return {
        name: AuditStratum(s.size, 0.0, *pooled[unit_stratum(name)]).error_sd * unit_weight(name)
        for name, s in strata.items()
    }


def _neyman(
    strata: Mapping[str, AuditStratum], floor: Mapping[str, float], *, budget: float
) -> dict[str, float]:
    """Probabilities c * w_u (w_u from :func:`neyman_weights`), each between its floor and
    1, with sum size_u * pi_u = budget (or every unit at its floor when the floors already
    spend it). The units held at a bound are fixed one pass at a time and the scale is
    solved again for the others."""
    sd = neyman_weights(strata)
    pinned: dict[str, float] = {}
    for _ in range(2 * len(strata) + 1):
        free = {n: s for n, s in strata.items() if n not in pinned}
        left = budget - sum(strata[n].size * p for n, p in pinned.items())
        weight = sum(s.size * sd[n] for n, s in free.items())
        if not free or weight <= 0:
            break
        scale = max(left, 0.0) / weight
        low = {n for n in free if scale * sd[n] < floor[n]}
        high = {n for n in free if scale * sd[n] > 1.0}
        if not low and not high:
            return {**pinned, **{n: scale * sd[n] for n in free}}
        # Pin the strata that break a bound; the floors first, as they free budget.
        for n in low or high:
            pinned[n] = floor[n] if n in low else 1.0
    return {n: pinned.get(n, floor[n]) for n in strata}


@dataclass(frozen=True)
class AuditDesign:
    """A job's audit as stored: its ``share`` (in [0, 1]), its ``allocation`` (one of
    :data:`ALLOCATIONS`) and ``committed``, each stratum's probability applied so far
    ({stratum name: probability in [0, 1]}; a stratum not in it has none yet)."""

    share: float
    allocation: str = "proportional"
    committed: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def stored(cls, *, share: float, allocation: str, inclusion: object) -> AuditDesign:
        """The design of a job's stored fields; ``inclusion`` is the stored JSON (a dict, or
        its text; None or "" for none). Raises ValueError naming the stratum whose
        probability is not a number in [0, 1], or an unknown allocation."""
        if allocation not in ALLOCATIONS:
            raise ValueError(
                f"audit allocation: one of {', '.join(ALLOCATIONS)}, got {allocation!r}"
            )
        raw = (
            json.loads(inclusion) if isinstance(inclusion, str | bytes) and inclusion else inclusion
        )
        if not raw:
            return cls(share=share, allocation=allocation)
        if not isinstance(raw, Mapping):
            raise ValueError(f"audit inclusion: an object of stratum: probability, got {raw!r}")
        committed: dict[str, float] = {}
        for name, value in raw.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"audit inclusion of {name!r}: not a number, got {value!r}")
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"audit inclusion of {name!r}: not in [0, 1], got {value}")
            committed[str(name)] = float(value)
        return cls(share=share, allocation=allocation, committed=committed)

    def committed_of(self, unit: str) -> float:
        """The probability already applied to ``unit`` (a stratum's or an audit unit's
        name): a unit's is never below its stratum's, as a Neyman job committed before its
        strata were split by rank kept them under the stratum's name (0 when none)."""
        return max(self.committed.get(unit, 0.0), self.committed.get(unit_stratum(unit), 0.0))

    def probability(self, stratum: str) -> float:
        """The probability a pair of ``stratum`` (a stratum's or an audit unit's name,
        :func:`audit_unit`) is drawn with now: its committed one (a unit's: at least its
        stratum's), raised
        to what :func:`audit_allocation` gives any stratum before the Neyman phase (the share
        when proportional, the pilot's when Neyman), so a stratum no allocation committed yet,
        or a share raised since, draws as the next allocation will at least."""
        committed = AuditStratum(size=0, committed=self.committed_of(stratum))
        return audit_allocation(
            {stratum: committed}, share=self.share, allocation=self.allocation, pilot_done=False
        )[stratum]


def allocation_describe(allocation: str, share: float) -> str:
    """How an audit share is spread, in words for a printout beside the share: "proportional
    allocation (every stratum at the share)", or for ``neyman`` "Neyman allocation (a pilot
    at 1% of agreed labels first; the rest of the share once the pilot is judged, where it
    found the debate wrong most often)", the pilot at ``share`` x :data:`NEYMAN_PILOT`. A
    share of 0 or 1 has no pilot (:func:`audit_allocation` draws every stratum at it)."""
    if allocation != "neyman":
        return "proportional allocation (every stratum at the share)"
    if share in (0.0, 1.0):
        return "Neyman allocation (no pilot at this share: every stratum at it)"
    return (
        f"Neyman allocation (a pilot at {share * NEYMAN_PILOT * 100:.3g}% of agreed labels "
        "first; the rest of the share once the pilot is judged, where it found the debate "
        "wrong most often)"
    )
