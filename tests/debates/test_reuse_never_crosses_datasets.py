"""Reuse across datasets is impossible by construction: a job's reuse key names its dataset,
so the same benchmark imported twice (same ids, same texts) under two names gives two keys,
and a job on the second asks every pair although the first agreed on all of them."""

import pytest
from django.utils import timezone

from corpora.services import dataset_import_beir
from debates.models import DebateJob
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.jobs import SMALL_PAIRS, pool_of

pytestmark = pytest.mark.django_db


def test_a_job_on_a_copy_of_the_dataset_reuses_nothing(small_pool, tmp_path):
    first = debate_job_launch(spec=JobSpec(pool=small_pool, rounds=1), start=False)
    now = timezone.now()
    first.debates.update(status="agreed", final_label=1, consensus_round=1, finished=now)
    DebateJob.objects.filter(pk=first.pk).update(status="finished", finished=now)
    copy = dataset_import_beir(path=tmp_path / "small", name="small copy")
    other_pool = pool_of(copy, SMALL_PAIRS)

    other = debate_job_launch(spec=JobSpec(pool=other_pool, rounds=1), start=False)

    assert other.reuse and other.reuse_key != first.reuse_key
    assert (other.agent_a, other.rounds, other.prompt_version) == (
        first.agent_a,
        first.rounds,
        first.prompt_version,
    )
    assert sorted(other.debates.values_list("status", flat=True)) == ["pending"] * 4
    assert other.reuse_note == ""  # no other job of its dataset holds its pairs
    same_ids = set(first.debates.values_list("pair__query__query_id", "pair__document__doc_id"))
    assert same_ids == set(
        other.debates.values_list("pair__query__query_id", "pair__document__doc_id")
    )
