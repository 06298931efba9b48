"""What a page or a datasheet says about labels of the bundled model (SmolLM2-135M, the
embedded backend without a ``model_path``): they are for trying the pipeline, not for a
benchmark. The job page shows it as a banner (``debates.views``), a benchmark zip's datasheet
as its first warning (``assess.refined.datasheet``); both ask
:attr:`debates.models.DebateJob.uses_bundled_model` whether a job's labels are concerned."""

from __future__ import annotations

GENERIC_EMBEDDED_WARNING = (
    "The embedded model (SmolLM2-135M) is tiny: its labels are for trying the pipeline, "
    "not for a benchmark. Use a strong model for real labels."
)


def embedded_warning() -> str:
    """What the job page says about the embedded model's labels: always the generic warning
    (labels for trying the pipeline, not a benchmark), followed by the measured accuracy note
    ``debates.llm.embedded.MEASURED_ACCURACY_NOTE`` when that constant exists."""
    from debates.llm import embedded

    note = getattr(embedded, "MEASURED_ACCURACY_NOTE", "")
    return f"{GENERIC_EMBEDDED_WARNING} {note}" if note else GENERIC_EMBEDDED_WARNING
