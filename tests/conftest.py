"""Shared fixtures: the real datasets, tiny BEIR folders written on the fly, table snapshots."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("DREAM_SHARED_DATA", REPO.parent / "shared" / "data"))
BUNDLED_SCIFACT = REPO / "data" / "scifact"


def shared_dataset(name: str) -> Path:
    """Path of a real dataset in ``../shared/data``; skips loudly in CI if it is missing."""
    path = SHARED_DATA / name
    if not path.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"real dataset missing in CI: {path}")
        pytest.skip(f"real dataset not available: {path}")
    return path


def write_beir(
    folder: Path,
    *,
    corpus: list[dict] | str,
    queries: list[dict] | str,
    qrels: dict[str, str] | None = None,
) -> Path:
    """Write a BEIR folder. Lists are written one JSON object a line; strings verbatim."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in (("corpus.jsonl", corpus), ("queries.jsonl", queries)):
        if isinstance(content, str):
            text = content
        else:
            text = "".join(json.dumps(obj) + "\n" for obj in content)
        (folder / name).write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    if qrels:
        (folder / "qrels").mkdir(exist_ok=True)
        for split, content in qrels.items():
            (folder / "qrels" / f"{split}.tsv").write_text(content, encoding="utf-8")
    return folder


TINY_CORPUS = [
    {"_id": "d1", "title": "Solar", "text": "solar panel efficiency"},
    {"_id": "d2", "title": "Tax", "text": "solar tax credit"},
    {"_id": "d3", "title": "Wind", "text": "wind turbine noise"},
]
TINY_QUERIES = [
    {"_id": "q1", "text": "solar power"},
    {"_id": "q2", "text": "wind noise"},
]


@pytest.fixture
def tiny_beir(tmp_path: Path):
    """A factory for a small valid BEIR folder; override any part to make it bad."""

    def make(**overrides) -> Path:
        parts = {
            "corpus": TINY_CORPUS,
            "queries": TINY_QUERIES,
            "qrels": {"test": "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\n"},
        }
        parts.update(overrides)
        return write_beir(tmp_path / "beir", **parts)

    return make


@pytest.fixture
def table_counts():
    """Return a function giving row counts of every corpora table (to prove nothing changed)."""
    from corpora.models import Dataset, Document, ImportRecord, Qrel, QrelSet, Query

    def counts() -> dict[str, int]:
        return {
            m.__name__: m.objects.count()
            for m in (Dataset, Document, Query, QrelSet, Qrel, ImportRecord)
        }

    return counts
