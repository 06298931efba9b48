from django.core.management.base import BaseCommand, CommandError

from corpora.services.holes import HideError, qrel_set_hide

from ._common import load_dataset, load_qrel_set


class Command(BaseCommand):
    help = (
        "Make a qrel set with part of another's relevant rows hidden, so that they become "
        "holes: pool on the new set and give the whole set as the simulated debaters' truth "
        "(the design simulate_study --hide replays in memory). The rows kept are real "
        "judgments; the new set's source says what was hidden."
    )

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument("--qrels", default="test", help="Qrel set to start from")
        parser.add_argument("--name", required=True, help="Name of the new qrel set")
        parser.add_argument(
            "--hide",
            type=float,
            default=0.5,
            help="Probability that each relevant row is hidden (default 0.5)",
        )
        parser.add_argument("--seed", type=int, default=1, help="Seed of the draw (default 1)")

    def handle(self, *args, **opts):
        dataset = load_dataset(opts["dataset"])
        start = load_qrel_set(dataset, opts["qrels"])
        try:
            made = qrel_set_hide(
                qrel_set=start, name=opts["name"], hide=opts["hide"], seed=opts["seed"]
            )
        except HideError as exc:
            raise CommandError(f"nothing made: {exc}") from None
        slug, name = dataset.slug, made.qrel_set.name
        emptied = (
            f"; {made.queries_emptied:,} queries kept no row and are left out of a pool on it"
            if made.queries_emptied
            else ""
        )
        self.stdout.write(
            f"qrel set {name}: {made.rows:,} rows ({made.hidden:,} of {made.relevant:,} "
            f"relevant rows of {start.name} hidden, seed {opts['seed']}{emptied})\n"
            "next: pool on it, and debate the pool with the whole set as the truth (a file "
            "in a folder of DREAM_SIMULATION_DIRS):\n"
            f"  ./dream manage build_pool {slug} --qrels {name} --runs RUNS --depth 10\n"
            f"  ./dream manage export_qrels {slug} {start.name} --out DIR/{start.name}.tsv\n"
            f"  ./dream manage run_debates {slug}/{name}-depth10 --backend simulated "
            f"--truth DIR/{start.name}.tsv"
        )
