import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from assess.models import Refinement
from assess.refined.export_formats import HashingWriter
from assess.refined.exports import KINDS, ExportError, export_file_write, export_stream
from core.paths import caller_path
from corpora.management.commands._common import load_dataset
from corpora.models import Pool, QrelSet
from corpora.simulated import qrel_set_simulated_counts, simulated_note


class Command(BaseCommand):
    help = (
        "Export a qrel set's labels with provenance (JSONL), TREC or BEIR qrels, the "
        "disagreements CSV, the benchmark zip (BEIR layout and datasheet; --out FILE), or the "
        "debate transcripts (JSONL) of a pool; prints the sha256."
    )

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument(
            "qrels", nargs="?", help="Qrel set name (transcripts: its refinement's pool)"
        )
        parser.add_argument("--kind", choices=KINDS, default="labels", help="default: labels")
        parser.add_argument("--pool", help="Pool name (transcripts), instead of a refined set")
        parser.add_argument(
            "--out", required=True, type=caller_path, help="Output file, or - for stdout"
        )

    def handle(self, *args, **opts):
        dataset = load_dataset(opts["dataset"])
        kind = opts["kind"]
        qrel_set = pool = None
        if opts["qrels"]:
            try:
                qrel_set = QrelSet.objects.get(dataset=dataset, name=opts["qrels"])
            except QrelSet.DoesNotExist:
                known = ", ".join(dataset.qrel_sets.values_list("name", flat=True)) or "none"
                raise CommandError(f"no qrel set {opts['qrels']!r} (known: {known})") from None
        if kind == "transcripts":
            if opts["pool"]:
                pool = Pool.objects.filter(dataset=dataset, name=opts["pool"]).first()
                if pool is None:
                    raise CommandError(f"no pool {opts['pool']!r} in {dataset.slug}")
            elif qrel_set is not None:
                refinement = Refinement.objects.filter(qrel_set=qrel_set).first()
                if refinement is None:
                    raise CommandError(f"qrel set {qrel_set.name!r} was not refined; pass --pool")
                pool = refinement.pool
            else:
                raise CommandError("transcripts need a refined qrel set or --pool")
        elif qrel_set is None:
            raise CommandError(f"a {kind} export needs a qrel set name")
        try:
            if opts["out"] == "-":
                writer = HashingWriter(sys.stdout.buffer)
                rows = export_stream(kind=kind, out=writer, qrel_set=qrel_set, pool=pool)
                digest, size = writer.hexdigest(), writer.bytes
                writer.flush()
                target = "stdout"
            else:
                rows, size, digest = export_file_write(
                    kind=kind, path=Path(opts["out"]), qrel_set=qrel_set, pool=pool
                )
                target = opts["out"]
        except ExportError as exc:
            raise CommandError(str(exc)) from None
        self.stderr.write(f"wrote {rows:,} rows ({size:,} bytes) to {target}; sha256 {digest}")
        if qrel_set is not None and kind != "transcripts":
            counts = qrel_set_simulated_counts(qrel_set=qrel_set)
            if note := simulated_note(qrel_set=qrel_set, counts=counts):
                self.stderr.write(note)
