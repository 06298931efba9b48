"""A pool's page says how it was built, what each run put in it (its pairs, and those no
other run ranked within the depth), and lists its pairs in judging order with the runs and
ranks that put each there; it filters to one query, pages through, and reads only."""

import pytest

from corpora.services import dataset_import_beir, pool_build, qrel_set_get, run_import
from tests.fixtures.datasets import write_beir
from tests.fixtures.ui import html_tables

DOCS = [f"d{i}" for i in range(1, 9)]
# Three runs' top 3 per query. Neither judged pair (q1 d4, q2 d3) is in a top 3, so the
# depth-3 pool holds every pair they rank: q1 d1 d2 d3 d5 d7 d8 (6), q2 d1 d2 d4 d5 d6 d7 d8
# (7). Pairs only one run ranked: q1 d1 (a), d7 (b), d8 (c); q2 d5 (a), d1 and d8 (b), d7 and
# d2 (c); so a has 2, b 3, c 3 of its 6 pairs to itself.
RUNS = {
    "a": {"q1": ["d1", "d2", "d3"], "q2": ["d4", "d5", "d6"]},
    "b": {"q1": ["d2", "d5", "d7"], "q2": ["d6", "d1", "d8"]},
    "c": {"q1": ["d8", "d3", "d5"], "q2": ["d7", "d4", "d2"]},
}


@pytest.fixture
def three_runs(db, tmp_path):
    corpus = [{"_id": d, "title": "", "text": f"document {d}"} for d in DOCS]
    queries = [{"_id": "q1", "text": "first"}, {"_id": "q2", "text": "second"}]
    qrels = "query-id\tcorpus-id\tscore\nq1\td4\t0\nq2\td3\t0\n"
    folder = write_beir(tmp_path / "pp", corpus=corpus, queries=queries, qrels={"test": qrels})
    dataset = dataset_import_beir(path=folder, name="pp")
    runs = []
    for name, per_query in RUNS.items():
        path = tmp_path / f"{name}.run"
        path.write_text(
            "".join(
                f"{q} Q0 {d} {r} {10 - r} {name}\n"
                for q, docs in per_query.items()
                for r, d in enumerate(docs, start=1)
            )
        )
        runs.append(run_import(dataset=dataset, path=path, name=name))
    return dataset, runs


def _pool(three_runs, **options):
    dataset, runs = three_runs
    test = qrel_set_get(dataset=dataset, name="test")
    return pool_build(dataset=dataset, qrel_set=test, runs=runs, depth=3, **options).pool


def test_the_page_counts_each_runs_pairs_and_the_pairs_only_it_found(three_runs, client_as):
    pool = _pool(three_runs, name="p3")
    html = client_as("researcher").get("/datasets/pp/pools/p3/").content.decode()
    runs_table = html_tables(html)[0]
    assert runs_table[1:] == [
        ["a", "6", "2", "46%"],
        ["b", "6", "3", "46%"],
        ["c", "6", "3", "46%"],
    ]
    assert "13; per query 6 to 7, median 6.5" in html
    assert "left out: the pool holds the holes only" in html
    assert pool.pairs.count() == 13


def test_the_pairs_are_listed_in_canonical_order_with_runs_by_rank(three_runs, client_as):
    _pool(three_runs, name="p3")
    html = client_as("researcher").get("/datasets/pp/pools/p3/").content.decode()
    rows = html_tables(html)[1][1:]
    assert [(r[1], r[2]) for r in rows][:7] == [
        ("q1", "d1"),
        ("q1", "d2"),
        ("q1", "d3"),
        ("q1", "d5"),
        ("q1", "d7"),
        ("q1", "d8"),
        ("q2", "d1"),
    ]
    assert rows[1] == ["canonical", "q1", "d2", "b @ 1, a @ 2"]
    assert rows[3][3] == "b @ 2, c @ 3"
    assert len(rows) == 13


def test_a_query_filter_keeps_its_pairs_and_a_stored_order_comes_first(three_runs, client_as):
    pool = _pool(three_runs, name="rrf", strategy="rrf", budget=5)
    client = client_as("researcher")
    html = client.get("/datasets/pp/pools/rrf/?query=q2").content.decode()
    assert "7 pairs of query" in html
    rows = html_tables(html)[1][1:]
    assert {r[1] for r in rows} == {"q2"} and len(rows) == 7
    orders = [int(r[0]) for r in rows]
    assert orders == sorted(orders)
    # The whole pool's first row is the strategy's first pair.
    first = html_tables(client.get("/datasets/pp/pools/rrf/").content.decode())[1][1]
    top = pool.pairs.get(pool_order=1)
    assert first[:3] == ["1", top.query.query_id, top.document.doc_id]
    assert "budget 5 pairs" in html


def test_fifty_pairs_a_page(three_runs, client_as, monkeypatch):
    monkeypatch.setattr("corpora.selectors.PAIRS_PER_PAGE", 5)
    _pool(three_runs, name="p3")
    client = client_as("researcher")
    last = client.get("/datasets/pp/pools/p3/?page=3").content.decode()
    assert "Page 3 of 3" in last
    assert [(r[1], r[2]) for r in html_tables(last)[1][1:]] == [
        ("q2", "d6"),
        ("q2", "d7"),
        ("q2", "d8"),
    ]


def test_the_dataset_page_links_each_pool_even_with_a_dot_in_its_name(three_runs, client_as):
    _pool(three_runs, name="test.v2-depth3")
    client = client_as("researcher")
    dataset_page = client.get("/datasets/pp/").content.decode()
    link = "/datasets/pp/pools/test.v2-depth3/"
    assert f'href="{link}"' in dataset_page
    page = client.get(link)
    assert page.status_code == 200 and "6 to 7" in page.content.decode()


def test_an_unknown_pool_is_404_and_annotators_are_refused(three_runs, client_as):
    _pool(three_runs, name="p3")
    assert client_as("researcher").get("/datasets/pp/pools/nope/").status_code == 404
    assert client_as("annotator").get("/datasets/pp/pools/p3/").status_code == 403


def test_the_page_lists_the_debate_jobs_on_the_pool_and_only_those(
    three_runs, client_as, fake_llms
):
    from debates.services.launch import JobSpec, debate_job_launch
    from tests.fixtures.jobs import AGENT_A, AGENT_B

    pool = _pool(three_runs, name="p3")
    other = _pool(three_runs, name="other")
    job = debate_job_launch(spec=JobSpec(pool=pool, agent_a=AGENT_A, agent_b=AGENT_B, limit=2))
    elsewhere = debate_job_launch(spec=JobSpec(pool=other, agent_a=AGENT_A, agent_b=AGENT_B))
    html = client_as("researcher").get("/datasets/pp/pools/p3/").content.decode()
    assert "Debate jobs on this pool" in html
    assert f'href="/jobs/{job.pk}/"' in html and f'href="/jobs/{elsewhere.pk}/"' not in html
    jobs_table = html_tables(html)[1]
    assert jobs_table[0][:3] == ["Job", "Status", "Pairs"]  # no pool column on its own page
    assert jobs_table[1][0] == f"Job {job.pk}" and jobs_table[1][2] == "2"
    empty = client_as("researcher").get("/datasets/pp/pools/p3/", {"query": "q1"})
    assert empty.status_code == 200


def test_the_job_list_links_each_jobs_pool_page(three_runs, client_as, fake_llms):
    from debates.services.launch import JobSpec, debate_job_launch
    from tests.fixtures.jobs import AGENT_A, AGENT_B

    pool = _pool(three_runs, name="p3")
    debate_job_launch(spec=JobSpec(pool=pool, agent_a=AGENT_A, agent_b=AGENT_B, limit=1))
    html = client_as("researcher").get("/jobs/").content.decode()
    assert 'href="/datasets/pp/pools/p3/"' in html
