"""Read-only queries for the adjudication and annotator pages: pairs whose human answers
disagree (with each other or with the consensus), each pair's answers, and per-annotator
figures. Split from :mod:`assess.review.selectors`, whose label helpers it uses.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from debates.models import DebateJob

from ..models import Adjudication, Judgment, ReviewItem
from . import agreement
from .selectors import job_top_grade, label_text, live_labels, today_start
from .simulated_marks import job_simulated, simulated_annotator_id

# ---------------------------------------------------------------------------------------------
# Disagreements and adjudication


@dataclass(frozen=True, slots=True)
class Disagreement:
    """A pair whose human answers disagree with each other or with the agents' consensus;
    ``simulated_labels``: how many of ``labels`` the simulated annotator gave,
    ``simulated_consensus``: the consensus is simulated debaters' (both marked SIMULATED);
    ``stage0``: the "consensus" is stage 0's label (no debate), never simulated debaters'."""

    item: ReviewItem
    why: str
    labels: list[int]
    consensus: int | None
    decided: int | None
    simulated_labels: int = 0
    simulated_consensus: bool = False
    stage0: bool = False


def disagreements(*, job: DebateJob | None = None, open_only: bool = False) -> list[Disagreement]:
    """Pairs for adjudication, oldest first: live human judgments that disagree, or (audits)
    a human label that differs from the consensus (or stage 0's label). ``decided`` is the
    adjudicated label."""
    items = ReviewItem.objects.filter(debate__isnull=False)
    if job is not None:
        items = items.filter(debate__job=job)
    labels = live_labels(items)
    decided_by = ReviewItem.objects.filter(pk__in=list(labels)).values_list(
        "pk", "debate__final_label", "debate__settled_by"
    )
    consensus = {pk: label for pk, label, _ in decided_by}
    # A stage-0 label is no agents' consensus: the page says whose label it is.
    stage0 = {pk for pk, _, settled_by in decided_by if settled_by == "stage0"}
    why: dict[int, str] = {}
    for item_id, pairs in labels.items():
        values = {label for _, label in pairs}
        if len(values) > 1:
            why[item_id] = "annotators disagree"
        elif consensus.get(item_id) is not None and consensus[item_id] not in values:
            why[item_id] = (
                "annotator disagrees with stage 0's label"
                if item_id in stage0
                else "annotator disagrees with the agents' consensus"
            )
    rows = (
        ReviewItem.objects.filter(pk__in=list(why))
        .select_related("debate__pair__query", "debate__pair__document", "debate__job")
        .order_by("created", "pk")
    )
    decided = dict(Adjudication.objects.filter(item__in=rows).values_list("item_id", "label"))
    robot = simulated_annotator_id()
    simulated_jobs: dict[int, bool] = {}
    out = []
    for item in rows:
        job_of = item.debate.job  # type: ignore[union-attr]  # rows are debates' items
        if job_of.pk not in simulated_jobs:
            simulated_jobs[job_of.pk] = job_simulated(job_of)
        out.append(
            Disagreement(
                item=item,
                why=why[item.pk],
                labels=[label for _, label in labels[item.pk]],
                consensus=consensus.get(item.pk),
                decided=decided.get(item.pk),
                simulated_labels=sum(1 for who, _ in labels[item.pk] if who == robot),
                simulated_consensus=simulated_jobs[job_of.pk]
                and consensus.get(item.pk) is not None
                and item.pk not in stage0,
                stage0=item.pk in stage0,
            )
        )
    if open_only:
        out = [row for row in out if row.decided is None]
    return out


@dataclass(frozen=True, slots=True)
class HumanAnswer:
    """One annotator's live judgment as the adjudication page shows it."""

    annotator: str
    label: int
    label_text: str
    note: str
    seconds: float
    created: datetime


def human_answers(*, item: ReviewItem) -> list[HumanAnswer]:
    """Every live judgment of ``item``, oldest first (for admins adjudicating)."""
    rows = (
        Judgment.objects.filter(item=item, undone_at__isnull=True)
        .select_related("annotator")
        .order_by("created", "pk")
    )
    top = job_top_grade(DebateJob.objects.get(debates__review__pk=item.pk))
    return [
        HumanAnswer(
            annotator=j.annotator.get_username(),
            label=j.label,
            label_text=label_text(j.label, top),
            note=j.note,
            seconds=j.seconds_on_task,
            created=j.created,
        )
        for j in rows
    ]


# ---------------------------------------------------------------------------------------------
# Annotator overview


@dataclass(frozen=True, slots=True)
class AnnotatorRow:
    """One annotator's work: live judgments (all time and today), undone ones, the median
    time on task (seconds), and agreement with other annotators on shared pairs (share of
    agreeing judgment pairs, over ``compared`` pairs) and with adjudicated labels."""

    username: str
    judgments: int
    today: int
    undone: int
    median_seconds: float | None
    agreement: float | None
    compared: int
    adjudicated_agreement: float | None
    adjudicated: int = field(default=0)


def annotator_overview(*, now: datetime | None = None) -> list[AnnotatorRow]:
    """Every user who judged a debate's pair at least once, by username (their answers on
    known-answer pairs are in :func:`assess.review.quality.annotator_quality`)."""
    now = now or timezone.now()
    start = today_start(now)
    # Judgments of debates' pairs: answers on known-answer pairs are scored apart
    # (assess.review.quality), never compared with other annotators'.
    rows = Judgment.objects.filter(item__debate__isnull=False).values_list(
        "annotator_id", "item_id", "label", "seconds_on_task", "created", "undone_at"
    )
    live_by_item: dict[int, list[tuple[int, int]]] = defaultdict(list)
    stats: dict[int, dict[str, Any]] = defaultdict(
        lambda: {"judgments": 0, "today": 0, "undone": 0, "seconds": []}
    )
    for annotator_id, item_id, label, seconds, created, undone_at in rows:
        entry = stats[annotator_id]
        if undone_at is not None:
            entry["undone"] += 1
            continue
        entry["judgments"] += 1
        entry["today"] += created >= start
        entry["seconds"].append(seconds)
        live_by_item[item_id].append((annotator_id, label))
    agree: dict[int, list[int]] = defaultdict(lambda: [0, 0])  # annotator: [agreeing, compared]
    for pairs in live_by_item.values():
        for a, label_a in pairs:
            for b, label_b in pairs:
                if a != b:
                    agree[a][0] += label_a == label_b
                    agree[a][1] += 1
    adjudicated = dict(Adjudication.objects.values_list("item_id", "label"))
    vs_adj: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for item_id, final in adjudicated.items():
        for a, label in live_by_item.get(item_id, []):
            vs_adj[a][0] += label == final
            vs_adj[a][1] += 1
    names = dict(
        get_user_model()
        .objects.filter(pk__in=list(stats))
        .values_list("pk", get_user_model().USERNAME_FIELD)
    )
    out = []
    for annotator_id, entry in stats.items():
        agreeing, compared = agree[annotator_id]
        adj_agree, adj_n = vs_adj[annotator_id]
        out.append(
            AnnotatorRow(
                username=names.get(annotator_id, str(annotator_id)),
                judgments=entry["judgments"],
                today=entry["today"],
                undone=entry["undone"],
                median_seconds=agreement.median(entry["seconds"]),
                agreement=agreeing / compared if compared else None,
                compared=compared,
                adjudicated_agreement=adj_agree / adj_n if adj_n else None,
                adjudicated=adj_n,
            )
        )
    return sorted(out, key=lambda row: row.username)
