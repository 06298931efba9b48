import sys

from django.core.management.base import BaseCommand

from core.paths import caller_path
from corpora.services.datasets import qrels_export
from corpora.simulated import qrel_set_simulated_counts, simulated_note

from ._common import load_dataset, load_qrel_set


class Command(BaseCommand):
    help = "Export a qrel set as TREC qrels or BEIR TSV, streaming (canonical order)."

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument("qrelset", help="Qrel set name, e.g. test")
        parser.add_argument("--format", choices=["trec", "beir"], default="trec")
        parser.add_argument(
            "--out", type=caller_path, default="-", help="Output file ('-' for stdout)"
        )

    def handle(self, *args, **opts):
        dataset = load_dataset(opts["dataset"])
        qrel_set = load_qrel_set(dataset, opts["qrelset"])
        if opts["out"] == "-":
            rows = qrels_export(qrel_set=qrel_set, out=sys.stdout, fmt=opts["format"])
        else:
            with open(opts["out"], "w", encoding="utf-8", newline="\n") as out:
                rows = qrels_export(qrel_set=qrel_set, out=out, fmt=opts["format"])
        self.stderr.write(f"{rows:,} rows written to {opts['out']}")
        # A TREC file has no room for a comment: the printout says what the file holds.
        note = simulated_note(
            qrel_set=qrel_set, counts=qrel_set_simulated_counts(qrel_set=qrel_set)
        )
        if note:
            self.stderr.write(note)
