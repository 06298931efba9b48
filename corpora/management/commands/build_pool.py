from django.core.management.base import BaseCommand, CommandError

from corpora.models import Pool, Run
from corpora.pool_strategies import MAX_BUDGET
from corpora.services.pools import PoolBuildReport, PoolError, pool_build
from corpora.services.runs import run_get

from ._common import budget_type, load_dataset, load_qrel_set


def format_report(report: PoolBuildReport, *, per_query: bool = True) -> str:
    """The per-query table (query, pool size, pairs each run contributed, pairs found by 2+
    runs, judged pairs left out or kept) and the totals."""
    result = report.result
    pool = report.pool
    run_ids = sorted(report.run_names, key=lambda r: report.run_names[r])
    names = [report.run_names[r] for r in run_ids]
    judged_label = "judged-kept" if pool.include_judged else "judged-out"
    lines = []
    if per_query:
        width = max([5] + [len(report.query_ids[s.query]) for s in result.per_query])
        header = [f"{'query':<{width}}", f"{'pool':>5}"]
        header += [f"{n:>{max(len(n), 5)}}" for n in names]
        header += [f"{'shared':>6}", f"{judged_label:>11}"]
        lines.append(" ".join(header))
        for stats in result.per_query:
            row = [f"{report.query_ids[stats.query]:<{width}}", f"{stats.pairs:>5}"]
            row += [
                f"{stats.by_run.get(r, 0):>{max(len(n), 5)}}"
                for r, n in zip(run_ids, names, strict=True)
            ]
            row += [f"{stats.shared:>6}", f"{stats.judged:>11}"]
            lines.append(" ".join(row))
    total = len(result.candidates)
    shared = sum(s.shared for s in result.per_query)
    lines.append(
        f"pool {pool.name} (runs {', '.join(names)}; depth {pool.depth}; qrels "
        f"{pool.qrel_set.name}): {len(result.per_query):,} queries, {total:,} pairs, "
        f"{result.unjudged:,} unjudged, {shared:,} found by 2+ runs, "
        f"{result.judged_left_out:,} judged pairs left out, {result.judged_kept:,} judged kept"
    )
    if result.excluded_left_out:
        lines.append(
            f"identical ids excluded: {result.excluded_left_out:,} run entries ranked a "
            "query's own document and were not pooled"
        )
    lines.append(
        f"this build created {report.created_pairs:,} new pairs and "
        f"{report.created_sources:,} provenance rows"
    )
    if pool.strategy != Pool.Strategy.DEPTH or pool.budget is not None:
        budget = (
            "every pair"
            if pool.budget is None
            else f"budget {pool.budget:,} pair{'s' if pool.budget != 1 else ''}"
        )
        lines.append(f"judging order: {pool.get_strategy_display()}; {budget}")
    if report.budget_note:
        lines.append(f"note: {report.budget_note}")
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Pool the top-k documents of chosen runs into candidate pairs (incremental)."

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument("--runs", required=True, help="Comma-separated run names")
        parser.add_argument("--depth", type=int, default=10, help="Pool depth k (default 10)")
        parser.add_argument("--qrels", default="test", help="Qrel set judged against")
        parser.add_argument(
            "--name",
            help="Pool name (default: <qrels>-depth<k>, then -judged with --include-judged and "
            "-<strategy> for a strategy other than depth, e.g. test-depth10-bandit)",
        )
        parser.add_argument(
            "--include-judged",
            action="store_true",
            help="Keep pairs already judged in the qrel set (accuracy audits)",
        )
        parser.add_argument(
            "--strategy",
            choices=Pool.Strategy.values,
            default=Pool.Strategy.DEPTH,
            help="Judging order: depth (every pair), rbp (p = 0.8), rrf (k = 60), bandit "
            "(MaxMean over runs) or mtc (minimal test collection); default depth",
        )
        parser.add_argument(
            "--budget",
            type=budget_type,
            help="Pairs a job judges at most, in the strategy's order: a number of pairs (at "
            f"most {MAX_BUDGET:,}), or below 1 a share of the pool (0.6); default every pair",
        )
        parser.add_argument("--totals-only", action="store_true", help="Skip the per-query table")

    def handle(self, *args, **opts):
        dataset = load_dataset(opts["dataset"])
        qrel_set = load_qrel_set(dataset, opts["qrels"])
        runs = []
        for name in [n.strip() for n in opts["runs"].split(",") if n.strip()]:
            try:
                runs.append(run_get(dataset=dataset, name=name))
            except Run.DoesNotExist:
                known = ", ".join(dataset.runs.values_list("name", flat=True)) or "none"
                raise CommandError(f"no run {name!r} (known: {known})") from None
        try:
            report = pool_build(
                dataset=dataset,
                qrel_set=qrel_set,
                runs=runs,
                depth=opts["depth"],
                include_judged=opts["include_judged"],
                name=opts["name"],
                strategy=opts["strategy"],
                budget=opts["budget"],
            )
        except PoolError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(format_report(report, per_query=not opts["totals_only"]))
