"""Forms of the judging and adjudication pages."""

from __future__ import annotations

from typing import cast

from django import forms

from core.fields import StorableCharField
from debates.rubric import MAX_GRADE, grade_names

from .services import NOTE_MAX_CHARS

LABEL_CHOICES = [("1", "relevant"), ("0", "not relevant")]


def label_choices(top_grade: int) -> list[tuple[str, str]]:
    """The labels of a pair whose top label is ``top_grade``, highest first: binary (1)
    "relevant" / "not relevant", graded (2..4) "G (rubric name)" down to "0 (not relevant)"."""
    if top_grade == 1:
        return LABEL_CHOICES
    names = grade_names(top_grade)
    return [(str(g), f"{g} ({names[g]})") for g in range(top_grade, -1, -1)]


class JudgmentForm(forms.Form):
    """One submission from the judging page. ``client_id`` is made by the browser
    (``crypto.randomUUID``) so a re-send is recognised; ``seconds`` is the time on task."""

    client_id = forms.UUIDField()
    # Any label of any scale; judgment_record checks it against the pair's own scale.
    label = forms.TypedChoiceField(
        choices=[(str(g), str(g)) for g in range(MAX_GRADE + 1)], coerce=int
    )
    note = StorableCharField(required=False, max_length=NOTE_MAX_CHARS, strip=True)
    seconds = forms.FloatField(required=False)
    # Active seconds since the page's last heartbeat (static/judge.js); empty: not measured.
    active = forms.FloatField(required=False)


class ActiveTimeForm(forms.Form):
    """A heartbeat (or the beacon sent when the page is hidden or left) of the judging page:
    the active ``seconds`` measured since the last one it sent (the service clamps them)."""

    seconds = forms.FloatField()


class UndoForm(forms.Form):
    """An undo from the judging page: ``undo`` is the ``client_id`` of the judgment to undo,
    which the page carries (empty when it knows of none), so a re-sent undo names the same
    judgment and cannot undo the one before it."""

    undo = forms.UUIDField(required=False)


class AdjudicationForm(forms.Form):
    """An admin's final label for a pair, with an optional note; ``top_grade`` is the pair's
    top label (1 binary, G on a graded job), which sets the choices."""

    label = forms.TypedChoiceField(choices=LABEL_CHOICES, coerce=int, widget=forms.RadioSelect)
    note = StorableCharField(
        required=False, max_length=NOTE_MAX_CHARS, widget=forms.Textarea(attrs={"rows": 3})
    )

    def __init__(self, *args, top_grade: int = 1, **kwargs):
        super().__init__(*args, **kwargs)
        cast(forms.TypedChoiceField, self.fields["label"]).choices = label_choices(top_grade)


class QualityPolicyForm(forms.Form):
    """The gold accuracy floor (percent) and the gold answers it needs, set by an admin."""

    floor_percent = forms.DecimalField(
        min_value=0, max_value=100, decimal_places=2, label="Accuracy floor (%)"
    )
    min_answers = forms.IntegerField(
        min_value=1, max_value=100_000, label="after at least (gold answers)"
    )
