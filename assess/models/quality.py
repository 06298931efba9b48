"""The annotator quality policy: the gold accuracy floor under which an annotator is flagged.

One row (pk 1), set by an admin on the annotators page; read with
:func:`assess.review.gold.quality_policy`, which falls back to the defaults when no admin has
set it yet (a read never writes the row).
"""

from django.conf import settings
from django.db import models

__all__ = ["QualityPolicy"]

DEFAULT_FLOOR = 0.8
DEFAULT_MIN_ANSWERS = 10


class QualityPolicy(models.Model):
    """The accuracy floor on known-answer pairs and the answers needed before it applies."""

    accuracy_floor = models.FloatField(
        default=DEFAULT_FLOOR,
        help_text="An annotator whose gold accuracy is below this (0..1) is flagged.",
    )
    min_answers = models.PositiveIntegerField(
        default=DEFAULT_MIN_ANSWERS,
        help_text="Gold answers an annotator needs before the floor applies to them.",
    )
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"floor {self.accuracy_floor:.0%} after {self.min_answers} gold answers"
