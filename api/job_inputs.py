"""What a new job's request takes, as the API's OpenAPI document shows it: an agent's backend
config (the fields of :class:`debates.llm.config.AgentConfig` a client may send, typed and
described, so that a client reading ``/api/v1/docs`` sees what ``agent_a`` and ``agent_b``
take) and the ``Idempotency-Key`` header's form. The launch checks both itself."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import WithJsonSchema

from debates.llm.config import BACKENDS


def _nullable(kind: str, description: str, **more: Any) -> dict[str, Any]:
    return {"anyOf": [{"type": kind, **more}, {"type": "null"}], "description": description}


# The agent config as the OpenAPI document shows it (debates.llm.config.AgentConfig's fields
# a client may send; the test suite's backend is left out). The launch parses the object
# itself (AgentConfig.load), so a config the document allows may still be refused with a
# 422 naming ``agent_a.<field>``; the document only tells a client what it may send.
AGENT_CONFIG_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {
            "type": "object",
            "title": "AgentConfig",
            "properties": {
                "backend": {
                    "type": "string",
                    "enum": list(BACKENDS),
                    "description": "embedded (in-process GGUF; the default), openai "
                    "(any OpenAI-compatible server) or simulated (answers from a truth qrels "
                    "file; its labels are marked simulated)",
                },
                "model": {"type": "string", "description": "the server's model name"},
                "base_url": _nullable("string", "the server's URL (an allowed host)"),
                "api_key_env": _nullable(
                    "string", "NAME of an allowed environment variable holding the key"
                ),
                "timeout": _nullable("number", "seconds per request", exclusiveMinimum=0),
                "context_window": _nullable("integer", "tokens", minimum=1),
                "rpm": _nullable("integer", "requests per minute, all workers", minimum=1),
                "n_ctx": _nullable("integer", "embedded: tokens of context", minimum=1),
                "model_path": _nullable("string", "embedded: a .gguf in DREAM_MODELS_DIR"),
                "reasoning_effort": _nullable(
                    "string", "none, minimal, low, medium or high (reasoning models)"
                ),
                "extra_body": _nullable("object", "sent into every request as it is"),
                "truth": _nullable("string", "simulated: the truth qrels file's name"),
                "dataset": _nullable("string", "simulated: the truth's dataset slug"),
                "sensitivity": _nullable("number", "simulated: P(relevant | relevant)"),
                "specificity": _nullable("number", "simulated: P(not | not relevant)"),
                "persistence": _nullable("number", "simulated: P(keep own label)"),
                "seed": _nullable("integer", "simulated: the seed"),
            },
            "additionalProperties": False,
        },
        {"type": "null"},
    ],
    "default": None,
    "description": "One agent's backend (null: the embedded model; agent_b null: as agent "
    "A); never a key: send keys in api_keys.",
}
AgentConfigIn = Annotated[dict[str, Any] | None, WithJsonSchema(AGENT_CONFIG_SCHEMA)]


# The key's form said in the document only: the launch checks it and words its refusal. No
# space at either end, which HTTP strips before the app sees the header.
IdempotencyKeyIn = Annotated[
    str | None,
    WithJsonSchema(
        {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[!-~]([ -~]*[!-~])?$"}
    ),
]
