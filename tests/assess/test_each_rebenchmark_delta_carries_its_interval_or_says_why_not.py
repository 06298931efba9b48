"""Each run's change from the original to the refined qrels (Δ) is shown with its 95%
interval wherever the intervals exist: the rank changes' "Δ nDCG@10 [95%]" column on the
page, in the ``rebenchmark`` printout and in the API's tables, and ``intervals.deltas`` in
the API's JSON. The original score is exact, so the Δ's interval is the refined interval
minus the original score. Without intervals the cell is n/a and the note says why.

Holes world (tests/fixtures/refine.py), relevance binary at level 1, D2 = 1 / log2(3):
original nDCG@10 alpha q1 D2 (d1 at rank 2), q2 D2 (d4 at rank 2) → D2 = 0.6309; beta q1 1,
q2 D2 → (1 + D2) / 2. P@10: 0.1 for both (one relevant in each top 10). R@100: 1 for both.
At audit share 0.5 the refined estimates are alpha nDCG@10 (D2 + D2 / (1 + D2)) / 2, alpha
P@10 0.1, beta P@10 0.15 (tests/assess/test_rebenchmark_shows_intervals_from_the_audit.py),
so alpha's Δ nDCG@10 is (D2 / (1 + D2) − D2) / 2 = −0.1220: below the plain Δ of the debate
labels, +0.0625, because the audit found the debates' relevant label (q2, d6) wrong.
"""

import io
import math
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from assess.evaluation.interval_deltas import delta_intervals
from assess.evaluation.interval_reports import SampleSize
from assess.evaluation.intervals import Interval
from assess.evaluation.refined_intervals import rebench_intervals
from tests.fixtures.refine import refined_at_share
from tests.fixtures.ui import html_tables

D2 = 1 / math.log2(3)
QUERY = "original=test&refined=test-dream"


def test_a_delta_interval_is_the_refined_interval_less_the_exact_original_score():
    refined = {"nDCG@10": {"bm25": Interval(0.62, 0.58, 0.66, 40)}}
    found = delta_intervals(
        refined=refined,
        original={"nDCG@10": {"bm25": 0.61}},
        samples={"nDCG@10": {"bm25": SampleSize(40, 3)}},
    )
    delta = found.get("nDCG@10", "bm25")
    assert (delta.estimate, delta.low, delta.high) == pytest.approx((0.01, -0.03, 0.05))
    assert delta.high - delta.low == pytest.approx(0.66 - 0.58)  # the refined width
    assert found.cell("nDCG@10", "bm25") == "+0.0100 [-0.0300, +0.0500] (n = 43)"
    assert found.cell("R@10", "bm25") == "n/a"
    assert "only" in found.why_none("R@10") and found.why_none("nDCG@10") == ""
    entry = found.as_json()["measures"]["nDCG@10"]["bm25"]
    assert entry["original"] == 0.61 and entry["n"] == 43 and entry["n_audited"] == 40


@pytest.fixture
def audited(refined):
    return refined_at_share(refined, 0.5)


@pytest.mark.django_db
def test_the_holes_worlds_delta_intervals_subtract_the_hand_worked_original_scores(audited):
    found = rebench_intervals(original=audited.test, refined=audited.refined, runs=audited.runs)
    assert found.originals["nDCG@10"] == pytest.approx({"alpha": D2, "beta": (1 + D2) / 2})
    assert found.originals["P@10"] == pytest.approx({"alpha": 0.1, "beta": 0.1})
    assert found.originals["R@100"] == pytest.approx({"alpha": 1.0, "beta": 1.0})
    deltas = found.deltas()
    alpha = deltas.get("nDCG@10", "alpha")
    assert alpha.estimate == pytest.approx((D2 / (1 + D2) - D2) / 2)
    assert round(alpha.estimate, 4) == -0.1220
    refined = found.ppi.by_system["alpha"]["nDCG@10"]
    assert (alpha.low, alpha.high) == pytest.approx((refined.low - D2, refined.high - D2))
    assert deltas.get("P@10", "alpha").estimate == pytest.approx(0.0)
    assert deltas.get("P@10", "beta").estimate == pytest.approx(0.05)
    beta = found.ppi.by_system["beta"]["P@10"]
    assert deltas.get("P@10", "beta").low == pytest.approx(beta.low - 0.1)
    # n: the one audited label and the one escalated pair's.
    assert deltas.sample_text("nDCG@10") == "2 (1 audited, 1 escalated)"


def _rank_changes(tables):
    return next(t for t in tables if t[0][:2] == ["system", "rank original"])


@pytest.mark.django_db
def test_the_page_command_and_api_show_each_delta_with_its_interval(audited, client_as, api_as):
    found = rebench_intervals(original=audited.test, refined=audited.refined, runs=audited.runs)
    cell = found.deltas().cell("nDCG@10", "alpha")
    # One label bears on it, fewer than 5: its bracket is the whole range, marked so.
    assert cell.startswith("-0.1220 [") and cell.endswith("] (whole range; n = 2; n_b = 1)")

    html = client_as("researcher").get(reverse("refined:rebenchmark", args=["holes"]) + "?" + QUERY)
    header, *rows = _rank_changes(html_tables(html.content.decode()))
    column = header.index("Δ nDCG@10 [95%]")
    assert header[column - 1] == "Δ nDCG@10"
    assert {row[0]: row[column] for row in rows}["alpha"] == cell
    text = " ".join(html.content.decode().split())
    assert "n = 2 (1 audited, 1 escalated) human labels" in text

    out = io.StringIO()
    call_command("rebenchmark", "holes", "--refined", "test-dream", "--no-per-query", stdout=out)
    alpha = next(line for line in out.getvalue().splitlines() if line.startswith("alpha "))
    # The plain Δ, then its prediction-powered interval.
    assert re.search(r"\+0\.0625 +" + re.escape(cell), alpha)

    body = api_as("researcher").get("/api/v1/datasets/holes/refined/test-dream/rebenchmark").json()
    table = next(t for t in body["tables"] if t["title"] == "Rank changes")
    column = table["header"].index("Δ nDCG@10 [95%]")
    assert {row[0]: row[column] for row in table["rows"]}["alpha"] == cell
    entry = body["intervals"]["deltas"]["measures"]["nDCG@10"]["alpha"]
    assert entry["estimate"] == pytest.approx((D2 / (1 + D2) - D2) / 2)
    assert entry["original"] == pytest.approx(D2)
    assert (entry["n"], entry["n_audited"], entry["n_escalated"]) == (2, 1, 1)


@pytest.mark.django_db
def test_without_an_audit_each_delta_says_why_it_has_no_interval(refined, client_as, api_as):
    refined = refined_at_share(refined, 0.0)
    html = client_as("researcher").get(reverse("refined:rebenchmark", args=["holes"]) + "?" + QUERY)
    page = html.content.decode()
    header, *rows = _rank_changes(html_tables(page))
    column = header.index("Δ nDCG@10 [95%]")
    assert [row[column] for row in rows] == ["n/a", "n/a"]
    note = re.search(r"Δ nDCG@10 \[95%\]: n/a, no interval: ([^.]*)", page)
    assert "intervals need an audit share &gt; 0" in note.group(1)
    body = api_as("researcher").get("/api/v1/datasets/holes/refined/test-dream/rebenchmark").json()
    assert "intervals need an audit share > 0" in body["intervals"]["deltas"]["error"]
    assert body["intervals"]["deltas"]["measures"] == {}


@pytest.mark.django_db
def test_a_set_not_made_by_refine_and_no_intervals_asked_say_so_in_the_printout(refined):
    out = io.StringIO()
    call_command("rebenchmark", "holes", "--original", "test", "--refined", "test", stdout=out)
    text = " ".join(out.getvalue().split())
    assert (
        "Δ nDCG@10 [95%]: n/a, no interval: qrel set 'test' was not made by refine, so no "
        "label has a provenance to sample from." in text
    )
    out = io.StringIO()
    call_command("rebenchmark", "holes", "--refined", "test-dream", "--no-intervals", stdout=out)
    assert "Δ nDCG@10 [95%]: n/a, no interval: not computed (--no-intervals)." in " ".join(
        out.getvalue().split()
    )


@pytest.mark.django_db
def test_an_imported_set_compared_as_refined_is_said_to_hold_no_debate_labels(refined, client_as):
    said = (
        "qrel set 'test' was imported, not made by refine: it is compared as the second qrel "
        'set, so "refined" below means this set and its labels are not debate labels'
    )
    out = io.StringIO()
    call_command("rebenchmark", "holes", "--original", "test", "--refined", "test", stdout=out)
    assert f"Note: {said}." in out.getvalue()
    url = reverse("refined:rebenchmark", args=["holes"]) + "?original=test&refined=test"
    page = client_as("researcher").get(url).content.decode()
    assert "Qrel set &#x27;test&#x27; was imported, not made by refine" in page
    made = reverse("refined:rebenchmark", args=["holes"]) + "?" + QUERY
    assert "not made by refine:" not in client_as("researcher").get(made).content.decode()
