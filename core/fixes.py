"""Errors that say which option would get past them, worded for the interface that received
the request. Pure: no database.

A service that refuses something an option would allow (rows with unknown ids: the
``unknown_ids`` option set to ``"drop"``) raises an error carrying an :class:`OptionFix`:
the option's key as the services and the API name it, the value to give, and what it does.
Each interface words it: the command line as its flag (``pass --unknown-ids drop to skip
those rows``), the API as its JSON field (``send "unknown_ids": "drop" to skip those rows``),
the browser as its form control's label (``choose "drop" for "Unknown ids" to skip those
rows``). ``str()`` of such an error is the command line's wording, so the commands print it
unchanged; the API and the pages call :func:`error_worded`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: The interfaces an error is worded for; "plain" leaves the fix out (stored apart).
INTERFACES = ("cli", "api", "browser", "plain")


def option_flag(key: str) -> str:
    """The command-line flag of the option the services and the API call ``key``:
    ``--unknown-ids`` for ``unknown_ids``, ``--stage0-beta`` for ``stage0_beta`` (argparse
    makes a flag's dest by the reverse replacement)."""
    return "--" + key.replace("_", "-")


@dataclass(frozen=True, slots=True)
class OptionFix:
    """An option that gets past an error: ``key`` as the services and the API name it
    (``"unknown_ids"``), the ``value`` to give (a string, True for a switch, None for a
    value of the user's own, such as a name) and its ``purpose`` as the end of a sentence
    (``"to skip those rows (counted and listed)"``, or ""); ``flag`` the command's flag when
    it is not :func:`option_flag` of the key (``--format`` for the API's ``fmt``), else ""."""

    key: str
    value: str | bool | None
    purpose: str
    flag: str = ""

    def words(self, interface: str, label: str = "", choice: str = "") -> str:
        """The fix as ``interface`` says it ("cli", "api" or "browser"; for the browser
        ``label`` is the form control's label, else the key, and ``choice`` the label of the
        value to choose, else the value). Raises ValueError for another interface."""
        end = f" {self.purpose}" if self.purpose else ""
        if interface == "cli":
            flag = self.flag or option_flag(self.key)
            given = flag if self.value is True or self.value is None else f"{flag} {self.value}"
            return f"pass {given}{end}"
        if interface == "api":
            if self.value is None:
                return f"send {json.dumps(self.key)}{end}"
            return f"send {json.dumps(self.key)}: {json.dumps(self.value)}{end}"
        if interface == "browser":
            name = label or self.key.replace("_", " ")
            if self.value is True:
                return f'tick "{name}"{end}'
            if self.value is None:
                return f'fill in "{name}"{end}'
            return f'choose "{choice or self.value}" for "{name}"{end}'
        raise ValueError(f"interface must be one of cli, api, browser, got {interface!r}")

    def browser_words(self, form: Any = None) -> str:
        """The browser's wording, with the label and choice of ``form``'s control for this
        option (any object with Django-style ``fields``; without one, the key)."""
        field = (getattr(form, "fields", None) or {}).get(self.key)
        label = str(getattr(field, "label", "") or "")
        choices = {str(v): str(t) for v, t in getattr(field, "choices", ()) or ()}
        return self.words("browser", label, choices.get(str(self.value), ""))

    def as_dict(self) -> dict[str, Any]:
        """The fix as JSON can store it: ``{"key", "value", "purpose"}``, and ``"flag"`` when
        the command's flag is not the key's."""
        flag = {"flag": self.flag} if self.flag else {}
        return {"key": self.key, "value": self.value, "purpose": self.purpose, **flag}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> OptionFix | None:
        """A fix stored by :meth:`as_dict`, or None for no (or a malformed) fix."""
        if not data or not {"key", "value", "purpose"} <= set(data):
            return None
        return cls(
            key=str(data["key"]),
            value=data["value"],
            purpose=str(data["purpose"]),
            flag=str(data.get("flag") or ""),
        )


class FixableError(ValueError):
    """A refusal an option would get past: ``bare`` the message without the fix, ``fix``
    the :class:`OptionFix` (or None). ``str()`` is the command line's wording."""

    def __init__(self, message: str, fix: OptionFix | None = None) -> None:
        self.bare = message
        self.fix = fix
        super().__init__(self.worded("cli"))

    def worded(self, interface: str, form: Any = None) -> str:
        """The message for ``interface`` (see :data:`INTERFACES`; for the browser ``form``
        names the control, see :meth:`OptionFix.browser_words`)."""
        if self.fix is None or interface == "plain":
            return self.bare
        if interface == "browser":
            return f"{self.bare}; {self.fix.browser_words(form)}"
        return f"{self.bare}; {self.fix.words(interface)}"


def error_worded(exc: BaseException, interface: str, form: Any = None) -> str:
    """``exc``'s message for ``interface``: an error with a ``worded`` method (a
    :class:`FixableError`, a file format error) words its fix itself (for the browser with
    ``form``'s labels); any other is ``str``."""
    worded = getattr(exc, "worded", None)
    return str(worded(interface, form)) if callable(worded) else str(exc)


def error_fix(exc: BaseException) -> OptionFix | None:
    """The :class:`OptionFix` ``exc`` carries, or None."""
    fix = getattr(exc, "fix", None)
    return fix if isinstance(fix, OptionFix) else None
