"""Stage 0: a cheap, calibrated relevance judge per dataset, trained on its labelled pairs
and run before any LLM. Owns the pure part (:mod:`debates.stage0.fit`: the split by query,
features from frozen all-MiniLM-L6-v2 vectors, the classifier, Platt calibration, hashes and
held-out figures), the term-matching scalars of a pair (:mod:`debates.stage0.lexical`:
coverage, relative BM25, document length), the labelled pairs it learns from
(:mod:`debates.stage0.labels`, with the hook through which ``assess`` gives the human
labels), the vectors read where dense retrieval stored them (:mod:`debates.stage0.vectors`),
what the judge reads of pairs (:mod:`debates.stage0.inputs`: vectors and scalars) and the
services (:mod:`debates.stage0.services`): train now or as a background operation, the
current judge, scoring pairs. The model, :class:`debates.models.Stage0Judge`, lives with
the app's models.

Split: 60% of the queries train, 20% calibrate, 20% are held out for testing (by a seeded
hash of the query id, so a query's pairs are in one part only).

May import: core, corpora, debates.
"""

from .labels import (
    stage0_band_labels_register,
    stage0_human_labels_register,
    stage0_simulated_human_register,
)
from .services import (
    NO_JUDGE,
    NO_JUDGE_BEFORE,
    Stage0Error,
    stage0_judge_current,
    stage0_judge_missing_reason,
    stage0_judge_stale,
    stage0_judge_stale_reason,
    stage0_judge_train,
    stage0_judge_train_start,
    stage0_lexicon_build,
    stage0_pairs_score,
    stage0_step_register,
)

__all__ = [
    "NO_JUDGE",
    "NO_JUDGE_BEFORE",
    "Stage0Error",
    "stage0_band_labels_register",
    "stage0_human_labels_register",
    "stage0_judge_current",
    "stage0_judge_missing_reason",
    "stage0_judge_stale",
    "stage0_judge_stale_reason",
    "stage0_judge_train",
    "stage0_judge_train_start",
    "stage0_lexicon_build",
    "stage0_pairs_score",
    "stage0_simulated_human_register",
    "stage0_step_register",
]
