"""The judge's term-matching scalars are standardised with the training pairs' mean and SD,
stored with the fitted judge, and applied unchanged at calibration and scoring."""

import numpy as np
import pytest

from debates.stage0 import fit


def test_the_standardiser_is_worked_by_hand_and_keeps_a_constant_column_finite():
    # Columns: (0, 2) mean 1, population SD 1; (1, 1) constant: SD stored as 1; (2, 4)
    # mean 3, SD 1. A pair (3, 5, 3) standardises to ((3-1)/1, (5-1)/1, (3-3)/1).
    scaler = fit.Standardiser.fit(np.array([[0, 1, 2], [2, 1, 4]], dtype=np.float32))
    assert (scaler.mean, scaler.sd) == ((1.0, 1.0, 3.0), (1.0, 1.0, 1.0))
    assert scaler(np.array([[3, 5, 3]], dtype=np.float32)).tolist() == [[2.0, 4.0, 0.0]]
    with pytest.raises(ValueError, match=r"expected \(n, 3\) scalars"):
        scaler(np.zeros((1, 2), dtype=np.float32))
    with pytest.raises(ValueError, match="no rows"):
        fit.Standardiser.fit(np.zeros((0, 3), dtype=np.float32))


def test_the_features_append_the_standardised_scalars_to_the_vectors_features():
    q = np.array([[1.0, 0.0]], dtype=np.float32)
    d = np.array([[0.6, 0.8]], dtype=np.float32)
    inputs = fit.PairInputs(q, d, np.array([[0.5, 0.25, 2.0]], dtype=np.float32))
    scaler = fit.Standardiser((0.25, 0.25, 1.0, 0.2), (0.5, 1.0, 2.0, 0.8))
    # [q, d, q*d, |q-d|, cos] then ((0.5-0.25)/0.5, (0.25-0.25)/1, (2-1)/2) and the cosine
    # 0.6 standardised again, (0.6-0.2)/0.8 = 0.5.
    assert fit.judge_features(inputs, scaler)[0].tolist() == pytest.approx(
        [1.0, 0.0, 0.6, 0.8, 0.6, 0.0, 0.4, 0.8, 0.6, 0.5, 0.0, 0.5, 0.5]
    )
    assert inputs.judge_scalars()[0].tolist() == pytest.approx([0.5, 0.25, 2.0, 0.6])


def test_the_stored_judge_keeps_its_standardiser_and_refuses_another_layout():
    scaler = fit.Standardiser((0.25, 0.5, 1.0), (0.5, 1.0, 2.0))
    fitted = fit.Fitted("a classifier", fit.Platt(-1.0, 0.5), scaler)
    loaded = fit.fitted_load(fit.fitted_dump(fitted))
    assert loaded == fitted
    import pickle

    # v1: MiniLM features only; v2: the three term-matching scalars without the cosine.
    for layout in ("q,d,q*d,|q-d|,cos/v1", "q,d,q*d,|q-d|,cos+cover,bm25_rel,doclen/v2"):
        old = pickle.dumps({"features": layout, "classifier": 1, "calibrator": 2})
        with pytest.raises(ValueError, match="train a new one"):
            fit.fitted_load(old)


@pytest.mark.django_db
def test_a_trained_judge_stores_the_training_pairs_mean_and_sd_and_scores_with_them(
    stage0_dataset,
):
    from debates.stage0 import stage0_judge_train
    from debates.stage0.inputs import dataset_lexicon, pair_inputs
    from debates.stage0.labels import band_labels_collect, examples_collect
    from debates.stage0.services import examples_split

    judge = stage0_judge_train(dataset=stage0_dataset)
    fitted = fit.fitted_load(bytes(judge.fitted))
    parts = examples_split(
        examples_collect(dataset=stage0_dataset),
        seed=0,
        band=band_labels_collect(dataset=stage0_dataset),
    )
    lexicon = dataset_lexicon(dataset=stage0_dataset)

    def inputs(name: str) -> fit.PairInputs:
        pairs = [(e.query_pk, e.doc_pk) for e in parts[name]]
        return pair_inputs(dataset=stage0_dataset, pairs=pairs, lexicon=lexicon)

    train = inputs(fit.TRAIN).judge_scalars().astype(np.float64)
    assert fitted.standardiser.mean == pytest.approx(train.mean(axis=0).tolist())
    assert fitted.standardiser.sd == pytest.approx(train.std(axis=0).tolist())
    assert judge.metrics["scalars"] == {
        "names": ["cover", "bm25_rel", "doclen", "cos"],
        "mean": list(fitted.standardiser.mean),
        "sd": list(fitted.standardiser.sd),
    }
    assert (
        judge.metrics["features"]
        == fit.FEATURES
        == "q,d,q*d,|q-d|,cos+z(cover,bm25_rel,doclen,cos)/v3"
    )
    # The held-out pairs were scored with the training pairs' standardiser, not their own:
    # their own mean differs, and P computed with it would not be the stored P.
    test = inputs(fit.TEST)
    stored = [row["p"] for row in judge.heldout]
    assert fit.probabilities(fitted, test).tolist() == pytest.approx(stored, abs=1e-6)
    own = fit.Standardiser.fit(test.judge_scalars())
    assert own.mean != pytest.approx(fitted.standardiser.mean)
    refitted = fit.Fitted(fitted.classifier, fitted.calibrator, own)
    assert fit.probabilities(refitted, test).tolist() != pytest.approx(stored, abs=1e-6)
