"""Wall time of the refined-metric intervals for 20 systems over 10,000 pooled pairs.

Target: under 2 s for every system's nDCG@10, P@10 and R@100 interval, every system pair's
difference (190) and Kendall's tau with its interval (``assess.evaluation.intervals``, pure,
no database). Anchor, from the same run: the point values the re-benchmark already shows,
the same 20 systems' nDCG@10, P@10 and R@100 on the completed qrels with ir_measures; the
ratio is intervals / anchor.

Synthetic and seeded: 500 queries, 20 pooled unjudged documents a query (10,000 pairs) plus 2
judged ones; each system ranks 100 of the query's 60 candidates and 40 others; the machine
labels are wrong for 8% of the pairs; 10% of agreed pairs audited, 5% of pairs escalated.
``--pooled`` and ``--audit-share`` make deep pools with many audited pairs a query, where the
second-order term's couples (audited pairs of one query, two by two) grow as their square:
``--queries 50 --pooled 200 --audit-share 0.3`` is 10,000 pairs with about 1,600 couples a
query.

    .venv/bin/python bench/intervals_bench.py [--systems 20] [--queries 500] [--repeat 3]
        [--pooled 20] [--audit-share 0.1]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from ir_measures import P, R, nDCG  # noqa: E402

from assess.evaluation import interval_comparisons as ic  # noqa: E402
from assess.evaluation import intervals as iv  # noqa: E402
from assess.evaluation.metrics import evaluate_run  # noqa: E402

MEASURES = {"nDCG@10": nDCG @ 10, "P@10": P @ 10, "R@100": R @ 100}


def world(systems: int, queries: int, pooled: int = 20, share: float = 0.1, seed: int = 1):
    rng = random.Random(seed)
    fixed: dict[str, dict[str, int]] = {}
    truth: dict[str, dict[str, int]] = {}
    pool: list[iv.PooledLabel] = []
    runs: dict[str, dict[str, list[str]]] = {f"s{i:02d}": {} for i in range(systems)}
    for q in range(queries):
        qid = f"q{q}"
        cands = [f"{qid}-d{i}" for i in range(pooled + 40)]
        fixed[qid] = {cands[0]: 1, cands[1]: 0}
        truth[qid] = dict(fixed[qid])
        for d in cands[2 : 2 + pooled]:
            y = int(rng.random() < 0.25)
            truth[qid][d] = y
            if rng.random() < 0.05:
                pool.append(iv.PooledLabel(qid, d, None, y, "escalated", True, 1.0))
                continue
            machine = y if rng.random() > 0.08 else 1 - y
            drawn = rng.random() < share
            pool.append(
                iv.PooledLabel(
                    qid, d, machine, y if drawn else None, f"label {machine}", drawn, share
                )
            )
        for name in runs:
            others = [f"{qid}-x{i}" for i in range(40)]
            ranked = sorted(cands + others, key=lambda d: rng.random() - 0.4 * truth[qid].get(d, 0))
            runs[name][qid] = ranked[:100]
    return fixed, truth, pool, runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pooled", type=int, default=20, help="Pooled pairs a query (default 20)")
    parser.add_argument("--audit-share", type=float, default=0.1, help="Default 0.1")
    args = parser.parse_args()
    fixed, truth, pool, runs = world(args.systems, args.queries, args.pooled, args.audit_share)
    queries = sorted(fixed)
    print(f"{len(runs)} systems, {len(queries)} queries, {len(pool):,} pooled pairs")
    for attempt in range(args.repeat):
        start = time.perf_counter()
        found = iv.refined_intervals(runs=runs, fixed=fixed, pool=pool, queries=queries)
        pairs = ic.pair_comparisons(found)
        original = {s: by["nDCG@10"].estimate for s, by in found.by_system.items()}
        ic.kendall_tau_interval(found, original)
        took = time.perf_counter() - start
        start = time.perf_counter()
        for ranked in runs.values():
            run = {q: {d: float(-r) for r, d in enumerate(docs, 1)} for q, docs in ranked.items()}
            evaluate_run(truth, run, measures=MEASURES, paper_variant=False)
        anchor = time.perf_counter() - start
        settled = sum(p.settled for p in pairs)
        print(
            f"run {attempt + 1}: intervals {took:.2f} s (n human {found.n_human:,}, "
            f"{settled} of {len(pairs)} pairs settled); anchor (ir_measures point values) "
            f"{anchor:.2f} s; ratio {took / anchor:.2f}; target < 2 s: "
            f"{'met' if took < 2 else 'NOT met'}"
        )


if __name__ == "__main__":
    main()
