"""Highlighting query terms and evidence quotes in a chunk, as plain segments. Pure: no database.

Pages never build HTML from text: :func:`segments` cuts the text into ``(text, kinds)``
pieces and the template renders each piece with autoescaping, wrapping highlighted ones in
``<mark class="...">``. So a chunk holding markup stays text whatever is highlighted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# Words too common to be worth highlighting as query terms.
STOPWORDS = frozenset(
    """a an and are as at be but by can do does did for from had has have how i if in into is it
    its may more most no not of on or our should so such than that the their them then there
    these they this those to was we were what when where which while who whom why will with
    would you your""".split()
)
_WORD = re.compile(r"\w+", re.UNICODE)
MIN_TERM_CHARS = 3


def query_terms(query: str) -> list[str]:
    """The query's words worth highlighting: case-folded, at least 3 characters, no stopwords,
    each once, in query order."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(query.casefold()):
        if len(word) >= MIN_TERM_CHARS and word not in STOPWORDS:
            seen.setdefault(word, None)
    return list(seen)


def _base(word: str) -> str:
    # A trailing plural "s" does not stop a match ("fracture" finds "fractures").
    return word[:-1] if len(word) > MIN_TERM_CHARS and word.endswith("s") else word


def term_spans(text: str, terms: Iterable[str]) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the whole words of ``text`` matching ``terms``
    (case-insensitive, a trailing plural "s" ignored on either side), in text order."""
    wanted = {_base(t.casefold()) for t in terms}
    return [
        (m.start(), m.end()) for m in _WORD.finditer(text) if _base(m.group().casefold()) in wanted
    ]


@dataclass(frozen=True, slots=True)
class Segment:
    """A piece of text and the highlight kinds covering it (empty: plain text)."""

    text: str
    kinds: frozenset[str] = frozenset()

    @property
    def css(self) -> str:
        """CSS classes for the ``<mark>``: ``hl-<kind>`` per kind, sorted; "" when plain."""
        return " ".join(f"hl-{kind}" for kind in sorted(self.kinds))


def segments(text: str, marks: Sequence[tuple[int, int, str]]) -> list[Segment]:
    """Cut ``text`` at every mark boundary; each piece carries the kinds of the marks over it.

    ``marks`` are ``(start, end, kind)`` character spans (overlaps allowed; spans outside the
    text are clipped, empty ones ignored). Joining the pieces' text gives ``text`` back.
    """
    length = len(text)
    clipped = [
        (max(0, s), min(length, e), kind) for s, e, kind in marks if min(length, e) > max(0, s)
    ]
    cuts = sorted({0, length, *(s for s, _, _ in clipped), *(e for _, e, _ in clipped)})
    out: list[Segment] = []
    for start, end in zip(cuts, cuts[1:], strict=False):
        kinds = frozenset(kind for s, e, kind in clipped if s <= start and end <= e)
        if out and out[-1].kinds == kinds:
            out[-1] = Segment(out[-1].text + text[start:end], kinds)
        else:
            out.append(Segment(text[start:end], kinds))
    return out
