"""A dataset with too few judged pairs gets a sentence, not a crash: from the service (the
judge stored as failed with it) and from ``evaluate_assessor --backend stage0``."""

import pytest
from django.core.management import CommandError, call_command

from debates.models import Stage0Judge
from debates.stage0 import Stage0Error, stage0_judge_current, stage0_judge_train

WORDS = (
    "stage 0 needs at least 20 judged pairs (qrels, human or consensus labels), the dataset has 15"
)


@pytest.mark.django_db
def test_training_on_fifteen_judged_pairs_is_refused_in_words(stage0_small_dataset):
    with pytest.raises(Stage0Error) as refused:
        stage0_judge_train(dataset=stage0_small_dataset)
    assert str(refused.value) == WORDS
    judge = Stage0Judge.objects.get()
    assert (judge.status, judge.error, judge.model_hash) == ("failed", WORDS, "")
    assert stage0_judge_current(dataset=stage0_small_dataset) is None


@pytest.mark.django_db
def test_the_evaluate_command_says_the_same(stage0_small_dataset):
    with pytest.raises(CommandError, match="the dataset has 15"):
        call_command("evaluate_assessor", "stage0-small", "--backend", "stage0", "--json")
