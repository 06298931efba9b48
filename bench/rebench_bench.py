"""Wall time of a re-benchmark of 25 runs x 300 queries x 100 documents, twice: the pure evaluation
core (``assess.evaluation.metrics.rebenchmark`` on in-memory dicts) and the whole database path the
pages and the ``rebenchmark`` command take (``assess.evaluation.rebench.rebench_compute``, uncached:
both qrel sets and 25 x 300 x 100 = 750,000 run entries read from PostgreSQL, then the same core).
Target: under 10 s.

Synthetic and seeded: each query has a 2,000-document candidate space, 1-3 relevant and
2 judged non-relevant documents in the original qrels; the refined qrels add a label for
every unjudged document in the union of the runs' top 10 (about 1 in 4 relevant), as a
DREAM pool would. Each run is ``{query_id: {doc_id: score}}`` with 100 documents a query and
some tied scores. The database path stores the same data once as a dataset
(``rebench-bench``, reused while its sizes match) and checks that both paths give the same
leaderboards.

    createdb -h 127.0.0.1 -U postgres bench_rebench   # or let the script create it
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_rebench \\
        .venv/bin/python bench/rebench_bench.py [--runs 25] [--queries 300] [--depth 100] \\
        [--repeat 3]

Without ``DATABASE_URL`` only the in-memory core is timed.
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

from assess.evaluation.metrics import rebenchmark  # noqa: E402

SLUG = "rebench-bench"


def generate(runs: int, queries: int, depth: int, seed: int = 6):
    """``(original_qrels, refined_qrels, runs)`` as plain dicts (see the module note)."""
    rng = random.Random(seed)
    space = [f"d{i:05d}" for i in range(2000)]
    original: dict[str, dict[str, int]] = {}
    for q in range(queries):
        picked = rng.sample(space, 5)
        relevant = rng.randint(1, 3)
        original[f"q{q:04d}"] = {
            d: (rng.choice((1, 2)) if i < relevant else 0) for i, d in enumerate(picked)
        }
    system_runs: dict[str, dict[str, dict[str, float]]] = {}
    for s in range(runs):
        run = {}
        for qid, judged in original.items():
            # Better systems put more of the judged relevant documents near the top.
            docs = rng.sample(space, depth)
            for d, grade in judged.items():
                if grade > 0 and rng.random() < 0.3 + 0.02 * s and d not in docs:
                    docs[rng.randrange(20)] = d
            run[qid] = {d: round(rng.random(), 2) for d in dict.fromkeys(docs)}
        system_runs[f"system{s:02d}"] = run
    refined = {q: dict(j) for q, j in original.items()}
    for run in system_runs.values():
        for qid, scored in run.items():
            top = sorted(scored, key=lambda d: (-scored[d], d))[:10]
            for d in top:
                if d not in refined[qid]:
                    refined[qid][d] = 1 if rng.random() < 0.25 else 0
    return original, refined, system_runs


def _copy(cursor, table: str, columns: list[str], rows) -> None:
    with cursor.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def store(original, refined, runs, signature: str):
    """The ``rebench-bench`` dataset holding ``original`` and ``refined`` as qrel sets
    ``test`` and ``refined`` and every run with its ranks (score descending, then doc id);
    built once and reused while its ``source`` equals ``signature``."""
    from django.db import connection, transaction

    from corpora.models import Dataset, Document, QrelSet, Query, Run

    existing = Dataset.objects.filter(slug=SLUG).first()
    if existing is not None:
        if existing.source == signature:
            return existing
        print("rebuilding the rebench-bench dataset")
        existing.delete()
    started = time.perf_counter()
    doc_ids = sorted(
        {d for q in refined.values() for d in q}
        | {d for run in runs.values() for scored in run.values() for d in scored}
    )
    with transaction.atomic():
        dataset = Dataset.objects.create(name="rebench bench", slug=SLUG, source=signature)
        with connection.cursor() as cursor:
            _copy(
                cursor,
                "corpora_document",
                ["dataset_id", "doc_id", "title", "text"],
                ((dataset.pk, d, "", "") for d in doc_ids),
            )
            _copy(
                cursor,
                "corpora_query",
                ["dataset_id", "query_id", "text", "answers", "metadata"],
                ((dataset.pk, q, "question", "[]", "{}") for q in sorted(original)),
            )
        doc_pk = dict(Document.objects.filter(dataset=dataset).values_list("doc_id", "pk"))
        query_pk = dict(Query.objects.filter(dataset=dataset).values_list("query_id", "pk"))
        sets = {
            "test": (QrelSet.objects.create(dataset=dataset, name="test"), original),
            "refined": (
                QrelSet.objects.create(dataset=dataset, name="refined", origin="refined"),
                refined,
            ),
        }
        created = {
            name: Run.objects.create(dataset=dataset, name=name, source="imported")
            for name in sorted(runs)
        }
        with connection.cursor() as cursor:
            for qrel_set, qrels in sets.values():
                _copy(
                    cursor,
                    "corpora_qrel",
                    ["qrel_set_id", "query_id", "document_id", "relevance"],
                    (
                        (qrel_set.pk, query_pk[q], doc_pk[d], grade)
                        for q, judged in qrels.items()
                        for d, grade in judged.items()
                    ),
                )
            for name, run in runs.items():
                _copy(
                    cursor,
                    "corpora_runentry",
                    ["run_id", "query_id", "document_id", "rank", "score"],
                    (
                        (created[name].pk, query_pk[q], doc_pk[d], rank, scored[d])
                        for q, scored in run.items()
                        for rank, d in enumerate(
                            sorted(scored, key=lambda d, s=scored: (-s[d], d)), start=1
                        )
                    ),
                )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"stored the runs and qrels in {time.perf_counter() - started:.1f} s")
    return dataset


def database_path(original, refined, runs, args, expected) -> None:
    """Time ``rebench_compute`` (uncached) on the stored copy; check it matches ``expected``."""
    sys.path.insert(0, str(REPO / "bench"))
    from _common import prepare_database

    prepare_database()
    from assess.evaluation.rebench import rebench_compute
    from corpora.models import QrelSet

    signature = f"runs={args.runs} queries={args.queries} depth={args.depth} seed=6"
    dataset = store(original, refined, runs, signature)
    test = QrelSet.objects.get(dataset=dataset, name="test")
    refined_set = QrelSet.objects.get(dataset=dataset, name="refined")
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        report = rebench_compute(
            dataset=dataset, original=test, refined=refined_set, use_cache=False
        )
        times.append(time.perf_counter() - start)
    same = [(r.system, r.scores) for r in report.result.after] == [
        (r.system, r.scores) for r in expected.after
    ]
    print(
        f"rebench_compute (PostgreSQL: 2 qrel sets, {args.runs} runs read): best "
        f"{min(times):.2f} s, worst {max(times):.2f} s over {args.repeat} repeats "
        f"(target < 10 s); {'same leaderboards as in memory' if same else 'leaderboards DIFFER'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    original, refined, runs = generate(args.runs, args.queries, args.depth)
    pairs = sum(len(j) for j in refined.values()) - sum(len(j) for j in original.values())
    print(
        f"{args.runs} runs x {args.queries} queries x {args.depth} documents; "
        f"original qrels {sum(len(j) for j in original.values())} rows, "
        f"refined adds {pairs}"
    )
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        result = rebenchmark(original, refined, runs)
        times.append(time.perf_counter() - start)
    changed = sum(1 for c in result.rank_changes.values() if c.change)
    print(
        f"rebenchmark (in memory): best {min(times):.2f} s, worst {max(times):.2f} s over "
        f"{args.repeat} repeats (target < 10 s); {changed} of {args.runs} systems change rank, "
        f"Kendall tau {result.kendall_tau:.3f}"
    )
    if os.environ.get("DATABASE_URL", "").startswith("postgres"):
        database_path(original, refined, runs, args, result)
    else:
        print(
            "rebench_compute: skipped (set DATABASE_URL=postgres://... to time the database path)"
        )


if __name__ == "__main__":
    main()
