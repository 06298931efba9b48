"""Training, finding and running a dataset's stage-0 judge, and its background step.

:func:`stage0_judge_train` collects the labelled pairs (:mod:`debates.stage0.labels`), splits
them by query (:func:`debates.stage0.fit.query_split`: 60% training, 20% calibration, 20%
held-out test queries), fits the classifier on the training queries' pairs (their pool-like
pairs alone when there are enough: :func:`examples_split`), Platt-scales it on the
calibration queries' pairs (likewise), scores the test queries' pairs and stores everything on a
:class:`debates.models.Stage0Judge`. LLM consensus labels train and calibrate when the judge
is fitted on every labelled pair (never when it is fitted on pool-like pairs alone: a pooled
pair is never pool-like), and are never held-out gold: the held-out set holds the test
queries' pairs labelled by qrels, people, or an assumed negative (``unjudged``, ``cross``),
each row naming its source.

What the judge reads of a pair (:mod:`debates.stage0.inputs`): its MiniLM vectors and its
term-matching scalars over the dataset's corpus (:mod:`debates.stage0.lexical`), the corpus
statistics built once per training or scoring call. The scalars are standardised with the
training pairs' mean and SD, stored with the fitted judge. A judge of an older feature
layout (:data:`debates.stage0.fit.FEATURES`) is never current and always stale: whoever
needs one trains a new one.

Human labels of pooled pairs (:func:`debates.stage0.labels.band_labels_collect`), of any
query, are never fitted or Platt-scaled on, in any form (neither the person's label nor the
pair's consensus): all of them are scored and stored as the judge's ``band_calibration``, on
which the routing band is chosen (:mod:`debates.stage0_band`). Split conformal and
fixed-sequence guarantees need calibration labels the scores were not fitted on; taking them
from the held-out test queries alone would leave a fifth of a few hundred labels, too few
for a side's 29 agreeing ones at the defaults, and holding them all out costs the classifier
little: the pools' consensus labels, many times as many, still teach it what a pooled pair
looks like. Their queries' other pairs are still fitted on (a classifier over query and
document vectors learns little of one query from them; stated as an assumption in
docs/debates-and-backends.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import transaction
from django.utils import timezone

from corpora.models import Dataset, Operation, Pair, Pool
from debates.assessment import AssessorScores, assessor_scores, gold_label
from debates.models import Stage0Judge
from debates.services.common import pairs_in_order

from . import fit
from .inputs import dataset_lexicon, pair_inputs
from .labels import (
    JUDGED_SOURCES,
    Example,
    band_labels_collect,
    examples_collect,
    simulated_human_pairs,
)
from .lexical import Lexicon
from .vectors import dataset_windowing, encoder_identity

#: The fewest judged pairs (qrels, human or consensus labels) a judge is trained on.
MIN_JUDGED = 20
#: The fewest relevant pool-like pairs among the training queries for the judge to be
#: fitted and calibrated on pool-like pairs alone (:func:`examples_split`).
MIN_NEAR_RELEVANT = 20
Progress = Callable[[str, int, int], None]


class Stage0Error(ValueError):
    """A judge cannot be trained (too few labels, a part of the split without both
    classes), or a judge that is not ready was asked to score."""


def stage0_judge_current(*, dataset: Dataset) -> Stage0Judge | None:
    """The newest ready judge of ``dataset`` fitted on the current feature layout
    (:data:`debates.stage0.fit.FEATURES`), or None: a judge of an older layout cannot
    score, so whoever asks for the current judge trains a new one instead."""
    return (
        Stage0Judge.objects.filter(
            dataset=dataset, status=Stage0Judge.Status.READY, metrics__features=fit.FEATURES
        )
        .order_by("-created", "-pk")
        .first()
    )


def examples_split(
    examples: Sequence[Example], *, seed: int, band: Collection[tuple[int, int]] = ()
) -> dict[str, list[Example]]:
    """The examples by part of the split; a pair of ``band`` (human labels of pooled pairs,
    ``(query pk, document pk)``) is never in a part that is fitted (training, calibration).

    When the training queries hold at least :data:`MIN_NEAR_RELEVANT` relevant pool-like
    pairs (:attr:`debates.stage0.labels.Example.near`) and the calibration queries both
    classes of them, training and calibration keep their pool-like pairs only: stage 0
    scores pooled pairs, and a classifier fitted on the qrels and cross-query negatives
    learns to tell a topical document from an off-topic one, not a relevant pooled pair
    from a non-relevant one (measured on NFCorpus: AUC on the pooled pairs 0.69 fitted on
    everything, 0.75 on the pool-like pairs; docs/measured.md, "Stage 0"); Platt scaling on
    them also puts P on the pool's scale (about a tenth relevant, not the qrels' two thirds).
    The held-out test part keeps every source either way."""
    parts: dict[str, list[Example]] = {fit.TRAIN: [], fit.CALIBRATION: [], fit.TEST: []}
    for example in examples:
        part = fit.query_split(example.query_id, seed=seed)
        if part != fit.TEST and (example.query_pk, example.doc_pk) in band:
            continue
        parts[part].append(example)
    near = {name: [e for e in parts[name] if e.near] for name in (fit.TRAIN, fit.CALIBRATION)}
    if (
        sum(e.label for e in near[fit.TRAIN]) >= MIN_NEAR_RELEVANT
        and len({e.label for e in near[fit.TRAIN]}) == 2
        and len({e.label for e in near[fit.CALIBRATION]}) == 2
    ):
        parts.update(near)
    return parts


def fitted_on(*, parts: dict[str, list[Example]]) -> str:
    """``"pool-like pairs"`` when :func:`examples_split` kept those alone for fitting, else
    ``"every labelled pair"``."""
    fitted = parts[fit.TRAIN] + parts[fit.CALIBRATION]
    return "pool-like pairs" if fitted and all(e.near for e in fitted) else "every labelled pair"


def _pool_like_metrics(
    parts: dict[str, list[Example]], p: Sequence[float], threshold: float
) -> dict[str, Any] | None:
    """The held-out figures on the test part's pool-like pairs alone (``p``: the test part's
    probabilities, in its order), the mix a judge fitted on pool-like pairs was calibrated
    on; None when it was fitted on every labelled pair or they lack a class. The figures
    on every source stay the judge's ``heldout`` ones."""
    if fitted_on(parts=parts) != "pool-like pairs":
        return None
    near = [(pi, e.label) for e, pi in zip(parts[fit.TEST], p, strict=True) if e.near]
    if len({label for _, label in near}) < 2:
        return None
    found = fit.heldout_metrics([pi for pi, _ in near], [y for _, y in near], threshold=threshold)
    return found.as_dict()


def _band_rows(
    dataset: Dataset, fitted: fit.Fitted, lexicon: Lexicon, windowing: str
) -> list[dict[str, Any]]:
    """The judge's ``band_calibration``: every human label of a pooled pair with its
    calibrated P, in canonical order (query id, doc id), each saying whether the simulated
    annotator gave it."""
    band = band_labels_collect(dataset=dataset)
    if not band:
        return []
    simulated = simulated_human_pairs(dataset=dataset)
    query_ids, doc_ids = _natural_ids(band)
    keys = sorted(band, key=lambda k: (query_ids[k[0]], doc_ids[k[1]]))
    inputs = pair_inputs(dataset=dataset, pairs=keys, lexicon=lexicon, windowing=windowing)
    p = fit.probabilities(fitted, inputs)
    return [
        {
            "query_id": query_ids[key[0]],
            "doc_id": doc_ids[key[1]],
            "p": float(pi),
            "label": band[key][0],
            "inclusion": band[key][1],
            "floor": band[key][2],
            "simulated": key in simulated,
        }
        for key, pi in zip(keys, p, strict=True)
    ]


def _check(examples: Sequence[Example], parts: dict[str, list[Example]]) -> None:
    judged = sum(1 for e in examples if e.source in JUDGED_SOURCES)
    if judged < MIN_JUDGED:
        raise Stage0Error(
            f"stage 0 needs at least {MIN_JUDGED} judged pairs (qrels, human or consensus "
            f"labels), the dataset has {judged}"
        )
    for name in (fit.TRAIN, fit.CALIBRATION):
        labels = {e.label for e in parts[name]}
        if labels != {0, 1}:
            queries = len({e.query_id for e in parts[name]})
            raise Stage0Error(
                f"stage 0 needs relevant and non-relevant pairs among its {name} queries; "
                f"those {queries:,} queries have {len(parts[name]):,} labelled pairs, "
                f"labels {sorted(labels)}: judge more queries"
            )
    if not parts[fit.TEST]:
        raise Stage0Error("stage 0 found no labelled pair among its held-out test queries")


def _labels(examples: Sequence[Example]) -> np.ndarray:
    return np.array([e.label for e in examples], dtype=np.int_)


def _inputs(
    dataset: Dataset, examples: Sequence[Example], lexicon: Lexicon, windowing: str
) -> fit.PairInputs:
    pairs = [(e.query_pk, e.doc_pk) for e in examples]
    return pair_inputs(dataset=dataset, pairs=pairs, lexicon=lexicon, windowing=windowing)


def _fit(
    parts: dict[str, list[Example]], inputs: dict[str, fit.PairInputs], seed: int, stage: Any
) -> fit.Fitted:
    """The "fitting" and "calibrating" stages: the standardiser and classifier on the
    training part, Platt scaling on the calibration part."""
    stage("fitting")
    train = inputs[fit.TRAIN]
    standardiser = fit.Standardiser.fit(train.judge_scalars())
    classifier = fit.classifier_fit(
        fit.judge_features(train, standardiser), _labels(parts[fit.TRAIN]), seed=seed
    )
    stage("calibrating")
    calibrator = fit.calibrator_fit(
        fit.decision_values(classifier, standardiser, inputs[fit.CALIBRATION]),
        _labels(parts[fit.CALIBRATION]),
    )
    return fit.Fitted(classifier, calibrator, standardiser)


def _counts(parts: dict[str, list[Example]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for name, rows in parts.items():
        counts: dict[str, int] = {"queries": len({e.query_id for e in rows})}
        for e in rows:
            key = f"{e.source}_{'relevant' if e.label else 'nonrelevant'}"
            counts[key] = counts.get(key, 0) + 1
        out[name] = counts
    return out


def stage0_judge_train(
    *,
    dataset: Dataset,
    progress: Progress | None = None,
    seed: int = 0,
    lexicon: Lexicon | None = None,
) -> Stage0Judge:
    """Train a stage-0 judge of ``dataset`` now, in this process (module docstring), and
    return it ready. ``progress(stage, done, total)`` is called as each stage starts
    ("collecting labels", "embedding", "fitting", "calibrating", "scoring held-out",
    "storing"; ``done`` stages finished so far of ``total``, so the first is 0 of 6).
    ``lexicon``: the dataset's corpus statistics (:func:`stage0_lexicon_build`) when the
    caller has them, built here when None. Raises :class:`Stage0Error` in words when the
    labels do not suffice; the judge row is then stored as failed with the message."""
    judge = Stage0Judge.objects.create(dataset=dataset)
    try:
        return _train(judge, dataset, progress or (lambda *_: None), seed, lexicon)
    except BaseException as exc:
        # BaseException: an interrupted command must not leave a judge "training".
        Stage0Judge.objects.filter(pk=judge.pk).update(
            status=Stage0Judge.Status.FAILED,
            error=str(exc) or type(exc).__name__,
            finished=timezone.now(),
        )
        raise


STAGES = ("collecting labels", "embedding", "fitting", "calibrating", "scoring held-out", "storing")


def _train(
    judge: Stage0Judge, dataset: Dataset, progress: Progress, seed: int, lexicon: Lexicon | None
) -> Stage0Judge:
    started = time.monotonic()
    step = iter(range(len(STAGES)))

    def stage(name: str) -> None:
        progress(name, next(step), len(STAGES))

    stage("collecting labels")
    examples = examples_collect(dataset=dataset, seed=seed)
    parts = examples_split(examples, seed=seed, band=band_labels_collect(dataset=dataset))
    # LLM labels are never held-out gold: the held-out figures rest on the rest.
    parts[fit.TEST] = [e for e in parts[fit.TEST] if e.source != "consensus"]
    _check(examples, parts)
    stage("embedding")
    windowing = dataset_windowing(dataset=dataset)
    # The corpus statistics once for every part: they read every document of the dataset.
    lexicon = lexicon if lexicon is not None else dataset_lexicon(dataset=dataset)
    inputs = {name: _inputs(dataset, rows, lexicon, windowing) for name, rows in parts.items()}
    fitted = _fit(parts, inputs, seed, stage)
    stage("scoring held-out")
    calibration, test = parts[fit.CALIBRATION], parts[fit.TEST]
    p = fit.probabilities(fitted, inputs[fit.TEST])
    threshold = fit.decision_threshold(_labels(calibration))
    metrics = fit.heldout_metrics(p.tolist(), _labels(test).tolist(), threshold=threshold)
    band = _band_rows(dataset, fitted, lexicon, windowing)
    stage("storing")
    blob = fit.fitted_dump(fitted)
    data = fit.data_hash(_hashed(e) for e in parts[fit.TRAIN] + calibration)
    weights = fit.weights_hash(encoder_identity(), blob)
    with transaction.atomic():
        judge.status = Stage0Judge.Status.READY
        judge.fitted = blob
        judge.data_hash, judge.weights_hash = data, weights
        judge.model_hash = fit.model_hash(data, weights)
        judge.n_train = len(parts[fit.TRAIN])
        judge.heldout = [
            {
                "query_id": e.query_id,
                "doc_id": e.doc_id,
                "p": float(pi),
                "label": e.label,
                "source": e.source,
            }
            for e, pi in zip(test, p, strict=True)
        ]
        judge.band_calibration = band
        # Simulated labels are learnt from (the cascade study's design); counted, so that
        # the labels this judge settles are marked simulated wherever labels are counted.
        judge.simulated_labels = sum(e.simulated for e in parts[fit.TRAIN] + calibration)
        judge.metrics = {
            **metrics.as_dict(),
            "calibration": "platt",
            "classifier": f"logistic regression, class_weight=balanced, C={fit.C:g}",
            "features": fit.FEATURES,
            "scalars": {
                "names": list(fit.JUDGE_SCALARS),
                "mean": list(fitted.standardiser.mean),
                "sd": list(fitted.standardiser.sd),
            },
            "encoder": encoder_identity(),
            "windowing": windowing,
            "threshold": threshold,
            "fitted_on": fitted_on(parts=parts),
            "heldout_pool_like": _pool_like_metrics(parts, p.tolist(), threshold),
            "split": {"seed": seed, "fractions": list(fit.SPLIT_FRACTIONS)},
            "counts": {**_counts(parts), "band": len(band)},
            "seconds": round(time.monotonic() - started, 2),
        }
        judge.finished = timezone.now()
        judge.save()
    return judge


def _hashed(example: Example) -> tuple[str, str, int, str]:
    # A simulated label hashes apart from a real one with the same value: a judge trained
    # before simulated labels were counted is stale, and retrains with its count recorded;
    # a judge on real labels only keeps its hash.
    source = f"{example.source} (simulated)" if example.simulated else example.source
    return (example.query_id, example.doc_id, example.label, source)


#: Why a job trains its dataset's judge first, in the words of the job's note.
NO_JUDGE = "no judge yet"
#: :data:`NO_JUDGE` in a job's final note, read after the training beside the new judge's
#: hash, where "no judge yet" would seem to say there is still none.
NO_JUDGE_BEFORE = "the dataset had none"
OLD_LAYOUT = "the judge's feature layout is older than this version's"
DATA_CHANGED = "the judge's training data changed (labels added or changed since it was trained)"
HELDOUT_CHANGED = "the human labels of the judge's held-out queries changed"
BAND_CHANGED = "the human labels the judge's band is set on changed"


def stage0_judge_stale(*, judge: Stage0Judge) -> bool:
    """Whether ``judge``'s dataset now has other labels to learn from than it was trained on
    (a human label or a settled debate since, a qrels file imported, and on a dataset with
    densely judged queries a run finished, added or deleted or a pool built or deleted, as
    these change its pool-like pairs): the data hash of the training and calibration
    examples it would collect now differs from its own, or its
    held-out people's labels, or its band's human labels (with their sampling
    probabilities). Reads the labels only (no vectors): seconds on a large dataset. Why, in
    words: :func:`stage0_judge_stale_reason`."""
    return bool(stage0_judge_stale_reason(judge=judge))


def stage0_judge_stale_reason(*, judge: Stage0Judge) -> str:
    """Why ``judge`` is stale (:func:`stage0_judge_stale`), in plain words for a job's note:
    :data:`OLD_LAYOUT`, :data:`DATA_CHANGED`, :data:`HELDOUT_CHANGED` or
    :data:`BAND_CHANGED` (the first that holds, in that order); "" when it is fresh."""
    if judge.metrics.get("features") != fit.FEATURES:
        return OLD_LAYOUT  # fitted on another feature layout: it cannot score any more
    seed = int((judge.metrics.get("split") or {}).get("seed", 0))
    band = band_labels_collect(dataset=judge.dataset)
    parts = examples_split(examples_collect(dataset=judge.dataset, seed=seed), seed=seed, band=band)
    data = fit.data_hash(_hashed(e) for e in parts[fit.TRAIN] + parts[fit.CALIBRATION])
    if data != judge.data_hash:
        return DATA_CHANGED
    # The held-out human labels too: a routing band is chosen on them (new audits of
    # held-out queries must reach it).
    people = ("qrels", "human")
    heldout_now = {(e.query_id, e.doc_id, e.label, e.source) for e in parts[fit.TEST]}
    heldout_then = {
        (row["query_id"], row["doc_id"], int(row["label"]), row["source"])
        for row in judge.heldout or []
    }
    if {h for h in heldout_now if h[3] in people} != {h for h in heldout_then if h[3] in people}:
        return HELDOUT_CHANGED
    # The band's labels too: a new audit or escalation label, or a raised audit share.
    band_then = {
        (row["query_id"], row["doc_id"], int(row["label"]), row["inclusion"], row["floor"])
        for row in judge.band_calibration or []
    }
    return BAND_CHANGED if band_then != _band_keys(judge.dataset, band) else ""


def stage0_judge_missing_reason(*, dataset: Dataset) -> str:
    """Why ``dataset`` has no current judge (:func:`stage0_judge_current` gave None), in
    plain words for a job's note: :data:`OLD_LAYOUT` when it has a ready judge of another
    feature layout, else :data:`NO_JUDGE`."""
    ready = Stage0Judge.objects.filter(dataset=dataset, status=Stage0Judge.Status.READY)
    return OLD_LAYOUT if ready.exists() else NO_JUDGE


def _natural_ids(keys: Collection[tuple[int, int]]) -> tuple[dict[int, str], dict[int, str]]:
    """``({query pk: query id}, {document pk: doc id})`` of the pairs ``keys``."""
    from corpora.models import Document, Query

    queries = Query.objects.filter(pk__in={q for q, _ in keys}).values_list("pk", "query_id")
    documents = Document.objects.filter(pk__in={d for _, d in keys}).values_list("pk", "doc_id")
    return dict(queries), dict(documents)


def _band_keys(dataset: Dataset, band: dict[tuple[int, int], tuple[int, float, float]]) -> set:
    """The rows of ``band`` as ``band_calibration`` would store them, without P."""
    query_ids, doc_ids = _natural_ids(band)
    return {(query_ids[q], doc_ids[d], *row) for (q, d), row in band.items()}


def stage0_test_query(*, judge: Stage0Judge, query_id: str) -> bool:
    """True when ``query_id`` is one of ``judge``'s held-out test queries (its split)."""
    seed = int((judge.metrics.get("split") or {}).get("seed", 0))
    return fit.query_split(query_id, seed=seed) == fit.TEST


def stage0_test_query_pks(*, judge: Stage0Judge) -> list[int]:
    """The primary keys of ``judge``'s held-out test queries among its dataset's queries."""
    rows = judge.dataset.queries.values_list("pk", "query_id")
    return [pk for pk, query_id in rows if stage0_test_query(judge=judge, query_id=query_id)]


@dataclass(frozen=True)
class Stage0Evaluation:
    """Stage 0 on a pool of gold pairs: ``scores`` as any assessor's (every pair settled,
    no LLM call), ``metrics`` the calibration figures (ECE, Brier) on the same pairs."""

    scores: AssessorScores
    metrics: fit.HeldoutMetrics


def stage0_pool_evaluate(*, judge: Stage0Judge, pool: Pool) -> Stage0Evaluation:
    """Score every pair of ``pool`` (gold: its ``original_relevance``, > 0 relevant; an
    unjudged pair irrelevant, :func:`debates.assessment.gold_label`) with ``judge``, relevant
    when P >= its threshold (``metrics["threshold"]``, :func:`debates.stage0.fit.
    decision_threshold`). Raises :class:`Stage0Error` when a pair's query is not one of the judge's
    held-out test queries: stage 0 is never measured on what it trained or calibrated on."""
    pairs = list(pairs_in_order(pool).select_related("query"))
    seen = [
        p.query.query_id
        for p in pairs
        if not stage0_test_query(judge=judge, query_id=p.query.query_id)
    ]
    if seen:
        raise Stage0Error(
            f"pool {pool.name!r} holds pairs of {len(set(seen))} queries stage-0 judge "
            f"{judge.pk} trained or calibrated on (e.g. {sorted(seen)[0]!r})"
        )
    p = stage0_pairs_score(judge=judge, pairs=pairs)
    gold = [gold_label(pair.original_relevance) for pair in pairs]
    threshold = stage0_threshold(judge=judge)
    rows = [(g, 1 if pi >= threshold else 0) for g, pi in zip(gold, p, strict=True)]
    return Stage0Evaluation(
        scores=assessor_scores(rows, calls=0),
        metrics=fit.heldout_metrics(p, gold, threshold=threshold),
    )


def stage0_threshold(*, judge: Stage0Judge) -> float:
    """The P(relevant) from which ``judge`` calls a pair relevant (0.5 if none stored)."""
    return float(judge.metrics.get("threshold", 0.5))


def stage0_inputs_score(*, judge: Stage0Judge, inputs: fit.PairInputs) -> list[float]:
    """Calibrated P(relevant) of pairs given as their inputs (vectors and raw scalars,
    :class:`debates.stage0.fit.PairInputs`): the pure scoring part, no database. Raises
    :class:`Stage0Error` for a judge that is not ready or of another feature layout."""
    return fit.probabilities(_fitted(judge), inputs).tolist()


def _fitted(judge: Stage0Judge) -> fit.Fitted:
    """``judge``'s fitted model (:func:`debates.stage0.fit.fitted_load`). Raises
    :class:`Stage0Error` for a judge that is not ready or of another feature layout."""
    if judge.status != Stage0Judge.Status.READY or not judge.fitted:
        raise Stage0Error(f"stage-0 judge {judge.pk} is {judge.status}, not ready")
    try:
        return fit.fitted_load(bytes(judge.fitted))
    except ValueError as exc:
        raise Stage0Error(str(exc)) from None


def stage0_lexicon_build(*, dataset: Dataset) -> Lexicon:
    """The corpus statistics the judge's term-matching scalars need (every document of
    ``dataset`` read): build once and pass to each :func:`stage0_pairs_score` of a batch."""
    return dataset_lexicon(dataset=dataset)


def stage0_pairs_score(
    *, judge: Stage0Judge, pairs: Sequence[Pair], lexicon: Lexicon | None = None
) -> list[float]:
    """Calibrated P(relevant), in [0, 1], of each pair, in the order given (the vectors and
    scalars as the judge was trained on: :mod:`debates.stage0.inputs`). ``lexicon``: the
    dataset's corpus statistics (:func:`stage0_lexicon_build`), built here when None.
    Raises :class:`Stage0Error` for a judge that is not ready or of another layout (before
    the corpus is read)."""
    fitted = _fitted(judge)
    if not pairs:
        return []
    keys = [(p.query_id, p.document_id) for p in pairs]
    inputs = pair_inputs(
        dataset=judge.dataset,
        pairs=keys,
        lexicon=lexicon if lexicon is not None else dataset_lexicon(dataset=judge.dataset),
        windowing=str(judge.metrics.get("windowing", "")),
    )
    return fit.probabilities(fitted, inputs).tolist()


def stage0_judge_train_start(*, dataset: Dataset, user: Any = None) -> Operation:
    """Train a judge of ``dataset`` in the background: an operation of kind
    ``train_stage0`` (polled like an import), started after commit; its ``stage`` says
    "<stage> (<done>/<total>)" and its ``result`` once done is ``{"judge": id,
    "model_hash", "balanced_accuracy", "ece", "brier", "n"}``."""
    from corpora.services.operations import operation_create

    return operation_create(
        kind=Operation.Kind.TRAIN_STAGE0, params={}, dataset=dataset, created_by=user
    )


def stage0_step(operation: Operation, root: object) -> dict[str, Any]:
    """The ``train_stage0`` operation's step (:func:`corpora.services.operations.operation_run`
    calls it): train, recording each stage on the row. A :class:`Stage0Error` fails the
    operation with its words."""
    assert operation.dataset is not None  # operation_create requires it

    def progress(stage: str, done: int, total: int) -> None:
        Operation.objects.filter(pk=operation.pk).update(stage=f"{stage} ({done}/{total})")

    judge = stage0_judge_train(dataset=operation.dataset, progress=progress)
    metrics = judge.metrics
    return {
        "judge": judge.pk,
        "model_hash": judge.model_hash,
        **{key: metrics.get(key) for key in ("balanced_accuracy", "ece", "brier", "n")},
    }


def stage0_step_register() -> None:
    """Make the operations of kind ``train_stage0`` run :func:`stage0_step` (called by
    ``debates.apps.DebatesConfig.ready``)."""
    from corpora.services.operations import operation_step_register

    operation_step_register(
        kind=Operation.Kind.TRAIN_STAGE0,
        step=stage0_step,
        failed_prefix="stage-0 training failed: ",
    )
