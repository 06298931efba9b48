"""Simulated annotators: a user named :data:`SIMULATED_ANNOTATOR` that judges a job's open
review items (escalated and audit) with a reference qrels file's label, flipped with a set
error rate, so a study can be planned (or an estimator checked) before humans are paid.

Each judgment goes through :func:`assess.review.services.judgment_record` like a person's,
with the note :data:`SIMULATED_NOTE` and a client id derived from the job and the item, so a
second run records nothing twice. The annotator's name marks every label it gave: the
refined set's provenance and the labels export name ``simulated-annotator`` among a human
label's annotators, and the benchmark datasheet opens with a warning
(:func:`assess.review.simulated_marks.simulated_judgments_count`). The truth file must lie
in a folder of ``DREAM_SIMULATION_DIRS``, as the simulated debaters' must.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db.models import Exists, F, OuterRef, Q

from core.roles import Role, user_ensure
from debates.models import DebateJob
from debates.services.backends import truth_file_permit
from debates.services.common import DebateJobError
from debates.simulated_client import truth_file_load

from ..models import Judgment, ReviewItem
from ..models.simulated import SIMULATED_ANNOTATOR
from .same_pair import judged_elsewhere
from .services import JudgingConflict, judgment_record, review_item_top_grade

SIMULATED_NOTE = "SIMULATED judgment (not a real one)"
# The namespace of the simulated judgments' client ids (uuid5 of "job:item"): fixed, so the
# same job and item give the same id in every run and process.
CLIENT_ID_NAMESPACE = uuid.UUID("6f1c9b52-3d1e-5a8e-9c61-5e2a7d0b4c13")


class SimulationError(ValueError):
    """Input a simulated annotator cannot use (an error rate outside 0..1, a truth file
    outside ``DREAM_SIMULATION_DIRS``, unreadable, or with an id the dataset lacks)."""


@dataclass(frozen=True, slots=True)
class SimulatedJudging:
    """What :func:`simulated_judgments_record` did, in items: ``judged`` new judgments (of
    which ``flipped`` differ from the truth's label), ``already`` the simulated annotator's
    judgments in the job before this run (an earlier run's; left as they are), ``busy``
    skipped because a person holds a live lease or the item filled up meanwhile,
    ``elsewhere`` left to others because the simulated annotator judged the item's query and
    document in another job (an annotator judges a pair once, :mod:`assess.review.same_pair`),
    ``taken`` asking nobody because people already answered the pair on another job's item,
    whose label the item takes (:mod:`assess.review.answered`), ``taken_by_person`` of them
    answered by a person (a judgment of someone else than the simulated annotator, or an
    adjudication)."""

    judged: int
    flipped: int
    already: int
    busy: int
    elsewhere: int = 0
    taken: int = 0
    taken_by_person: int = 0

    @property
    def skipped(self) -> int:
        """The job's open-looking items this run judged none of: busy, taken or elsewhere."""
        return self.busy + self.taken + self.elsewhere


def simulated_truth_load(*, job: DebateJob, path: str | Path) -> dict[str, dict[str, int]]:
    """The truth qrels file at ``path`` as ``{query_id: {doc_id: grade}}``: it must lie in a
    folder of ``DREAM_SIMULATION_DIRS`` (:func:`debates.services.backends.truth_file_permit`)
    and every query and document id of it must be in ``job``'s dataset
    (:func:`debates.simulated_client.truth_file_load`). Reads only. Raises SimulationError
    naming the setting, or the file and line of a bad row."""
    absolute = str(Path(path).absolute())
    try:
        truth_file_permit(path=absolute, agent="simulated annotator")
        return truth_file_load(path=absolute, dataset=job.pool.dataset.slug)
    except (DebateJobError, ValueError) as exc:
        raise SimulationError(str(exc).removeprefix("agent simulated annotator: ")) from None


def simulated_annotator_ensure() -> Any:
    """The user :data:`SIMULATED_ANNOTATOR` with the annotator role, created (with an
    unusable password: nobody signs in as it) when missing; an existing one is reused."""
    User = get_user_model()
    found = User.objects.filter(**{User.USERNAME_FIELD: SIMULATED_ANNOTATOR}).first()
    if found is not None:
        return found
    user, _, _ = user_ensure(username=SIMULATED_ANNOTATOR, role=Role.ANNOTATOR)
    user.set_unusable_password()
    user.save(update_fields=["password"])
    return user


def simulated_annotator_name_check(*, stored: str | None, new: str) -> None:
    """Refuse a change of user name that would unmark or falsely mark labels: the simulated
    annotator's labels are recognised as simulated by its name (:data:`SIMULATED_ANNOTATOR`),
    so it may not be renamed (its labels would pass as a person's), and no other user may
    take the name (a person's labels would pass as simulated). ``stored`` is the name in the
    database (None for a new user), ``new`` the name about to be saved.

    Raises ValidationError naming the rule."""
    if stored == new:
        return
    # Caselessly: the provenance test matches the name in any case (a JSON text search).
    if stored is not None and stored.casefold() == SIMULATED_ANNOTATOR.casefold():
        raise ValidationError(
            f"{SIMULATED_ANNOTATOR} cannot be renamed: its name is what marks its labels as "
            "simulated, and renamed they would pass as a person's."
        )
    if new.casefold() == SIMULATED_ANNOTATOR.casefold() and stored is not None:
        raise ValidationError(
            f"no user can be renamed {SIMULATED_ANNOTATOR}: that name marks labels as "
            "simulated, and this user's real labels would be marked so."
        )


def on_user_save(sender: Any, *, instance: Any, raw: bool = False, **kwargs: Any) -> None:
    """``pre_save`` of the user model: :func:`simulated_annotator_name_check` against the
    stored name, whatever saves the user (the admin, the shell, a command)."""
    if raw or instance.pk is None:
        return
    User = type(instance)
    stored = User.objects.filter(pk=instance.pk).values_list(User.USERNAME_FIELD, flat=True).first()
    simulated_annotator_name_check(stored=stored, new=instance.get_username())


def simulated_client_id(*, job: DebateJob, item: ReviewItem) -> uuid.UUID:
    """The client id of the simulated judgment of ``item`` in ``job``: uuid5 of
    ``"job:item"`` in :data:`CLIENT_ID_NAMESPACE`, the same in every run."""
    return uuid.uuid5(CLIENT_ID_NAMESPACE, f"{job.pk}:{item.pk}")


def simulated_label(
    *, truth_grade: int, top: int, error: float, seed: int, query_id: str, doc_id: str
) -> int:
    """The simulated annotator's label of a pair whose truth grade is ``truth_grade`` (0 when
    the truth does not list it) on a scale 0..``top`` (1: binary, labels 1/0): the truth's
    label (binary: grade >= 1; graded: the grade, at most ``top``), replaced with
    probability ``error`` by another label drawn uniformly. The draw is seeded by ``seed``
    and the pair (SHA-256, the same in every process and whatever the order of the pairs)."""
    label = int(truth_grade >= 1) if top == 1 else min(max(truth_grade, 0), top)
    digest = hashlib.sha256(f"annotator\x1f{seed}\x1f{query_id}\x1f{doc_id}".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    if rng.random() >= error:
        return label
    others = [grade for grade in range(top + 1) if grade != label]
    return others[0] if len(others) == 1 else rng.choice(others)


def _open_items(job: DebateJob, annotator: Any) -> Iterable[ReviewItem]:
    """``job``'s escalated and audit items that still need a judgment, have no adjudication
    and no live judgment of ``annotator``, in id order, with their pairs; each annotated
    ``judged_elsewhere`` when ``annotator`` judged its query and document in another job."""
    return (
        ReviewItem.objects.filter(
            debate__job=job,
            kind__in=[ReviewItem.Kind.ESCALATED, ReviewItem.Kind.AUDIT],
            judgments_done__lt=F("judgments_needed"),
            adjudication__isnull=True,
        )
        .exclude(judgments__annotator=annotator, judgments__undone_at__isnull=True)
        .annotate(judged_elsewhere=Exists(judged_elsewhere(annotator)))
        .select_related("debate__pair__query", "debate__pair__document")
        .order_by("pk")
    )


def _taken_items(job: DebateJob, annotator: Any) -> tuple[int, int]:
    """``(taken, by a person)``: ``job``'s escalated and audit items without an adjudication
    that take people's answer from another job's item (``answered_by``: they want no
    judgment, so :func:`_open_items` never sees them), and how many of those answers a person
    gave (a live judgment of someone other than ``annotator``, or an adjudication)."""
    taken = ReviewItem.objects.filter(
        debate__job=job,
        kind__in=[ReviewItem.Kind.ESCALATED, ReviewItem.Kind.AUDIT],
        answered_by__isnull=False,
        adjudication__isnull=True,
    )
    person = Judgment.objects.filter(item_id=OuterRef("answered_by_id"), undone_at__isnull=True)
    by_person = taken.filter(
        Q(answered_by__adjudication__isnull=False) | Exists(person.exclude(annotator=annotator))
    )
    return taken.count(), by_person.count()


def simulated_judgments_record(
    *,
    job: DebateJob,
    truth: Mapping[str, Mapping[str, int]],
    error: float,
    seed: int,
    limit: int | None = None,
) -> SimulatedJudging:
    """Judge ``job``'s open escalated and audit items (at most ``limit``, in id order; None:
    all) as :data:`SIMULATED_ANNOTATOR` (:func:`simulated_annotator_ensure`), each with
    :func:`simulated_label` of its pair under ``truth`` (``{query_id: {doc_id: grade}}``)
    at error rate ``error`` (0..1) and ``seed``, through
    :func:`~assess.review.services.judgment_record` with the note :data:`SIMULATED_NOTE` and
    :func:`simulated_client_id`: a second run changes nothing it did. Raises SimulationError
    for an error rate outside 0..1 or a negative limit."""
    if not 0 <= error <= 1:
        raise SimulationError(f"error: must be between 0 and 1, got {error:g}")
    if limit is not None and limit < 0:
        raise SimulationError(f"limit: must be 0 or more, got {limit}")
    annotator = simulated_annotator_ensure()
    already = Judgment.objects.filter(  # on this job's own items, by earlier runs
        item__debate__job=job, annotator=annotator, undone_at__isnull=True
    ).count()
    items = list(_open_items(job, annotator))
    judged = flipped = busy = elsewhere = 0
    for item in items[:limit] if limit is not None else items:
        if item.judged_elsewhere:  # type: ignore[attr-defined]  # annotated by _open_items
            elsewhere += 1
            continue
        pair = item.debate.pair  # type: ignore[union-attr]  # escalated and audit: a debate
        query_id, doc_id = pair.query.query_id, pair.document.doc_id
        grade = truth.get(query_id, {}).get(doc_id, 0)
        top = review_item_top_grade(item=item)
        label = simulated_label(
            truth_grade=grade, top=top, error=error, seed=seed, query_id=query_id, doc_id=doc_id
        )
        try:
            recorded = judgment_record(
                item=item,
                annotator=annotator,
                label=label,
                client_id=simulated_client_id(job=job, item=item),
                note=SIMULATED_NOTE,
                timed=False,  # answered by a program: no time on task, never a click-through
            )
        except JudgingConflict:
            busy += 1
            continue
        if not recorded.created:  # a judgment an earlier run recorded (and a person undid)
            continue
        judged += 1
        flipped += label != (int(grade >= 1) if top == 1 else min(grade, top))
    taken, taken_by_person = _taken_items(job, annotator)
    return SimulatedJudging(
        judged=judged,
        flipped=flipped,
        already=already,
        busy=busy,
        elsewhere=elsewhere,
        taken=taken,
        taken_by_person=taken_by_person,
    )
