from django.core.management.base import BaseCommand, CommandError

from corpora import retrieval
from corpora.models import QrelSet
from corpora.services import (
    QUERIES_ALL,
    RETRIEVERS,
    RunError,
    qrel_set_get,
    run_create,
    run_enqueue,
    run_evaluate,
    run_retrieve,
)

from ._common import load_dataset


class Command(BaseCommand):
    help = "Rank a dataset's queries with a built-in retriever (BM25 or dense) into a new run."

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument("--retriever", choices=RETRIEVERS, required=True)
        parser.add_argument("--k", type=int, default=100, help="Documents kept per query")
        parser.add_argument(
            "--queries",
            default="test",
            help="Qrel set whose judged queries are ranked, or 'all' (default: test)",
        )
        parser.add_argument("--name", help="Run name / TREC tag (default: the retriever)")
        parser.add_argument(
            "--replace", action="store_true", help="Rebuild an existing run of that name"
        )
        parser.add_argument(
            "--backend",
            choices=retrieval.BACKENDS,
            help="BM25 implementation (default: rank_bm25, bm25s for large corpora)",
        )
        parser.add_argument(
            "--background", action="store_true", help="Queue a Celery task instead of waiting"
        )
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **opts):
        dataset = load_dataset(opts["dataset"])
        try:
            run = run_create(
                dataset=dataset,
                retriever=opts["retriever"],
                k=opts["k"],
                queries=opts["queries"],
                name=opts["name"],
                replace=opts["replace"],
                backend=opts["backend"],
            )
        except RunError as exc:
            raise CommandError(str(exc)) from None
        if opts["background"]:
            run_enqueue(run=run)
            self.stdout.write(f"run {run.name} (id {run.pk}) queued")
            return
        run = run_retrieve(run=run, progress=not opts["no_progress"])
        entries = run.entries.count()
        queries = run.entries.values("query").distinct().count()
        self.stdout.write(
            f"run {run.name}: {run.system}; {queries:,} queries, {entries:,} entries "
            f"in {run.seconds:.1f} s"
        )
        if opts["queries"] != QUERIES_ALL:
            try:
                qrel_set = qrel_set_get(dataset=dataset, name=opts["queries"])
            except QrelSet.DoesNotExist:
                return
            scores = run_evaluate(run=run, qrel_set=qrel_set, measures=["nDCG@10", "Judged@10"])
            self.stdout.write(
                "  against qrels "
                + qrel_set.name
                + ": "
                + ", ".join(f"{m} {v:.4f}" for m, v in scores.items())
            )
