"""Training a stage-0 judge in the background is an operation of kind ``train_stage0``:
queued at once, each stage written on the row as it starts, done with the judge named."""

import pytest

from corpora.models import Operation
from corpora.services.operations import operation_run
from debates.models import Stage0Judge
from debates.stage0 import services, stage0_judge_train_start


@pytest.mark.django_db
def test_the_operation_reaches_done_through_its_stages(stage0_dataset, monkeypatch):
    operation = stage0_judge_train_start(dataset=stage0_dataset)
    assert (operation.kind, operation.status) == ("train_stage0", "queued")
    assert not Stage0Judge.objects.exists()  # nothing trained while the request ran

    seen = []
    train = services.stage0_judge_train

    def spy(*, dataset, progress):
        def both(stage, done, total):
            progress(stage, done, total)
            seen.append(Operation.objects.get(pk=operation.pk).stage)

        return train(dataset=dataset, progress=both)

    monkeypatch.setattr(services, "stage0_judge_train", spy)
    done = operation_run(operation_id=operation.pk)  # the step the worker would run
    assert seen == [
        "collecting labels (0/6)",
        "embedding (1/6)",
        "fitting (2/6)",
        "calibrating (3/6)",
        "scoring held-out (4/6)",
        "storing (5/6)",
    ]
    judge = Stage0Judge.objects.get()
    assert (done.status, done.stage, done.error) == ("done", "done", "")
    assert done.result["judge"] == judge.pk and done.result["model_hash"] == judge.model_hash
    assert done.result["n"] == len(judge.heldout)


@pytest.mark.django_db
def test_too_few_labels_fail_the_operation_in_words(stage0_small_dataset):
    operation = stage0_judge_train_start(dataset=stage0_small_dataset)
    failed = operation_run(operation_id=operation.pk)
    assert failed.status == "failed"
    assert failed.error == (
        "stage-0 training failed: stage 0 needs at least 20 judged pairs (qrels, human or "
        "consensus labels), the dataset has 15"
    )


@pytest.mark.django_db
def test_the_operation_page_names_the_trained_judge(stage0_dataset, client_as):
    operation = stage0_judge_train_start(dataset=stage0_dataset)
    operation_run(operation_id=operation.pk)
    judge = Stage0Judge.objects.get()
    page = client_as("researcher").get(f"/operations/{operation.pk}/").content.decode()
    assert f"Stage-0 judge {judge.pk} ready (model hash" in page
    assert judge.model_hash[:16] in page
