"""Form fields for text people type: stored as typed, except what a database cannot hold.

Django's ``CharField`` refuses a NUL with "Null characters are not allowed." and lets a lone
surrogate (possible in a JSON body) through to the database, which then fails. A judgment's
note should never be lost over one stray character: :class:`StorableCharField` replaces both
with U+FFFD before validation (:func:`core.text.text_storable`).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.validators import ProhibitNullCharactersValidator

from core.text import text_storable


class StorableCharField(forms.CharField):
    """A ``CharField`` whose value has NUL and lone surrogates replaced with U+FFFD."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # The replacement below makes Django's NUL validator moot; drop it so a NUL is
        # replaced, not refused.
        nul = ProhibitNullCharactersValidator
        self.validators = [v for v in self.validators if not isinstance(v, nul)]

    def to_python(self, value: Any) -> str | None:
        """The typed text, NUL and lone surrogates replaced (see the module docstring)."""
        text = super().to_python(value)
        return text_storable(text) if text else text
