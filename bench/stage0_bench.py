"""Wall time of training a stage-0 judge on 10,000 labels and of scoring 100,000 pairs.

Targets (2 cores): training (``stage0_judge_train``, the whole service: labels read, query
vectors encoded, document vectors read, corpus statistics and term-matching scalars
computed, fitted, calibrated, held-out scored, stored) under 120 s with at least 10,000
training labels; scoring 100,000 pairs (``stage0_pairs_score``: vectors read and queries
encoded, corpus statistics built and scalars computed, features, classifier, calibration)
under 60 s.

Anchors, from the same run: the bare scikit-learn ``LogisticRegression.fit`` on the same
training feature matrix, and the bare pure scoring (:func:`debates.stage0.fit.probabilities`)
of the same 100,000 pairs' inputs (vectors and scalars) already in memory; each figure is
printed as a ratio to its anchor. The term-matching part alone is printed too: building the
corpus statistics (:func:`debates.stage0.inputs.dataset_lexicon`) and the scalars of the
100,000 pairs from their tokens in memory (:func:`debates.stage0.lexical.pair_scalars`).

Data: the bundled SciFact (5,183 documents, 1,109 queries, 1,258 qrels) imported as dataset
``stage0-bench`` with its PRECOMPUTED document vectors (``data/scifact/embeddings``, so no
document is encoded; the queries are encoded by the service, as in use); ``--cross`` cross-query
negatives a query (default 15) bring the training split to about 10,700 labels. The 100,000
pairs are 1,109 queries x 91 documents drawn with ``random.Random(0)``, never stored. The
dataset is deleted afterwards unless ``--keep``.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench .venv/bin/python bench/stage0_bench.py
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from bench._common import drop_bench_data, prepare_database  # noqa: E402

SLUG = "stage0-bench"
SCIFACT = REPO / "data" / "scifact"


def dataset_get():
    from corpora.models import Dataset
    from corpora.services import dataset_import_beir
    from corpora.services.embeddings import embeddings_seed

    dataset = Dataset.objects.filter(slug=SLUG).first()
    if dataset is None:
        dataset = dataset_import_beir(path=SCIFACT, name="stage-0 bench", slug=SLUG)
    seeded = embeddings_seed(dataset=dataset, folder=SCIFACT / "embeddings")
    print(f"dataset {SLUG}: precomputed document vectors stored now for {seeded:,} documents")
    return dataset


def bench_training(dataset) -> object:
    from debates.stage0 import fit, stage0_judge_train
    from debates.stage0.inputs import dataset_lexicon, pair_inputs
    from debates.stage0.labels import examples_collect

    started = time.perf_counter()
    judge = stage0_judge_train(dataset=dataset)
    ours = time.perf_counter() - started
    train = [
        e for e in examples_collect(dataset=dataset) if fit.query_split(e.query_id) == fit.TRAIN
    ]
    inputs = pair_inputs(
        dataset=dataset,
        pairs=[(e.query_pk, e.doc_pk) for e in train],
        lexicon=dataset_lexicon(dataset=dataset),
    )
    import numpy as np

    features = fit.judge_features(inputs, fit.Standardiser.fit(inputs.judge_scalars()))
    labels = np.array([e.label for e in train])
    started = time.perf_counter()
    fit.classifier_fit(features, labels)
    bare = time.perf_counter() - started
    print(
        f"training on {judge.n_train:,} labels ({len(judge.heldout):,} held out): "
        f"stage0_judge_train {ours:.1f} s (target < 120 s) vs bare LogisticRegression.fit "
        f"{bare:.1f} s = {ours / bare:.2f}x; held-out balanced accuracy "
        f"{judge.metrics['balanced_accuracy']:.3f}"
    )
    return judge


def bench_terms(dataset, keys) -> None:
    """The term-matching part alone: corpus statistics, then the scalars of ``keys``."""
    from corpora import retrieval
    from corpora.models import Document, Query
    from debates.stage0.inputs import dataset_lexicon
    from debates.stage0.lexical import pair_scalars

    started = time.perf_counter()
    lexicon = dataset_lexicon(dataset=dataset)
    built = time.perf_counter() - started
    rows = Query.objects.filter(dataset=dataset).values_list("pk", "text")
    queries = {pk: retrieval.tokenize(text) for pk, text in rows}
    docs = {
        pk: retrieval.tokenize(retrieval.document_text(title, text))
        for pk, title, text in Document.objects.filter(dataset=dataset).values_list(
            "pk", "title", "text"
        )
    }
    started = time.perf_counter()
    pair_scalars(
        lexicon, [queries[q] for q, _ in keys], [docs[d] for _, d in keys], [d for _, d in keys]
    )
    scalars = time.perf_counter() - started
    print(
        f"term matching: corpus statistics of {lexicon.n:,} documents {built:.2f} s, scalars "
        f"of {len(keys):,} pairs from tokens in memory {scalars:.2f} s"
    )


def bench_scoring(dataset, judge, n: int) -> None:
    from corpora.models import Pair
    from debates.stage0 import fit, stage0_pairs_score
    from debates.stage0.inputs import dataset_lexicon, pair_inputs
    from debates.stage0.services import stage0_inputs_score

    rng = random.Random(0)
    query_pks = sorted(dataset.queries.values_list("pk", flat=True))
    doc_pks = sorted(dataset.documents.values_list("pk", flat=True))
    per_query = -(-n // len(query_pks))
    keys = [(q, d) for q in query_pks for d in rng.sample(doc_pks, per_query)][:n]
    pairs = [Pair(query_id=q, document_id=d) for q, d in keys]
    started = time.perf_counter()
    scores = stage0_pairs_score(judge=judge, pairs=pairs)
    ours = time.perf_counter() - started
    inputs = pair_inputs(dataset=dataset, pairs=keys, lexicon=dataset_lexicon(dataset=dataset))
    fitted = fit.fitted_load(bytes(judge.fitted))
    started = time.perf_counter()
    bare = fit.probabilities(fitted, inputs)
    anchor = time.perf_counter() - started
    assert scores == stage0_inputs_score(judge=judge, inputs=inputs)
    assert len(bare) == len(scores) == n
    print(
        f"scoring {n:,} pairs: stage0_pairs_score {ours:.1f} s (target < 60 s) vs the bare "
        f"scoring of the vectors in memory {anchor:.2f} s = {ours / anchor:.1f}x (the rest: "
        f"reading {len(set(d for _, d in keys)):,} document vectors and encoding "
        f"{len(query_pks):,} queries, corpus statistics and scalars)"
    )
    bench_terms(dataset, keys)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--cross", type=int, default=15, help="cross-query negatives a query")
    parser.add_argument("--keep", action="store_true", help="keep the bench dataset")
    args = parser.parse_args()
    prepare_database()
    from debates.stage0 import labels

    labels.CROSS_NEGATIVES = args.cross
    print(f"load average before: {os.getloadavg()[0]:.2f}; cores: {os.cpu_count()}")
    dataset = dataset_get()
    try:
        judge = bench_training(dataset)
        bench_scoring(dataset, judge, args.pairs)
    finally:
        if not args.keep:
            drop_bench_data(SLUG)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
