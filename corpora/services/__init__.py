"""Benchmark write/read actions: .datasets (with .file_ids, the ids a qrels or run file
names looked up), .embeddings (dense vectors), .runs (with
.run_settings, a built-in run's checked settings), .fusion (fused runs), .systems (the
standard set of varied systems), .pools.
Re-exports only the names used outside corpora; corpora's own modules import the submodules.

The rule table: tests/architecture/test_imports_follow_the_package_rules.py (RULES).
May import: core, corpora.
"""

from .datasets import (
    answers_import,
    answers_summary,
    dataset_get,
    dataset_import_beir,
    dataset_summary,
    qrel_set_get,
    qrel_set_grades_record,
    qrels_export,
    qrels_import,
    qrels_rows,
)
from .embeddings import embeddings_ensure, embeddings_seed, embeddings_seed_write
from .pools import PoolError, pool_build
from .runs import (
    RUN_WORKER_LOST,
    RunBusy,
    RunError,
    run_create,
    run_enqueue,
    run_evaluate,
    run_export,
    run_fail_stale,
    run_get,
    run_import,
    run_retrieve,
    run_rows,
)

__all__ = [
    "RUN_WORKER_LOST",
    "PoolError",
    "RunBusy",
    "RunError",
    "answers_import",
    "answers_summary",
    "dataset_get",
    "dataset_import_beir",
    "dataset_summary",
    "embeddings_ensure",
    "embeddings_seed",
    "embeddings_seed_write",
    "pool_build",
    "qrel_set_get",
    "qrel_set_grades_record",
    "qrels_export",
    "qrels_import",
    "qrels_rows",
    "run_create",
    "run_enqueue",
    "run_evaluate",
    "run_export",
    "run_fail_stale",
    "run_get",
    "run_import",
    "run_retrieve",
    "run_rows",
]
