"""The pool strategies' names are declared once (``corpora.pool_strategies``): the pool
model's choices, the API's schemas and the adaptive test all read them, so a new strategy is
one change plus its code."""

import typing

from api.datasets import PoolIn, PoolOut
from corpora.models import Pool
from corpora.pool_strategies import ADAPTIVE, STRATEGIES


def test_the_models_choices_are_the_declared_strategies_in_order():
    assert tuple(Pool.Strategy.values) == STRATEGIES == ("depth", "rbp", "rrf", "bandit", "mtc")


def test_the_adaptive_ones_are_among_them_and_the_model_says_so():
    assert ADAPTIVE == {"bandit", "mtc"} and ADAPTIVE <= set(STRATEGIES)
    assert [s for s in STRATEGIES if Pool(strategy=s).adaptive] == ["bandit", "mtc"]


def test_the_apis_pool_build_schema_accepts_exactly_them():
    for schema in (PoolIn, PoolOut):
        assert typing.get_args(schema.model_fields["strategy"].annotation) == STRATEGIES
