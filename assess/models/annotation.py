"""Human judging: the review queue, annotators' judgments and adjudications.

A :class:`ReviewItem` is one debate that needs human eyes: escalated by the debate
(disagreement or unparsed), or sampled from agreed debates for an audit (the annotator is not
told which). Annotators claim items with a lease; each claim ends in a :class:`Judgment`, a skip,
or an expired lease. When an item's human judgments disagree, an admin's :class:`Adjudication`
decides.
"""

from django.conf import settings
from django.db import models

from debates.models import Debate


class ReviewItem(models.Model):
    class Kind(models.TextChoices):
        ESCALATED = "escalated", "escalated by the debate"
        AUDIT = "audit", "audit of an agreed label"

    debate = models.OneToOneField(Debate, on_delete=models.CASCADE, related_name="review")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    judgments_needed = models.PositiveSmallIntegerField(default=1)
    judgments_done = models.PositiveSmallIntegerField(default=0)
    # The current claim: who holds the item and until when (an expired lease is free again).
    leased_to = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="leased_items",
    )
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    # For the human budget (humans see the pairs that matter most first): the pair's impact on
    # the benchmark (sum over the runs that retrieved it of 1/log2(rank + 1) for rank <= 10)
    # and its place among the job's items (started items first, then impact desc, query id,
    # doc id; review_items_sync renumbers).
    impact = models.FloatField(default=0.0)
    budget_rank = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["judgments_done", "lease_expires_at"], name="review_queue"),
        ]

    def __str__(self) -> str:
        return f"review of debate {self.debate_id} ({self.kind})"


class Judgment(models.Model):
    """One annotator's label for one review item. Undone judgments are kept, marked undone."""

    item = models.ForeignKey(ReviewItem, on_delete=models.CASCADE, related_name="judgments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="judgments"
    )
    label = models.SmallIntegerField(
        help_text="1 relevant, 0 not relevant; on a graded job's pair the grade 0..G."
    )
    note = models.TextField(blank=True)
    client_id = models.UUIDField(
        unique=True, help_text="Sent by the browser; makes re-sends idempotent."
    )
    seconds_on_task = models.FloatField(default=0)
    created = models.DateTimeField(auto_now_add=True)
    undone_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created"]
        constraints = [
            # One live judgment per annotator and item: a pair never goes twice to one person.
            models.UniqueConstraint(
                fields=["item", "annotator"],
                condition=models.Q(undone_at__isnull=True),
                name="judgment_one_live_per_annotator",
            ),
            # 0..4: the largest scale with a rubric (debates.rubric); the service checks
            # the pair's own scale (1/0, or 0..G of its graded job).
            models.CheckConstraint(
                condition=models.Q(label__gte=0, label__lte=4), name="judgment_grade"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.annotator_id} judged item {self.item_id}: {self.label}"


class Adjudication(models.Model):
    """An admin's final word on an item whose human judgments disagree; it wins."""

    item = models.OneToOneField(ReviewItem, on_delete=models.CASCADE, related_name="adjudication")
    admin = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="adjudications"
    )
    label = models.SmallIntegerField()
    note = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(label__gte=0, label__lte=4), name="adjudication_grade"
            )
        ]

    def __str__(self) -> str:
        return f"adjudication of item {self.item_id}: {self.label}"
