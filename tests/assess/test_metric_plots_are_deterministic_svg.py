"""The re-benchmark plots are standalone SVG text, identical for identical input."""

from __future__ import annotations

import pytest

from assess.evaluation.metrics import RankChange, holes_per_query, rebenchmark
from assess.evaluation.plots import delta_bars_svg, holes_histogram_svg, rank_slope_svg
from tests.fixtures.metrics import ORIGINAL, REFINED, RUNS


@pytest.fixture(scope="module")
def result():
    return rebenchmark(ORIGINAL, REFINED, RUNS)


def _plots(result):
    deltas = {
        row.system: row.scores["nDCG@10"]
        - next(b.scores["nDCG@10"] for b in result.before if b.system == row.system)
        for row in result.after
    }
    return [
        rank_slope_svg(result.rank_changes),
        delta_bars_svg(deltas),
        holes_histogram_svg(holes_per_query(ORIGINAL, REFINED)),
    ]


def test_each_plot_is_an_svg_document_naming_the_systems(result):
    slope, bars, holes = _plots(result)

    for svg in (slope, bars, holes):
        assert svg.startswith("<?xml")
        assert "<svg" in svg and svg.rstrip().endswith("</svg>")
    # Left labels carry the rank before, right labels the rank after (alpha 1 → 2, ...).
    for label in ("1. alpha", "2. alpha", "3. beta", "1. beta", "2. gamma", "3. gamma"):
        assert f">{label}<" in slope.replace("\n", "")
    for system in ("alpha", "beta", "gamma"):
        assert f">{system}<" in bars.replace("\n", "")
    assert "3 queries, 4 holes" in holes


def test_rendering_twice_gives_byte_identical_svg_without_a_date(result):
    first, second = _plots(result), _plots(result)

    assert first == second
    assert all("<dc:date>" not in svg for svg in first)


def test_system_names_are_escaped_as_xml():
    svg = rank_slope_svg({"bm25 <rm3> & co": RankChange(1, 1, 0)})

    assert "1. bm25 &lt;rm3&gt; &amp; co" in svg


def test_a_dollar_sign_in_a_system_name_prints_as_typed_not_as_mathtext():
    svg = rank_slope_svg({r"bm25 $\frac{a}{b}$ $\nosuchcommand$": RankChange(1, 1, 0)})

    assert r"1. bm25 $\frac{a}{b}$ $\nosuchcommand$" in svg
