"""The n of an interval counts every human label behind it: the audited labels (the
estimator's sample) and the escalated pairs' labels (a take-all stratum, in every estimate as
they are); where space allows the split is shown, e.g. ``2 (1 audited, 1 escalated)``, and
every interval shown carries its n: per system, the naive ones, the system pairs and Kendall's
tau, in the printout and in the API's JSON (the ``holes`` world of tests/fixtures/refine.py:
one audited pair, one escalated pair)."""

import io
import re

import pytest
from django.core.management import call_command

from tests.fixtures.refine import refined_at_share

pytestmark = pytest.mark.django_db

SPLIT = {"n": 2, "n_audited": 1, "n_escalated": 1}


@pytest.fixture
def audited(refined):
    return refined_at_share(refined, 0.5)


def rows(text: str, title: str) -> list[list[str]]:
    """The rows of the printed table ``title`` (split on two or more spaces)."""
    lines = text.split(title + "\n")[1].splitlines()
    return [re.split(r"\s{2,}", line) for line in lines[2:] if line and "  " in line]


def test_the_printout_gives_each_system_and_each_pair_its_n_with_the_split(audited):
    out = io.StringIO()
    call_command("rebenchmark", "holes", "--refined", "test-dream", "--no-per-query", stdout=out)
    text = out.getvalue()
    systems = rows(text, "Intervals (95%) on the refined qrels, prediction-powered")
    assert [r[0] for r in systems[:2]] == ["alpha", "beta"]
    # n_b: the audited pair (q2, d6) is in alpha's top 10, not in beta's (it moves beta's
    # nDCG@10 only through the ideal DCG, so it bears on alpha's value alone).
    for row, bearing in zip(systems[:2], (1, 0), strict=True):
        assert row[-1] == "2 (1 audited, 1 escalated)"
        # The naive intervals carry theirs: the debate labels alone rest on the escalated
        # pair's human label only; the humans-only one on both.
        # The LLM-only bootstrap's own sample is the queries it resamples.
        # The humans-only one rests on fewer than 5 labels bearing on it: the whole range.
        assert row[4].endswith("(n = 1; 2 queries resampled)") and row[5].endswith(
            f"(whole range; n = 2; n_b = {bearing})"
        )
    pairs = rows(text, "System pairs: nDCG@10 difference on the refined qrels (a - b)")
    assert pairs[0][:2] == ["alpha", "beta"] and pairs[0][-1] == "2 (1 audited, 1 escalated)"
    assert "n = 2 (1 audited, 1 escalated) human labels" in text  # Kendall's tau


def test_the_api_gives_every_interval_its_n_with_the_split(audited, api_as):
    body = api_as("researcher").get("/api/v1/datasets/holes/refined/test-dream/rebenchmark")
    intervals = body.json()["intervals"]
    for by in intervals["systems"].values():
        for cell in by.values():
            assert {k: cell[k] for k in SPLIT} == SPLIT and cell["n_human"] == 2
    llm = intervals["naive"]["llm_only"]["alpha"]
    assert (llm["n"], llm["n_audited"], llm["n_escalated"], llm["n_queries"]) == (1, 0, 1, 2)
    assert {k: intervals["naive"]["human_only"]["alpha"][k] for k in SPLIT} == SPLIT
    (pair,) = intervals["pairs"]
    assert {k: pair[k] for k in SPLIT} == SPLIT
    tau = intervals["kendall_tau_original_vs_ppi"]
    assert {k: tau[k] for k in SPLIT} == SPLIT and tau["systems"] == 2
