"""``evaluate_assessor --backend stage0`` (or ``--heldout``) on qrels that judge no pair
non-relevant, without ``--unjudged-negatives`` on a dataset whose judgments are not dense,
refuses before it trains a stage-0 judge or builds a run: the refusal reads the qrels only,
so nothing is spent and nothing stored."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from corpora.models import Pool, Run
from debates.models import Stage0Judge
from tests.fixtures.datasets import write_beir


@pytest.fixture
def sparse_dataset(db, tmp_path):
    """Two queries, each with one relevant document and no judged non-relevant one."""
    from corpora.services import dataset_import_beir

    corpus = [{"_id": f"d{i}", "title": "", "text": f"text {i}"} for i in range(1, 5)]
    queries = [{"_id": "q1", "text": "first"}, {"_id": "q2", "text": "second"}]
    folder = write_beir(
        tmp_path / "sparse",
        corpus=corpus,
        queries=queries,
        qrels={"test": "q1\td1\t1\nq2\td3\t1\n"},
    )
    return dataset_import_beir(path=folder, name="sparse", slug="sparse")


@pytest.mark.django_db
@pytest.mark.parametrize("flags", [["--backend", "stage0"], ["--heldout"]])
def test_sparse_qrels_are_refused_before_a_judge_is_trained(sparse_dataset, monkeypatch, flags):
    trained = []
    monkeypatch.setattr(
        "debates.management.commands.evaluate_assessor.stage0_judge_train",
        lambda **kwargs: trained.append(kwargs),
    )
    with pytest.raises(CommandError, match="judge no pair non-relevant.*--unjudged-negatives"):
        call_command("evaluate_assessor", "sparse", *flags, "--sample", "2", "--no-progress")
    assert trained == []
    assert not Stage0Judge.objects.exists()
    assert not Run.objects.exists() and not Pool.objects.exists()
