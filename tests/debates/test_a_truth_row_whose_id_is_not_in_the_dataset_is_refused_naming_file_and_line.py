"""A simulated agent's truth file with a query or document id its dataset does not have is
refused when the config is checked, naming the file and the line, and no job is made."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from debates.models import DebateJob
from debates.services.backends import agent_config_build
from debates.services.common import DebateJobError
from tests.fixtures.jobs import pool_of
from tests.fixtures.simulated import simulated_agent


@pytest.mark.django_db
def test_an_unknown_query_or_document_is_refused_naming_file_and_line(energy, truth_dir):
    truth = truth_dir / "typo.qrels"
    truth.write_text("q1 0 d1 1\nq9 0 d2 1\n", encoding="utf-8")
    with pytest.raises(DebateJobError) as caught:
        agent_config_build(fields=simulated_agent(truth))
    assert str(caught.value) == f"agent A: truth {truth}:2: query 'q9' is not in energy"
    truth.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td1\t0\nq2\td77\t1\n")
    with pytest.raises(DebateJobError) as caught:
        agent_config_build(fields=simulated_agent(truth), agent="B")
    assert str(caught.value) == f"agent B: truth {truth}:4: document 'd77' is not in energy"


@pytest.mark.django_db
def test_run_debates_refuses_it_before_making_a_job(energy, truth_dir):
    pool_of(energy, [("q1", "d2")])
    truth = truth_dir / "typo.qrels"
    truth.write_text("q1 0 d1 1\nq1 0 d2 1\nq1 0 dX 0\n", encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        call_command("run_debates", "energy/pool", "--backend", "simulated", "--truth", str(truth))
    assert str(caught.value) == f"agent A: truth {truth}:3: document 'dX' is not in energy"
    assert not DebateJob.objects.exists()


@pytest.mark.django_db
def test_a_truth_of_another_dataset_than_the_pools_is_refused_at_launch(
    energy, truth_dir, tmp_path
):
    from corpora.services import dataset_import_beir
    from debates.services.launch import JobSpec, debate_job_launch
    from tests.fixtures.datasets import write_beir
    from tests.fixtures.pooling import ENERGY_CORPUS, ENERGY_QRELS, ENERGY_QUERIES

    # The same ids under another slug: the truth file is valid for both datasets.
    other = dataset_import_beir(
        path=write_beir(
            tmp_path / "energy2",
            corpus=ENERGY_CORPUS,
            queries=ENERGY_QUERIES,
            qrels={"test": ENERGY_QRELS},
        ),
        name="energy2",
    )
    pool = pool_of(other, [("q1", "d2")])
    agent = simulated_agent(truth_dir / "energy.qrels")
    with pytest.raises(DebateJobError) as caught:
        debate_job_launch(spec=JobSpec(pool=pool, agent_a=agent), start=False)
    assert str(caught.value) == (
        "agent A: dataset: the simulated agent's truth is of dataset 'energy', the pool of "
        f"{other.slug!r}"
    )
    assert not DebateJob.objects.exists()
