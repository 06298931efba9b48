"""``POST /api/v1/jobs`` answers an agent config that does not parse (a field of the wrong
type, out of range, unknown) with a 422 in the documented shape naming ``agent_a.<field>``
or ``agent_b.<field>``, and creates no job; a model sent as a number is said to be no
string, not to be missing."""

import pytest

from debates.models import DebateJob


def _launch(api_as, pool, **agents):
    body = {"pool": pool, "rounds": 1, **agents}
    return api_as("admin").post("/api/v1/jobs", body, content_type="application/json")


def test_a_model_given_as_a_number_is_a_422_saying_it_must_be_a_string(api_as, tiny_dataset):
    answer = _launch(api_as, tiny_dataset.pools.get().pk, agent_a={"backend": "openai", "model": 5})
    assert answer.status_code == 422, answer.content
    assert answer.json() == {
        "detail": "agent_a.model: must be a string, got 5",
        "errors": [
            {
                "field": "agent_a.model",
                "message": "must be a string, got 5",
                "type": "value_error",
                "loc": ["body", "payload", "agent_a", "model"],
            }
        ],
    }
    assert DebateJob.objects.count() == 0


@pytest.mark.parametrize(
    ("agents", "detail"),
    [
        (
            {"agent_b": {"backend": "openai"}},
            "agent_b.model: required for the openai backend (e.g. gpt-4o-mini)",
        ),
        (
            {
                "agent_a": {
                    "backend": "simulated",
                    "truth": "/t/q.tsv",
                    "dataset": "tiny",
                    "sensitivity": 2,
                }
            },
            "agent_a.sensitivity: must be between 0 and 1, got 2",
        ),
        (
            {"agent_a": {"backend": "openai", "model": "m", "colour": "red"}},
            "agent_a.colour: unknown field for the openai backend",
        ),
        (
            {"agent_b": {"backend": "nope"}},
            "agent_b.backend: must be one of embedded, openai, simulated, got 'nope'",
        ),
    ],
)
def test_a_malformed_agent_field_is_a_422_naming_the_agent_and_field(
    api_as, tiny_dataset, agents, detail
):
    answer = _launch(api_as, tiny_dataset.pools.get().pk, **agents)
    assert answer.status_code == 422, answer.content
    body = answer.json()
    assert body["detail"] == detail
    assert [e["field"] for e in body["errors"]] == [detail.split(": ")[0]]
    assert DebateJob.objects.count() == 0
