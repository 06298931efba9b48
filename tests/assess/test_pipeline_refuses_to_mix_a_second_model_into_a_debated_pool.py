"""Final labels are per pool: running the pipeline again with other agents or another R on a
pool already debated is refused before anything is written, as are an unknown original qrel
set and a query limit below 1."""

import pytest

from assess.pipeline import pipeline_run
from corpora.models import Pool
from corpora.services import PoolError
from debates.models import DebateJob, Turn
from debates.services import DebateJobError
from tests.fixtures.jobs import pipeline_spec

STANCE_RULE = {"backend": "test", "rule": "stance"}


def _run(dataset, tmp_path, **options):
    defaults = {"retrievers": ["bm25"], "depth": 3, "agent": STANCE_RULE, "rounds": 2}
    return pipeline_run(
        dataset=dataset,
        echo=lambda _: None,
        spec=pipeline_spec(out_dir=tmp_path, **{**defaults, **options}),
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("options", "asked"),
    [
        ({"rounds": 3}, "asks for test, R = 3"),
        ({"agent": {"backend": "test", "rule": "stance", "delay": 0}}, "asks for test, R = 2"),
    ],
)
def test_other_agents_or_another_r_on_a_debated_pool_are_refused(
    energy, fake_llms, tmp_path, options, asked
):
    first = _run(energy, tmp_path)
    turns = Turn.objects.count()
    with pytest.raises(DebateJobError) as refused:
        _run(energy, tmp_path, **options)
    message = str(refused.value)
    assert f"pool '{first.pool}' was already debated by job {first.job_id}" in message
    assert f"R = 2, {first.pairs} of its {first.pairs} pairs" in message
    assert asked in message
    assert "DREAM_VAR_DIR" in message
    assert DebateJob.objects.count() == 1
    assert Turn.objects.count() == turns


@pytest.mark.django_db
def test_an_unknown_original_qrel_set_is_refused_naming_the_sets_there_are(
    energy, fake_llms, tmp_path
):
    with pytest.raises(PoolError, match=r"has no qrel set 'dev' \(it has: test\)"):
        _run(energy, tmp_path, qrels="dev")
    assert Pool.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("queries", [0, -1])
def test_a_query_limit_below_one_is_refused(energy, fake_llms, tmp_path, queries):
    with pytest.raises(PoolError, match=f"queries must be at least 1.*got {queries}"):
        _run(energy, tmp_path, queries=queries)
    assert Pool.objects.count() == 0
