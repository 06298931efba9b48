"""ArguAna test BM25, our whole path against the bare bm25s library, in one process.

1. Ours: ``run_create`` + ``run_retrieve`` (default backend bm25s, k = 100, identical ids
   excluded: k + 1 asked and the query's own document dropped), on the 1,401 test queries of
   ``../shared/data/arguana`` imported with ``--unknown-ids drop``; its nDCG@10 with
   ``run_evaluate``, and the self-pairs in its depth-10 pool (target: < 30 s, nDCG@10 >= 0.38,
   0 self-pairs).
2. Anchor: bare bm25s on the same tokens (index + ``retrieve`` of the top 101 per query).
3. rank-bm25 (the reference backend) on the first ``--reference-queries`` test queries
   (default 50), extrapolated to all 1,401: the cost that made it unusable here (828 s).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench \
        .venv/bin/python bench/arguana_bm25_bench.py [--reference-queries 50] [--keep]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from _common import prepare_database  # noqa: E402

ARGUANA = Path(os.environ.get("DREAM_SHARED_DATA", REPO.parent / "shared" / "data")) / "arguana"
SLUG = "bench-arguana"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference-queries", type=int, default=50)
    parser.add_argument("--keep", action="store_true", help="keep the benchmark dataset")
    args = parser.parse_args()
    prepare_database()
    import bm25s

    from corpora import retrieval
    from corpora.models import Dataset
    from corpora.services import (
        dataset_import_beir,
        pool_build,
        qrel_set_get,
        run_create,
        run_evaluate,
        run_retrieve,
    )

    Dataset.objects.filter(slug=SLUG).delete()
    started = time.perf_counter()
    dataset = dataset_import_beir(path=ARGUANA, name=SLUG, unknown_ids="drop")
    print(f"import (--unknown-ids drop): {time.perf_counter() - started:.1f} s", flush=True)
    test = qrel_set_get(dataset=dataset, name="test")

    started = time.perf_counter()
    run = run_retrieve(run=run_create(dataset=dataset, retriever="bm25", k=100, queries="test"))
    ours = time.perf_counter() - started
    ndcg = run_evaluate(run=run, qrel_set=test)["nDCG@10"]
    pool = pool_build(dataset=dataset, qrel_set=test, runs=[run], depth=10).pool
    pairs = list(pool.pairs.values_list("query__query_id", "document__doc_id"))
    self_pairs = sum(q == d for q, d in pairs)
    print(
        f"ours ({run.parameters['backend']}, exclude_identical_ids="
        f"{run.parameters.get('exclude_identical_ids', False)}): {ours:.1f} s for "
        f"{run.entries.values('query').distinct().count():,} queries; nDCG@10 {ndcg:.4f}; "
        f"depth-10 pool {len(pairs):,} pairs, {self_pairs} self-pairs",
        flush=True,
    )

    documents = list(dataset.documents.order_by("pk").values_list("doc_id", "title", "text"))
    queries = sorted(
        dataset.queries.filter(pk__in=test.qrels.values("query_id")).values_list("query_id", "text")
    )
    started = time.perf_counter()
    tokens = [retrieval.tokenize(retrieval.document_text(t, x)) for _, t, x in documents]
    index = bm25s.BM25(k1=retrieval.BM25_K1, b=retrieval.BM25_B, method="lucene")
    index.index(tokens, show_progress=False)
    query_tokens = [retrieval.tokenize(text) for _, text in queries]
    index.retrieve(query_tokens, k=101, show_progress=False, n_threads=1)
    bare = time.perf_counter() - started
    print(f"bare bm25s (tokenise, index, top 101): {bare:.1f} s", flush=True)
    print(f"ours / bare: {ours / bare:.2f}", flush=True)

    n = args.reference_queries
    started = time.perf_counter()
    reference = retrieval.bm25_index(tokens, backend="rank_bm25")
    retrieval.bm25_search(
        reference, [text for _, text in queries[:n]], doc_ids=[d[0] for d in documents], k=101
    )
    seconds = time.perf_counter() - started
    print(
        f"rank-bm25 on {n} queries: {seconds:.1f} s, extrapolated to {len(queries):,}: "
        f"{seconds / n * len(queries):.0f} s",
        flush=True,
    )
    if not args.keep:
        Dataset.objects.filter(slug=SLUG).delete()


if __name__ == "__main__":
    main()
