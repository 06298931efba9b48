"""Reading an agent's reply: strict JSON, a few label spellings, never a guessed label.

Pure functions, no database. A reply is accepted only when it is one JSON object (optionally
wrapped whole in a Markdown code fence) with exactly one label key whose value is a known
spelling of relevant or irrelevant. Everything else raises :class:`ReplyParseError` with the
reason, so the engine can re-ask once and then escalate: a reply that cannot be read must
never turn into a relevance label.

Graded replies (``max_grade=G``) are stricter still: the label must be a whole number 0..G
(a JSON integer or a string of digits) or exactly one of the rubric's grade names
(:func:`debates.rubric.grade_names`); see :func:`normalise_grade`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from debates import rubric

LABEL_KEYS = ("label", "relevance", "judgment", "judgement", "verdict")

# Spellings small models actually produce; compared after trimming, lower-casing and
# collapsing inner whitespace. "partially relevant" and the like are deliberately absent.
LABEL_WORDS = {
    "1": 1,
    "0": 0,
    "true": 1,
    "false": 0,
    "relevant": 1,
    "irrelevant": 0,
    "not relevant": 0,
    "non-relevant": 0,
    "nonrelevant": 0,
    "non relevant": 0,
    "not-relevant": 0,
    "yes": 1,
    "no": 0,
}

_FENCE = re.compile(r"\A```[ \t]*(?:json|JSON)?[ \t]*\n?(?P<body>.*?)\n?[ \t]*```\Z", re.DOTALL)


class ReplyParseError(ValueError):
    """A reply that cannot be read; ``reason`` says why in a short phrase."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ParsedReply:
    """A readable reply: ``label`` 1 (relevant) or 0 (irrelevant), or a grade 0..G for a
    graded reply; argument; quoted evidence."""

    label: int
    argument: str
    evidence: tuple[str, ...]


class _DuplicateKeyError(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    seen: dict[str, object] = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKeyError(key)
        seen[key] = value
    return seen


def normalise_label(value: object) -> int:
    """Map a label value to 1 or 0.

    Accepts 1/0 (also 1.0/0.0), true/false, and the strings in :data:`LABEL_WORDS`
    (case-insensitive, trimmed). Raises ReplyParseError for anything else: 2, -1, 0.5,
    "partially relevant", null, lists.
    """
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        if value in (0, 1):
            return value
        raise ReplyParseError(f"label out of range: {value}")
    if isinstance(value, float):
        if math.isfinite(value) and value in (0.0, 1.0):
            return int(value)
        raise ReplyParseError(f"label out of range: {value}")
    if isinstance(value, str):
        word = " ".join(value.split()).lower()
        if word in LABEL_WORDS:
            return LABEL_WORDS[word]
        raise ReplyParseError(f"label not understood: {value!r}")
    raise ReplyParseError(f"label has the wrong type: {type(value).__name__}")


_DIGITS = re.compile(r"\A[0-9]+\Z")


def normalise_grade(value: object, max_grade: int) -> int:
    """Map a graded reply's label to a grade 0..G (``max_grade`` = G).

    Accepts a JSON integer 0..G, a string of digits 0..G ("2", " 2 ") and exactly one of the
    rubric's grade names for G (case and surrounding or repeated whitespace ignored).
    Raises ReplyParseError for everything else, never guessing: a grade out of range (3 when
    G = 2, -1), any float, even a whole one (2.0 or "2.0": the schema asks for an integer, so
    a float is a reply that did not follow it), a fraction ("1/2", 1.5), a boolean, a word
    that is not a grade name of this rubric ("relevant" when G = 2, "yes"), null, lists.
    """
    names = {name: grade for grade, name in enumerate(rubric.grade_names(max_grade))}
    if isinstance(value, bool):
        raise ReplyParseError(f"grade must be a whole number 0..{max_grade}, got {value!r}")
    if isinstance(value, int):
        if 0 <= value <= max_grade:
            return value
        raise ReplyParseError(f"grade out of range 0..{max_grade}: {value}")
    if isinstance(value, float):
        raise ReplyParseError(f"grade must be a whole number 0..{max_grade}, got {value!r}")
    if isinstance(value, str):
        word = " ".join(value.split()).lower()
        if _DIGITS.match(word):
            grade = int(word)
            if grade <= max_grade:
                return grade
            raise ReplyParseError(f"grade out of range 0..{max_grade}: {value!r}")
        if word in names:
            return names[word]
        raise ReplyParseError(f"grade not understood: {value!r}")
    raise ReplyParseError(f"grade has the wrong type: {type(value).__name__}")


def parse_reply(
    text: str, *, finish_reason: str | None = None, max_grade: int | None = None
) -> ParsedReply:
    """Read one agent reply.

    ``text`` must be a JSON object ``{"label": ..., "argument": str, "evidence": [str]}``,
    optionally wrapped whole in a ```` ```json ```` fence. ``finish_reason`` "length" (the
    reply hit max_tokens) is a failure even if the text happens to parse. A missing
    ``argument`` reads as "" and a missing ``evidence`` as (); other keys are ignored.

    Raises ReplyParseError(reason) for: empty or refused replies, prose around the JSON,
    truncated JSON, a non-object, a missing or duplicated label key (``LABEL_KEYS``,
    case-insensitive), an unknown or out-of-range label, a non-string argument, evidence that
    is not a list of strings. With ``max_grade`` G the label is a grade read by
    :func:`normalise_grade` (ParsedReply.label is then 0..G).
    """
    if finish_reason == "length":
        raise ReplyParseError("reply cut off at the token limit (finish_reason=length)")
    body = text.strip()
    if not body:
        raise ReplyParseError("empty reply")
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group("body").strip()
    if not body.startswith("{"):
        raise ReplyParseError("reply is not a JSON object (text before the JSON or no JSON)")
    try:
        data = json.loads(body, object_pairs_hook=_no_duplicates)
    except _DuplicateKeyError as exc:
        raise ReplyParseError(f"duplicate key {exc.args[0]!r}") from None
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            raise ReplyParseError("text after the JSON object") from None
        raise ReplyParseError(f"invalid or truncated JSON ({exc.msg} at char {exc.pos})") from None
    if not isinstance(data, dict):
        raise ReplyParseError(f"reply is JSON but not an object: {type(data).__name__}")

    label_keys = [key for key in data if key.strip().lower() in LABEL_KEYS]
    if not label_keys:
        raise ReplyParseError("missing label")
    if len(label_keys) > 1:
        raise ReplyParseError(f"ambiguous: several label keys {label_keys}")
    value = data[label_keys[0]]
    label = normalise_label(value) if max_grade is None else normalise_grade(value, max_grade)

    argument = data.get("argument", "")
    if not isinstance(argument, str):
        raise ReplyParseError(f"argument must be a string, got {type(argument).__name__}")
    evidence = data.get("evidence", [])
    if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
        raise ReplyParseError("evidence must be a list of strings")
    return ParsedReply(label=label, argument=argument, evidence=tuple(evidence))


def _folded_with_offsets(text: str) -> tuple[str, list[int]]:
    # Case-fold and collapse whitespace runs to one space, remembering for every output
    # character the index of the input character it came from.
    out: list[str] = []
    origin: list[int] = []
    previous_space = False
    for index, char in enumerate(text):
        if char.isspace():
            if not previous_space:
                out.append(" ")
                origin.append(index)
            previous_space = True
            continue
        previous_space = False
        for folded in char.casefold():
            out.append(folded)
            origin.append(index)
    return "".join(out), origin


_QUOTE_MARKS = "\"'“”‘’«»`"


def evidence_spans(chunk: str, evidence: Sequence[str]) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the quotes of ``evidence`` found in ``chunk``.

    Matching ignores case and differences in whitespace, and surrounding quote marks or a
    trailing ellipsis on the quote. ``chunk[start:end]`` is the matched original text. The
    first occurrence of each quote counts; quotes not found (or empty) are skipped. Spans
    come in evidence order, one per found quote.
    """
    folded_chunk, origin = _folded_with_offsets(chunk)
    spans: list[tuple[int, int]] = []
    for quote in evidence:
        needle = quote.strip().strip(_QUOTE_MARKS).strip()
        needle = needle.removesuffix("...").removesuffix("…").strip()
        folded_quote, _ = _folded_with_offsets(needle)
        if not folded_quote:
            continue
        at = folded_chunk.find(folded_quote)
        if at < 0:
            continue
        spans.append((origin[at], origin[at + len(folded_quote) - 1] + 1))
    return spans
