"""A majority vote over several samples of one judge: the single-judge baseline asked n times
per pair at a temperature above 0, its label the one most samples give. Pure logic.

Sampling n replies and keeping the most frequent answer is self-consistency (Wang et al.,
"Self-Consistency Improves Chain of Thought Reasoning in Language Models", ICLR 2023);
UMBRELA's oldest issue (castorini/umbrela #1) asks for it with relevance labels, and
UMBRELA's ensemble judge (``umbrela/ensemble_judge.py``) breaks a tie with the lowest of the
tied labels. Here a tie is broken by ``ties``:

- ``"lower"`` (the default, as UMBRELA): the lower of the tied labels, so a coin flip never
  raises a pair's relevance (the same rule as DREAM's binary consensus keeping the lower
  grade);
- ``"escalate"``: no label; the pair counts as escalated (a human decides), as a debate
  that cannot agree.

With n odd and a binary scale every readable vote has a winner; a tie needs an even number
of readable samples (n even, or a sample unread or failed) or a graded scale. A sample whose
reply could not be read (``None``) or whose call failed does not vote; the split counts only
votes. At temperature 0 every sample is the same reply, so n > 1 needs a temperature above
0 (:func:`sampling_check`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

TIES = ("lower", "escalate")
MAX_SAMPLES = 25  # a bound, so that a slip of the finger cannot cost hundreds of calls a pair
MAX_SAMPLE_TEMPERATURE = 2.0  # the top of the OpenAI API's range


@dataclass(frozen=True, slots=True)
class Vote:
    """The majority vote of one pair's samples: ``label`` the winner (None when no sample
    could be read, or on a tie under ``ties="escalate"``); ``votes`` ``(label, samples)``
    pairs, most votes first (the lower label first among equals); ``unread`` samples whose
    reply could not be read, ``failed`` samples whose call failed; ``tie`` whether the top
    labels tied (then ``label`` follows the tie rule)."""

    label: int | None
    votes: tuple[tuple[int, int], ...]
    unread: int = 0
    failed: int = 0
    tie: bool = False

    @property
    def samples(self) -> int:
        """All samples drawn: votes, unread and failed."""
        return sum(n for _, n in self.votes) + self.unread + self.failed

    @property
    def split(self) -> str:
        """The votes per label, most first, e.g. "2-1" (two samples for the winner, one
        against), "3-0" (unanimous), "2-1-1" (graded, three grades given); "0-0" when no
        sample voted."""
        counts = [n for _, n in self.votes]
        counts += [0] * (2 - len(counts))
        return "-".join(str(n) for n in counts)

    def as_json(self) -> dict[str, Any]:
        """``{"label", "split", "votes": {label: samples}, "unread", "failed", "tie"}``
        (labels as strings: JSON object keys)."""
        return {
            "label": self.label,
            "split": self.split,
            "votes": {str(label): n for label, n in self.votes},
            "unread": self.unread,
            "failed": self.failed,
            "tie": self.tie,
        }


def majority_vote(labels: Sequence[int | None], *, failed: int = 0, ties: str = "lower") -> Vote:
    """The :class:`Vote` of one pair's sampled ``labels`` (a label, or None for a reply that
    could not be read) and ``failed`` samples whose call failed, ties broken by ``ties``
    (:data:`TIES`; see the module docstring). Raises ValueError for an unknown tie rule or a
    negative ``failed``."""
    if ties not in TIES:
        raise ValueError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")
    if failed < 0:
        raise ValueError(f"failed samples cannot be negative, got {failed}")
    counts = Counter(label for label in labels if label is not None)
    votes = tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
    unread = sum(1 for label in labels if label is None)
    if not votes:
        return Vote(label=None, votes=(), unread=unread, failed=failed)
    top = votes[0][1]
    tied = [label for label, n in votes if n == top]
    tie = len(tied) > 1
    label = None if tie and ties == "escalate" else min(tied)
    return Vote(label=label, votes=votes, unread=unread, failed=failed, tie=tie)


def sampling_check(*, samples: int, temperature: float) -> None:
    """Refuse a sampling the vote cannot use: ``samples`` outside 1..:data:`MAX_SAMPLES`,
    or n > 1 at a temperature not above 0 (every sample would be the same reply) or above
    :data:`MAX_SAMPLE_TEMPERATURE`. Raises ValueError saying which."""
    if not 1 <= samples <= MAX_SAMPLES:
        raise ValueError(f"samples must be in 1..{MAX_SAMPLES}, got {samples}")
    if samples > 1 and not 0 < temperature <= MAX_SAMPLE_TEMPERATURE:
        raise ValueError(
            f"{samples} samples need a sampling temperature above 0 (at most "
            f"{MAX_SAMPLE_TEMPERATURE:g}), got {temperature:g}: at temperature 0 every "
            "sample is the same reply"
        )


def split_counts(votes: Sequence[Vote]) -> dict[str, int]:
    """How many pairs had each vote split (:attr:`Vote.split`), the winner's largest share
    first (e.g. ``{"3-0": 4, "2-1": 2}``): how often the samples disagreed."""
    counts = Counter(vote.split for vote in votes)
    order = sorted(counts, key=lambda split: [-int(n) for n in split.split("-")])
    return {split: counts[split] for split in order}


@dataclass(frozen=True, slots=True)
class SampledVerdict:
    """The single judge's verdict on one pair from several samples: the ``vote`` and the
    LLM calls all samples made (``attempts``, re-asks included; as
    :attr:`debates.turns.TurnRecord.attempts` counts one sample's). ``errors`` holds the
    failed samples' error texts."""

    vote: Vote
    attempts: int
    errors: tuple[str, ...] = ()

    @property
    def label(self) -> int | None:
        """The majority label (None: escalated, or every sample failed)."""
        return self.vote.label

    @property
    def all_failed(self) -> bool:
        """Every sample's call failed: the pair has no outcome (as one failed call)."""
        return self.vote.samples > 0 and self.vote.failed == self.vote.samples
