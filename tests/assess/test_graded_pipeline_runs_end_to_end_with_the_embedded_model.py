"""Smoke test: graded mode end to end with the embedded SmolLM2 model on real NFCorpus text.

Two judged rows of one NFCorpus query (grades 2 and 1, so G = 2) and two more of its judged
documents left out of the qrels so BM25 pools them as holes; the pipeline debates them in
grades (R = 1), and the refined export holds every consensus grade as it is. Small: 2 pairs,
2-4 calls of the 135M model.
"""

import json

import pytest

from assess.pipeline import pipeline_run
from corpora.formats import parse_trec_qrels
from debates.models import Debate, DebateJob, Turn
from tests.fixtures.datasets import shared_dataset, write_beir
from tests.fixtures.jobs import pipeline_spec

QUERY = "PLAIN-2"
JUDGED = {"MED-2427": 2, "MED-2430": 1}  # kept in the qrels
HOLES = ("MED-10", "MED-14")  # judged in NFCorpus, left out here


@pytest.mark.slow
@pytest.mark.django_db
def test_the_pipeline_debates_nfcorpus_holes_in_grades_with_the_embedded_model(tmp_path):
    from corpora.services import dataset_import_beir

    source = shared_dataset("nfcorpus-test")
    wanted = {*JUDGED, *HOLES}
    with (source / "corpus.jsonl").open(encoding="utf-8") as lines:
        corpus = [doc for doc in map(json.loads, lines) if doc["_id"] in wanted]
    with (source / "queries.jsonl").open(encoding="utf-8") as lines:
        queries = [q for q in map(json.loads, lines) if q["_id"] == QUERY]
    assert len(corpus) == 4 and len(queries) == 1
    qrels = "query-id\tcorpus-id\tscore\n" + "".join(
        f"{QUERY}\t{doc}\t{grade}\n" for doc, grade in JUDGED.items()
    )
    folder = write_beir(tmp_path / "nf", corpus=corpus, queries=queries, qrels={"test": qrels})
    dataset = dataset_import_beir(path=folder, name="nf-graded")

    report = pipeline_run(
        dataset=dataset,
        echo=print,
        spec=pipeline_spec(
            retrievers=["bm25"],
            depth=4,
            agent={"backend": "embedded"},
            rounds=1,
            scale="graded",
            out_dir=tmp_path,
        ),
    )

    job = DebateJob.objects.get()
    assert (job.scale, job.max_grade, job.prompt_version) == ("graded", 2, "dream-graded-v2")
    assert report.pairs == 2
    debates = list(Debate.objects.select_related("pair__query", "pair__document"))
    assert {d.pair.document.doc_id for d in debates} == set(HOLES)
    for debate in debates:
        assert debate.status in ("agreed", "escalated"), debate.last_error
        if debate.status == "agreed":
            assert debate.final_label in (0, 1, 2)
    turns = list(Turn.objects.all())
    # The grammar of the grade schema lets the model emit only 0, 1 or 2.
    assert {t.label for t in turns} <= {0, 1, 2}
    assert {t.prompt_version for t in turns} == {"dream-graded-v2"}

    rows = {(r.query_id, r.doc_id): r.relevance for r in parse_trec_qrels(report.refined_file)}
    assert {doc: rows[(QUERY, doc)] for doc in JUDGED} == JUDGED
    agreed = {d.pair.document.doc_id: d.final_label for d in debates if d.status == "agreed"}
    assert {doc: rows[(QUERY, doc)] for doc in HOLES if (QUERY, doc) in rows} == agreed
    print(f"\ngraded embedded smoke: {[(d.status, d.final_label) for d in debates]}")
