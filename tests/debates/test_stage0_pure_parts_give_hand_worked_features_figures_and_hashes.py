"""Stage 0's pure part, without a database: the features of a pair, the held-out figures,
Platt scaling, the best window of a document, the split and the hashes, on hand-worked
values."""

import numpy as np
import pytest

from debates.stage0 import fit


def test_the_features_are_q_d_their_product_their_distance_and_the_cosine():
    q = np.array([[1.0, 0.0]], dtype=np.float32)
    d = np.array([[0.6, 0.8]], dtype=np.float32)
    assert fit.pair_features(q, d)[0].tolist() == pytest.approx(
        [1.0, 0.0, 0.6, 0.8, 0.6, 0.0, 0.4, 0.8, 0.6]
    )
    with pytest.raises(ValueError, match="one shape"):
        fit.pair_features(q, np.zeros((2, 2), dtype=np.float32))


def test_heldout_figures_at_a_threshold_are_worked_by_hand():
    # Said relevant (P >= 0.5): 0.9 and 0.6. Relevant 0.9 (right) and 0.4 (missed): recall
    # 1/2; non-relevant 0.6 (wrong) and 0.2 (right): recall 1/2. Brier (0.01 + 0.36 + 0.04 +
    # 0.36) / 4; ECE: one pair per bin, |P - y| averaged = (0.1 + 0.6 + 0.2 + 0.6) / 4.
    m = fit.heldout_metrics([0.9, 0.6, 0.2, 0.4], [1, 0, 0, 1])
    assert (m.n, m.relevant, m.recall_relevant, m.recall_nonrelevant) == (4, 2, 0.5, 0.5)
    assert m.balanced_accuracy == 0.5
    assert m.brier == pytest.approx(0.1925)
    assert m.ece == pytest.approx(0.375)
    # At threshold 0.3 the 0.4 counts as relevant: recall of the relevant class 1.
    assert (
        fit.heldout_metrics([0.9, 0.6, 0.2, 0.4], [1, 0, 0, 1], threshold=0.3).recall_relevant
        == 1.0
    )
    assert fit.heldout_metrics([0.7], [1]).balanced_accuracy is None  # one class: undefined


def test_platt_scaling_of_symmetric_scores_is_symmetric_and_increasing():
    scores = np.array([-2.0, -1.0, 1.0, 2.0] * 10 + [1.0, -1.0])
    labels = np.array([0, 0, 1, 1] * 10 + [0, 1])
    platt = fit.calibrator_fit(scores, labels)
    p = platt(np.array([-1.0, 0.0, 1.0]))
    assert p[1] == pytest.approx(0.5, abs=1e-9)
    assert p[0] + p[2] == pytest.approx(1.0, abs=1e-9)
    assert platt.a < 0 and p[0] < p[1] < p[2]
    with pytest.raises(ValueError, match="one class"):
        fit.calibrator_fit(scores, np.ones_like(labels))


def test_a_windowed_document_is_read_by_its_window_closest_to_the_query():
    windows = np.array([[1, 0], [0, 1], [0.6, 0.8]], dtype=np.float32)
    starts = np.array([0, 2], dtype=np.int64)  # document 0: windows 0-1; document 1: 2
    queries = np.array([[0, 1], [1, 0], [1, 0]], dtype=np.float32)
    out = fit.maxp_documents(queries, windows, starts, np.array([0, 0, 1]))
    assert out.ravel().tolist() == pytest.approx([0, 1, 1, 0, 0.6, 0.8])


def test_the_split_is_by_query_deterministic_and_near_its_fractions():
    ids = [f"q{i}" for i in range(10_000)]
    parts = [fit.query_split(q) for q in ids]
    assert parts == [fit.query_split(q) for q in ids]
    shares = [parts.count(name) / len(ids) for name in (fit.TRAIN, fit.CALIBRATION, fit.TEST)]
    assert shares == pytest.approx(list(fit.SPLIT_FRACTIONS), abs=0.02)
    assert [fit.query_split(q, seed=1) for q in ids] != parts  # the seed moves queries


def test_the_data_hash_ignores_order_and_sees_a_changed_label():
    rows = [("q1", "d1", 1, "qrels"), ("q2", "d9", 0, "cross")]
    assert fit.data_hash(rows) == fit.data_hash(rows[::-1])
    assert fit.data_hash(rows) != fit.data_hash([("q1", "d1", 0, "qrels"), rows[1]])
    data, weights = fit.data_hash(rows), fit.weights_hash("minilm v1", b"fitted")
    assert fit.model_hash(data, weights) != fit.model_hash(data, fit.weights_hash("v2", b"fitted"))
