"""``evaluate_assessor --backend stage0`` numbers the stage-0 training's progress as the
job's note, the ``train_stage0`` operation's stage and the demo do: stages done so far of
6, so training starts at "collecting labels (0/6)" and stores at "storing (5/6)"."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from debates.stage0 import Stage0Error
from debates.stage0.services import STAGES


@pytest.mark.django_db
def test_training_progress_counts_stages_done_so_far_of_six(stage0_dataset, monkeypatch):
    def train(*, dataset, progress):
        for done, name in enumerate(STAGES):
            progress(name, done, len(STAGES))
        raise Stage0Error("stopped after the stages (test)")

    monkeypatch.setattr("debates.management.commands.evaluate_assessor.stage0_judge_train", train)
    err = io.StringIO()
    with pytest.raises(CommandError, match="stopped after the stages"):
        call_command("evaluate_assessor", "stage0", "--backend", "stage0", stderr=err)
    lines = [line for line in err.getvalue().splitlines() if line.startswith("stage 0: ")]
    assert lines[0] == "stage 0: collecting labels (0/6)"
    assert lines[-1] == "stage 0: storing (5/6)"
    assert len(lines) == 6
