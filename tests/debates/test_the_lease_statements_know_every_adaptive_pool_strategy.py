"""The lease statements decide whether a debate's end adds a batch to its job, and whether a
job may finish, from the pool's strategy: they spell the adaptive strategies out as two bound
parameters. A third adaptive strategy added to corpora.pool_strategies without them would
leave its jobs never adding batches nor finishing; this fails first."""

from corpora.pool_strategies import ADAPTIVE
from debates.services.leases import LEASE_STATUSES


def test_the_lease_statements_adaptive_strategies_are_the_pool_strategies_adaptive_ones():
    assert {LEASE_STATUSES["adaptive_a"], LEASE_STATUSES["adaptive_b"]} == set(ADAPTIVE)
