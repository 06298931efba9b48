"""When a human label counts as overriding the agents' consensus: one rule for the refinement's
counts (:class:`assess.refined.labels.FinalLabel`), the stored provenance
(:class:`~assess.models.LabelProvenance`) and the disagreements export. Pure, no database; it
lives here because ``assess.models`` may not import ``assess.refined``."""

from __future__ import annotations

# The provenance sources whose label people decided (LabelProvenance.Source values).
HUMAN_SOURCES = ("human", "adjudicated")


def overrides_consensus(
    *, source: str, label: int | None, consensus_label: int | None, machine_label: int | None
) -> bool:
    """Whether a final label of ``source`` (human or adjudicated) replaced the agents'
    consensus: the label differs from the consensus the refined qrels would hold without a
    human answer (``machine_label``, the pool's newest settled debate's), or, when that
    debate did not agree (or a set refined before it was stored), from the consensus of the
    debate whose review gave the answer (``consensus_label``). The machine label comes
    first because that review may be another job's (an audit taking the answer people gave
    on an earlier job's escalation: :mod:`assess.review.answered`), whose debate has another
    consensus or none; a tie (no label) overrides nothing."""
    consensus = machine_label if machine_label is not None else consensus_label
    return (
        source in HUMAN_SOURCES
        and label is not None
        and consensus is not None
        and consensus != label
    )
