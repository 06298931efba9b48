"""What a job sends out and receives besides LLM turns: webhook deliveries, batch-mode
requests and submissions, and the idempotency keys of job creation."""

from django.conf import settings
from django.db import models

from debates.models.debate import Debate
from debates.models.job import DebateJob


class WebhookDelivery(models.Model):
    """One callback POST of a job's event, and how its sending went.

    ``payload`` is what the event said when it happened (``sent_at`` is added per attempt);
    ``attempts`` counts the attempts made (a claim counts one), ``next_attempt_at`` is when
    the pending delivery is due (a claimed one: when its claim lapses), ``last_status_code``
    and ``last_error`` describe the last attempt.
    """

    class Event(models.TextChoices):
        FINISHED = "job.finished", "job.finished"
        FAILED = "job.failed", "job.failed"
        PAUSED = "job.paused", "job.paused"
        CANCELLED = "job.cancelled", "job.cancelled"

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        DELIVERED = "delivered", "delivered"
        FAILED = "failed", "failed"

    job = models.ForeignKey(DebateJob, on_delete=models.CASCADE, related_name="webhook_deliveries")
    event = models.CharField(max_length=20, choices=Event.choices)
    url = models.URLField(max_length=500)
    payload = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    delivered = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]
        indexes = [
            models.Index(fields=["status", "next_attempt_at"], name="webhook_due"),
        ]

    def __str__(self) -> str:
        return f"webhook {self.pk} {self.event} of job {self.job_id}: {self.status}"


class BatchRequest(models.Model):
    """One LLM request of a batch-mode job: due (to be sent in the next batch), sent (in a
    batch file or an uploaded batch, ``batch_ref``; ``sent`` is when first, and only a
    request exported once may be answered by an imported line), answered (``response``: the
    chat completion's JSON body) or failed (its line held an error; due again at the next export).
    ``custom_id`` names debate, round, agent and attempt (debates.batch.custom_id); ``body``
    is exactly what the direct path would POST."""

    class Status(models.TextChoices):
        DUE = "due", "due"
        SENT = "sent", "sent"
        ANSWERED = "answered", "answered"
        FAILED = "failed", "failed"

    job = models.ForeignKey(DebateJob, on_delete=models.CASCADE, related_name="batch_requests")
    debate = models.ForeignKey(Debate, on_delete=models.CASCADE, related_name="batch_requests")
    custom_id = models.CharField(max_length=100)
    body = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DUE)
    batch_ref = models.CharField(max_length=200, blank=True, help_text="Where it was sent.")
    sent = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When it was first exported (empty: never; its reply cannot be imported).",
    )
    response = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    failures = models.PositiveSmallIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)
    answered = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["job", "custom_id"], name="batchrequest_custom_id"),
        ]
        indexes = [models.Index(fields=["job", "status"], name="batchrequest_job_status")]

    def __str__(self) -> str:
        return f"{self.custom_id} ({self.status})"


class BatchSubmission(models.Model):
    """One batch of a batch-mode job sent to an OpenAI-compatible Batch API by
    ``debate_batch JOB submit`` (:mod:`debates.services.batch_api`), stored so that a new
    process resumes polling it instead of exporting again.

    ``status`` is the API's (validating … completed, failed, expired, cancelling, cancelled)
    or one of two of this code: ``exporting`` (the row exists, the batch is not created yet:
    its requests carry the provisional ref :attr:`provisional_ref`) and ``abandoned`` (a
    process stopped before the batch was created; its requests went back to due). A batch
    that ended is imported once: ``imported`` is set in the transaction of the import."""

    class Status(models.TextChoices):
        EXPORTING = "exporting", "exporting"
        ABANDONED = "abandoned", "abandoned"
        VALIDATING = "validating", "validating"
        IN_PROGRESS = "in_progress", "in progress"
        FINALIZING = "finalizing", "finalizing"
        COMPLETED = "completed", "completed"
        FAILED = "failed", "failed"
        EXPIRED = "expired", "expired"
        CANCELLING = "cancelling", "cancelling"
        CANCELLED = "cancelled", "cancelled"

    job = models.ForeignKey(DebateJob, on_delete=models.CASCADE, related_name="batch_submissions")
    batch_id = models.CharField(max_length=200, blank=True)
    input_file_id = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.EXPORTING)
    output_file_id = models.CharField(max_length=200, blank=True)
    error_file_id = models.CharField(max_length=200, blank=True)
    request_count = models.PositiveIntegerField(default=0, help_text="Request lines sent.")
    replies = models.PositiveIntegerField(default=0, help_text="Replies stored at the import.")
    returned = models.PositiveIntegerField(
        default=0, help_text="Sent requests without a reply, due again after the import."
    )
    detail = models.TextField(blank=True, help_text="The API's errors of a failed batch.")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    ended = models.DateTimeField(null=True, blank=True)
    imported = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["batch_id"],
                condition=~models.Q(batch_id=""),
                name="batchsubmission_batch_id",
            ),
        ]
        indexes = [models.Index(fields=["job", "imported"], name="batchsubmission_open")]

    def __str__(self) -> str:
        return f"batch {self.batch_id or self.provisional_ref} of job {self.job_id}: {self.status}"

    @property
    def provisional_ref(self) -> str:
        """The ``batch_ref`` of its requests until the batch is created (then its id)."""
        return f"submission:{self.pk}"


class JobIdempotencyKey(models.Model):
    """An ``Idempotency-Key`` a user sent with ``POST /api/v1/jobs``: the hash of the
    request it came with and the job that request made, with the answer it got (status and
    JSON body), so a repeat with the same key and body gets that answer again and makes no
    job. Unique per user and key: of two requests with one key in flight at once, the
    second waits for the first's transaction and then finds its row."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="job_idempotency_keys"
    )
    key = models.CharField(max_length=200)
    request_hash = models.CharField(max_length=64, help_text="SHA-256 of the request's fields.")
    job = models.ForeignKey(
        DebateJob, on_delete=models.CASCADE, null=True, related_name="idempotency_keys"
    )
    status_code = models.PositiveSmallIntegerField(default=202)
    response = models.JSONField(null=True, blank=True, help_text="The first answer's body.")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="jobidempotencykey_user_key"),
        ]

    def __str__(self) -> str:
        return f"idempotency key {self.key!r} of user {self.user_id}: job {self.job_id}"
