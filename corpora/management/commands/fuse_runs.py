from django.core.management.base import BaseCommand, CommandError

from corpora import fusion
from corpora.models import Run
from corpora.services.fusion import run_fuse
from corpora.services.runs import RunError

from ._common import load_dataset


class Command(BaseCommand):
    help = (
        "Fuse two or more finished runs of a dataset into a new run: reciprocal rank fusion "
        "(k = 60), CombSUM or CombMNZ over per-query min-max normalised scores."
    )

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument("--runs", required=True, help="Comma-separated run names (2 or more)")
        parser.add_argument("--method", choices=fusion.METHODS, default="rrf")
        parser.add_argument(
            "--name", help="Run name / TREC tag (default: the method and the runs' names)"
        )
        parser.add_argument("--k", type=int, default=100, help="Documents kept per query")
        parser.add_argument(
            "--rrf-k",
            type=int,
            default=fusion.RRF_K,
            help=f"RRF's constant (default {fusion.RRF_K}, the paper's)",
        )
        parser.add_argument(
            "--replace", action="store_true", help="Rebuild an existing run of that name"
        )

    def handle(self, *args, **opts):
        dataset = load_dataset(opts["dataset"])
        names = [n.strip() for n in opts["runs"].split(",") if n.strip()]
        found = {r.name: r for r in Run.objects.filter(dataset=dataset, name__in=names)}
        if missing := [n for n in names if n not in found]:
            known = ", ".join(dataset.runs.order_by("name").values_list("name", flat=True))
            raise CommandError(
                f"no run {', '.join(map(repr, missing))} in {dataset.slug!r} "
                f"(known: {known or 'none'})"
            )
        try:
            run = run_fuse(
                dataset=dataset,
                runs=[found[n] for n in names],
                method=opts["method"],
                name=opts["name"],
                k=opts["k"],
                rrf_k=opts["rrf_k"],
                replace=opts["replace"],
            )
        except RunError as exc:
            raise CommandError(str(exc)) from None
        queries = run.entries.values("query").distinct().count()
        self.stdout.write(
            f"run {run.name}: {run.system}; {queries:,} queries, {run.entries.count():,} "
            f"entries in {run.seconds:.1f} s"
        )
