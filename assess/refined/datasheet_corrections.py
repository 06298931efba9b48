"""The datasheet's lines on corrections of the original qrels: how many judged pairs a human
verdict re-graded (:mod:`assess.refined.corrections`). Pure: no database; no value from the
database is written here, only counts.
"""

from __future__ import annotations


def copied_words(corrections: int) -> str:
    """How the original rows were copied: "copied unchanged", or "copied, N of them
    corrected (see Corrections below)" when ``corrections`` > 0."""
    if not corrections:
        return "copied unchanged"
    return f"copied, {corrections:,} of them corrected (see the corrections below)"


def corrections_lines(corrections: int, *, judged_kept: bool) -> list[str]:
    """The list item counting the corrections of a refined set: present when its pool kept
    judged pairs (``judged_kept``: only they can be corrected) or any pair was corrected."""
    if not judged_kept and not corrections:
        return []
    return [
        f"- Corrections of the original judgments: {corrections:,} (judged pairs that humans "
        "decided on the other side of relevance, their grade written over the original one; "
        'the labels export marks each `"correction": true` with its `original_label`, '
        "annotators, debate and job)"
    ]
