"""Which labels the review pages show are simulated, so that each is marked SIMULATED where
it appears (the job page's human-review panel, the disagreements page, the annotators'
pages), as the refined sets and re-benchmarks mark theirs (:mod:`assess.models.simulated`).

Three kinds, the same as a refined label's provenance: a debate label of a job whose agents
include a simulated debater (:func:`assess.models.simulated.agents_simulated`), a judgment
of the simulated annotator (:data:`assess.models.simulated.SIMULATED_ANNOTATOR`,
``simulate_annotators``), and a stage-0 label of a job whose judge or band used simulated
labels (``DebateJob.stage0_simulated_labels``). Reads only.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q, QuerySet

from debates.models import Debate, DebateJob

from ..models import Adjudication, Judgment, ReviewItem
from ..models.simulated import SIMULATED_ANNOTATOR, agents_simulated


def simulated_annotator_id() -> int | None:
    """The id of the simulated annotator's user, None when ``simulate_annotators`` never
    ran."""
    User = get_user_model()
    found = User.objects.filter(**{User.USERNAME_FIELD: SIMULATED_ANNOTATOR})
    return found.values_list("pk", flat=True).first()


def job_simulated(job: DebateJob) -> bool:
    """Whether ``job``'s debate labels are simulated (a simulated debater among its agents)."""
    return agents_simulated(job.agent_a, job.agent_b)


def job_simulated_labels(*, job: DebateJob) -> dict[str, int]:
    """``{"debate": n, "human": m, "stage0": k}``: ``job``'s simulated labels, as
    :func:`assess.models.simulated.simulated_sentence` says them: its agreed debate labels
    (a stage-0 label is no debater's, so left out) when its agents are simulated, the
    simulated annotator's live judgments behind its human labels
    (:func:`simulated_judgments_count`), and its stage-0 labels when its judge or band used
    simulated labels."""
    debate = stage0 = 0
    agreed = Debate.objects.filter(job=job, status=Debate.Status.AGREED)
    if job_simulated(job):
        debate = agreed.exclude(settled_by="stage0").count()
    if job.stage0_simulated_labels:
        stage0 = agreed.filter(settled_by="stage0").count()
    human = simulated_judgments_count(jobs=[job.pk])
    return {"debate": debate, "human": human, "stage0": stage0}


def simulated_judgments_count(*, jobs: Iterable[int]) -> int:
    """The simulated annotator's live judgments behind the human labels of the jobs with ids
    ``jobs``: those given on their debate items, and those of the items theirs took the answer
    of (``ReviewItem.answered_by``: a second job's audit or reused escalation takes the first
    job's answer, simulated if the first job's was; :mod:`assess.review.answered`). Each
    judgment counts once, however many of the jobs read it."""
    jobs = list(jobs)
    taken = ReviewItem.objects.filter(debate__job_id__in=jobs, answered_by__isnull=False)
    return Judgment.objects.filter(
        Q(item__debate__job_id__in=jobs) | Q(item__in=taken.values("answered_by_id")),
        undone_at__isnull=True,
        annotator__username=SIMULATED_ANNOTATOR,
    ).count()


def consensus_simulated(*, item: ReviewItem) -> bool:
    """Whether the label ``item``'s debate agreed on is simulated: a debate's of a job whose
    agents are simulated, or stage 0's of a job whose judge or band used simulated labels;
    False for an escalated debate (no label) or a known-answer item (no debate)."""
    debate = item.debate
    if debate is None or debate.final_label is None:
        return False
    if debate.settled_by == "stage0":
        return bool(debate.job.stage0_simulated_labels)
    return job_simulated(debate.job)


def dataset_simulated_human_pairs(*, dataset) -> set[tuple[int, int]]:
    """``{(query pk, document pk)}`` of ``dataset``'s debated pairs whose human label the
    simulated annotator took part in: a review item of theirs not adjudicated (an admin's
    label is never simulated) with a live judgment of its, or whose answer came from an
    item with one (``answered_by``). What stage 0 counts as simulated among the human
    labels it learns from and sets its band on (registered with
    :func:`debates.stage0.stage0_simulated_human_register`)."""
    items = simulated_items(items=ReviewItem.objects.filter(debate__pair__pool__dataset=dataset))
    items = items.exclude(Exists(Adjudication.objects.filter(item=OuterRef("pk"))))
    return set(items.values_list("debate__pair__query_id", "debate__pair__document_id"))


def simulated_items(*, items: QuerySet[ReviewItem]) -> QuerySet[ReviewItem]:
    """Those of ``items`` that hold a human label the simulated annotator gave: a live
    judgment of its on the item, or on the item it took its answer from (``answered_by``,
    another job's item of the same pair: :mod:`assess.review.answered`)."""
    by_simulated = Judgment.objects.filter(
        undone_at__isnull=True, annotator__username=SIMULATED_ANNOTATOR
    )
    own = Exists(by_simulated.filter(item=OuterRef("pk")))
    taken = Exists(by_simulated.filter(item=OuterRef("answered_by_id")))
    return items.filter(own | taken)


def simulated_items_count(*, items: QuerySet[ReviewItem]) -> int:
    """How many of ``items`` hold a human label the simulated annotator gave
    (:func:`simulated_items`)."""
    return simulated_items(items=items).count()
