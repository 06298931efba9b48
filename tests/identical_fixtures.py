"""A small world whose queries are documents of the corpus (same id, same text), as in
ArguAna. Import the ``*_fixture`` functions explicitly.

Documents q1, q2 (the queries themselves), d1-d3; qrels ``test``: q1-d1 = 1, q2-d2 = 1.
Run ``leaky`` (imported) ranks each query's own document first::

    q1: q1 (rank 1), d1 (2)          q2: q2 (1), d3 (2), d2 (3)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import write_beir

SELF_CORPUS = [
    {"_id": "q1", "title": "", "text": "solar panels cut energy bills"},
    {"_id": "q2", "title": "", "text": "wind turbines are noisy"},
    {"_id": "d1", "title": "", "text": "solar panels lower energy bills over time"},
    {"_id": "d2", "title": "", "text": "wind turbine noise annoys neighbours"},
    {"_id": "d3", "title": "", "text": "tax credit for heat pumps"},
]
SELF_QUERIES = [
    {"_id": "q1", "text": "solar panels cut energy bills"},
    {"_id": "q2", "text": "wind turbines are noisy"},
]
SELF_QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n"
LEAKY = [
    "q1 Q0 q1 1 9.0 leaky",
    "q1 Q0 d1 2 5.0 leaky",
    "q2 Q0 q2 1 9.0 leaky",
    "q2 Q0 d3 2 5.0 leaky",
    "q2 Q0 d2 3 4.0 leaky",
]


@pytest.fixture(name="selfish_folder")
def selfish_folder_fixture(tmp_path: Path) -> Path:
    return write_beir(
        tmp_path / "selfish", corpus=SELF_CORPUS, queries=SELF_QUERIES, qrels={"test": SELF_QRELS}
    )


@pytest.fixture(name="leaky_file")
def leaky_file_fixture(tmp_path: Path) -> Path:
    path = tmp_path / "leaky.run"
    path.write_text("".join(line + "\n" for line in LEAKY), encoding="utf-8")
    return path
