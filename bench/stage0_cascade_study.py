"""The cascade study: stage 0 then debates, against debates alone, on the same pool, with
SIMULATED debaters and annotators answering from a real collection's qrels.

Not a speed bench: it measures what stage 0 saves and what it costs in wrong labels. Every
label it makes is simulated (the simulated backend's model names say so) and stays in the
database given, never in a real one.

Design (all seeded):

1. The collection is imported as ``<slug>-half``: its test qrels with ``--hide`` of the
   relevant rows removed, so they become holes; the full qrels are the truth.
2. BM25 and dense runs; the judged test queries are split in two halves by a hash of their
   ids: *calibration* queries and *evaluation* queries, each pooled at depth 10.
3. Calibration: a debate-only job over the calibration pool (audit share ``--audit-share``);
   simulated annotators (error ``--annotator-error``) judge its escalated and audited pairs.
   These human labels of pooled pairs are what stage 0 sets its band on (an
   equal-probability sample of them, never fitted on); it learns from the qrels and the
   calibration job's consensus labels.
4. Evaluation pool, stage-0 arm first (so that its judge has seen no label of these
   queries but their remaining qrels), then the debate-only arm; annotators judge both.
   No job reuses another's settled debates, so each arm's LLM calls are its own.

Printed: one JSON object per collection with, per arm, LLM calls per pair, pairs settled by
stage 0, the audited wrong-label rate of agreed labels with its 95% Wilson interval, and
(known here because the labels are simulated) the true wrong-label rate of the agreed labels
and of the stage-0 labels, against the arm's alpha, and how many of the pool's truly relevant
pairs each arm found (labelled relevant by consensus, or escalated to the annotators).

Use a fresh database for each run: the jobs' labels of one run are training labels of the
next. Run alone (it loads both cores): ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/cascade
.venv/bin/python bench/stage0_cascade_study.py scifact`` (and ``nfcorpus``); the database is
created by Django's migrate if empty.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
SHARED = Path(os.environ.get("DREAM_SHARED_DATA", ROOT.parent / "shared" / "data"))
COLLECTIONS = {"scifact": SHARED / "scifact", "nfcorpus": SHARED / "nfcorpus-test"}


def hidden_folder(source: Path, target: Path, *, hide: float, seed: int) -> int:
    """A BEIR folder at ``target``: ``source``'s corpus and queries, its test qrels without
    ``hide`` of the relevant rows (seeded); returns how many rows were hidden."""
    target.mkdir(parents=True, exist_ok=True)
    (target / "qrels").mkdir(exist_ok=True)
    for name in ("corpus.jsonl", "queries.jsonl"):
        link = target / name
        if not link.exists():
            link.symlink_to(source / name)
    rng = random.Random(seed)
    lines = (source / "qrels" / "test.tsv").read_text().splitlines()
    kept, hidden = [lines[0]], 0
    for line in lines[1:]:
        if int(line.split("\t")[2]) > 0 and rng.random() < hide:
            hidden += 1
            continue
        kept.append(line)
    (target / "qrels" / "test.tsv").write_text("\n".join(kept) + "\n")
    return hidden


def half_of(query_id: str, seed: int) -> str:
    digest = hashlib.sha256(f"{seed}:{query_id}".encode()).digest()
    return "calibration" if digest[0] % 2 == 0 else "evaluation"


def arm_figures(job, truth: dict[str, dict[str, int]], pairs: int) -> dict:
    from assess.review.selectors import job_audit
    from debates.models import Debate

    rows = list(
        Debate.objects.filter(job=job).values_list(
            "status", "final_label", "settled_by", "calls",
            "pair__query__query_id", "pair__document__doc_id",
        )
    )  # fmt: skip

    def wrong(label: int, q: str, d: str) -> bool:
        return label != (1 if truth.get(q, {}).get(d, 0) > 0 else 0)

    agreed = [(lab, s, q, d) for st, lab, s, _, q, d in rows if st == "agreed"]
    stage0 = [(lab, q, d) for lab, s, q, d in agreed if s == "stage0"]
    audit = job_audit(job=job).error
    return {
        "job": job.pk,
        "pairs": pairs,
        "llm_calls_per_pair": round(sum(r[3] for r in rows) / pairs, 4),
        "settled_by_stage0": len(stage0),
        "agreed": len(agreed),
        "escalated": sum(1 for r in rows if r[0] == "escalated"),
        "audit_wrong_rate": audit.estimate,
        "audit_n": audit.n,
        "audit_wilson_95": [audit.low, audit.high],
        "true_wrong_rate_agreed_simulated": round(
            sum(wrong(lab, q, d) for lab, _, q, d in agreed) / max(len(agreed), 1), 4
        ),
        "true_wrong_rate_stage0_simulated": (
            round(sum(wrong(lab, q, d) for lab, q, d in stage0) / len(stage0), 4)
            if stage0
            else None
        ),
        # An error rate bounds wrong labels, not lost relevant pairs: on a pool of holes a
        # few percent relevant, settling them "non-relevant" costs little error and much recall.
        "true_relevant_pairs_simulated": sum(1 for *_, q, d in rows if wrong(0, q, d)),
        "true_relevant_found_simulated": sum(
            1
            for st, lab, *_, q, d in rows
            if wrong(0, q, d) and (st == "escalated" or (st == "agreed" and lab == 1))
        ),
        "stage0_note": job.stage0_note,
    }


def run_job(
    pool,
    agent,
    *,
    stage0: bool,
    audit_share: float,
    truth,
    error: float,
    seed: int,
    alpha: float = 0.1,
    delta: float = 0.1,
    beta: float = 0.1,
):
    from assess.review.services import review_items_sync
    from assess.review.simulated_annotators import simulated_judgments_record
    from debates.services.launch import JobSpec, debate_job_launch, debate_job_wait

    spec = JobSpec(
        pool=pool, agent_a=agent, agent_b=agent, audit_share=audit_share, stage0=stage0,
        stage0_alpha=alpha, stage0_delta=delta, stage0_beta=beta,
        allow_duplicate=True, concurrency=8, note="stage0 cascade study (simulated)",
        reuse=False,  # each arm asks its own debates: no call saved by an earlier arm
    )  # fmt: skip
    job = debate_job_launch(spec=spec)
    debate_job_wait(job=job, poll_seconds=0.5)
    review_items_sync(job=job)
    simulated_judgments_record(job=job, truth=truth, error=error, seed=seed)
    job.refresh_from_db()
    return job


def study(name: str, args: argparse.Namespace) -> dict:
    from corpora.models import Dataset
    from corpora.services import dataset_import_beir, pool_build, run_create, run_retrieve
    from debates.services.backends import agent_config_build
    from debates.simulated_client import truth_file_load

    source = COLLECTIONS[name]
    slug = f"{name}-half"
    work = Path(args.work) / slug
    truth_path = source / "qrels" / "test.tsv"
    started = time.monotonic()
    dataset = Dataset.objects.filter(slug=slug).first()
    if dataset is None:
        hidden = hidden_folder(source, work, hide=args.hide, seed=args.seed)
        print(f"{slug}: {hidden} relevant rows hidden", file=sys.stderr)
        dataset = dataset_import_beir(path=work, name=slug, slug=slug)
    qrel_set = dataset.qrel_sets.get(name="test")
    runs = []
    for retriever in ("bm25", "dense"):
        run = run_create(dataset=dataset, retriever=retriever, k=100)
        runs.append(run_retrieve(run=run, progress=False))
    judged = sorted(set(qrel_set.qrels.values_list("query__query_id", flat=True)))
    halves = {
        h: [q for q in judged if half_of(q, args.seed) == h] for h in ("calibration", "evaluation")
    }
    pools = {
        h: pool_build(dataset=dataset, qrel_set=qrel_set, runs=runs, depth=10,
                      name=f"{h}-depth10", queries=queries).pool
        for h, queries in halves.items()
    }  # fmt: skip
    truth = truth_file_load(path=truth_path, dataset=dataset)
    agent = agent_config_build(
        fields={
            "backend": "simulated", "truth": str(truth_path), "dataset": slug,
            "sensitivity": args.sensitivity, "specificity": args.specificity, "seed": args.seed,
        }
    )  # fmt: skip
    kw = {"audit_share": args.audit_share, "truth": truth, "error": args.annotator_error}
    calibration = run_job(pools["calibration"], agent, stage0=False, seed=1, **kw)
    cascade = run_job(
        pools["evaluation"], agent, stage0=True, seed=2, alpha=args.alpha, delta=args.delta,
        beta=args.beta, **kw
    )  # fmt: skip
    debate_only = run_job(pools["evaluation"], agent, stage0=False, seed=3, **kw)
    pairs = pools["evaluation"].pairs.count()
    out = {
        "collection": name,
        "simulated": True,
        "hide": args.hide,
        "debaters": {"sensitivity": args.sensitivity, "specificity": args.specificity},
        "annotator_error": args.annotator_error,
        "audit_share": args.audit_share,
        "calibration_pool_pairs": pools["calibration"].pairs.count(),
        "calibration_job": calibration.pk,
        "stage0_alpha": cascade.stage0_alpha,
        "stage0_delta": cascade.stage0_delta,
        "stage0_beta": cascade.stage0_beta,
        "cascade": arm_figures(cascade, truth, pairs),
        "debate_only": arm_figures(debate_only, truth, pairs),
        "seconds": round(time.monotonic() - started, 1),
    }
    calls = (out["cascade"]["llm_calls_per_pair"], out["debate_only"]["llm_calls_per_pair"])
    out["llm_calls_saved"] = round(1 - calls[0] / calls[1], 4) if calls[1] else None
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("collections", nargs="+", choices=sorted(COLLECTIONS))
    parser.add_argument("--hide", type=float, default=0.5)
    parser.add_argument("--sensitivity", type=float, default=0.9)
    parser.add_argument("--specificity", type=float, default=0.8)
    parser.add_argument("--audit-share", type=float, default=0.1)
    parser.add_argument("--annotator-error", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--alpha", type=float, default=0.1, help="stage 0's alpha")
    parser.add_argument("--delta", type=float, default=0.1, help="stage 0's delta")
    parser.add_argument(
        "--beta", type=float, default=0.1, help="stage 0's beta (share of holes; 1: no bound)"
    )
    parser.add_argument("--work", default=tempfile.gettempdir())
    args = parser.parse_args()
    os.environ.setdefault("DREAM_SIMULATION_DIRS", str(SHARED))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    for name in args.collections:
        print(json.dumps(study(name, args)))


if __name__ == "__main__":
    main()
