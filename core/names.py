"""The one rule for what users name (dataset slugs, qrel sets, splits, runs, pools, refined
sets), the rule for a dataset's title, and free text made storable. Pure: no database.

A name appears in URLs, file names and downloads, so it is kept to a small safe alphabet:
1 to 100 of ASCII letters, digits, ``.``, ``_`` and ``-``, starting with a letter or digit,
never holding ``..``. That leaves out by construction path separators, control characters,
spaces and the bidirectional overrides (U+202E) that make a name read differently from what
it is. Lengths are checked here, before any database sees the value (SQLite does not enforce
``max_length``).

A title (a dataset's display name) may hold spaces and any printable character, but no
control, bidirectional or other invisible format character, at most 200 characters.

Free text (a job's note, a dataset's source) is kept as typed except what a database cannot
hold (:func:`core.text.text_storable`: NUL and lone surrogates become U+FFFD, on PostgreSQL
and SQLite alike) and must fit its field.
"""

from __future__ import annotations

import re
import unicodedata

from core.text import text_storable

NAME_MAX = 100
TITLE_MAX = 200
NAME_RULE = "1-100 letters, digits, '.', '_' or '-', starting with a letter or digit"
_NAME = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._-]*\Z")


class NameRefused(ValueError):
    """A name, title or text refused; the message starts with the field's name."""


def _char(char: str) -> str:
    """A character for a message: its code point and Unicode name (never the raw glyph,
    which may be invisible or reorder the message)."""
    fallback = "CONTROL" if unicodedata.category(char) == "Cc" else "UNNAMED"
    return f"U+{ord(char):04X} {unicodedata.name(char, fallback)}"


def _hidden(value: str) -> str | None:
    """The first control or invisible format character of ``value`` described, else None
    (category Cc: controls, NUL, newlines; Cf: bidirectional overrides, zero-width marks;
    Cs: lone surrogates)."""
    for char in value:
        if unicodedata.category(char) in {"Cc", "Cf", "Cs"}:
            return _char(char)
    return None


def _name_reason(value: str, max_length: int) -> str | None:
    if not value:
        return "it is empty"
    if len(value) > max_length:
        return f"it has {len(value):,} characters, at most {max_length} are allowed"
    if _NAME.match(value) and ".." not in value:
        return None
    hidden = _hidden(value)
    if hidden:
        return f"it holds a control or invisible character ({hidden})"
    if "/" in value or "\\" in value:
        return "it holds a path separator"
    if ".." in value:
        return "it holds '..'"
    if not value[0].isascii() or not value[0].isalnum():
        return "it must start with a letter or digit"
    bad = next(c for c in value if not (c.isascii() and (c.isalnum() or c in "._-")))
    return f"it holds {_char(bad)}"


def name_problem(value: str, *, field: str = "name", max_length: int = NAME_MAX) -> str | None:
    """Why ``value`` cannot be a name, as ``"<field>: ..."`` (None when it can): see the
    module docstring for the rule. The message never repeats the value itself."""
    reason = _name_reason(value, max_length)
    if reason is None:
        return None
    rule = NAME_RULE.replace("1-100", f"1-{max_length}")
    return f"{field}: {reason}; a name is {rule}"


def name_check(value: str, *, field: str = "name", max_length: int = NAME_MAX) -> str:
    """``value`` if it is a valid name (:func:`name_problem`), else :class:`NameRefused`
    naming ``field``."""
    problem = name_problem(value, field=field, max_length=max_length)
    if problem:
        raise NameRefused(problem)
    return value


def title_check(value: str, *, field: str = "name", max_length: int = TITLE_MAX) -> str:
    """``value`` without surrounding spaces if it can be a title: 1 to ``max_length``
    characters, none of them a control or invisible format character. Raises
    :class:`NameRefused` naming ``field``."""
    value = value.strip()
    if not value:
        raise NameRefused(f"{field}: it is empty")
    if len(value) > max_length:
        raise NameRefused(
            f"{field}: it has {len(value):,} characters, at most {max_length} are allowed"
        )
    hidden = _hidden(value)
    if hidden:
        raise NameRefused(f"{field}: it holds a control or invisible character ({hidden})")
    return value


def text_clean(value: str, *, field: str, max_length: int) -> str:
    """Free text made storable (NUL and lone surrogates to U+FFFD, as replies are) if it
    fits ``max_length`` characters; else :class:`NameRefused` naming ``field``."""
    value = text_storable(value)
    if len(value) > max_length:
        raise NameRefused(
            f"{field}: it has {len(value):,} characters, at most {max_length} are allowed"
        )
    return value
