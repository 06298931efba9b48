"""A pair several jobs could audit weighs by the union of their draws, 1 - prod_j (1 - pi_j)
(debates.audit_design.inclusion_union). The intervals group pairs into weighting classes by
that probability, compared exactly (assess.evaluation.intervals: missing at random within
the pairs of one inclusion probability). So two pairs the same jobs could draw must get the
same float, whichever job decides each (the deciding job's probability comes first) and in
whatever order the database lists the others: a product of three or more factors rounds
differently in another order, and one class would split in two by a last bit."""

import itertools

from debates.audit_design import inclusion_union


def test_every_order_of_the_same_probabilities_gives_one_float():
    for chances in ([0.3, 0.6, 0.7], [0.2, 0.3, 0.9], [0.05, 0.125, 0.4, 0.55]):
        unions = {inclusion_union(list(order)) for order in itertools.permutations(chances)}
        assert len(unions) == 1, (chances, unions)
    assert inclusion_union([0.7, 0.6, 0.3]) == inclusion_union([0.3, 0.6, 0.7]) == 0.916
