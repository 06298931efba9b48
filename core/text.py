"""Text from outside (LLM replies, users, documents) made storable, without losing it.

Python keeps any code point in a ``str``, but two kinds cannot leave the process intact:

- a lone surrogate (U+D800..U+DFFF not paired): a JSON escape such as ``"\\ud83d"`` decodes
  to one, and UTF-8 cannot encode it (``UnicodeEncodeError`` in the database driver, in a
  file export, in an HTTP response);
- NUL (U+0000): PostgreSQL text and jsonb cannot hold it ("PostgreSQL text fields cannot
  contain NUL").

:func:`text_storable` replaces both with U+FFFD (the replacement character), keeping a valid
pair such as 😀 intact; :func:`text_escaped` gives the lossless form to keep beside it when it
changed anything. Pure functions, no database.
"""

from __future__ import annotations

import json
import re

REPLACEMENT = "\ufffd"
# A NUL or any surrogate code point. Python's json module already joins a valid escaped pair
# ("\ud83d\ude00") into one code point, so a surrogate left in a str is lone, except when
# text was decoded with "surrogatepass"/"surrogateescape": those pairs are joined first.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def text_storable(text: str) -> str:
    """``text`` with every NUL and every lone surrogate replaced by U+FFFD; a surrogate pair
    held as two code points is joined into the one character it encodes. Returns ``text``
    itself when there is nothing to replace (the common case costs one regex search)."""
    if not _UNSTORABLE.search(text):
        return text
    if any("\ud800" <= char <= "\udfff" for char in text):
        # UTF-16 round trip: joins well-formed pairs, turns each lone surrogate into U+FFFD.
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text.replace("\x00", REPLACEMENT)


def text_escaped(text: str) -> str | None:
    """The lossless form of ``text`` to store beside its :func:`text_storable` form: a JSON
    string literal in ASCII (``"\\ud83d"``, ``"\\u0000"`` stay escapes), or None when
    ``text`` was storable as it is. ``json.loads`` of it gives ``text`` back exactly."""
    if not _UNSTORABLE.search(text):
        return None
    return json.dumps(text, ensure_ascii=True)


def text_capped(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters plus a marker that says how much was
    cut (``"… [12,345 more characters cut]"``); unchanged when it fits. ``limit`` >= 0."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit:,} more characters cut]"


def plural(count: int, one: str, many: str = "") -> str:
    """``count`` with thousands separators and its noun: ``one`` for 1, else ``many``
    (default ``one`` + "s"): ``plural(1, "pair")`` is "1 pair", ``plural(2, "query",
    "queries")`` "2 queries", ``plural(1200, "pair")`` "1,200 pairs"."""
    return f"{count:,} {one if count == 1 else many or one + 's'}"
