"""The datasheet's section on how the refined qrels reorder the runs: the ranking agreement
of the original and the refined leaderboard and each run's RBP with its residual. Pure: no
database.

The figures are computed by evaluation (``assess.evaluation.ranking``, which this package may
not import) and handed in as plain values by ``assess.datasheet_intervals``, with the
intervals. Run names come from the database: they are written with the datasheet's own
code-span writer (``code``, :func:`assess.refined.datasheet_markdown.md_code`), so this module never
decides how untrusted text is escaped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

HEADING = "## Ranking agreement of the original and refined leaderboards"
UNDEFINED = "undefined (fewer than 2 runs, or every run tied on a side)"


@dataclass(frozen=True, slots=True)
class RbpCell:
    """One run's RBP: ``base`` and ``residual`` on the original and on the refined qrels."""

    original_base: float
    original_residual: float
    refined_base: float
    refined_residual: float


@dataclass(frozen=True, slots=True)
class RankingSheet:
    """The ranking measures of the original vs the refined nDCG@10 leaderboard of ``runs``
    runs (None where undefined): ``kendall_tau_b``, ``tauap_b``, ``kendall_at_k`` over the
    original top ``k`` (``k_runs`` of them) and ``rbo`` at ``rbo_p``; ``rbp``: ``{run name:
    RbpCell}`` at ``rbp_p``, relevance grade >= ``rel_level``."""

    runs: int
    kendall_tau_b: float | None
    tauap_b: float | None
    kendall_at_k: float | None
    rbo: float | None
    k: int = 10
    k_runs: int = 0
    rbo_p: float = 0.9
    rbp_p: float = 0.8
    rel_level: int = 1
    rbp: Mapping[str, RbpCell] = field(default_factory=dict)


def _value(value: float | None) -> str:
    return UNDEFINED if value is None else f"{value:.3f}"


def ranking_lines(sheet: RankingSheet | None, *, code: Callable[[str], str]) -> list[str]:
    """The section's Markdown lines: each measure named with its source and how it treats
    ties, then per run (sorted by name) RBP + residual, original → refined. ``code`` writes
    a run name as an inert code span. ``sheet`` None: the section says it was not computed."""
    lines = [HEADING, ""]
    if sheet is None:
        return [*lines, "Not computed for this file."]
    lines += [
        "The pool's runs ranked by nDCG@10 on the original and on the refined qrels (the "
        "re-benchmark of the intervals above), compared; in brackets the keys of the API's "
        "re-benchmark JSON (autojudge-evaluate names tau_AP,b and the top-10 tau alike; its "
        "tau-b is `kendall`).",
        "",
        f"- Kendall's tau-b, original vs refined qrels (debate labels) (`kendall_tau_b`): "
        f"{_value(sheet.kendall_tau_b)}, n = {sheet.runs:,} runs (Kendall 1945; ties count as "
        "ties)",
        f"- AP correlation tau_AP,b (`tauap_b`): {_value(sheet.tauap_b)}, n = {sheet.runs:,} "
        "(Yilmaz, Aslam and Robertson, SIGIR 2008: a swap near the top costs more; ties as "
        "Urbano and Marrero, ICTIR 2017: symmetric, a tie is no agreement)",
        f"- Kendall's tau-b of the original top {sheet.k} (`kendall@{sheet.k}`): "
        f"{_value(sheet.kendall_at_k)}, n = {sheet.k_runs:,} (a tie at the cut broken by name)",
        f"- RBO, p = {sheet.rbo_p:g}, extrapolated (`rbo`): {_value(sheet.rbo)}, "
        f"n = {sheet.runs:,} (Webber, Moffat and Zobel, TOIS 2010; ties as Corsi and Urbano, "
        "SIGIR 2024: the mean over the orders of tied runs)",
    ]
    if sheet.rbp:
        lines.append(
            f"- RBP, p = {sheet.rbp_p:g}, + residual (Moffat and Zobel, TOIS 2008; relevant: "
            f"grade >= {sheet.rel_level}), per run, original → refined qrels; the residual is "
            "what unjudged documents and the ranking's tail could still add:"
        )
        for name, c in sorted(sheet.rbp.items()):
            lines.append(
                f"  - {code(name)}: {c.original_base:.4f} + {c.original_residual:.4f} → "
                f"{c.refined_base:.4f} + {c.refined_residual:.4f}"
            )
    return lines
