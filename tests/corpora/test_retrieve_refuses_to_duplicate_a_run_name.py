"""`retrieve` names a run after its retriever; running it again under that name is refused
unless --replace, and a run whose ranks are a pool's provenance is never replaced."""

import io

import pytest
from django.core.management import CommandError, call_command

from corpora.models import Run
from corpora.services import pool_build, qrel_set_get


def retrieve(*args: str) -> str:
    out = io.StringIO()
    call_command("retrieve", "energy", "--no-progress", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_retrieve_prints_the_run_and_its_ndcg_and_refuses_a_second_run_of_that_name(energy):
    printed = retrieve("--retriever", "bm25", "--k", "3")
    run = Run.objects.get(dataset=energy, name="bm25")
    assert run.status == "done" and run.parameters["backend"] == "bm25s"
    # q1 "solar" -> d1, d2; q2 "wind noise" -> d3 (d4 shares no term and is not returned)
    assert run.entries.count() == 3
    assert printed.startswith(
        "run bm25: BM25 (Lucene IDF, k1=0.9, b=0.4) via bm25s; 2 queries, 3 entries in "
    )
    # q1: d1 (grade 1) at rank 1 or 2 of two tied documents -> by doc id d1 first: nDCG 1;
    # q2: d3 (grade 2) at rank 1, d4 (grade -1) unretrieved: nDCG 1
    assert "against qrels test: nDCG@10 1.0000, Judged@10 0.7500" in printed
    with pytest.raises(CommandError, match="run 'bm25' already exists in 'energy'.*--replace"):
        retrieve("--retriever", "bm25")
    assert Run.objects.filter(dataset=energy).count() == 1


@pytest.mark.django_db
def test_replace_rebuilds_the_run_but_not_one_used_by_a_pool(energy):
    retrieve("--retriever", "bm25", "--k", "3")
    old = Run.objects.get(name="bm25")
    retrieve("--retriever", "bm25", "--k", "1", "--replace")
    new = Run.objects.get(name="bm25")
    assert new.pk != old.pk and new.entries.count() == 2
    pool_build(dataset=energy, qrel_set=qrel_set_get(dataset=energy, name="test"), runs=[new])
    with pytest.raises(CommandError, match="run 'bm25' is pooled in test-depth10"):
        retrieve("--retriever", "bm25", "--replace")
    assert Run.objects.get(name="bm25").pk == new.pk


@pytest.mark.django_db
def test_an_unknown_qrel_set_for_queries_is_refused(energy):
    with pytest.raises(CommandError, match="no qrel set 'dev' in 'energy'.*known: test; or 'all'"):
        retrieve("--retriever", "bm25", "--queries", "dev")
    retrieve("--retriever", "bm25", "--queries", "all", "--name", "everything")
    assert Run.objects.get().entries.values("query").distinct().count() == 3
