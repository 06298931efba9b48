"""Untrusted text as inert Markdown: the datasheet's writers. Pure: no database.

A value from the database or a user (a dataset name, a model name, a note) is written on one
line (:func:`one_line`), then either inside a code span (:func:`md_code`) or a fenced block
(:func:`md_fenced`), rendered verbatim, or with the characters Markdown reads as syntax
backslash-escaped (:func:`md_title` in a heading, :func:`md_inline` mid-line). So no value can
open a link, a heading, a table, raw HTML or a new line of the document. The escaped
characters follow CommonMark 0.31 (backslash escapes, inline constructs) and GitHub Flavored
Markdown's extensions (tables, strikethrough, extended autolinks, math).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Line breaks of any kind (CommonMark, Unicode) become spaces; other control characters and
# bidirectional overrides (which can reorder what a reader sees) become U+FFFD.
_BREAKS = re.compile(r"[\t\n\v\f\r\x85\u2028\u2029]")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# The characters that can open an inline construct mid-line (emphasis, code, link, image,
# autolink, raw HTML, entity, strikethrough, table cell) and the escape itself: "(", "'" or
# "," can do nothing once "[", "]" and "<" are escaped.
_INLINE = re.compile(r"([\\`*_\[\]<>&~|])")
# In a heading's words, beyond those: ":" and "@", which GitHub turns into a link after
# "http", "https" or "mailto", or around an e-mail address, the "." after "www", which
# starts one too (GFM's extended autolinks), and "$", which opens math on GitHub.
_TITLE = re.compile(r"([\\`*_\[\]<>&~|:@$])")
_WWW = re.compile(r"(?i)(www)\.")
_BACKTICKS = re.compile(r"`+")


def one_line(value: str) -> str:
    """``value`` on one line: line breaks as spaces, other control characters and
    bidirectional overrides as U+FFFD."""
    return _CONTROLS.sub("\ufffd", _BREAKS.sub(" ", value))


def md_title(value: str) -> str:
    """``value`` as inert Markdown words of a heading: on one line, with a backslash before
    each character that could open an inline construct there (emphasis, code, link, image,
    raw HTML, entity, strikethrough, table cell, math, an autolink's ``:``, ``@`` or
    ``www.``) and before a leading ``#``; any other character, a hyphen or a dot, stays as it
    is, so a name such as ``nfcorpus-test`` reads as itself in the text too."""
    text = _WWW.sub(r"\1\\.", _TITLE.sub(r"\\\1", one_line(value)))
    return "\\" + text if text.startswith("#") else text


def md_inline(value: str) -> str:
    """``value`` as inert Markdown text in the middle of a line (after a list item's words,
    never where a heading, list or block could start): on one line, only the characters of
    :data:`_INLINE` escaped, so a note reads as plain text too ("'label 1, round 2' (11
    pairs)", not "\\'label 1\\, round 2\\' \\(11 pairs\\)")."""
    return _INLINE.sub(r"\\\1", one_line(value))


def _fence(text: str, *, at_least: int) -> str:
    # One backtick more than the longest run inside: the content can never close it.
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    return "`" * max(longest + 1, at_least)


def md_code(value: str, *, empty: str = "(none)") -> str:
    """``value`` as a Markdown code span (rendered verbatim: no link, emphasis or HTML);
    ``empty`` (our own plain text) when ``value`` is empty."""
    text = one_line(value)
    if not text:
        return empty
    fence = _fence(text, at_least=1)
    if text[0] in "` " or text[-1] in "` ":
        # CommonMark strips one space on each side: pad so a leading backtick or space stays.
        text = f" {text} "
    return f"{fence}{text}{fence}"


def md_fenced(info: str, lines: Iterable[str]) -> list[str]:
    """A fenced code block of ``lines`` (one per line) whose fence no line can close."""
    body = [one_line(line) for line in lines]
    fence = _fence("\n".join(body), at_least=3)
    return [f"{fence}{info}", *body, fence]
