"""A reply's answer kept apart from its reasoning. Pure: no database.

Reasoning models (Qwen3, DeepSeek-R1 distills, gpt-oss, QwQ) think before they answer, and
servers hand the thinking back in one of three ways (``docs/debates-and-backends.md``,
"Reasoning models"):

- in a field of its own: vLLM >= 0.11 with a reasoning parser sends ``message.reasoning``,
  older vLLM, SGLang and llama.cpp's server (``--reasoning-format deepseek``)
  ``message.reasoning_content``; the content is then the answer alone;
- inside the content, as ``<think>…</think>`` then the answer (a server without a reasoning
  parser);
- inside the content without the opening tag, ``…</think>`` then the answer, when the chat
  template put ``<think>`` into the prompt (Qwen3, R1 distills; vLLM PR 33866).

:func:`reply_split` takes the answer as the content after the LAST ``</think>``, and the
reasoning as everything before it plus the reasoning field. A content that opens ``<think>``
and never closes it was cut inside its reasoning: its answer is empty. The reasoning is never
parsed as the answer.
"""

from __future__ import annotations

from dataclasses import dataclass

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"


@dataclass(frozen=True, slots=True)
class SplitReply:
    """``answer``: the text to parse as the agent's reply ("" when there is none; the
    content verbatim when it holds no reasoning tags).
    ``reasoning``: the reasoning, from the server's field and from the content, joined by a
    blank line ("" when there is none). ``unclosed``: the content opened ``<think>`` and
    never closed it (a reply cut inside its reasoning)."""

    answer: str
    reasoning: str
    unclosed: bool = False


def reply_split(content: str, reasoning_field: str = "") -> SplitReply:
    """Split one reply into answer and reasoning (rules in the module docstring).

    ``content`` is the message content ("" for null), ``reasoning_field`` the server's
    ``reasoning``/``reasoning_content`` ("" for none). Examples: ``"<think>a</think>{..}"`` →
    answer ``"{..}"``, reasoning ``"a"``; ``"a</think>{..}"`` → the same; ``"<think>a"`` →
    answer ``""``, reasoning ``"a"``, unclosed; ``"{..}"`` → answer ``"{..}"``.
    """
    close = content.rfind(THINK_CLOSE)
    unclosed = False
    if close >= 0:
        thought = content[:close].strip()
        answer = content[close + len(THINK_CLOSE) :].strip()
    elif content.lstrip().startswith(THINK_OPEN):
        thought, answer, unclosed = content.lstrip(), "", True
    else:
        thought, answer = "", content  # verbatim: a re-ask quotes it back as it came
    thought = thought.removeprefix(THINK_OPEN).strip()
    reasoning = "\n\n".join(part for part in (reasoning_field.strip(), thought) if part)
    return SplitReply(answer=answer, reasoning=reasoning, unclosed=unclosed)
