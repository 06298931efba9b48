"""Fixtures for the "refine again" page tests (import them explicitly; fixtures carry
``name=``, see ``ui_fixtures``).

``judged_after_refining`` is the ``holes`` world of :mod:`tests.refine_fixtures` after one
partial refinement and one human answer::

    (q1, d3) agreed relevant at round 1        -> consensus 1
    (q1, d5) agreed not relevant at round 2    -> consensus 0
    (q2, d6) agreed relevant at round 1        -> consensus 1
    (q2, d3) escalated (disagreement)          -> awaiting a human when ``test-dream-p`` is
                                                  refined (allow partial): 4 + 3 = 7 rows,
                                                  1 unresolved; then alice judges it 1

so refining again gives 4 original rows + 4 new labels (3 relevant, 1 not relevant) = 8.
"""

from __future__ import annotations

import uuid

import pytest

from .refine_fixtures import review, settle, user

FIRST = "test-dream-p"


@pytest.fixture(name="judged_after_refining")
def judged_after_refining_fixture(holes):
    """The world of the module docstring. Adds ``first`` (the QrelSet ``test-dream-p``) and
    ``item`` (the review item of (q2, d3), judged by alice) to the ``holes`` namespace."""
    from assess.models import Judgment
    from assess.refined.refine import qrels_refine

    settle(holes.debate("q1", "d3"), "agreed", label=1, round=1, minutes=1)
    settle(holes.debate("q1", "d5"), "agreed", label=0, round=2, minutes=2)
    settle(holes.debate("q2", "d6"), "agreed", label=1, round=1, minutes=4)
    escalated = settle(holes.debate("q2", "d3"), "escalated", reason="disagreement", minutes=3)
    holes.item = review(escalated, "escalated", [])
    holes.first = qrels_refine(pool=holes.pool, name=FIRST, allow_partial=True).qrel_set
    Judgment.objects.create(
        item=holes.item, annotator=user("alice"), label=1, client_id=uuid.uuid4()
    )
    return holes


def table_counts() -> dict[str, int]:
    """Rows of every table a refinement writes (to prove a refusal wrote nothing)."""
    from assess.models import LabelProvenance, Refinement
    from corpora.models import Qrel, QrelSet

    return {m.__name__: m.objects.count() for m in (QrelSet, Qrel, Refinement, LabelProvenance)}


def form_values(html: str) -> dict[str, str | None]:
    """What a browser would post from the page's ``#refine-form``: the selected pool, the
    name field's value and the checkbox if checked (parsed, never matched as text)."""
    from .ui_fixtures import html_elements

    elements, _ = html_elements(html)
    values: dict[str, str | None] = {}
    inside = False
    selecting = False
    for tag, attrs in elements:
        if tag == "form":
            inside = attrs.get("id") == "refine-form"
        if not inside:
            continue
        if tag == "select":
            selecting = attrs.get("name") == "pool"
        elif tag == "option" and selecting and "selected" in attrs:
            values["pool"] = attrs.get("value")
        elif tag == "input" and attrs.get("name") == "name":
            values["name"] = attrs.get("value")
        elif tag == "input" and attrs.get("name") == "csrfmiddlewaretoken":
            values["csrfmiddlewaretoken"] = attrs.get("value")
        elif tag == "input" and attrs.get("name") == "allow_partial" and "checked" in attrs:
            values["allow_partial"] = "on"
    return values
