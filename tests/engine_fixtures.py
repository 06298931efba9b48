"""Helpers for the debate-engine tests: a hand-made pair, reply builders, block extraction.

No database and no model: the engine is driven by the scripted test doubles of
``debates/llm/scripted.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from debates.engine import PairText
from debates.llm.base import ChatMessage, LLMResult

# A SciFact-like pair: the chunk answers the query in its second sentence.
PAIR = PairText(
    query_id="q7",
    query="Does vitamin D supplementation reduce fracture risk in older adults?",
    doc_id="d42",
    title="Vitamin D and fractures",
    chunk=(
        "We pooled eleven randomised trials of older adults. "
        "Daily vitamin D of 800 IU reduced hip fractures by 30 percent. "
        "Lower doses showed no effect."
    ),
)

PAIR_WITH_ANSWERS = PairText(
    query_id=PAIR.query_id,
    query=PAIR.query,
    doc_id=PAIR.doc_id,
    title=PAIR.title,
    chunk=PAIR.chunk,
    answers=("yes, at 800 IU a day", "a 30 percent lower hip fracture risk"),
)


def reply(label: object, argument: str = "because", evidence: Sequence[str] = ()) -> str:
    """A well-formed agent reply as JSON text."""
    return json.dumps({"label": label, "argument": argument, "evidence": list(evidence)})


def result(
    text: str,
    *,
    prompt_tokens: int = 100,
    completion_tokens: int = 20,
    latency_ms: float = 50.0,
    finish_reason: str = "stop",
    model: str = "scripted",
) -> LLMResult:
    """An LLMResult with explicit token counts, for tests that add them up."""
    return LLMResult(
        text=text,
        model=model,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        latency_ms=latency_ms,
        finish_reason=finish_reason,
    )


def blocks(text: str, name: str) -> list[str]:
    """Contents of every ``<<<NAME`` ... ``NAME>>>`` block in ``text``, in order."""
    pattern = re.compile(rf"<<<{name}\n(.*?)\n{name}>>>", re.DOTALL)
    return pattern.findall(text)


def only_block(text: str, name: str) -> str:
    """Contents of the single ``NAME`` block of ``text`` (AssertionError if not exactly one)."""
    found = blocks(text, name)
    assert len(found) == 1, f"expected one {name} block, found {len(found)}"
    return found[0]


def outside_blocks(text: str) -> str:
    """``text`` with every delimited block removed: what the model reads as instructions."""
    return re.sub(r"<<<([A-Z_]+)\n.*?\n\1>>>", "", text, flags=re.DOTALL)


def stance_in(messages: list[ChatMessage]) -> str:
    """The initial stance named in a debate system prompt ("relevant" or "irrelevant")."""
    system = messages[0]["content"]
    match = re.search(r"Your initial stance: (RELEVANT|IRRELEVANT)", system)
    assert match, "no stance in the system prompt"
    return match.group(1).lower()


def round_of(messages: list[ChatMessage]) -> int:
    """The round number a debate user prompt asks for."""
    users = [m["content"] for m in messages if m["role"] == "user"]
    match = re.search(r"^Round (\d+)\.", users[0], flags=re.MULTILINE)
    assert match, "no round in the user prompt"
    return int(match.group(1))
