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

from core.names import NAME_MAX, TITLE_MAX, NameRefused, name_problem, title_check
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


class NameField(forms.CharField):
    """A name by the one rule of :mod:`core.names` (letters, digits, ``.``, ``_``, ``-``; at
    most 100), its error naming the field by ``label``. Empty is allowed when not required
    (the service then makes a default name)."""

    def __init__(self, *, max_length: int = NAME_MAX, **kwargs: Any) -> None:
        # Length is the name rule's (its message says the rule), not CharField's.
        super().__init__(**kwargs)
        self.name_max = max_length
        self.widget.attrs.setdefault("maxlength", str(max_length))

    def validate(self, value: Any) -> None:
        """Required-ness as CharField, then the name rule."""
        super().validate(value)
        if value:
            problem = name_problem(value, field=str(self.label or "name"), max_length=self.name_max)
            if problem:
                raise forms.ValidationError(problem, code="name")


class TitleField(StorableCharField):
    """A title such as a dataset's display name (:func:`core.names.title_check`): spaces
    and any printable character, no control or invisible format character, at most 200."""

    def validate(self, value: Any) -> None:
        """Required-ness as CharField, then the title rule."""
        super().validate(value)
        if value:
            try:
                title_check(value, field=str(self.label or "name"), max_length=TITLE_MAX)
            except NameRefused as exc:
                raise forms.ValidationError(str(exc), code="title") from None
