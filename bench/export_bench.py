"""Export of a 1,000,000-row refined QrelSet: TREC qrels and the labels JSONL with provenance;
and the disagreements CSV of a refined set whose documents carry real-sized text.
Seconds and peak RSS per export; target under 10 s and 300 MB each.

Synthetic and seeded, on PostgreSQL (``DATABASE_URL``, migrated by the script): a dataset of
100,000 documents and 10,000 queries; the original qrel set judges one document per query
(10,000 rows); the refined set holds those rows plus 990,000 new labels, each with its
LabelProvenance row (consensus at round 1 or 2, or a human label with two annotators), as a
refinement writes them. Each export runs in a fresh process (``--measure KIND``) so its peak
RSS (``VmHWM``) is its own, Django and the database driver included.

The disagreements CSV gets a dataset of its own (``--disagreement-rows``, default 100,000):
one document of 1,000 characters per provenance row, 1% of the pairs escalated to humans
(each with a debate of two rounds, so four stored turns) and listed in the CSV, the rest
agreed. Reading every provenance row with its document, as the CSV once did, took 51 s and
365 MB here for 1,000 listed rows.

    createdb -h 127.0.0.1 -U postgres bench_exports   # once; the script migrates it
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_exports \\
        .venv/bin/python bench/export_bench.py [--rows 1000000] [--repeat 2] \\
        [--kinds trec,labels,disagreements] [--disagreement-rows 100000]

Building the data takes about 2.5 minutes the first time; later runs reuse it.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

SLUG = "export-bench"
DISAGREEMENT_SLUG = "export-bench-disagreements"
PER_QUERY = 100
MODELS = '["Llama-3.3-70B-Instruct", "Llama-3.3-70B-Instruct"]'
KINDS = ("trec", "labels", "disagreements")
DOCUMENT_CHARS = 1000
ESCALATED_EVERY = 100  # 1% of the pairs are escalated and listed in the disagreements CSV


def _setup():
    import django

    django.setup()


def _copy(cursor, table: str, columns: list[str], rows) -> None:
    with cursor.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def build(rows: int) -> None:
    """Create the benchmark dataset and its refined set (once; reused when present)."""
    from django.core.management import call_command
    from django.db import connection, transaction

    from assess.models import Refinement
    from corpora.models import Dataset, Document, Pool, QrelSet, Query
    from debates.models import DebateJob

    call_command("migrate", verbosity=0)
    existing = Dataset.objects.filter(slug=SLUG).first()
    if existing is not None:
        refined = QrelSet.objects.filter(dataset=existing, name="refined").first()
        if refined is not None and refined.qrels.count() == rows:
            return
        print("rebuilding the benchmark dataset")
        Refinement.objects.filter(qrel_set__dataset=existing).delete()
        DebateJob.objects.filter(pool__dataset=existing).delete()
        existing.delete()
    rng = random.Random(6)
    queries = rows // PER_QUERY
    documents = 100_000
    started = time.perf_counter()
    with transaction.atomic():
        dataset = Dataset.objects.create(name="export bench", slug=SLUG)
        with connection.cursor() as cursor:
            _copy(
                cursor,
                "corpora_document",
                ["dataset_id", "doc_id", "title", "text"],
                ((dataset.pk, f"doc{i:06d}", "", "") for i in range(documents)),
            )
            _copy(
                cursor,
                "corpora_query",
                ["dataset_id", "query_id", "text", "answers", "metadata"],
                ((dataset.pk, f"q{i:05d}", "question", "[]", "{}") for i in range(queries)),
            )
        doc_pk = dict(Document.objects.filter(dataset=dataset).values_list("doc_id", "pk"))
        query_pk = dict(Query.objects.filter(dataset=dataset).values_list("query_id", "pk"))
        original = QrelSet.objects.create(dataset=dataset, name="test")
        refined = QrelSet.objects.create(dataset=dataset, name="refined", origin="refined")
        pool = Pool.objects.create(dataset=dataset, qrel_set=original, name="bench", depth=100)
        job = DebateJob.objects.create(
            pool=pool, agent_a={"backend": "embedded"}, agent_b={}, prompt_version="dream-v1"
        )
        refinement = Refinement.objects.create(
            qrel_set=refined, pool=pool, original=original, max_unresolved_share=0.05
        )
        picks = {}
        for q in range(queries):
            picks[q] = sorted(rng.sample(range(documents), PER_QUERY))
        with connection.cursor() as cursor:
            _copy(
                cursor,
                "corpora_qrel",
                ["qrel_set_id", "query_id", "document_id", "relevance"],
                (
                    (original.pk, query_pk[f"q{q:05d}"], doc_pk[f"doc{docs[0]:06d}"], 1)
                    for q, docs in picks.items()
                ),
            )
            _copy(
                cursor,
                "corpora_qrel",
                ["qrel_set_id", "query_id", "document_id", "relevance"],
                (
                    (
                        refined.pk,
                        query_pk[f"q{q:05d}"],
                        doc_pk[f"doc{d:06d}"],
                        1 if i == 0 or rng.random() < 0.2 else 0,
                    )
                    for q, docs in picks.items()
                    for i, d in enumerate(docs)
                ),
            )
            cursor.execute(
                "SELECT id, query_id, document_id, relevance FROM corpora_qrel "
                "WHERE qrel_set_id = %s",
                [refined.pk],
            )
            new_rows = []
            first = {
                (query_pk[f"q{q:05d}"], doc_pk[f"doc{docs[0]:06d}"]) for q, docs in picks.items()
            }
            for pk, q, d, rel in cursor.fetchall():
                if (q, d) not in first:
                    new_rows.append((pk, q, d, rel))
            base = datetime(2026, 1, 1, tzinfo=UTC)

            def provenance():
                for n, (pk, q, d, rel) in enumerate(new_rows):
                    human = n % 30 == 0
                    yield _provenance_row(
                        (refinement.pk, refined.pk, q, d, pk, rel),
                        human=human,
                        consensus_round=1 + n % 2,
                        job=job.pk,
                        debate=None,
                        annotators='["alice", "bob"]' if human else "[]",
                        judgments="[]",
                        labelled=base + timedelta(seconds=n),
                        base=base,
                    )

            _copy(cursor, "assess_labelprovenance", PROVENANCE_COLUMNS, provenance())
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"built {rows:,} refined rows in {time.perf_counter() - started:.1f} s")


def build_disagreements(rows: int) -> None:
    """Create the disagreements dataset (once; reused when its refined set has ``rows``
    provenance rows): see the module note."""
    from django.core.management import call_command
    from django.db import connection, transaction

    from assess.models import LabelProvenance, Refinement
    from corpora.models import Dataset, Document, Pair, Pool, QrelSet, Query
    from debates.models import Debate, DebateJob, Turn

    call_command("migrate", verbosity=0)
    existing = Dataset.objects.filter(slug=DISAGREEMENT_SLUG).first()
    if existing is not None:
        refined = QrelSet.objects.filter(dataset=existing, name="refined").first()
        if refined is not None and LabelProvenance.objects.filter(qrel_set=refined).count() == rows:
            return
        print("rebuilding the disagreements dataset")
        Refinement.objects.filter(qrel_set__dataset=existing).delete()
        DebateJob.objects.filter(pool__dataset=existing).delete()
        existing.delete()
    rng = random.Random(7)
    queries = max(1, rows // PER_QUERY)
    filler = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod "
    body = (filler * (DOCUMENT_CHARS // len(filler) + 1))[:DOCUMENT_CHARS]
    started = time.perf_counter()
    with transaction.atomic():
        dataset = Dataset.objects.create(name="disagreements bench", slug=DISAGREEMENT_SLUG)
        with connection.cursor() as cursor:
            _copy(
                cursor,
                "corpora_document",
                ["dataset_id", "doc_id", "title", "text"],
                ((dataset.pk, f"doc{i:07d}", f"Title {i}", body) for i in range(rows)),
            )
            _copy(
                cursor,
                "corpora_query",
                ["dataset_id", "query_id", "text", "answers", "metadata"],
                ((dataset.pk, f"q{i:05d}", "question", "[]", "{}") for i in range(queries)),
            )
        doc_pk = dict(Document.objects.filter(dataset=dataset).values_list("doc_id", "pk"))
        query_pk = dict(Query.objects.filter(dataset=dataset).values_list("query_id", "pk"))
        original = QrelSet.objects.create(dataset=dataset, name="test")
        refined = QrelSet.objects.create(dataset=dataset, name="refined", origin="refined")
        pool = Pool.objects.create(dataset=dataset, qrel_set=original, name="bench", depth=100)
        job = DebateJob.objects.create(
            pool=pool, agent_a={"backend": "embedded"}, agent_b={}, prompt_version="dream-v1"
        )
        # Pair i: query i // PER_QUERY, document i; every ESCALATED_EVERY-th is escalated.
        pairs = [
            (query_pk[f"q{min(i // PER_QUERY, queries - 1):05d}"], doc_pk[f"doc{i:07d}"])
            for i in range(rows)
        ]
        escalated = [i for i in range(rows) if i % ESCALATED_EVERY == 0]
        pair_rows = Pair.objects.bulk_create(
            [Pair(pool=pool, query_id=pairs[i][0], document_id=pairs[i][1]) for i in escalated],
            batch_size=5000,
        )
        debates = Debate.objects.bulk_create(
            [
                Debate(job=job, pair=pair, status="escalated", escalation_reason="disagreement")
                for pair in pair_rows
            ],
            batch_size=5000,
        )
        debate_of = dict(zip(escalated, (d.pk for d in debates), strict=True))
        argument = "The passage " + "argues at length about the question; " * 5
        Turn.objects.bulk_create(
            [
                Turn(
                    debate=debate,
                    round=rnd,
                    agent=agent,
                    stance="relevant" if agent == "A" else "irrelevant",
                    label=1 if agent == "A" else 0,
                    argument=f"{argument}(round {rnd})",
                    model="Llama-3.3-70B-Instruct",
                )
                for debate in debates
                for rnd in (1, 2)
                for agent in ("A", "B")
            ],
            batch_size=5000,
        )
        refinement = Refinement.objects.create(
            qrel_set=refined, pool=pool, original=original, max_unresolved_share=0.05
        )
        with connection.cursor() as cursor:
            _copy(
                cursor,
                "corpora_qrel",
                ["qrel_set_id", "query_id", "document_id", "relevance"],
                ((refined.pk, q, d, 1 if rng.random() < 0.2 else 0) for q, d in pairs),
            )
            cursor.execute(
                "SELECT document_id, id, relevance FROM corpora_qrel WHERE qrel_set_id = %s",
                [refined.pk],
            )
            qrel_of = {d: (pk, rel) for d, pk, rel in cursor.fetchall()}
            base = datetime(2026, 1, 1, tzinfo=UTC)

            def provenance():
                for i, (q, d) in enumerate(pairs):
                    pk, rel = qrel_of[d]
                    human = i in debate_of
                    yield _provenance_row(
                        (refinement.pk, refined.pk, q, d, pk, rel),
                        human=human,
                        consensus_round=1,
                        job=job.pk,
                        debate=debate_of.get(i),
                        annotators='["alice"]' if human else "[]",
                        judgments=f'[{{"annotator": "alice", "label": {rel}, "at": null}}]'
                        if human
                        else "[]",
                        labelled=base + timedelta(seconds=i),
                        base=base,
                    )

            _copy(cursor, "assess_labelprovenance", PROVENANCE_COLUMNS, provenance())
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(
        f"built {rows:,} provenance rows ({len(escalated):,} escalated) with "
        f"{DOCUMENT_CHARS:,}-character documents in {time.perf_counter() - started:.1f} s"
    )


def _provenance_row(
    ids: tuple,
    *,
    human: bool,
    consensus_round: int,
    job,
    debate,
    annotators: str,
    judgments: str,
    labelled: datetime,
    base: datetime,
) -> tuple:
    """One ``assess_labelprovenance`` row in :data:`PROVENANCE_COLUMNS` order: ``ids`` are
    (refinement, refined set, query, document, qrel, label); a human label (escalated by
    disagreement) or a consensus one (agreed at ``consensus_round``)."""
    rel = ids[-1]
    return (
        *ids,
        "human" if human else "consensus",
        "",
        True,
        None,
        None if human else rel,
        None if human else consensus_round,
        "escalated" if human else "agreed",
        "disagreement" if human else "",
        "escalated" if human else "",
        job,
        debate,
        MODELS,
        "dream-v1",
        annotators,
        judgments,
        "",
        base,
        labelled,
    )


PROVENANCE_COLUMNS = [
    "refinement_id",
    "qrel_set_id",
    "query_id",
    "document_id",
    "qrel_id",
    "label",
    "source",
    "reason",
    "applied",
    "original_relevance",
    "consensus_label",
    "consensus_round",
    "debate_status",
    "escalation_reason",
    "review_kind",
    "job_id",
    "debate_id",
    "agent_models",
    "prompt_version",
    "annotators",
    "judgments",
    "adjudicator",
    "debated_at",
    "decided_at",
]


def peak_rss_mb() -> float:
    """This process's peak resident set (VmHWM), in MB. Not ``ru_maxrss``: Linux carries
    that across exec from the parent, so a child started by a big parent reports the
    parent's peak."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(kind: str) -> None:
    """Child process: export ``kind`` of the refined set; print seconds, rows, peak RSS."""
    from assess.refined.exports import export_file_write
    from corpora.models import QrelSet

    slug = DISAGREEMENT_SLUG if kind == "disagreements" else SLUG
    qrel_set = QrelSet.objects.get(dataset__slug=slug, name="refined")
    with tempfile.TemporaryDirectory() as folder:
        started, cpu = time.perf_counter(), time.process_time()
        rows, size, digest = export_file_write(
            kind=kind, path=Path(folder) / "export", qrel_set=qrel_set
        )
        seconds = time.perf_counter() - started
        cpu = time.process_time() - cpu
    peak_mb = peak_rss_mb()
    print(f"{kind} {seconds:.2f} {rows} {size} {peak_mb:.1f} {digest} {cpu:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument(
        "--kinds",
        default=",".join(KINDS),
        help=f"exports to measure, comma-separated (default {','.join(KINDS)})",
    )
    parser.add_argument(
        "--disagreement-rows",
        type=int,
        default=100_000,
        help="provenance rows of the disagreements dataset (default 100,000)",
    )
    parser.add_argument("--measure", choices=KINDS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        parser.error(f"unknown kind {unknown[0]!r} (expected some of {', '.join(KINDS)})")
    _setup()
    if args.measure:
        measure(args.measure)
        return
    if {"trec", "labels"} & set(kinds):
        build(args.rows)
    if "disagreements" in kinds:
        build_disagreements(args.disagreement_rows)
    print(
        "load average (1, 5, 15 min): {:.1f} {:.1f} {:.1f} on {} CPUs".format(
            *os.getloadavg(), os.cpu_count()
        )
    )
    for kind in kinds:
        results = []
        for _ in range(args.repeat):
            out = subprocess.run(
                [sys.executable, __file__, "--measure", kind],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.split()
            results.append(out)
        seconds = [float(r[1]) for r in results]
        peaks = [float(r[4]) for r in results]
        digests = {r[5] for r in results}
        cpu = [float(r[6]) for r in results]
        print(
            f"{kind}: {int(results[0][2]):,} rows, {int(results[0][3]) / 1e6:.1f} MB file; "
            f"best {min(seconds):.2f} s, worst {max(seconds):.2f} s (target < 10 s; this "
            f"process's CPU {min(cpu):.2f}-{max(cpu):.2f} s); "
            f"peak RSS {max(peaks):.0f} MB (target < 300 MB); "
            f"{'same sha256 every run' if len(digests) == 1 else 'sha256 DIFFERS'}"
        )


if __name__ == "__main__":
    main()
