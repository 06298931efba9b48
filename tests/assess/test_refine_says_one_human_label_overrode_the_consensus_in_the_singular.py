"""``refine`` counts the human labels that overrode the debate consensus in words that agree
with the count: the demo's refine after its two audits printed "1 human labels overrode".
The ``holes`` world (tests/fixtures/refine.py) settled by ``settle_all``."""

import io

import pytest
from django.core.management import call_command

from tests.fixtures.refine import settle_all


@pytest.mark.django_db
def test_one_override_is_one_human_label(holes):
    # Of the four pairs only (q2, d6) has a human label against a consensus: agreed relevant,
    # audited not relevant by bob. (q2, d3) was escalated, so it had no consensus to override.
    settle_all(holes)
    out = io.StringIO()
    call_command("refine", "holes/p", "--name", "singular", stdout=out)
    lines = out.getvalue().splitlines()
    assert "1 human label overrode the debate consensus" in lines
    assert not any("human labels overrode" in line for line in lines)
