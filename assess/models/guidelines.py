"""Annotation guidelines: Markdown text per dataset (or per job), versioned, and each
annotator's confirmation of a version before judging under it.

A new text is a new :class:`Guidelines` row with the next version number; rows are never
edited, so a judgment's ``guidelines`` foreign key names exactly the text its annotator had
confirmed. The guidelines in force for a pair are its job's newest version if the job has
any, else its dataset's newest, else the built-in default (``dataset`` and ``job`` empty).
"""

from django.conf import settings
from django.db import models

__all__ = ["Guidelines", "GuidelinesConfirmation"]


class Guidelines(models.Model):
    """One version of the guidelines of a dataset, a job, or the built-in default."""

    dataset = models.ForeignKey(
        "corpora.Dataset",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="guidelines",
    )
    job = models.ForeignKey(
        "debates.DebateJob",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="guidelines",
    )
    version = models.PositiveIntegerField()
    text = models.TextField(help_text="Markdown; rendered sanitised (assess.review.guidelines).")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-version"]
        constraints = [
            # One row per version in each scope. Three partial constraints rather than one
            # with nulls_distinct=False, which SQLite and PostgreSQL before 15 cannot hold
            # (Django would skip it there without a word).
            models.UniqueConstraint(
                fields=["job", "version"],
                condition=models.Q(job__isnull=False),
                name="guidelines_one_version_per_job",
            ),
            models.UniqueConstraint(
                fields=["dataset", "version"],
                condition=models.Q(dataset__isnull=False, job__isnull=True),
                name="guidelines_one_version_per_dataset",
            ),
            models.UniqueConstraint(
                fields=["version"],
                condition=models.Q(dataset__isnull=True, job__isnull=True),
                name="guidelines_one_default_version",
            ),
            models.CheckConstraint(
                condition=models.Q(dataset__isnull=True) | models.Q(job__isnull=True),
                name="guidelines_dataset_or_job",
            ),
        ]

    def __str__(self) -> str:
        scope = (
            f"job {self.job_id}"
            if self.job_id
            else f"dataset {self.dataset_id}"
            if self.dataset_id
            else "default"
        )
        return f"guidelines of {scope}, version {self.version}"


class GuidelinesConfirmation(models.Model):
    """An annotator confirmed having read one guidelines version."""

    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    guidelines = models.ForeignKey(
        Guidelines, on_delete=models.CASCADE, related_name="confirmations"
    )
    confirmed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["annotator", "guidelines"], name="guidelines_confirmed_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.annotator_id} confirmed {self.guidelines_id}"
