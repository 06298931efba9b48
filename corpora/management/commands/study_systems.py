from django.core.management.base import BaseCommand, CommandError

from corpora.models import QrelSet, Run
from corpora.services.datasets import qrel_set_get
from corpora.services.runs import RunError, run_evaluate
from corpora.services.systems import STUDY_SYSTEMS, study_systems_build

from ._common import load_dataset


class Command(BaseCommand):
    help = (
        f"Build a standard set of {len(STUDY_SYSTEMS)} varied systems on a dataset (BM25 "
        "under several k1 and b, dense, and fusions of them), skipping those already done; "
        "print their nDCG@10 and, on the last line, their names comma-separated (for --runs)."
    )

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument(
            "--qrels",
            default="test",
            help="Qrel set whose judged queries are ranked and which scores the systems "
            "(default: test)",
        )
        parser.add_argument("--k", type=int, default=100, help="Documents kept per query")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **opts):
        dataset = load_dataset(opts["dataset"])
        try:
            qrel_set = qrel_set_get(dataset=dataset, name=opts["qrels"])
        except QrelSet.DoesNotExist:
            known = ", ".join(dataset.qrel_sets.order_by("name").values_list("name", flat=True))
            raise CommandError(
                f"no qrel set {opts['qrels']!r} in {dataset.slug!r} (known: {known or 'none'})"
            ) from None

        def said(run: Run, built: bool) -> None:
            how = f"built in {run.seconds:.1f} s" if built else "kept (already done)"
            self.stdout.write(f"{run.name}: {how}; {run.system}")

        try:
            runs = study_systems_build(
                dataset=dataset,
                queries=qrel_set.name,
                k=opts["k"],
                progress=not opts["no_progress"],
                on_system=said,
            )
        except RunError as exc:
            raise CommandError(str(exc)) from None
        scores = {r.name: run_evaluate(run=r, qrel_set=qrel_set)["nDCG@10"] for r in runs}
        self.stdout.write(f"\nnDCG@10 on qrels {qrel_set.name}, best first:")
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        for place, (name, value) in enumerate(ranked, start=1):
            self.stdout.write(f"{place:>4}  {value:.4f}  {name}")
        self.stdout.write(",".join(r.name for r in runs))
