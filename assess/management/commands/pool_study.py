import json

from django.core.management.base import BaseCommand, CommandError

from assess.evaluation.pool_study import pool_replay
from assess.evaluation.pool_study_inputs import pool_study_inputs
from assess.evaluation.rebench import RebenchError
from assess.evaluation.study import study_builtin_runs_make
from corpora.formats import relevance_level_check
from corpora.management.commands._common import budget_type, load_dataset
from corpora.models import Pool
from corpora.pool_strategies import StrategyParams
from corpora.services import RunBusy, RunError


class Command(BaseCommand):
    help = (
        "Replay a pool strategy against a collection's qrels as if its pairs were being "
        "judged: relevant pairs found and the leaderboard's tau_AP against the whole depth "
        "pool's, at a budget of pairs (or a share of the depth pool)."
    )

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument("--qrels", default="test", help="Qrel set replayed (default test)")
        parser.add_argument(
            "--runs",
            help="Comma-separated run names (default: every finished run; a missing bm25 or "
            "dense is made with the built-in retriever)",
        )
        parser.add_argument(
            "--strategy",
            choices=Pool.Strategy.values,
            # bandit, unlike build_pool's depth: kept because existing scripts call it
            # without --strategy.
            default=Pool.Strategy.BANDIT,
            help="Strategy replayed: depth (rank by rank), rbp (p = 0.8), rrf (k = 60), bandit "
            "(MaxMean over runs) or mtc (minimal test collection); default bandit (build_pool's "
            "default is depth)",
        )
        parser.add_argument(
            "--budget",
            type=budget_type,
            help="Pairs judged: a number, or below 1 a share of the depth pool (0.6); "
            "default every pair",
        )
        parser.add_argument("--depth", type=int, default=10, help="Pool depth k (default 10)")
        parser.add_argument(
            "--rel-level", type=int, default=1, help="Lowest grade counted relevant (default 1)"
        )
        parser.add_argument(
            "--json", action="store_true", help="Print one JSON object (the study's keys)"
        )

    def handle(self, *args, **opts):
        if opts["depth"] < 1:
            raise CommandError(f"--depth: must be at least 1, got {opts['depth']}")
        try:
            relevance_level_check(opts["rel_level"])
        except ValueError as exc:
            raise CommandError(f"--rel-level: {exc}") from None
        dataset = load_dataset(opts["dataset"])
        names = [n.strip() for n in (opts["runs"] or "").split(",") if n.strip()]
        if opts["qrels"] in set(dataset.qrel_sets.values_list("name", flat=True)):
            # As simulate_study does: a study on a fresh import needs no `retrieve` first.
            # Said on stderr, so that --json's stdout stays one object.
            try:
                study_builtin_runs_make(
                    dataset=dataset,
                    names=names,
                    queries=opts["qrels"],
                    echo=lambda text: self.stderr.write(text),
                )
            except (RunError, RunBusy) as exc:
                raise CommandError(f"making the missing run: {exc}") from None
        try:
            rankings, qrels = pool_study_inputs(
                dataset=dataset, qrels=opts["qrels"], runs=names, depth=opts["depth"]
            )
        except RebenchError as exc:
            raise CommandError(str(exc)) from None
        try:
            replay = pool_replay(
                opts["strategy"],
                rankings,
                qrels,
                depth=opts["depth"],
                budget=opts["budget"],
                params=StrategyParams(rel_level=opts["rel_level"]),
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        out = replay.as_json()
        out = {**out, "dataset": dataset.slug, "qrels": opts["qrels"], "depth": opts["depth"]}
        if opts["json"]:
            self.stdout.write(json.dumps(out, sort_keys=False))
            return
        self.stdout.write(self._text(out))

    @staticmethod
    def _text(out: dict) -> str:
        # Without a tau the note (printed below) says why.
        tau = "none (see the note)" if out["tau_ap"] is None else f"{out['tau_ap']:.3f}"
        systems = f"{out['systems']} system{'' if out['systems'] == 1 else 's'}"
        if out["relevant_share"] is None:
            found = "no relevant pair in the depth pool"
        else:
            found = (
                f"relevant found {out['relevant_found']:,} of "
                f"{out['relevant_in_depth_pool']:,} ({out['relevant_share']:.1%})"
            )
        lines = [
            f"{out['dataset']} ({out['qrels']}), {systems}, "
            f"{out['queries']} queries, depth {out['depth']}: strategy {out['strategy']}",
            f"judged {out['judged']:,} of the depth pool's {out['depth_pool_judged']:,} pairs "
            f"({(out['judged_share'] or 0):.1%}); {found}",
            f"tau_AP,b of the leaderboard (nDCG@10) from the judged pairs against the whole "
            f"depth pool's: {tau}",
        ]
        if out["note"]:
            lines.append(f"note: {out['note']}")
        return "\n".join(lines)
