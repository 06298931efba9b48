"""A re-benchmark has two Kendall taus that can differ even in sign: the ranking agreement's
tau-b ranks the runs on the refined qrels (the debate labels' point values), the intervals'
tau ranks them by the PPI estimates (the debate labels corrected by the audit). Each is named
by what it compares on the page, in the printout, in the API's JSON (keys that say which) and
in the datasheet (the ``holes`` world of tests/fixtures/refine.py, audited at 0.5)."""

import html
import io

import pytest
from django.core.management import call_command

from assess.refined.benchmark_zip import benchmark_datasheet
from assess.refined.datasheet import datasheet_render
from tests.fixtures.refine import refined_at_share

pytestmark = pytest.mark.django_db

DEBATE = "original vs refined qrels (debate labels)"
PPI = "Kendall's tau original vs PPI estimates (nDCG@10) [95% interval]"


@pytest.fixture
def audited(refined):
    return refined_at_share(refined, 0.5)


def test_the_printout_and_the_page_name_each_tau(audited, client_as):
    out = io.StringIO()
    call_command("rebenchmark", "holes", "--refined", "test-dream", "--no-per-query", stdout=out)
    text = out.getvalue()
    assert f"Ranking agreement: {DEBATE} leaderboard (nDCG@10)" in text
    assert f"Kendall's tau-b {DEBATE}, between the two nDCG@10 rankings" in text
    assert f"{PPI}: " in text and "Kendall's tau (original vs refined" not in text
    # Two runs (alpha and beta) make one pair: a tau of -1 beside a tau-b of 1 is no reversal.
    assert (
        "With two runs tau is 1 or -1 and nothing between: read the pair's difference and "
        "its interval instead."
    ) in " ".join(text.split())
    page = client_as("researcher").get(
        "/datasets/holes/rebenchmark/?original=test&refined=test-dream"
    )
    shown = html.unescape(page.content.decode())
    assert f"Ranking agreement: {DEBATE} leaderboard (nDCG@10)" in shown and f"{PPI}: " in shown


def test_the_api_keys_say_which_tau_is_which(audited, api_as):
    body = api_as("researcher").get("/api/v1/datasets/holes/refined/test-dream/rebenchmark")
    body = body.json()
    debate = body["kendall_tau_b_original_vs_debate_labels"]
    assert debate == body["kendall_tau_b"] and debate["compares"] == DEBATE
    ppi = body["intervals"]["kendall_tau_original_vs_ppi"]
    assert ppi["compares"] == "original vs PPI estimates"
    # The key of before stays, with the same values.
    old = body["intervals"]["kendall_tau"]
    assert (old["tau"], old["low"], old["high"]) == (ppi["tau"], ppi["low"], ppi["high"])


def test_the_datasheet_names_each_tau(audited):
    text = datasheet_render(sheet=benchmark_datasheet(refinement=audited.refined.refinement))
    assert "- Kendall's tau, original vs PPI estimates (nDCG@10) [95% interval]: " in text
    assert "; with two runs tau is 1 or -1 and nothing between" in text
    assert f"- Kendall's tau-b, {DEBATE} (`kendall_tau_b`): " in text
