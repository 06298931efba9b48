"""In the intervals' human sample, a weighting class with no judged pair joins the class of
nearest inclusion probability in its stratum; the joined group's judged pairs then stand for
its drawn pairs' sum of 1 / pi, not for its drawn pairs' count at their own, smaller pi
(assess.evaluation.interval_strata, core.proportions.response_factors; no database).

By hand, stratum "label 1": unit A, 20 pairs drawn at 0.5, none judged; unit B, 2 pairs
drawn at 0.02, both judged (wrong: human 0); 3 pairs at 0.3 not drawn. Stratum "label 0":
10 pairs judged at 0.05. A joins B: drawn weight 20 / 0.5 + 2 / 0.02 = 140, judged weight
2 / 0.02 = 100, factor 5/7, so each B pair weighs 1 / (0.02 x 5/7) = 70 and the two stand for
140 labels. The count rate 2/22 made each weigh 550 (1,100 labels). The 0.3 class has no
drawn pair: it joins nothing and keeps factor 1."""

import pytest

from assess.evaluation.intervals import PooledLabel, refined_intervals, response_rates


def _pool():
    a = [PooledLabel("q", f"a{i}", 1, None, "label 1", True, 0.5) for i in range(20)]
    b = [PooledLabel("q", f"b{i}", 1, 0, "label 1", True, 0.02) for i in range(2)]
    c = [PooledLabel("q", f"c{i}", 1, None, "label 1", False, 0.3) for i in range(3)]
    s1 = [PooledLabel("q", f"z{i}", 0, 0, "label 0", True, 0.05) for i in range(10)]
    return a + b + c, s1


def test_the_joined_group_s_factor_is_its_judged_weight_over_its_drawn_weight():
    s0, s1 = _pool()

    assert response_rates(s0, "label 1") == pytest.approx({0.5: 5 / 7, 0.02: 5 / 7, 0.3: 1.0})
    assert response_rates(s1, "label 0") == pytest.approx({0.05: 1.0})


def test_the_judged_pairs_of_the_joined_group_weigh_its_drawn_pairs_in_the_sample():
    s0, s1 = _pool()
    docs = [label.doc_id for label in s0 + s1]

    found = refined_intervals(
        runs={"s": {"q": docs}},
        fixed={"q": {"x": 1}},
        pool=s0 + s1,
        queries=["q"],
        measures=("P@10",),
    )

    by_stratum: dict[str, list[float]] = {}
    for name, weight in zip(found.sample.stratum, found.sample.inv_pi, strict=True):
        by_stratum.setdefault(name, []).append(weight)
    assert by_stratum["label 1"] == pytest.approx([70.0, 70.0])
    assert by_stratum["label 0"] == pytest.approx([20.0] * 10)


def test_a_class_of_one_probability_keeps_its_share_answered():
    pool = [
        PooledLabel("q", f"d{i}", 1, 1 if i < 3 else None, "label 1", True, 0.4) for i in range(4)
    ]

    assert response_rates(pool, "label 1") == pytest.approx({0.4: 3 / 4})
