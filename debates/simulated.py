"""Simulated assessors: debaters and annotators that answer from a reference qrels file with a
set error rate. Pure, no database, no network.

Researchers use them to plan a study before paying for LLM calls ("how many human labels do
I need for +-0.01 on nDCG@10 if my debaters are 90% sensitive?"), and the test suite uses
them to check every estimator on real qrels. Every label they give is simulated: whoever
stores one marks its provenance ``simulated`` (see ``SIMULATED``), and no export passes it as
a real judgment.

The debater model (ours; the DREAM paper publishes no simulator):
- each agent holds a fixed *belief* about a pair, drawn once: the true label with
  probability ``sensitivity`` (when the pair is relevant) or ``specificity`` (when it is
  not), otherwise the wrong one. A judge at temperature 0 errs on the same pairs every time,
  so the belief does not change between rounds;
- DREAM assigns agent A the stance "relevant" and agent B "irrelevant". In round j an agent
  still states its assigned stance with probability ``persistence ** j`` (stance
  persistence, falling as the debate goes on), and its belief otherwise;
- the debate stops at the first round where both labels agree (consensus at that round);
  after ``rounds`` rounds without agreement the pair is escalated to humans.
Annotators give the true label, flipped with probability ``annotator_error``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

SIMULATED = "simulated"  # the provenance every simulated label carries


@dataclass(frozen=True)
class DebateOutcome:
    """A simulated debate's result: ``label`` (0/1) and the ``round`` it was agreed in, or
    ``label=None`` when the agents still disagreed after the last round (escalated)."""

    label: int | None
    round: int
    calls: int


@dataclass(frozen=True)
class SimulatedAssessor:
    """The error model of simulated debaters and annotators (see the module docstring).

    Raises ValueError when a rate is outside [0, 1] or ``rounds`` is below 1.
    """

    sensitivity: float = 0.9
    specificity: float = 0.8
    persistence: float = 0.3
    rounds: int = 2
    annotator_error: float = 0.0

    def __post_init__(self) -> None:
        for name in ("sensitivity", "specificity", "persistence", "annotator_error"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name}: must be between 0 and 1, got {value}")
        if self.rounds < 1:
            raise ValueError(f"rounds: must be at least 1, got {self.rounds}")

    def belief(self, relevant: bool, rng: random.Random) -> int:
        """One agent's fixed belief about a pair whose true label is ``relevant``."""
        correct = rng.random() < (self.sensitivity if relevant else self.specificity)
        return int(relevant) if correct else int(not relevant)

    def debate(self, relevant: bool, rng: random.Random) -> DebateOutcome:
        """One simulated DREAM debate over a pair whose true label is ``relevant``."""
        beliefs = (self.belief(relevant, rng), self.belief(relevant, rng))
        stances = (1, 0)  # agent A argues "relevant", agent B "irrelevant"
        for round_ in range(1, self.rounds + 1):
            keep = self.persistence**round_
            labels = [
                stance if rng.random() < keep else belief
                for stance, belief in zip(stances, beliefs, strict=True)
            ]
            if labels[0] == labels[1]:
                return DebateOutcome(labels[0], round_, 2 * round_)
        return DebateOutcome(None, self.rounds, 2 * self.rounds)

    def annotate(self, relevant: bool, rng: random.Random) -> int:
        """A simulated annotator's label for a pair whose true label is ``relevant``."""
        wrong = rng.random() < self.annotator_error
        return int(relevant) if not wrong else int(not relevant)


def truth_pool_note(
    *, truth: Mapping[str, Mapping[str, int]], pairs: Iterable[tuple[str, str]]
) -> str:
    """A warning when the truth file (``{query_id: {doc_id: grade}}``) lists none of a pool's
    ``pairs`` (query id, document id) as relevant; "" when it lists at least one.

    Why: a pool leaves out the pairs its qrels judged, so a truth file equal to those same
    qrels calls every pooled pair non-relevant, and each "relevant" label the simulated
    debaters give is one of their errors (about 1 - specificity of the pairs): the study then
    measures only the error model, not the holes. The remedy is to pool from qrels with part
    of their relevant rows hidden (``./dream manage hide_qrels``) and keep the whole qrels
    as the truth, as ``simulate_study --hide`` does in memory."""
    count = 0
    listed = 0
    for query_id, doc_id in pairs:
        count += 1
        grade = truth.get(query_id, {}).get(doc_id)
        if grade is None:
            continue
        listed += 1
        if grade > 0:
            return ""
    if not count:
        return ""
    return (
        f"SIMULATED: the truth file lists none of this pool's {count:,} pairs as relevant "
        f"({listed:,} of them as non-relevant, the others not at all), so every 'relevant' "
        "label its simulated debaters give is an error. A pool leaves out the pairs its "
        "qrels judged: a truth equal to those qrels finds no hole. To study holes, pool from "
        "qrels with part of their relevant rows hidden (./dream manage hide_qrels) and give "
        "the whole qrels as the truth"
    )
