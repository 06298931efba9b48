"""A truth file (``--truth`` of ``run_debates --backend simulated`` and ``simulate_study``)
whose rows name ids the dataset lacks, or are malformed, is refused in one error naming the
file and each offending line with its reason, so one attempt shows them all."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from debates.models import DebateJob
from debates.simulated_client import truth_file_load
from tests.fixtures.jobs import pool_of


@pytest.mark.django_db
def test_unknown_ids_on_lines_4_and_5_are_both_named(energy, truth_dir):
    pool_of(energy, [("q1", "d2")])
    truth = truth_dir / "typos.qrels"
    truth.write_text("q1 0 d1 1\nq1 0 d2 1\nq2 0 d3 1\nq9 0 d1 1\nq1 0 d77 0\n", encoding="utf-8")
    expected = (
        f"truth {truth}:4: query 'q9' is not in energy (and 1 more bad line)\n"
        "  line 5: document 'd77' is not in energy"
    )
    with pytest.raises(ValueError) as caught:
        truth_file_load(path=truth, dataset="energy")
    assert str(caught.value) == expected
    with pytest.raises(CommandError) as refused:
        call_command("run_debates", "energy/pool", "--backend", "simulated", "--truth", str(truth))
    assert str(refused.value) == f"agent A: {expected}"
    assert not DebateJob.objects.exists()


@pytest.mark.django_db
def test_a_pair_given_twice_is_listed_with_the_unknown_ids(energy, truth_dir):
    truth = truth_dir / "twice.tsv"
    truth.write_text("q1\td1\t1\nq1\tdX\t1\nq1\td1\t0\n", encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        truth_file_load(path=truth, dataset="energy")
    assert str(caught.value) == (
        f"truth {truth}:2: document 'dX' is not in energy (and 1 more bad line)\n"
        "  line 3: query 'q1' document 'd1' given twice"
    )


@pytest.mark.django_db
def test_malformed_rows_are_all_named_before_any_id_is_checked(energy, truth_dir):
    truth = truth_dir / "cut.qrels"
    truth.write_text("q1 0 d1 1\nq9 0 d1\nq1 0 d2 high\n", encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        truth_file_load(path=truth, dataset="energy")
    assert str(caught.value) == (
        f"truth {truth}:2: expected 4 fields (qid iter docid rel), got 3 (and 1 more bad line)\n"
        "  line 3: relevance 'high' is not a number"
    )
