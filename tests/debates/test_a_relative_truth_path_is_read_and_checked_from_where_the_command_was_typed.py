"""A relative ``--truth`` is the file under the folder the command was typed in
(``DREAM_CALLER_DIR``), and that very file is what DREAM_SIMULATION_DIRS allows or refuses:
typed inside an allowed folder, the job stores its absolute path; typed elsewhere, it is
refused naming that path, even when the process's own directory holds an allowed file of the
same name."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from debates.models import DebateJob
from tests.fixtures.jobs import pool_of
from tests.fixtures.simulated import ENERGY_TRUTH

PERFECT = ["--sensitivity", "1", "--specificity", "1", "--persistence", "0", "--no-progress"]


def _run(*flags: str) -> None:
    call_command("run_debates", "energy/pool", "--backend", "simulated", *flags, *PERFECT)


@pytest.mark.django_db
def test_typed_in_an_allowed_folder_the_job_stores_the_absolute_path(
    energy, truth_dir, typed_in, monkeypatch
):
    pool_of(energy, [("q1", "d2")])
    monkeypatch.setenv("DREAM_CALLER_DIR", str(truth_dir))
    _run("--truth", "energy.qrels")
    job = DebateJob.objects.get()
    assert job.agent_a["truth"] == job.agent_b["truth"] == str(truth_dir / "energy.qrels")
    assert list(job.debates.values_list("status", "final_label")) == [("agreed", 1)]


@pytest.mark.django_db
def test_typed_elsewhere_it_is_refused_though_the_process_directory_has_an_allowed_file(
    energy, truth_dir, typed_in, monkeypatch
):
    pool_of(energy, [("q1", "d2")])
    (typed_in.caller / "energy.qrels").write_text(ENERGY_TRUTH, encoding="utf-8")
    monkeypatch.chdir(truth_dir)  # energy.qrels here is allowed, but not what was typed
    with pytest.raises(CommandError) as refused:
        _run("--truth", "energy.qrels")
    assert str(refused.value) == (
        f"agent A: truth {typed_in.caller / 'energy.qrels'} is not a file in the folders the "
        "server's operator allows (DREAM_SIMULATION_DIRS)"
    )
    assert not DebateJob.objects.exists()
