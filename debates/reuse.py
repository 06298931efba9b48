"""The reuse key of a debate job: what must be equal for an earlier job's settled label of a
pair to stand for a new job's debate of it. Pure, no database.

A debate's outcome depends on the pair and on everything that shapes the agents' requests
and the reading of their replies. Two debates of one pair are the same debate, and the
second need not be asked, when these are equal (the key's fields, :data:`KEY_FIELDS`):

- the dataset (its primary key): a pair is a query and a document *of that dataset*, so a
  key of one dataset never equals a key of another, whatever their ids say;
- both agents' full backend configs as a job stores them (:meth:`debates.llm.config.
  AgentConfig.dump`: backend, model or model file, endpoint, context, reasoning options and
  ``extra_body``), without the fields that only pace the requests and never change a reply
  (:data:`PACING_FIELDS`: ``rpm`` and ``timeout``);
- the sampling settings (temperature, the token budget and its cap), the prompt version,
  the scale with its top grade, R (rounds), the consensus rule and the agreement
  probability floor below which an agreement escalates.

Batch mode, concurrency, stage 0 and the human side (audit, gold, budget) are not part of
it: they change how and when the debates run, or what happens after, never a debate's
label. A debate's key is its job's key with its pair's query and document: an earlier
debate is reused when its job has the new job's key and its pair the same query and
document (of the one dataset the key names). Keys are SHA-256 hex digests of canonical
JSON (sorted keys, no spaces), so equal settings give equal keys in every process and
database.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Final

#: The stored job fields (``DebateJob``) that make up the key, besides the dataset.
KEY_FIELDS: Final = (
    "agent_a",
    "agent_b",
    "rounds",
    "temperature",
    "max_tokens",
    "max_tokens_cap",
    "prompt_version",
    "scale",
    "max_grade",
    "consensus",
    "min_agreement_probability",
)
#: Agent config fields that pace requests (rate limit, patience) and never change a reply.
PACING_FIELDS: Final = ("rpm", "timeout")
#: Characters of a key shown on pages and in the API (the stored key has 64).
SHORT: Final = 12
#: Bumped if the key's recipe changes, so an old key never equals a new one by accident.
VERSION: Final = 1


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _agent(config: Mapping[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (config or {}).items() if k not in PACING_FIELDS}


def job_reuse_key(*, dataset_id: int, settings: Mapping[str, Any]) -> str:
    """The reuse key (64 hex digits) of a job of dataset ``dataset_id`` with ``settings``, a
    mapping holding at least :data:`KEY_FIELDS` as the job stores them (agents as their
    stored JSON dicts). Raises KeyError naming a missing field."""
    missing = [name for name in KEY_FIELDS if name not in settings]
    if missing:
        raise KeyError(f"reuse key: missing {', '.join(missing)}")
    fields = {name: settings[name] for name in KEY_FIELDS}
    fields["agent_a"], fields["agent_b"] = _agent(fields["agent_a"]), _agent(fields["agent_b"])
    fields["temperature"] = float(fields["temperature"])
    fields["min_agreement_probability"] = float(fields["min_agreement_probability"])
    text = _canonical({"version": VERSION, "dataset": int(dataset_id), **fields})
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def key_short(key: str) -> str:
    """The first :data:`SHORT` hex digits of a key, as pages show it ("" for none)."""
    return key[:SHORT]
