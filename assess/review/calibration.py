"""How well each debating agent's label probabilities are calibrated against human labels.

Per job and agent (A, B; each agent is one backend and model, ``AgentConfig.label``), the
points are the job's **gold pairs and audited pairs** that have both

- a human label: an audited pair's is the one the refined qrels take
  (:func:`assess.review.human_labels.review_final_labels`: an admin's adjudication, else the
  strict majority of the live judgments of a complete review, or the answer an item took
  from another job's item of its pair, :mod:`assess.review.answered`; ties and open reviews
  are left out); a gold pair's is its known answer (``GoldPair.label``, from the original
  qrels), used when the pair was debated in the job and has no audit label;
- the agent's **final-round turn** of that pair's debate with a label probability
  (``Turn.label_probability``), turned into P(relevant): p when the turn's label is 1, else
  1 - p.

Escalated pairs are left out: humans see them because the agents disagreed, a sample that
would say nothing of the agents' calibration on the rest. Audits are drawn per stratum with
unequal probabilities (:mod:`debates.audit_design`); the figures weigh every point alike.
Binary jobs only: on a graded job a label's probability is not P(relevant).

The figures (:func:`debates.calibration.calibration_summary`: n, ECE with equal-mass bins,
Brier score, reliability bins) take plain (p, y) arrays, so another source of P(relevant)
can be scored by the same functions.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from debates.calibration import Calibration, calibration_summary
from debates.llm.config import AgentConfig, model_shown
from debates.models import Debate, DebateJob, Turn

from ..models import Adjudication, GoldPair, ReviewItem
from ..models.simulated import agents_simulated
from .agreement import majority_label
from .human_labels import answers_taken, debate_pairs, live_labels
from .simulated_marks import simulated_items_count

CALIBRATION_BINS = 10
# The source of the method, shown beside the figures.
CALIBRATION_METHOD = (
    "ECE with equal-mass bins (Nixon et al. 2019, Measuring Calibration in Deep Learning; "
    "Guo et al. 2017, On Calibration of Modern Neural Networks); Brier score (Brier 1950)."
)
NO_HUMAN_LABELS = (
    "calibration needs gold or audited pairs with human labels: none of this job's has one yet"
)
GRADED = "calibration is computed for binary jobs: a grade's probability is not P(relevant)"
# What a simulated debater lacks: it answers from a reference qrels file, with no model whose
# token probabilities could be read (not a server that withheld its logprobs).
SIMULATED_NO_P = (
    "a SIMULATED debater (backend simulated) answers from a qrels file and states no "
    "probabilities: no P(label) to calibrate"
)


@dataclass(frozen=True, slots=True)
class AgentCalibration:
    """One agent's calibration: ``agent`` "A" or "B", its ``model`` (backend and model),
    ``labelled`` human-labelled pairs it gave a final-round label on, ``figures`` over those
    with a label probability (None when there is none: ``missing`` says why in words)."""

    agent: str
    model: str
    labelled: int
    figures: Calibration | None
    missing: str = ""

    def as_json(self) -> dict[str, Any]:
        """The API's shape: ``{agent, model, labelled, n, ece, brier, bins: [{count, mean_p,
        observed}], missing}``; n is 0 and ece/brier null without figures."""
        f = self.figures
        return {
            "agent": self.agent,
            "model": self.model,
            "labelled": self.labelled,
            "n": f.n if f else 0,
            "ece": f.ece if f else None,
            "brier": f.brier if f else None,
            "bins": [
                {"count": b.count, "mean_p": b.mean_p, "observed": b.observed}
                for b in (f.bins if f else ())
            ],
            "missing": self.missing,
        }


@dataclass(frozen=True, slots=True)
class JobCalibration:
    """A job's calibration per agent; ``missing`` says in words why there is nothing at all
    ("" when some agent has figures or a reason of its own)."""

    agents: tuple[AgentCalibration, ...]
    missing: str = ""

    def as_json(self) -> dict[str, Any]:
        """``{bins_asked, method, missing, agents: [AgentCalibration.as_json()]}``."""
        return {
            "bins_asked": CALIBRATION_BINS,
            "method": CALIBRATION_METHOD,
            "missing": self.missing,
            "agents": [agent.as_json() for agent in self.agents],
        }


def human_labels_of(*, job: DebateJob) -> dict[int, int]:
    """``{debate id: 0/1}``: the human label of each of ``job``'s audited pairs (the refined
    qrels' rule) and, where there is none, of each debated gold pair (its known answer,
    relevant when >= 1)."""
    audits = ReviewItem.objects.filter(debate__job=job, kind=ReviewItem.Kind.AUDIT)
    out = {
        debate_id: int(label >= 1)
        for debate_id, label in Adjudication.objects.filter(item__in=audits).values_list(
            "item__debate_id", "label"
        )
    }
    needed = dict(audits.values_list("pk", "judgments_needed"))
    debate_of = dict(audits.values_list("pk", "debate_id"))
    for item_id, judged in live_labels(audits).items():
        label = majority_label([label for _, label in judged])
        if len(judged) >= needed[item_id] and label is not None:
            out.setdefault(debate_of[item_id], int(label >= 1))
    # An audit that took people's answer from another job's item asks nobody: that label.
    for debate_id, (label, _) in answers_taken(audits, majority_label).items():
        out.setdefault(debate_id, int(label >= 1))
    gold = {
        (query_id, document_id): label
        for query_id, document_id, label in GoldPair.objects.filter(job=job).values_list(
            "query_id", "document_id", "label"
        )
    }
    if gold:
        for debate_id, pair in debate_pairs(Debate.objects.filter(job=job)).items():
            label = gold.get(pair)
            if label is not None:
                out.setdefault(debate_id, int(label >= 1))
    return out


def final_turn_probabilities(*, debate_ids: list[int]) -> dict[str, dict[int, float | None]]:
    """``{agent: {debate id: P(relevant) or None}}`` of each debate's final-round labelled
    turn per agent (None: the turn has no label probability)."""
    rows = (
        Turn.objects.filter(debate_id__in=debate_ids, label__isnull=False)
        .order_by("debate_id", "agent", "round")
        .values_list("debate_id", "agent", "label", "label_probability")
    )
    out: dict[str, dict[int, float | None]] = {}
    for debate_id, agent, label, probability in rows.iterator(chunk_size=5000):
        relevant = None
        if probability is not None:
            relevant = probability if label == 1 else 1.0 - probability
        out.setdefault(agent, {})[debate_id] = relevant  # a later round overwrites
    return out


def agent_calibration(
    *, agent: str, model: str, points: list[tuple[float | None, int]]
) -> AgentCalibration:
    """One agent's figures from its ``points`` (P(relevant) or None, human 0/1)."""
    known = [(p, y) for p, y in points if p is not None]
    if not known:
        missing = (
            "no P(label): the server sent no logprobs for the labels of the "
            f"{len(points):,} human-labelled pair{'s' if len(points) != 1 else ''}"
            if points
            else "no human-labelled pair has a label of this agent"
        )
        return AgentCalibration(agent, model, len(points), None, missing)
    figures = calibration_summary([p for p, _ in known], [y for _, y in known], CALIBRATION_BINS)
    return AgentCalibration(agent, model, len(points), figures)


def job_calibration(*, job: DebateJob) -> JobCalibration:
    """The calibration of ``job``'s agents (the module docstring says which points). Reads."""
    if job.scale == DebateJob.Scale.GRADED:
        return JobCalibration((), GRADED)
    humans = human_labels_of(job=job)
    if not humans:
        return JobCalibration((), NO_HUMAN_LABELS)
    by_agent = final_turn_probabilities(debate_ids=sorted(humans))
    models = {"A": job.agent_a, "B": job.agent_b}
    out = []
    for agent, raw in models.items():
        turns = by_agent.get(agent, {})
        points = [(turns[d], humans[d]) for d in sorted(humans) if d in turns]
        found = agent_calibration(agent=agent, model=_model(raw), points=points)
        if found.figures is None and points and agents_simulated(raw):
            found = replace(found, missing=SIMULATED_NO_P)
        out.append(found)
    if job.stage0:
        # Stage 0's calibrated P(relevant), stored for every pair it scored (settled or
        # debated), against the same human labels: its calibration on this job's pairs.
        scored = dict(
            Debate.objects.filter(pk__in=list(humans), stage0_p__isnull=False).values_list(
                "pk", "stage0_p"
            )
        )
        points = [(scored.get(d), humans[d]) for d in sorted(humans) if d in scored]
        model = f"stage0:{job.stage0_model_hash[:12]}" if job.stage0_model_hash else "stage0"
        out.append(agent_calibration(agent="stage0", model=model, points=points))
    return JobCalibration(tuple(out))


def _model(raw: Any) -> str:
    """The agent config's label (backend and model), or what it stored when unreadable."""
    try:
        return AgentConfig.stored(raw).label
    except ValueError:
        if not isinstance(raw, dict):
            return ""
        return model_shown(str(raw.get("model") or "")) or str(raw.get("backend") or "")


def reliability_svg(figures: Calibration, *, size: int = 160) -> str:
    """A reliability diagram as SVG markup: the diagonal, one dot per bin at (mean p,
    observed) with its count beside it. Only numbers go into the markup."""
    pad = 20
    scale = size - 2 * pad

    def x(value: float) -> float:
        return pad + value * scale

    def y(value: float) -> float:
        return size - pad - value * scale

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
        f'viewBox="0 0 {size} {size}" role="img" aria-label="reliability diagram">',
        f'<rect x="{pad}" y="{pad}" width="{scale}" height="{scale}" fill="none" stroke="#999"/>',
        f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(1)}" y2="{y(1)}" stroke="#bbb" '
        'stroke-dasharray="3 3"/>',
        f'<text x="{pad}" y="{size - 4}" font-size="9">predicted P(relevant)</text>',
        f'<text x="2" y="{pad - 6}" font-size="9">observed</text>',
    ]
    for b in figures.bins:
        cx, cy = round(x(b.mean_p), 1), round(y(b.observed), 1)
        parts.append(f'<circle cx="{cx}" cy="{cy}" r="3" fill="#2a6"/>')
        parts.append(f'<text x="{cx + 4}" y="{cy - 4}" font-size="8">{b.count}</text>')
    parts.append("</svg>")
    return "".join(parts)


def job_calibration_panel(request: HttpRequest, job: DebateJob) -> str:
    """The calibration panel of the job page (``templates/assess/partials/
    job_calibration_panel.html``): per agent n, ECE, Brier and a reliability diagram with
    the count of each bin, or the words of what is missing; a SIMULATED line when audited
    pairs' human labels are the simulated annotator's. Read-only."""
    calibration = job_calibration(job=job)
    rows = [
        # mark_safe: the markup holds only numbers this module formatted.
        {"agent": a, "svg": mark_safe(reliability_svg(a.figures)) if a.figures else ""}  # noqa: S308
        for a in calibration.agents
    ]
    # Audited pairs the simulated annotator labelled: the figures are then scored against
    # simulated labels, which the panel says as every report of them does.
    simulated = simulated_items_count(
        items=ReviewItem.objects.filter(debate__job=job, kind=ReviewItem.Kind.AUDIT)
    )
    return render_to_string(
        "assess/partials/job_calibration_panel.html",
        {
            "calibration": calibration,
            "rows": rows,
            "method": CALIBRATION_METHOD,
            "simulated_human": simulated,
        },
        request=request,
    )
