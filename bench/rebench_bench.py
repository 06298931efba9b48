"""Wall time of ``assess.metrics.rebenchmark`` on 25 runs x 300 queries x 100 documents.

Synthetic and seeded: each query has a 2,000-document candidate space, 1-3 relevant and
2 judged non-relevant documents in the original qrels; the refined qrels add a label for
every unjudged document in the union of the runs' top 10 (about 1 in 4 relevant), as a
DREAM pool would. Each run is ``{query_id: {doc_id: score}}`` with 100 documents a query and
some tied scores. Pure Python, no database. Target: under 10 s.

    .venv/bin/python bench/rebench_bench.py [--runs 25] [--queries 300] [--depth 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from assess.metrics import rebenchmark  # noqa: E402


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
        f"rebenchmark: best {min(times):.2f} s, worst {max(times):.2f} s over {args.repeat} "
        f"repeats (target < 10 s); {changed} of {args.runs} systems change rank, "
        f"Kendall tau {result.kendall_tau:.3f}"
    )


if __name__ == "__main__":
    main()
