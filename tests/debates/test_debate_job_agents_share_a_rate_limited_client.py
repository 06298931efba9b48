"""A job's agents are built from their stored configs once per process; a hosted backend
with an rpm limit is called through the shared (Redis) rate limit."""

import pytest

from debates.llm.ratelimit import RateLimitedClient
from debates.services import agent_client_get
from debates.services.launch import JobSpec, debate_job_launch

HOSTED = {
    "backend": "openai",
    "model": "gpt-4o-mini",
    "base_url": "https://api.example.com/v1",
    "api_key_env": "DREAM_TEST_KEY",
    "rpm": 60,
}


@pytest.mark.django_db
def test_a_hosted_agent_with_an_rpm_goes_through_the_shared_limit(small_pool, monkeypatch):
    monkeypatch.setenv("DREAM_TEST_KEY", "sk-test")
    job = debate_job_launch(spec=JobSpec(pool=small_pool, agent_a=HOSTED), start=False)
    agent_a, agent_b = job.agents
    client = agent_client_get(config=agent_a)
    assert isinstance(client, RateLimitedClient)
    assert (client.key, client.rpm) == ("openai:https://api.example.com/v1:gpt-4o-mini", 60)
    assert agent_client_get(config=agent_b) is client  # same config, one client per process
    assert "sk-test" not in str(job.agent_a)
