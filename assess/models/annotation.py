"""Human judging: the review queue, annotators' judgments and adjudications.

A :class:`ReviewItem` is one debate that needs human eyes: escalated by the debate
(disagreement or unparsed), or sampled from agreed debates for an audit (the annotator is not
told which); or a known-answer pair (:class:`GoldPair`) served to one annotator to measure
them, which has no debate and never becomes a label. Annotators claim items with a lease;
each claim ends in a :class:`Judgment`, a skip,
or an expired lease. When an item's human judgments disagree, an admin's :class:`Adjudication`
decides.
"""

import uuid

from django.conf import settings
from django.db import models

from debates.models import Debate, DebateJob

from .guidelines import Guidelines


class ReviewItem(models.Model):
    class Kind(models.TextChoices):
        ESCALATED = "escalated", "escalated by the debate"
        AUDIT = "audit", "audit of an agreed label"
        GOLD = "gold", "known-answer pair"

    # The item's name in every URL, form and API answer. The integer pk grows with creation
    # time and a gold item is made when an annotator reaches it, later than the pairs around
    # it; a random id orders nothing, so no page tells a gold pair apart by its number.
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    debate = models.OneToOneField(
        Debate, null=True, blank=True, on_delete=models.CASCADE, related_name="review"
    )
    # A gold item: the known-answer pair it shows, and the one annotator it was drawn for
    # (each annotator judges a gold pair on their own item; it keeps no debate).
    gold = models.ForeignKey(
        "GoldPair", null=True, blank=True, on_delete=models.CASCADE, related_name="items"
    )
    assigned_to = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="gold_items",
    )
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
    # Active seconds the lease holder's pages reported so far for this pair (heartbeats and
    # the beacon sent when a page is left); added to their judgment, reset by a new claim.
    lease_active_seconds = models.FloatField(db_default=0.0)
    created = models.DateTimeField(auto_now_add=True)
    # For the human budget (humans see the pairs that matter most first): the pair's impact on
    # the benchmark (sum over the runs that retrieved it of 1/log2(rank + 1) for rank <= 10)
    # and its place among the job's items (started items first, then impact desc, query id,
    # doc id; review_items_sync renumbers).
    impact = models.FloatField(default=0.0)
    budget_rank = models.PositiveIntegerField(null=True, blank=True)
    # The probability the pair was drawn into the human sample with: 1 for an escalated pair
    # (every one goes to humans), its stratum's audit probability for an audit (raised with
    # the stratum's; assess.review.audit), empty for a gold pair (never a label).
    inclusion = models.FloatField(null=True, blank=True)
    # When the item was made its pair (query and document) already had people's answer on
    # another job's item: this item takes that answer instead of asking people again (an
    # audit drawn for the pair, an escalation reused from the job that had it judged), and
    # wants no judgment of its own (judgments_needed 0). assess.review.answered.
    answered_by = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="answers_for",
        help_text="The other job's item of the same query and document whose human answer "
        "this item takes (it asks nobody; judgments_needed 0).",
    )

    class Meta:
        indexes = [
            models.Index(fields=["judgments_done", "lease_expires_at"], name="review_queue"),
        ]
        constraints = [
            # A debate's item, or a gold pair's item for one annotator: never both, never none.
            models.CheckConstraint(
                condition=(
                    models.Q(debate__isnull=False, gold__isnull=True, assigned_to__isnull=True)
                    | models.Q(debate__isnull=True, gold__isnull=False, assigned_to__isnull=False)
                ),
                name="reviewitem_debate_or_gold",
            ),
            models.UniqueConstraint(
                fields=["gold", "assigned_to"],
                condition=models.Q(gold__isnull=False),
                name="reviewitem_one_gold_item_per_annotator",
            ),
        ]

    def __str__(self) -> str:
        if self.gold_id is not None:
            return f"gold pair {self.gold_id} for user {self.assigned_to_id}"
        return f"review of debate {self.debate_id} ({self.kind})"


class GoldPair(models.Model):
    """A pair whose answer the original qrels already give, drawn for a job's gold share.

    Mixed unmarked into annotators' queues (:mod:`assess.review.gold`) to measure each
    annotator's accuracy; never a label of a refined set. ``label`` is the known answer on
    the job's scale (1/0, or the qrels grade on a graded job; 0 for negatives).
    """

    class Basis(models.TextChoices):
        QRELS_RELEVANT = "qrels-relevant", "judged relevant in the original qrels"
        QRELS_NONRELEVANT = "qrels-nonrelevant", "judged not relevant in the original qrels"
        CROSS_QUERY = (
            "cross-query",
            "another query's relevant chunk that no run ranks in this query's top 100",
        )

    job = models.ForeignKey(DebateJob, on_delete=models.CASCADE, related_name="gold_pairs")
    query = models.ForeignKey("corpora.Query", on_delete=models.CASCADE, related_name="+")
    document = models.ForeignKey("corpora.Document", on_delete=models.CASCADE, related_name="+")
    label = models.SmallIntegerField(help_text="The known answer on the job's scale.")
    basis = models.CharField(max_length=20, choices=Basis.choices)
    draw_key = models.CharField(
        max_length=64, help_text="SHA-256 of the job and the pair: the reproducible draw order."
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["draw_key"]
        constraints = [
            models.UniqueConstraint(
                fields=["job", "query", "document"], name="goldpair_natural_key"
            )
        ]

    def __str__(self) -> str:
        return f"gold {self.query_id} {self.document_id} = {self.label} ({self.basis})"


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
    seconds_on_task = models.FloatField(
        default=0, help_text="Seconds from the pair being shown to the answer (wall clock)."
    )
    active_seconds = models.FloatField(
        null=True,
        blank=True,
        help_text="Seconds with the page visible and input within the last 60 s (measured by "
        "the judging page); empty when not measured (posted without the script).",
    )
    click_through = models.BooleanField(
        default=False,
        help_text="Answered faster than the floor for the chunk's length: possibly not read.",
    )
    guidelines = models.ForeignKey(
        Guidelines,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="judgments",
        help_text="The guidelines version the annotator had confirmed when judging.",
    )
    created = models.DateTimeField(auto_now_add=True)
    undone_at = models.DateTimeField(null=True, blank=True)
    returned = models.BooleanField(
        default=False,
        help_text="Undone by an admin because the annotator was flagged under the gold "
        "accuracy floor: the pair is never given to this annotator again.",
    )

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
