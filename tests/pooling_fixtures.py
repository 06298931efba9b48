"""Fixtures for the runs, retrieval and pooling tests.

Import the ``*_fixture`` functions explicitly; each registers the fixture named without the
suffix (``energy_fixture`` provides ``energy``).

The dense encoder's document vectors for SciFact take minutes on 2 CPU cores, so the tests
pass ``EMBEDDING_CACHE`` (``var/cache/embeddings``, keyed by a content hash of model and
texts) to the services: the first test session encodes, later ones reuse the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import REPO, shared_dataset, write_beir

EMBEDDING_CACHE = REPO / "var" / "cache" / "embeddings"

ENERGY_CORPUS = [
    {"_id": "d1", "title": "", "text": "solar panel efficiency"},
    {"_id": "d2", "title": "", "text": "solar tax credit"},
    {"_id": "d3", "title": "", "text": "wind turbine noise"},
    {"_id": "d4", "title": "", "text": "heat pump cost"},
]
ENERGY_QUERIES = [
    {"_id": "q1", "text": "solar"},
    {"_id": "q2", "text": "wind noise"},
    {"_id": "q3", "text": "heat pump"},
]
# q1 judges d1 relevant and d3 irrelevant (0); q2 judges d3 relevant and d4 with -1.
ENERGY_QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td3\t0\nq2\td3\t2\nq2\td4\t-1\n"


def run_file(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


@pytest.fixture(name="energy")
def energy_fixture(tmp_path: Path):
    """A 4-document dataset ``energy`` with qrel set ``test`` (see ENERGY_QRELS)."""
    from corpora.services import dataset_import_beir

    folder = write_beir(
        tmp_path / "energy",
        corpus=ENERGY_CORPUS,
        queries=ENERGY_QUERIES,
        qrels={"test": ENERGY_QRELS},
    )
    return dataset_import_beir(path=folder, name="energy")


@pytest.fixture(name="import_run")
def import_run_fixture(tmp_path: Path):
    """``import_run(dataset, name, lines)`` writes a TREC run file and imports it."""
    from corpora.services import run_import

    def make(dataset, name: str, lines: list[str]):
        path = tmp_path / f"{name}.run"
        path.write_text(run_file(lines), encoding="utf-8")
        return run_import(dataset=dataset, path=path, name=name)

    return make


@pytest.fixture(name="scifact")
def scifact_fixture():
    """The real SciFact (5,183 documents, 1,109 queries, qrel sets test and train)."""
    from corpora.services import dataset_import_beir

    return dataset_import_beir(path=shared_dataset("scifact"), name="scifact")


@pytest.fixture(name="run_tables")
def run_tables_fixture():
    """Row counts of the run and pool tables (to prove a failed action changed nothing)."""
    from corpora.models import ImportRecord, Pair, PairSource, Pool, Run, RunEntry

    def counts() -> dict[str, int]:
        return {
            m.__name__: m.objects.count()
            for m in (Run, RunEntry, Pool, Pair, PairSource, ImportRecord)
        }

    return counts
