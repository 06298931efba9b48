"""Import rate and peak memory of ``dataset_import_beir`` into PostgreSQL.

Cases: SciFact from ``../shared/data/scifact`` (or the bundled copy) and a generated corpus of
1,000,000 documents (~400 characters each, 1,000 queries, 5,000 qrels). Each case runs in its own
process so its peak RSS (``ru_maxrss``) is its own. Target: >= 20,000 documents/s and peak RSS
under 500 MB for the million.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench .venv/bin/python bench/import_bench.py
        [--docs 1000000] [--keep]

The database named in DATABASE_URL is created if missing and migrated; the benchmark datasets
are deleted afterwards unless --keep.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from _common import prepare_database  # noqa: E402

WORDS = (
    "protein cell gene expression tumour receptor binding pathway signal immune response "
    "clinical trial patient dose effect model analysis data method result increase decrease "
    "level risk factor disease treatment therapy growth mutation sequence structure function"
).split()


def generate_corpus(folder: Path, docs: int, seed: int = 13) -> None:
    """Write a BEIR folder with ``docs`` synthetic documents, 1,000 queries and 5,000 qrels."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "corpus.jsonl").open("w", encoding="utf-8") as out:
        for i in range(docs):
            title = " ".join(rng.choices(WORDS, k=6))
            text = " ".join(rng.choices(WORDS, k=rng.randint(30, 80)))
            out.write(json.dumps({"_id": f"doc{i}", "title": title, "text": text}) + "\n")
    with (folder / "queries.jsonl").open("w", encoding="utf-8") as out:
        for i in range(1000):
            out.write(json.dumps({"_id": f"q{i}", "text": " ".join(rng.choices(WORDS, k=5))}))
            out.write("\n")
    (folder / "qrels").mkdir(exist_ok=True)
    with (folder / "qrels" / "test.tsv").open("w", encoding="utf-8") as out:
        out.write("query-id\tcorpus-id\tscore\n")
        pairs = set()
        while len(pairs) < 5000:
            pairs.add((rng.randrange(1000), rng.randrange(docs)))
        for q, d in sorted(pairs):
            out.write(f"q{q}\tdoc{d}\t1\n")


def run_one(name: str, path: str, keep: bool) -> dict:
    """Import one folder in this process; return figures (seconds, docs/s, peak RSS MB)."""
    import django

    django.setup()
    from corpora.models import Dataset
    from corpora.services import dataset_import_beir, dataset_summary

    Dataset.objects.filter(slug=name).delete()
    started = time.perf_counter()
    dataset = dataset_import_beir(path=path, name=name, progress=False)
    seconds = time.perf_counter() - started
    summary = dataset_summary(dataset=dataset)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if not keep:
        dataset.delete()
    return {
        "case": name,
        "documents": summary["documents"],
        "seconds": round(seconds, 2),
        "docs_per_s": round(summary["documents"] / seconds),
        "peak_rss_mb": round(peak_mb, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--one", nargs=2, metavar=("NAME", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one[0], args.one[1], args.keep)))
        return
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sys.exit("set DATABASE_URL to a PostgreSQL database")
    prepare_database()
    scifact = REPO.parent / "shared" / "data" / "scifact"
    if not scifact.is_dir():
        scifact = REPO / "data" / "scifact"
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        synthetic = Path(tmp) / "synthetic"
        started = time.perf_counter()
        generate_corpus(synthetic, args.docs)
        size_mb = (synthetic / "corpus.jsonl").stat().st_size / 2**20
        print(
            f"generated {args.docs:,} documents ({size_mb:.0f} MB) in "
            f"{time.perf_counter() - started:.1f} s",
            flush=True,
        )
        for name, path in (("bench-scifact", scifact), (f"bench-{args.docs}", synthetic)):
            cmd = [sys.executable, __file__, "--one", name, str(path)]
            if args.keep:
                cmd.append("--keep")
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            results.append(json.loads(out.strip().splitlines()[-1]))
            print(json.dumps(results[-1]), flush=True)
    print()
    print(f"{'case':<20}{'documents':>12}{'seconds':>10}{'docs/s':>10}{'peak RSS MB':>13}")
    for r in results:
        print(
            f"{r['case']:<20}{r['documents']:>12,}{r['seconds']:>10}{r['docs_per_s']:>10,}"
            f"{r['peak_rss_mb']:>13}"
        )
    million = results[-1]
    verdict = million["docs_per_s"] >= 20_000 and million["peak_rss_mb"] < 500
    print(f"target (>= 20,000 docs/s, < 500 MB peak RSS): {'met' if verdict else 'NOT met'}")


if __name__ == "__main__":
    main()
