"""A simulated agent's truth file outside DREAM_SIMULATION_DIRS (or the backend switched off)
is refused with a message that names the agent once (``agent A: truth ...``, never ``agent A:
agent A: ...``), through the service, run_debates (per agent) and the pipeline (whose one
backend for both agents is named "backend"); nothing is launched. With the backend off, the
message names the environment variable to set, with the truth file's folder as its example
value."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from debates.models import DebateJob
from debates.services.backends import agent_config_build
from debates.services.common import DebateJobError
from tests.fixtures.jobs import pool_of
from tests.fixtures.simulated import simulated_agent

ALLOWS = "is not a file in the folders the server's operator allows (DREAM_SIMULATION_DIRS)"
OFF = (
    "truth: the simulated backend is off until the server's operator sets the environment "
    "variable DREAM_SIMULATION_DIRS to the truth files' folders (comma-separated), e.g. "
    "DREAM_SIMULATION_DIRS="
)


@pytest.fixture(name="outside")
def outside_fixture(tmp_path):
    """A truth file for energy in a folder DREAM_SIMULATION_DIRS does not list."""
    path = tmp_path / "elsewhere.qrels"
    path.write_text("q1 0 d1 1\n", encoding="utf-8")
    return path


@pytest.mark.django_db
def test_the_service_names_the_agent_once(energy, truth_dir, outside):
    for agent in "AB":
        with pytest.raises(DebateJobError) as refused:
            agent_config_build(fields=simulated_agent(outside), agent=agent)
        assert str(refused.value) == f"agent {agent}: truth {outside} {ALLOWS}"


@pytest.mark.django_db
def test_the_service_names_the_agent_once_when_the_backend_is_off(energy, truth_dir, settings):
    settings.DREAM_SIMULATION_DIRS = []
    with pytest.raises(DebateJobError) as refused:
        agent_config_build(fields=simulated_agent(truth_dir / "energy.qrels"))
    assert str(refused.value) == f"agent A: {OFF}{truth_dir}"


@pytest.mark.django_db
def test_run_debates_names_agent_b_once(energy, truth_dir, outside):
    pool_of(energy, [("q1", "d2")])
    with pytest.raises(CommandError) as refused:
        call_command(
            "run_debates", "energy/pool", "--backend", "simulated",
            "--truth", str(truth_dir / "energy.qrels"), "--truth-b", str(outside),
        )  # fmt: skip
    assert str(refused.value) == f"agent B: truth {outside} {ALLOWS} (flag --truth-b)"
    assert not DebateJob.objects.exists()


@pytest.mark.django_db
def test_the_pipeline_names_its_backend_once(energy, truth_dir, outside, tmp_path):
    with pytest.raises(CommandError) as refused:
        call_command(
            "pipeline", "energy", "--retrievers", "bm25", "--backend", "simulated",
            "--truth", str(outside), "--out", str(tmp_path / "out"),
        )  # fmt: skip
    assert str(refused.value) == f"backend: truth {outside} {ALLOWS}"
    assert not DebateJob.objects.exists()


@pytest.mark.django_db
def test_the_pipeline_with_the_backend_off_names_the_variable_and_the_folder(
    energy, truth_dir, settings, tmp_path
):
    settings.DREAM_SIMULATION_DIRS = []
    with pytest.raises(CommandError) as refused:
        call_command(
            "pipeline", "energy", "--retrievers", "bm25", "--backend", "simulated",
            "--truth", str(truth_dir / "energy.qrels"), "--out", str(tmp_path / "out"),
        )  # fmt: skip
    assert str(refused.value) == f"backend: {OFF}{truth_dir}"
    assert not DebateJob.objects.exists()
