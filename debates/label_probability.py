"""The probability of the label an agent gave, read from its reply's token logprobs. Pure.

An agent answers one JSON object whose label key (:data:`debates.parsing.LABEL_KEYS`)
holds the label: ``{"label": 1, ...}`` (:data:`debates.prompts.REPLY_FORMAT`). The token that
carries the label's value is found in the generated text the logprobs spell out (their tokens
joined): in the reply's answer (a reasoning model's ``<think>…</think>`` and any text before the
answer are skipped), the value right after the label key's colon. The label's probability is
then

- **normalised over the scale's label values** when the server listed alternatives
  (``top_logprobs``): P(label) = P(label's token) / sum of P(token) over the listed tokens that
  spell a value of the scale (e.g. P("1") / (P("1") + P("0"))). Tokens spelling the same value
  (" 1" and "1") add up. A value not among the alternatives counts 0: it is less likely than
  every listed one. This is the usual reading of a classifier's verbalised label (e.g. the
  "normalised label probability" of LLM relevance judges, Thomas et al., SIGIR 2024,
  arXiv 2309.10621, and of Zheng et al.'s calibrate-before-use, ICML 2021, arXiv 2102.09690);
- **the chosen token's own probability** exp(logprob) when the server listed none.

It is None when the label's token is not among the logprobs: no logprobs, logprobs of other
tokens only (of the reasoning, or of text that is not this answer), or a value token that does
not spell the parsed label (a multi-token word such as "irrelevant" split as "ir" "relevant").
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

from debates.llm.base import TokenLogprob
from debates.parsing import LABEL_KEYS, LABEL_WORDS
from debates.replies import THINK_CLOSE, reply_split

_KEY = re.compile(
    r'"(?:' + "|".join(re.escape(k) for k in LABEL_KEYS) + r')"\s*:\s*"?', re.IGNORECASE
)
_DIGITS = re.compile(r"[0-9]+")
_WORD = re.compile(r"[A-Za-z][A-Za-z -]*[A-Za-z]|[A-Za-z]")


def _value_of(text: str, values: Sequence[int], words: dict[str, int]) -> int | None:
    """The scale value ``text`` (a token's part from the value's start) spells, or None.

    Leading spaces and a quote are skipped; then a whole run of digits, or a whole word of
    ``words`` (case ignored), must follow and be a value of the scale."""
    text = text.lstrip().lstrip('"').lstrip()
    digits = _DIGITS.match(text)
    if digits:
        value = int(digits.group())
        return value if value in values else None
    word = _WORD.match(text)
    if word:
        named = words.get(" ".join(word.group().split()).lower())
        return named if named is not None and named in values else None
    return None


def _answer_start(joined: str, text: str) -> int:
    """Where the reply's answer begins in ``joined`` (the logprobs' tokens joined): at the
    answer's own text when ``joined`` holds it, else after the last ``</think>``, else 0."""
    answer = reply_split(text).answer.strip()
    found = joined.rfind(answer) if answer else -1
    if found >= 0:
        return found
    close = joined.rfind(THINK_CLOSE)
    return close + len(THINK_CLOSE) if close >= 0 else 0


def _token_at(tokens: Sequence[TokenLogprob], position: int) -> tuple[int, int] | None:
    """(index, start) of the token covering character ``position`` of the joined text."""
    start = 0
    for index, token in enumerate(tokens):
        end = start + len(token.token)
        if start <= position < end:
            return index, start
        start = end
    return None


def _probability_by_value(
    candidates: Iterable[tuple[str, float]],
    prefix: str,
    values: Sequence[int],
    words: dict[str, int],
) -> dict[int, float]:
    """Summed probability per scale value of the candidate tokens that begin with ``prefix``
    (the chosen token's text before the value, spaces ignored: " 1" and "1" are both the
    value 1 after a colon) and spell a value after it."""
    by_value: dict[int, float] = {}
    prefix = prefix.strip()
    for text, logprob in candidates:
        text = text.lstrip()
        if not text.startswith(prefix):
            continue
        value = _value_of(text[len(prefix) :], values, words)
        if value is not None:
            by_value[value] = by_value.get(value, 0.0) + math.exp(logprob)
    return by_value


def label_probability(
    *,
    text: str,
    label: int,
    logprobs: Sequence[TokenLogprob] | None,
    values: Sequence[int] = (0, 1),
) -> float | None:
    """P(``label``) from a reply's token ``logprobs`` (rules in the module docstring), in [0, 1].

    ``text`` is the reply's content as received (reasoning included), ``label`` the label
    :func:`debates.parsing.parse_reply` read from it, ``values`` the scale's labels ((0, 1)
    binary; 0..G graded). Words such as "relevant" count for binary scales only
    (:data:`debates.parsing.LABEL_WORDS`). Returns None when the label's token is not among
    the logprobs. Never raises for odd logprobs.

    Example: tokens ``'{"', 'label', '":', ' 1', ...`` where ``' 1'`` has logprob ln 0.6 and
    top ``[(' 1', ln 0.6), (' 0', ln 0.2), ('1', ln 0.1)]``: P(1) = (0.6 + 0.1) / (0.6 + 0.1
    + 0.2) = 0.7778.
    """
    if not logprobs:
        return None
    joined = "".join(token.token for token in logprobs)
    start = _answer_start(joined, text)
    key = _KEY.search(joined, start)
    if key is None:
        return None
    value_at = key.end()
    while value_at < len(joined) and joined[value_at].isspace():
        value_at += 1
    found = _token_at(logprobs, value_at)
    if found is None:
        return None
    index, token_start = found
    chosen = logprobs[index]
    prefix = chosen.token[: value_at - token_start]
    words = LABEL_WORDS if tuple(values) == (0, 1) else {}
    if _value_of(chosen.token[len(prefix) :], values, words) != label:
        return None  # the value token does not spell the parsed label
    if not chosen.top:
        return min(1.0, math.exp(chosen.logprob))
    candidates = dict(chosen.top)
    candidates.setdefault(chosen.token, chosen.logprob)
    by_value = _probability_by_value(candidates.items(), prefix, values, words)
    total = sum(by_value.values())
    if label not in by_value or total <= 0.0:
        return None
    return by_value[label] / total
