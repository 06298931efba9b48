"""BM25's k1 and b can be set per run (``retrieve --k1 --b``, the retrieval form, the API):
they are checked (k1 in [0, 10], b in [0, 1]), recorded in the run's parameters and system,
compared when the same run is asked again, and change the ranking as worked by hand."""

import io
import math

import pytest
from django.core.management import CommandError, call_command

from corpora.models import Run
from corpora.services import dataset_import_beir, run_create, run_retrieve, run_rows
from corpora.services.runs import RunError
from tests.fixtures.datasets import write_beir

# Query "solar": d1 holds it twice in 10 words, d2 once in 2; d3 not. N = 3, df = 2, so
# IDF = ln(1 + 1.5 / 2.5) = ln 1.6; average length 14 / 3.
LENGTHS = [
    {"_id": "d1", "title": "", "text": "solar solar a b c d e f g h"},
    {"_id": "d2", "title": "", "text": "solar x"},
    {"_id": "d3", "title": "", "text": "wind y"},
]


@pytest.fixture
def lengths(tmp_path):
    folder = write_beir(
        tmp_path / "lengths",
        corpus=LENGTHS,
        queries=[{"_id": "q1", "text": "solar"}],
        qrels={"test": "query-id\tcorpus-id\tscore\nq1\td2\t1\n"},
    )
    return dataset_import_beir(path=folder, name="lengths")


def bm25(tf: float, length: float, k1: float, b: float) -> float:
    norm = 1 - b + b * length / (14 / 3)
    return math.log(1.6) * tf * (k1 + 1) / (tf + k1 * norm)


def retrieve(*args: str) -> str:
    out = io.StringIO()
    call_command("retrieve", "lengths", "--no-progress", "--retriever", "bm25", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_b_decides_whether_the_long_document_or_the_short_one_ranks_first(lengths):
    printed = retrieve("--b", "0", "--name", "flat")
    flat = Run.objects.get(name="flat")
    assert (flat.parameters["k1"], flat.parameters["b"]) == (0.9, 0.0)
    assert printed.startswith("run flat: BM25 (Lucene IDF, k1=0.9, b=0.0) via bm25s;")
    # No length normalisation: d1's two occurrences win (0.616 against 0.470)
    assert [(d, pytest.approx(s)) for _, d, _, s in run_rows(run=flat)] == [
        ("d1", bm25(2, 10, 0.9, 0.0)),
        ("d2", bm25(1, 2, 0.9, 0.0)),
    ]
    retrieve("--k1", "1.2", "--b", "1", "--name", "full")
    full = Run.objects.get(name="full")
    assert full.system == "BM25 (Lucene IDF, k1=1.2, b=1.0) via bm25s"
    # Full length normalisation: the short d2 wins (0.683 against 0.452)
    assert [(d, pytest.approx(s)) for _, d, _, s in run_rows(run=full)] == [
        ("d2", bm25(1, 2, 1.2, 1.0)),
        ("d1", bm25(2, 10, 1.2, 1.0)),
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("backend", ["bm25s", "rank_bm25"])
def test_k1_zero_weighs_a_term_by_its_idf_alone_on_bm25s_only(lengths, backend):
    if backend == "rank_bm25":
        with pytest.raises(RunError, match="k1 = 0 needs the bm25s backend"):
            run_create(dataset=lengths, retriever="bm25", k1=0, backend=backend)
        return
    run = run_retrieve(run=run_create(dataset=lengths, retriever="bm25", k1=0))
    # d1 and d2 both score ln 1.6 whatever tf and length; the tie goes to d1 by id
    assert list(run_rows(run=run)) == [
        ("q1", "d1", 1, pytest.approx(math.log(1.6))),
        ("q1", "d2", 2, pytest.approx(math.log(1.6))),
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--k1", "10.5"], "BM25 k1 must be between 0 and 10, got 10.5"),
        (["--k1", "-1"], "BM25 k1 must be between 0 and 10, got -1.0"),
        (["--b", "1.01"], "BM25 b must be between 0 and 1, got 1.01"),
        (["--b", "nan"], "BM25 b must be between 0 and 1, got nan"),
        (["--k1", "inf"], "BM25 k1 must be between 0 and 10, got inf"),
    ],
)
def test_k1_or_b_out_of_range_is_refused_and_makes_no_run(lengths, args, message):
    with pytest.raises(CommandError, match=message):
        retrieve(*args)
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_dense_refuses_bm25_settings(lengths):
    with pytest.raises(RunError, match="^k1 and b are BM25 settings; dense retrieval takes none"):
        run_create(dataset=lengths, retriever="dense", k1=1.2, b=0.75)
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_the_same_settings_resume_a_run_and_other_ones_are_refused(lengths):
    pending = run_create(dataset=lengths, retriever="bm25", k1=1.2, b=0.75)
    again = run_create(dataset=lengths, retriever="bm25", k1=1.2, b=0.75)
    assert again.pk == pending.pk and again.status == "pending"
    with pytest.raises(RunError, match="run 'bm25' already exists in 'lengths' \\(status pending"):
        run_create(dataset=lengths, retriever="bm25", k1=1.2, b=0.5)
    # The defaults are BEIR's, as before k1 and b could be set
    default = run_create(dataset=lengths, retriever="bm25", name="default")
    assert (default.parameters["k1"], default.parameters["b"]) == (0.9, 0.4)


@pytest.mark.django_db
def test_the_retrieval_form_and_the_api_pass_k1_and_b(lengths, client_as, api_as):
    answer = client_as("admin").post(
        "/datasets/lengths/actions/retrieve/",
        {"retriever": "bm25", "k": 10, "queries": "test", "name": "page", "k1": "2", "b": "0.5"},
    )
    assert answer.status_code == 302
    assert Run.objects.get(name="page").system == "BM25 (Lucene IDF, k1=2.0, b=0.5) via bm25s"
    answer = client_as("admin").post(
        "/datasets/lengths/actions/retrieve/",
        {"retriever": "dense", "k": 10, "queries": "test", "name": "dense", "b": "0.5"},
    )
    assert answer.status_code == 400
    assert "b is a BM25 setting; dense retrieval takes none" in answer.content.decode()

    api = api_as("admin")
    url = "/api/v1/datasets/lengths/retrieve"
    body = {"retriever": "bm25", "name": "api", "k1": 1.5, "b": 1}
    assert api.post(url, body, content_type="application/json").status_code == 202
    assert Run.objects.get(name="api").parameters["k1"] == 1.5
    answer = api.post(url, {**body, "k1": 11}, content_type="application/json")
    assert answer.status_code == 422
    assert answer.json()["detail"] == "k1: Input should be less than or equal to 10"
    assert not Run.objects.filter(name="dense").exists()
