"""Helpers shared by the corpora management commands."""

from __future__ import annotations

import argparse

from django.core.management.base import CommandError

from corpora.formats import UNKNOWN_ID_POLICIES
from corpora.models import Dataset, QrelSet
from corpora.pool_strategies import budget_read
from corpora.services.datasets import dataset_get, qrel_set_get


def load_dataset(slug: str) -> Dataset:
    """The dataset with this slug, or a CommandError listing the ones that exist."""
    try:
        return dataset_get(slug=slug)
    except Dataset.DoesNotExist:
        known = ", ".join(Dataset.objects.values_list("slug", flat=True)) or "none"
        raise CommandError(f"no dataset {slug!r} (known: {known})") from None


def load_qrel_set(dataset: Dataset, name: str) -> QrelSet:
    """The dataset's qrel set of this name, or a CommandError listing the ones it has."""
    try:
        return qrel_set_get(dataset=dataset, name=name)
    except QrelSet.DoesNotExist:
        names = ", ".join(dataset.qrel_sets.values_list("name", flat=True)) or "none"
        raise CommandError(f"no qrel set {name!r} (known: {names})") from None


def budget_type(text: str) -> float:
    """argparse type of ``--budget`` (``build_pool``, ``pool_study``): a whole number of pairs
    from 1 to :data:`~corpora.pool_strategies.MAX_BUDGET` (an int), or a share of the pool
    below 1 (a float), read by :func:`~corpora.pool_strategies.budget_read`: ``1.0`` or
    ``2.5`` are refused, ``1`` is one pair. An unfit value is a usage error naming the flag
    ("argument --budget: 1.0: give a whole number of pairs ...") before anything is read or
    written."""
    try:
        return budget_read(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_unknown_ids_argument(parser, *, rows: str = "Rows", refused: str = "file") -> None:
    """``--unknown-ids reject|drop``: what an import does with ``rows`` naming a query or
    document id the dataset lacks (reject the ``refused`` whole, or drop and list them)."""
    parser.add_argument(
        "--unknown-ids",
        choices=UNKNOWN_ID_POLICIES,
        default="reject",
        help=f"{rows} naming a query or document id that is not in the dataset: reject the "
        f"{refused} (default) or drop the rows (counted and listed)",
    )


def format_summary(summary: dict) -> str:
    """Human-readable lines for :func:`corpora.services.datasets.dataset_summary`."""
    lines = [
        f"dataset {summary['dataset']}: {summary['documents']:,} documents, "
        f"{summary['queries']:,} queries"
    ]
    for name, stats in summary["qrels"].items():
        dropped = stats.get("unknown_ids_dropped", 0)
        lines.append(
            f"  qrels {name} ({stats['origin']}): {stats['rows']:,} rows, "
            f"{stats['queries']:,} judged queries, {stats['relevant']:,} relevant, "
            f"{stats['relevant_per_query']} relevant per judged query"
            + (f"; {dropped:,} rows with unknown ids dropped" if dropped else "")
        )
    return "\n".join(lines)


def format_unknown_dropped(rows: list[str]) -> str:
    """The rows an import skipped for unknown ids, one ``file:line: unknown ... id`` a line."""
    lines = [f"dropped {len(rows):,} row(s) naming unknown ids:"]
    return "\n".join(lines + [f"  {r}" for r in rows])


def format_identical(identical: dict) -> str:
    """Lines for the identical-id counts of
    :func:`corpora.services.datasets.dataset_identical_ids_count`."""
    state = "excluded" if identical["exclude"] else "kept"
    return (
        f"identical ids: {identical['ids']:,} of {identical['queries']:,} query ids are also "
        f"document ids ({identical['same_id_and_text']:,} with the same text); "
        f"{identical['texts']:,} documents have a query's text; a query's own document is "
        f"{state} (--identical-ids, or the dataset's admin page)"
    )


def format_answers_summary(count: int, summary: dict) -> str:
    """Lines for ``import_answers``: queries this file set, then the dataset's totals from
    :func:`corpora.services.datasets.answers_summary`."""
    return (
        f"answers set for {count:,} queries; {summary['with_answers']:,} of "
        f"{summary['queries']:,} queries in {summary['dataset']} have reference answers\n"
        f"  {summary['answers']:,} answers in all, {summary['answers_per_query']} per query "
        f"with answers; {summary['without_answers']:,} queries without answers"
    )


def format_long_texts(long_texts: dict | None) -> str | None:
    """A line for the over-long texts of :func:`corpora.services.long_texts.dataset_long_texts`
    (None when there are none): counts and up to 20 ids of each kind."""
    if not long_texts or not (long_texts["queries"] or long_texts["documents"]):
        return None
    parts = []
    for kind, ids, why in (
        ("queries", "query_ids", "their debates will end as too long for the context"),
        ("documents", "document_ids", "the agents read only their beginning"),
    ):
        if long_texts[kind]:
            more = ", ..." if long_texts[kind] > len(long_texts[ids]) else ""
            listed = ", ".join(long_texts[ids])
            parts.append(f"{long_texts[kind]:,} {kind} ({listed}{more}): {why}")
    return f"over-long texts (more than {long_texts['chars']:,} characters): " + "; ".join(parts)
