"""Forms of the judging and adjudication pages."""

from __future__ import annotations

from django import forms

from .services import NOTE_MAX_CHARS

LABEL_CHOICES = [("1", "relevant"), ("0", "not relevant")]


class JudgmentForm(forms.Form):
    """One submission from the judging page. ``client_id`` is made by the browser
    (``crypto.randomUUID``) so a re-send is recognised; ``seconds`` is the time on task."""

    client_id = forms.UUIDField()
    label = forms.TypedChoiceField(choices=LABEL_CHOICES, coerce=int)
    note = forms.CharField(required=False, max_length=NOTE_MAX_CHARS, strip=True)
    seconds = forms.FloatField(required=False)


class UndoForm(forms.Form):
    """An undo from the judging page: ``undo`` is the ``client_id`` of the judgment to undo,
    which the page carries (empty when it knows of none), so a re-sent undo names the same
    judgment and cannot undo the one before it."""

    undo = forms.UUIDField(required=False)


class AdjudicationForm(forms.Form):
    """An admin's final label for a pair, with an optional note."""

    label = forms.TypedChoiceField(choices=LABEL_CHOICES, coerce=int, widget=forms.RadioSelect)
    note = forms.CharField(
        required=False, max_length=NOTE_MAX_CHARS, widget=forms.Textarea(attrs={"rows": 3})
    )
