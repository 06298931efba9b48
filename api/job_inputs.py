"""What a new job's request takes (``JobIn``, built from the launch's job options), as the
API's OpenAPI document shows it: an agent's backend config (the fields of
:class:`debates.llm.config.AgentConfig` a client may send, typed and described, so that a
client reading ``/api/v1/docs`` sees what ``agent_a`` and ``agent_b`` take) and the
``Idempotency-Key`` header's form. The launch checks both itself."""

from __future__ import annotations

from types import UnionType
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Optional,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from ninja import Field
from pydantic import WithJsonSchema, create_model

from debates.llm.config import BACKENDS
from debates.services.launch import JobOptions, job_option_default, job_option_names

from .common import MAX_ID, WHOLE, StrictIn, Whole


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


def _whole(annotation: Any) -> Any:
    """``annotation`` with every whole-number part taking ``3.0`` as 3 (:data:`WHOLE`, after
    its range, or the document loses the range); other types as they are."""
    if annotation is int:
        return Whole
    if get_origin(annotation) is Annotated and get_args(annotation)[0] is int:
        return Annotated[annotation, WHOLE]  # nested: Annotated[int, range, WHOLE]
    args = get_args(annotation)
    if get_origin(annotation) in (Union, UnionType) and type(None) in args and len(args) == 2:
        inner = next(arg for arg in args if arg is not type(None))
        return Optional[_whole(inner)]  # noqa: UP045 (built at run time, not written)
    return annotation


def _job_in() -> type[StrictIn]:
    """The input schema of a new job, built from :class:`~debates.services.launch.JobOptions`
    (its types, ranges and defaults, in its order): only the pool (an id), the agents (JSON
    backend configs, parsed at the launch) and the typed ``api_keys`` are the API's own."""
    hints = get_type_hints(JobOptions, include_extras=True)
    own: dict[str, Any] = {
        "pool": (Whole, Field(..., ge=1, le=MAX_ID)),
        "agent_a": (AgentConfigIn, None),
        "agent_b": (AgentConfigIn, None),
    }
    options = {
        name: (_whole(hints[name]), job_option_default(name))
        for name in job_option_names(api=True)
        if name not in own
    }
    schema: dict[str, Any] = {**own, **options, "api_keys": (dict[str, str] | None, None)}
    return create_model("JobIn", __base__=StrictIn, __doc__=JOB_IN_DOC, **schema)


JOB_IN_DOC = """A new debate job: the options of the job form, with its ranges (the launch service
    checks them again). ``agent_a`` and ``agent_b`` are backend configs (``{"backend":
    "openai", "model": ..., "base_url": ..., "reasoning_effort": ...}``; None: the embedded
    model; ``agent_b`` None: as agent A), never holding a key: ``api_keys`` ({"A": key, "B":
    key}) are stored only encrypted, as the form's key fields. ``batch``: the rounds go out
    as batch files (advanced with ``debate_batch``). ``allow_duplicate``: launch even when a
    running or paused job of the pool has the same debate settings (else 409).
    ``check_judged``: debate only the pool's judged pairs, to check the qrels' own labels
    (400 when the pool has none). ``reuse`` (default true): a pair an earlier job of the
    dataset settled as agreed with the same reuse key takes that label without a call; false
    asks every pair."""

if TYPE_CHECKING:

    class JobIn(StrictIn):
        """What the code reads of :func:`_job_in`'s schema by name (its own fields)."""

        pool: int
        agent_a: dict[str, Any] | None
        agent_b: dict[str, Any] | None
        api_keys: dict[str, str] | None

else:
    # Built once, at import: django-ninja reads it as any declared schema.
    JobIn = _job_in()
