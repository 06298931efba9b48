"""The pool study over collections and strategies: relevant pairs found against pairs judged,
and the leaderboard's tau_AP at a budget, replaying each collection's qrels as the judge.

Not a speed bench. For each dataset named (already imported, with its runs: see
``./dream manage study_systems``), each strategy judges the depth-``--depth`` pool in its
order; printed per dataset and strategy: the ``pool_study`` JSON object at ``--budget``
(a share of the depth pool), whether it meets the bar (``>= 90%`` of the pool's relevant
pairs found and tau_AP >= 0.9), and the share of the pool it judges before it has found
90% of the relevant pairs (``share_for_90pct``). ``--plot FILE`` draws relevant found
against pairs judged, one panel per dataset (SVG or PNG by the name). The labels are the
collections' own qrels, replayed: nothing is simulated and nothing is written.

Run: ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/poolstudy .venv/bin/python
bench/pool_study_curves.py cisi cranfield med vaswani nfcorpus --budget 0.6
--plot docs/pool_study.png``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def main() -> None:
    from corpora.pool_strategies import STRATEGIES  # pure: no Django needed yet

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--qrels", default="test")
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--budget", type=float, default=0.6)
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument("--plot", type=Path)
    args = parser.parse_args()
    import django

    django.setup()
    from assess.evaluation.pool_study import pool_replay
    from assess.evaluation.pool_study_inputs import pool_study_inputs
    from corpora.models import Dataset

    curves: dict[str, dict[str, list[int]]] = {}
    for slug in args.datasets:
        dataset = Dataset.objects.get(slug=slug)
        rankings, qrels = pool_study_inputs(
            dataset=dataset, qrels=args.qrels, runs=None, depth=args.depth
        )
        curves[slug] = {}
        for strategy in args.strategies.split(","):
            started = time.perf_counter()
            full = pool_replay(strategy, rankings, qrels, depth=args.depth, budget=None)
            at = pool_replay(strategy, rankings, qrels, depth=args.depth, budget=args.budget)
            out = at.as_json()
            share = out["relevant_share"] or 0.0
            tau = out["tau_ap"]
            need = next(
                (i + 1 for i, c in enumerate(full.curve) if c >= 0.9 * full.relevant_found),
                len(full.curve),
            )
            out.update(
                share_for_90pct=round(need / full.depth_pool_judged, 3),
                dataset=slug,
                depth=args.depth,
                seconds=round(time.perf_counter() - started, 2),
                meets_bar=bool(share >= 0.9 and tau is not None and tau >= 0.9),
            )
            out.pop("ndcg10_depth_pool")
            out.pop("ndcg10_budget")
            print(json.dumps(out), flush=True)
            curves[slug][strategy] = full.curve
    if args.plot:
        plot(curves, args.plot, budget=args.budget)


def plot(curves: dict[str, dict[str, list[int]]], path: Path, *, budget: float) -> None:
    """Relevant pairs found (share of the depth pool's) against pairs judged (share of the
    depth pool), one panel per dataset, one line per strategy, the budget marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(curves), figsize=(3.2 * len(curves), 3.2), squeeze=False)
    for ax, (slug, by_strategy) in zip(axes[0], curves.items(), strict=True):
        for strategy, curve in by_strategy.items():
            total, found = len(curve), curve[-1] if curve else 0
            xs = [(i + 1) / total for i in range(total)]
            ys = [c / found if found else 0.0 for c in curve]
            ax.plot(xs, ys, label=strategy, linewidth=1.2)
        ax.axvline(budget, color="grey", linestyle=":", linewidth=1)
        ax.axhline(0.9, color="grey", linestyle=":", linewidth=1)
        ax.set_title(slug, fontsize=10)
        ax.set_xlabel("share of the depth-10 pool judged", fontsize=8)
        ax.set_ylabel("share of its relevant pairs found", fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0][0].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    print(f"plot: {path}")


if __name__ == "__main__":
    main()
