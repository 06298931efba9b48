from collections.abc import Iterator
from contextlib import contextmanager

from django.core.management.base import BaseCommand, CommandError

from core.broker import tasks_run_in_process
from corpora import retrieval
from corpora.models import QrelSet, Run
from corpora.runs import queries_answered_words
from corpora.services.datasets import qrel_set_get
from corpora.services.runs import (
    QUERIES_ALL,
    RETRIEVERS,
    RunError,
    run_create,
    run_enqueue,
    run_evaluate,
    run_queries,
    run_retrieve,
)

from ._common import load_dataset


class Command(BaseCommand):
    help = (
        "Rank a dataset's queries with a built-in retriever (BM25 or dense) into a new run; "
        "asked again with the same settings, an unfinished run is resumed."
    )

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
            help="BM25 implementation (default: bm25s; rank_bm25 is the slower reference)",
        )
        parser.add_argument(
            "--k1",
            type=float,
            help=f"BM25 only: term frequency saturation, 0 to 10 (default {retrieval.BM25_K1}; "
            "0 weighs a term by its IDF alone)",
        )
        parser.add_argument(
            "--b",
            type=float,
            help=f"BM25 only: document length normalisation, 0 (none) to 1 (full) "
            f"(default {retrieval.BM25_B})",
        )
        parser.add_argument(
            "--windows",
            action="store_true",
            help="Dense only: encode overlapping windows the model reads whole (128 word "
            "pieces, stride 64) and score a document by its best window (MaxP)",
        )
        parser.add_argument(
            "--background",
            action="store_true",
            help="Queue a Celery task instead of waiting (without CELERY_BROKER_URL the task "
            "runs in this process)",
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
                windows=opts["windows"],
                k1=opts["k1"],
                b=opts["b"],
            )
        except RunError as exc:
            raise CommandError(str(exc)) from None
        if run.status in (Run.Status.FAILED, Run.Status.RUNNING):
            self.stdout.write(f"resuming run {run.name} (it was {run.status})")
        if opts["background"]:
            with self._failures(run):
                run_enqueue(run=run)
            if not tasks_run_in_process():
                # A worker executes it later: the status read now is the one before the run
                # (a failed run being resumed still reads "failed").
                self.stdout.write(
                    f"run {run.name} (id {run.pk}) queued; a Celery worker executes it "
                    "(its status shows on the dataset page)"
                )
                return
            run.refresh_from_db()
            if run.status == Run.Status.FAILED:
                raise CommandError(self._failed_message(run, run.error))
            if run.status != Run.Status.DONE:
                self.stdout.write(
                    f"run {run.name} (id {run.pk}) queued; a Celery worker executes it "
                    "(its status shows on the dataset page)"
                )
                return
            # No broker: the task ran in this process when it was queued.
            self.stdout.write(f"run {run.name} (id {run.pk}) ran in this process (no broker)")
        else:
            with self._failures(run):
                run = run_retrieve(run=run, progress=not opts["no_progress"])
        for line in self._run_lines(run):
            self.stdout.write(line)
        if run.truncated_documents is not None:
            total = dataset.documents.count()
            how = (
                "read whole in windows (MaxP)"
                if run.windows
                else "the model ignored their ends; --windows reads them whole"
            )
            self.stdout.write(
                f"  documents longer than the model reads ({retrieval.DENSE_MODEL_NAME}, "
                f"max_seq_length word pieces): {run.truncated_documents:,} of {total:,}; {how}"
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

    @staticmethod
    def _run_lines(run: Run) -> list[str]:
        """The run, its queries and entries; then the queries asked that matched no document
        (they have no entry, so counting the queries of its entries would hide them)."""
        entries = run.entries.count()
        asked = run_queries(dataset=run.dataset, queries=run.parameters.get("queries"))
        answered = run.entries.values_list("query__query_id", flat=True).distinct()
        queries, empty = queries_answered_words([q[1] for q in asked], answered)
        line = (
            f"run {run.name}: {run.system}; {queries}, {entries:,} entries in {run.seconds:.1f} s"
        )
        return [line, f"  {empty}"] if empty else [line]

    @contextmanager
    def _failures(self, run: Run) -> Iterator[None]:
        """Turn an error inside the retrieval into a CommandError saying what failed and how
        to go on, instead of a traceback."""
        try:
            yield
        except RunError as exc:  # refused (e.g. RunBusy): the run was not touched
            raise CommandError(str(exc)) from None
        except Exception as exc:
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            raise CommandError(self._failed_message(run, reason)) from None

    @staticmethod
    def _failed_message(run: Run, reason: str) -> str:
        dense = run.parameters.get("retriever") == "dense"
        kept = " (the document vectors stored so far are kept)" if dense else ""
        return (
            f"run {run.name!r} failed: {reason}. It is marked failed; run the same command "
            f"again to resume it{kept}"
        )
