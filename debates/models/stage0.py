"""The stage-0 judges: one cheap calibrated judge per dataset and training."""

from django.db import models

from corpora.models import Dataset


class Stage0Judge(models.Model):
    """A stage-0 judge of one dataset: a classifier over frozen all-MiniLM-L6-v2 vectors of
    query and document and the pair's term-matching scalars, calibrated to P(relevant)
    (:mod:`debates.stage0`).

    ``fitted`` holds the classifier, its calibrator and the scalars' standardiser as bytes
    (:func:`debates.stage0.fit.fitted_dump`), written only by training: never a file path.
    ``data_hash`` is the sha256 of the sorted training and calibration examples (query id, doc
    id, label, source), ``weights_hash`` that of the encoder's identity and the fitted bytes,
    ``model_hash`` of the two. ``heldout`` lists the held-out test queries' labelled pairs with
    their calibrated probability, ``[{"query_id", "doc_id", "p", "label", "source"}]``, which no
    fitting or calibrating saw; ``metrics`` holds their figures (balanced_accuracy,
    recall_relevant, recall_nonrelevant, ece, brier, n) with the split and the example counts
    per source and part. ``band_calibration`` lists the human labels of pooled pairs (any query)
    with their calibrated probability and sampling probabilities, ``[{"query_id", "doc_id", "p",
    "label", "inclusion", "floor"}]``: never fitted on, they set the routing band
    (:mod:`debates.stage0_band`); a row the simulated annotator labelled says ``"simulated":
    true``. ``simulated_labels`` and ``band_simulated`` count the simulated labels it learnt
    from and holds for the band: a job whose stage 0 used any marks its stage-0 labels simulated
    (``DebateJob.stage0_simulated_labels``).
    """

    class Status(models.TextChoices):
        TRAINING = "training", "training"
        READY = "ready", "ready"
        FAILED = "failed", "failed"

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="stage0_judges")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.TRAINING)
    model_hash = models.CharField(max_length=64, blank=True)
    data_hash = models.CharField(max_length=64, blank=True)
    weights_hash = models.CharField(max_length=64, blank=True)
    fitted = models.BinaryField(null=True, blank=True, editable=False)
    n_train = models.PositiveIntegerField(default=0, help_text="Examples the classifier fit.")
    heldout = models.JSONField(default=list, blank=True)
    band_calibration = models.JSONField(default=list, blank=True)
    simulated_labels = models.PositiveIntegerField(
        default=0,
        help_text="Simulated labels among the training and calibration examples (consensus "
        "of simulated debaters, human labels the simulated annotator gave).",
    )
    metrics = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]
        indexes = [models.Index(fields=["dataset", "status"], name="stage0_dataset_status")]

    def __str__(self) -> str:
        return f"stage-0 judge {self.pk} of dataset {self.dataset_id} ({self.status})"

    @property
    def band_simulated(self) -> int:
        """Simulated human labels among ``band_calibration``'s rows (those saying
        ``"simulated": true``)."""
        return sum(1 for row in self.band_calibration or [] if row.get("simulated"))
