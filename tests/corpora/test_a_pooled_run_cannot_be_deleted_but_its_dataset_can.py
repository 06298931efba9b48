"""A run whose ranks are a pool's provenance cannot be deleted on its own; deleting the whole
dataset removes runs, pools, pairs and provenance together."""

import pytest
from django.db.models import RestrictedError

from corpora.models import Pair, PairSource, Pool, Run, RunEntry
from corpora.services import pool_build, qrel_set_get


@pytest.mark.django_db
def test_a_pooled_run_is_kept_until_its_dataset_goes(energy, import_run):
    run = import_run(energy, "alpha", ["q1 Q0 d2 1 1 A", "q2 Q0 d1 1 1 A"])
    pool_build(dataset=energy, qrel_set=qrel_set_get(dataset=energy, name="test"), runs=[run])
    with pytest.raises(RestrictedError):
        run.delete()
    assert PairSource.objects.count() == 2
    energy.delete()
    counts = [m.objects.count() for m in (Run, RunEntry, Pool, Pair, PairSource)]
    assert counts == [0, 0, 0, 0, 0]
