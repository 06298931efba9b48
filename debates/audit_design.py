"""The audit's sampling design: which agreed labels go to humans, with what probability.
Pure, no database.

An agreed debate label is audited by a human with a known inclusion probability; the
intervals on refined metrics (``assess.evaluation.intervals``) weight each audited pair by
the inverse of it. The design is *stratified*: a stratum is the consensus label (the grade
on graded jobs) crossed with the round the debaters agreed in (:func:`stratum_name`), and
every pair of a stratum has the same probability. Two allocations of a job's audit share s:

- ``proportional``: every stratum at s (a uniform audit);
- ``neyman``: two phases. A pilot audits every stratum at ``s * NEYMAN_PILOT``; once its
  labels are in, the rest of the budget (s times the agreed labels, in all) goes where the
  debate is least certain: stratum h's probability is proportional to its label error's
  standard deviation, sqrt(e_h (1 - e_h)), with e_h estimated from the pilot (Neyman
  allocation, Neyman 1934; Cochran, *Sampling Techniques*, 3rd ed., 1977, sec. 5.5; the
  two-phase version, sec. 12.3). A stratum never falls below its pilot probability, and
  probabilities above 1 are capped and their excess spread over the others.

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
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

AuditAllocation = Literal["proportional", "neyman"]
ALLOCATIONS: tuple[str, ...] = get_args(AuditAllocation)
NEYMAN_PILOT = 0.5  # the pilot's share of the audit budget, before the Neyman phase


def stratum_name(label: int, round_: int | None) -> str:
    """The audit stratum of an agreed label: ``"label 1, round 2"`` (round None: ``"label 1,
    round -"``, a label agreed outside a debate round)."""
    return f"label {label}, round {'-' if round_ is None else round_}"


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


def _neyman(
    strata: Mapping[str, AuditStratum], floor: Mapping[str, float], *, budget: float
) -> dict[str, float]:
    """Probabilities c * sd_h, each between its floor and 1, with sum size_h * pi_h = budget
    (or every stratum at its floor when the floors already spend it). The strata held at a
    bound are fixed one pass at a time and the scale is solved again for the others."""
    pinned: dict[str, float] = {}
    for _ in range(2 * len(strata) + 1):
        free = {n: s for n, s in strata.items() if n not in pinned}
        left = budget - sum(strata[n].size * p for n, p in pinned.items())
        weight = sum(s.size * s.error_sd for s in free.values())
        if not free or weight <= 0:
            break
        scale = max(left, 0.0) / weight
        low = {n for n, s in free.items() if scale * s.error_sd < floor[n]}
        high = {n for n, s in free.items() if scale * s.error_sd > 1.0}
        if not low and not high:
            return {**pinned, **{n: scale * s.error_sd for n, s in free.items()}}
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

    def probability(self, stratum: str) -> float:
        """The probability a pair of ``stratum`` is drawn with now: its committed one, raised
        to what :func:`audit_allocation` gives any stratum before the Neyman phase (the share
        when proportional, the pilot's when Neyman), so a stratum no allocation committed yet,
        or a share raised since, draws as the next allocation will at least."""
        committed = AuditStratum(size=0, committed=self.committed.get(stratum, 0.0))
        return audit_allocation(
            {stratum: committed}, share=self.share, allocation=self.allocation, pilot_done=False
        )[stratum]
