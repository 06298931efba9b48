"""``evaluate_assessor DATASET --backend stage0 --json`` trains a judge when the dataset has
none, draws its gold sample only from the judge's held-out test queries, and prints exactly
one JSON object: the figures at the top and under ``assessors``, progress on stderr."""

import io
import json

import pytest
from django.core.management import call_command

from corpora.models import Pool
from debates.models import Stage0Judge
from debates.stage0.fit import TEST, query_split


@pytest.mark.django_db
def test_one_json_object_with_balanced_accuracy_recalls_and_n(stage0_dataset):
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "evaluate_assessor",
        "stage0",
        "--backend",
        "stage0",
        "--sample",
        "6",
        "--json",
        stdout=out,
        stderr=err,
    )
    body = json.loads(out.getvalue())  # one object, nothing else on stdout
    judge = Stage0Judge.objects.get()
    assert "training a stage-0 judge of stage0" in err.getvalue()
    for key in ("balanced_accuracy", "recall_relevant", "recall_nonrelevant", "n", "ece", "brier"):
        assert key in body
    assert body["n"] == 6 and (body["relevant"], body["irrelevant"]) == (3, 3)
    # Every figure with its interval and the pairs behind it (all 6 settled by stage 0).
    assert body["recall_relevant_interval"]["n"] == 3
    assert body["recall_nonrelevant_interval"]["n"] == 3
    low, high = (body["balanced_accuracy_interval"][k] for k in ("low", "high"))
    assert 0 <= low <= body["balanced_accuracy"] <= high <= 1 and high - low > 0.2
    assert body["assessors"]["stage0"]["n"] == 6
    assert body["assessors"]["stage0"]["balanced_accuracy"] == body["balanced_accuracy"]
    assert (body["assessor"], body["model_hash"]) == ("stage0", judge.model_hash)
    pool = Pool.objects.get(name=body["pool"])
    assert pool.name == "eval-test-n6-seed0-stage0-test-split0"
    asked = {p.query.query_id for p in pool.pairs.select_related("query")}
    assert asked and all(query_split(q) == TEST for q in asked)

    text = io.StringIO()
    call_command("evaluate_assessor", "stage0", "--backend", "stage0", "--sample", "6", stdout=text)
    assert "stage 0, P(relevant) >=" in text.getvalue()
    assert "95% intervals, stage 0: rec.irr " in text.getvalue()
    assert Stage0Judge.objects.count() == 1  # the ready judge is reused
    assert body["simulated"] is False and body["simulated_labels"] == 0
    assert "SIMULATED" not in text.getvalue()


@pytest.mark.django_db
def test_a_judge_that_learnt_from_simulated_labels_is_marked_simulated(stage0_dataset):
    call_command("evaluate_assessor", "stage0", "--backend", "stage0", "--sample", "6", "--json",
                 stdout=io.StringIO(), stderr=io.StringIO())  # fmt: skip
    # As if its training set had held 12 labels of simulated debaters or annotators.
    Stage0Judge.objects.update(simulated_labels=12)
    out, text = io.StringIO(), io.StringIO()
    call_command("evaluate_assessor", "stage0", "--backend", "stage0", "--sample", "6", "--json",
                 stdout=out, stderr=io.StringIO())  # fmt: skip
    body = json.loads(out.getvalue())
    assert body["simulated"] is True and body["simulated_labels"] == 12
    assert body["simulated_note"].startswith("SIMULATED: stage-0 judge ")
    call_command("evaluate_assessor", "stage0", "--backend", "stage0", "--sample", "6", stdout=text)
    assert "was trained on 12 simulated labels" in text.getvalue()
