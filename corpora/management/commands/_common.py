"""Helpers shared by the corpora management commands."""

from __future__ import annotations

import json

from django.core.management.base import CommandError

from corpora.models import Dataset
from corpora.services import dataset_get


def load_dataset(slug: str) -> Dataset:
    """The dataset with this slug, or a CommandError listing the ones that exist."""
    try:
        return dataset_get(slug=slug)
    except Dataset.DoesNotExist:
        known = ", ".join(Dataset.objects.values_list("slug", flat=True)) or "none"
        raise CommandError(f"no dataset {slug!r} (known: {known})") from None


def format_summary(summary: dict) -> str:
    """Human-readable lines for :func:`corpora.services.dataset_summary`."""
    lines = [
        f"dataset {summary['dataset']}: {summary['documents']:,} documents, "
        f"{summary['queries']:,} queries"
    ]
    for name, stats in summary["qrels"].items():
        lines.append(
            f"  qrels {name} ({stats['origin']}): {stats['rows']:,} rows, "
            f"{stats['queries']:,} judged queries, {stats['relevant']:,} relevant, "
            f"{stats['relevant_per_query']} relevant per judged query"
        )
    return "\n".join(lines)


def dump_json(summary: dict) -> str:
    return json.dumps(summary, indent=2, sort_keys=True)
