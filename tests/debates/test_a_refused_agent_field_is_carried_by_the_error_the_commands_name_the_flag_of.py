"""A refused agent setting carries its agent and field on the error (``AgentFieldError``),
whatever the message's shape: ``model: why``, or a file's field and value, ``model_path
/m/x.gguf: not a GGUF file``; the commands name the flag from that field, so a second reading
of the message is not needed. A config that does not parse stays an ``AgentConfigError``
(the API's 422), a refused file does not."""

import pytest

from debates.services.backends import agent_config_build
from debates.services.common import AgentConfigError, AgentFieldError


@pytest.mark.django_db
def test_a_file_refusal_names_its_field_and_agent(tmp_path):
    text = tmp_path / "model.gguf"
    text.write_text("PLACEHOLDER weights\n")
    with pytest.raises(AgentFieldError) as refused:
        agent_config_build(fields={"backend": "embedded", "model_path": str(text)}, agent="B")
    error = refused.value
    assert (error.agent, error.field, type(error) is AgentFieldError) == ("B", "model_path", True)
    assert str(error) == (
        f"agent B: model_path {text}: not a GGUF file (it does not start with the GGUF magic bytes)"
    )
    assert error.reason == str(error).removeprefix("agent B: ")  # the value is part of it


def test_a_config_that_does_not_parse_names_its_field_and_the_reason_after_it():
    with pytest.raises(AgentConfigError) as refused:
        agent_config_build(fields={"backend": "openai"}, agent="A", untrusted=True)
    error = refused.value
    assert (error.agent, error.field, error.reason) == (
        "A",
        "model",
        "required for the openai backend (e.g. gpt-4o-mini)",
    )


def test_a_message_that_starts_with_no_field_has_none():
    error = AgentFieldError(agent="A", message="Nothing: here")
    assert (error.field, error.reason, str(error)) == (
        "",
        "Nothing: here",
        "agent A: Nothing: here",
    )
