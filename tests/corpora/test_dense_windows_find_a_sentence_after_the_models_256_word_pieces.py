"""all-MiniLM-L6-v2 reads 256 word pieces and ignores the rest. A document whose only
sentence about the query follows 300 filler words is counted as too long for the model by
every dense run; with ``--windows`` (overlapping 128-piece windows, best window scores: MaxP)
it ranks first, without it the sentence is never read."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from corpora.models import DocumentEmbedding, Run
from corpora.services import run_rows
from tests.fixtures.datasets import write_beir
from tests.fixtures.ui import html_tables

FILLER = " ".join(["the committee met again on tuesday to review the quarterly budget"] * 30)
RELEVANT = "Axolotls regrow lost limbs by forming a blastema of stem cells at the wound."
CORPUS = [
    {"_id": "long", "title": "", "text": f"{FILLER} {RELEVANT}"},
    {"_id": "frogs", "title": "", "text": "Frogs change from tadpoles into adults in ponds."},
    {"_id": "lizard", "title": "", "text": "A lizard can drop its tail to escape a predator."},
    {"_id": "tomatoes", "title": "", "text": "Tomatoes grow best in warm sunny weather."},
    {"_id": "budget", "title": "", "text": "The city council approved next year's budget."},
]
QUERIES = [{"_id": "q1", "text": "How do axolotls regenerate their limbs?"}]
QRELS = "query-id\tcorpus-id\tscore\nq1\tlong\t1\n"
# Observed with all-MiniLM-L6-v2 (cosines against the query: whole "long" 0.03, its best
# 128-piece window 0.30, frogs 0.25, lizard 0.18, tomatoes 0.07, budget 0.02).
PLAIN_RANKING = ["frogs", "lizard", "tomatoes", "long", "budget"]
WINDOWED_RANKING = ["long", "frogs", "lizard", "tomatoes", "budget"]
# 352 word pieces with [CLS]/[SEP]: windows of 126 text pieces start at 0, 64, 128, 192, 256.
WINDOWS_OF_LONG = 5


@pytest.fixture
def regrowth(tmp_path: Path):
    from corpora.services import dataset_import_beir

    folder = write_beir(
        tmp_path / "regrowth", corpus=CORPUS, queries=QUERIES, qrels={"test": QRELS}
    )
    return dataset_import_beir(path=folder, name="regrowth")


def _retrieve(*args: str) -> list[str]:
    out = StringIO()
    call_command("retrieve", "regrowth", "--retriever", "dense", "--no-progress", *args, stdout=out)
    return out.getvalue().splitlines()


def _ranking(run: Run) -> list[str]:
    return [doc for _, doc, _, _ in run_rows(run=run)]


@pytest.mark.django_db
def test_the_sentence_after_300_filler_words_ranks_first_only_with_windows(regrowth, client_as):
    assert len(FILLER.split()) == 330
    plain_out = _retrieve("--name", "dense")
    windowed_out = _retrieve("--name", "dense-windows", "--windows")
    plain = Run.objects.get(dataset=regrowth, name="dense")
    windowed = Run.objects.get(dataset=regrowth, name="dense-windows")

    # Both runs count the one document longer than the model reads.
    assert plain.truncated_documents == 1
    assert windowed.truncated_documents == 1
    assert plain.windows is None
    assert windowed.windows == {
        "max_length": 128,
        "stride": 64,
        "scoring": "MaxP: a document scores its best window's cosine",
    }
    assert plain_out[1] == (
        "  documents longer than the model reads (sentence-transformers/all-MiniLM-L6-v2, "
        "max_seq_length word pieces): 1 of 5; the model ignored their ends; --windows reads "
        "them whole"
    )
    assert windowed_out[1] == (
        "  documents longer than the model reads (sentence-transformers/all-MiniLM-L6-v2, "
        "max_seq_length word pieces): 1 of 5; read whole in windows (MaxP)"
    )

    assert _ranking(windowed) == WINDOWED_RANKING
    assert _ranking(plain) == PLAIN_RANKING
    scores = {doc: score for _, doc, _, score in run_rows(run=windowed)}
    assert round(scores["long"], 2) == 0.30

    # Windowed vectors are stored apart from whole-document vectors: 5 plain vectors, and
    # 1 window for each short document plus WINDOWS_OF_LONG for the long one.
    assert DocumentEmbedding.objects.filter(dataset=regrowth, windowing="").count() == 5
    windows = DocumentEmbedding.objects.filter(dataset=regrowth, windowing="128/64")
    assert windows.count() == 4 + WINDOWS_OF_LONG
    assert sorted(windows.filter(document__doc_id="long").values_list("window", flat=True)) == (
        list(range(WINDOWS_OF_LONG))
    )

    # The dataset page shows the count per run.
    page = client_as("researcher").get("/datasets/regrowth/").content.decode()
    runs = next(t for t in html_tables(page) if t[0][0] == "Name" and "System" in t[0])
    assert [(row[0], row[-1]) for row in runs] == [
        ("Name", "Too long for the model"),
        ("dense", "1 (ends ignored)"),
        ("dense-windows", "1 (read in windows, MaxP)"),
    ]
