"""Read-only queries for the re-benchmark and RAG pages (:mod:`assess.evaluation.views`).
Each returns model instances or plain values; none writes.
"""

from __future__ import annotations

from corpora.models import Dataset, QrelSet, Run


def qrel_sets_by_name(*, dataset: Dataset) -> list[QrelSet]:
    """Every qrel set of the dataset (imported and refined), by name."""
    return list(QrelSet.objects.filter(dataset=dataset).order_by("name"))


def runs_finished(*, dataset: Dataset) -> list[Run]:
    """The dataset's finished runs (built-in and imported), by name."""
    return list(Run.objects.filter(dataset=dataset, status=Run.Status.DONE).order_by("name"))


def queries_with_answers_count(*, dataset: Dataset) -> int:
    """How many of the dataset's queries have reference answers."""
    return dataset.queries.exclude(answers=[]).count()
