"""A stored simulated job whose truth folder the operator has withdrawn (or whose backend is
switched off) fails its debates when a worker builds the client: that refusal becomes each
debate's last error, which researchers read on the job page and in GET /api/v1/jobs/{id}/
failures. It names the truth file by its name only, as the job page and the API's agents do
(debates.llm.config.config_shown): it named the full path, or the folder as the example value
of DREAM_SIMULATION_DIRS. An admin's refusals (launch, resume) still give the path."""

import pytest

from debates.llm.base import PermanentLLMError
from debates.llm.config import AgentConfig
from debates.services.backends import agent_client_get, agent_config_build
from debates.services.common import DebateJobError
from tests.fixtures.simulated import simulated_agent


@pytest.mark.django_db
@pytest.mark.parametrize("dirs", [[], ["/some/other/folder"]])
def test_a_workers_refusal_names_the_truth_file_by_its_name_only(energy, truth_dir, settings, dirs):
    config = agent_config_build(fields=simulated_agent(truth_dir / "energy.qrels"))
    settings.DREAM_SIMULATION_DIRS = dirs
    with pytest.raises(PermanentLLMError) as refused:
        agent_client_get(config=AgentConfig.stored(config.dump()))
    words = str(refused.value)
    assert str(truth_dir) not in words
    if dirs:
        assert words == (
            "agent simulated: truth energy.qrels is not a file in the folders the server's "
            "operator allows (DREAM_SIMULATION_DIRS)"
        )
    else:
        assert words.endswith("e.g. DREAM_SIMULATION_DIRS=/folder/of/truth/files")


@pytest.mark.django_db
def test_an_admins_refusal_still_names_the_path(energy, truth_dir, settings):
    path = truth_dir / "energy.qrels"
    settings.DREAM_SIMULATION_DIRS = ["/some/other/folder"]
    with pytest.raises(DebateJobError) as refused:
        agent_config_build(fields=simulated_agent(path))
    assert f"truth {path} is not a file" in str(refused.value)
