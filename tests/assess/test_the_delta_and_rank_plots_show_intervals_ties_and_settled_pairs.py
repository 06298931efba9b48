"""The Δ plot draws each run's Δ interval as error bars where the intervals exist, says in
its caption that they are 95% prediction-powered intervals and their n, and keeps its x
tick labels apart; the rank plot labels systems tied on a side alike ("=2") and says in its
caption for how many run pairs the refined order is settled at 95%.

The trial's NFCorpus figures: nDCG@10 on the original qrels bm25-k15 0.31217, rrf 0.30972,
bm25 0.30969 (both shown 0.3097), on the refined qrels 0.3414, 0.3397, 0.3390; its Δs are
small (R@10 0.0175-0.0187), which printed x ticks like "0.000000.002500.00500" before.
"""

from __future__ import annotations

import html
import math
import re

import pytest
from django.urls import reverse
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure

from assess.evaluation import plots
from assess.evaluation.intervals import Interval
from assess.evaluation.refined_intervals import rebench_intervals
from tests.fixtures.refine import refined_at_share

SYSTEMS = ("rrf-bm25-bm25-k15", "bm25", "bm25-k15")
TRIAL = {
    "nDCG@10": (0.0300, 0.0293, 0.0292),
    "R@10": (0.0176, 0.0187, 0.0175),
    "R@100": (0.0187, 0.0187, 0.0187),
    "P@10": (0.0322, 0.0310, 0.0300),
    "Success@10": (0.0433, 0.0433, 0.0402),
    "Judged@10": (0.4015, 0.4003, 0.4004),
    "nDCG@10 (DREAM paper variant, ideal over all gold)": (0.0193, 0.0188, 0.0187),
}
DELTAS = {m: dict(zip(SYSTEMS, v, strict=True)) for m, v in TRIAL.items()}
QUERY = "original=test&refined=test-dream"
D2 = 1 / math.log2(3)


@pytest.fixture
def figures(monkeypatch):
    """Every figure a plot function saves, as it is saved."""
    drawn: list[Figure] = []
    save = plots._svg

    def kept(fig: Figure) -> str:
        drawn.append(fig)
        return save(fig)

    monkeypatch.setattr(plots, "_svg", kept)
    return drawn


def words(svg: str) -> str:
    """The SVG's texts, each wrapped line joined to the next by a space."""
    return " ".join(html.unescape(t) for t in re.findall(r">([^<>]+)</text>", svg))


def _panel(fig: Figure, measure: str):
    return next(ax for ax in fig.axes if ax.get_visible() and ax.get_title() == f"Δ {measure}")


def test_each_delta_interval_is_an_error_bar_on_its_systems_bar(figures):
    # bm25's nDCG@10: refined [0.3270, 0.3599] less the exact original 0.3097 (hand-worked:
    # estimate 0.3390 - 0.3097 = 0.0293, ends 0.3270 - 0.3097 = 0.0173, 0.3599 - 0.3097).
    intervals = {
        "nDCG@10": {
            "bm25": Interval(0.3390 - 0.3097, 0.3270 - 0.3097, 0.3599 - 0.3097, 106),
            "bm25-k15": Interval(0.0292, 0.0120, 0.0500, 106),
        }
    }
    svg = plots.delta_panels_svg(DELTAS, intervals=intervals, caption="95% PPI intervals, n = 443")
    [fig] = figures
    ndcg = _panel(fig, "nDCG@10")
    rows = {t.get_text(): t.get_position()[1] for t in ndcg.get_yticklabels()}
    spans = {}
    for container in (c for c in ndcg.containers if isinstance(c, ErrorbarContainer)):
        dot, _, (line,) = container.lines
        [(low, y), (high, _)] = line.get_segments()[0]
        spans[round(y)] = (float(dot.get_xdata()[0]), low, high)
    assert spans[rows["bm25"]] == pytest.approx((0.0293, 0.0173, 0.0502))
    assert spans[rows["bm25-k15"]] == pytest.approx((0.0292, 0.0120, 0.0500))
    assert rows["rrf-bm25-bm25-k15"] not in spans  # no interval given: its bar alone
    assert not any(isinstance(c, ErrorbarContainer) for c in _panel(fig, "R@10").containers)
    assert "95% PPI intervals, n = 443" in words(svg)


def test_the_x_tick_labels_of_every_delta_panel_stay_apart(figures):
    plots.delta_panels_svg(DELTAS)
    plots.delta_bars_svg(DELTAS["R@100"], measure="R@100")
    for fig in figures:
        renderer = FigureCanvasAgg(fig).get_renderer()
        fig.draw(renderer)
        for ax in (ax for ax in fig.axes if ax.get_visible()):
            shown = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
            assert 2 <= len(shown) <= 6, ax.get_title()
            boxes = sorted((t.get_window_extent(renderer) for t in shown), key=lambda b: b.x0)
            for left, right in zip(boxes, boxes[1:], strict=False):
                assert left.x1 < right.x0, (ax.get_title(), [t.get_text() for t in shown])


def test_systems_equal_as_the_tables_print_them_share_a_rank():
    before = {"bm25-k15": 0.31217207930967517, "rrf-bm25-bm25-k15": 0.3097169176464308}
    before["bm25"] = 0.30968704750471593
    assert plots.shown_ranks(before) == {"bm25-k15": "1", "rrf-bm25-bm25-k15": "=2", "bm25": "=2"}
    assert plots.shown_ranks({"a": 0.5, "b": 0.4, "c": 0.4, "d": 0.3}) == {
        "a": "1",
        "b": "=2",
        "c": "=2",
        "d": "4",
    }
    after = {"bm25-k15": 0.3414, "rrf-bm25-bm25-k15": 0.3397, "bm25": 0.3390}
    svg = plots.rank_slope_svg(
        {"bm25-k15": (1, 1), "rrf-bm25-bm25-k15": (2, 2), "bm25": (3, 3)},
        scores={s: (before[s], after[s]) for s in before},
        caption="Refined order settled for 0 of 3 system pairs at 95%.",
    )
    for label in ("1. bm25-k15", "=2. rrf-bm25-bm25-k15", "=2. bm25", "2. rrf-bm25-bm25-k15"):
        assert f">{label}<" in svg, label
    assert ">3. bm25<" in svg and ">2. bm25<" not in svg
    text = words(svg)
    assert "=k: systems whose nDCG@10 is equal to 4 decimals" in text
    assert "Refined order settled for 0 of 3 system pairs at 95%." in text


@pytest.mark.django_db
def test_the_pages_plots_carry_the_intervals_n_and_the_settled_pairs(refined, client_as):
    refined = refined_at_share(refined, 0.5)
    found = rebench_intervals(original=refined.test, refined=refined.refined, runs=refined.runs)
    settled = sum(p.settled for p in found.pairs)
    client = client_as("researcher")

    def plot(name: str, **extra: str) -> str:
        url = reverse("refined:rebenchmark_plot", args=["holes", name]) + "?" + QUERY
        response = client.get(url + "".join(f"&{k}={v}" for k, v in extra.items()))
        assert response.status_code == 200
        return words(response.content.decode())

    ranks = plot("ranks")
    assert f"Refined order settled for {settled} of 1 system pair at 95%" in ranks
    if not settled:
        assert "undecided: alpha-beta: label errors could reverse them." in ranks
    caption = "its 95% PPI interval, n = 2 (1 audited, 1 escalated) human labels."
    assert caption in plot("deltas")
    assert caption in plot("deltas", measure="P@10")
    assert "No 95% interval: the estimator gives intervals for" in plot("deltas", measure="R@10")
    page = client.get(reverse("refined:rebenchmark", args=["holes"]) + "?" + QUERY)
    assert caption in " ".join(page.content.decode().split())


@pytest.mark.django_db
def test_without_an_audit_the_plots_say_why_they_have_no_interval(refined, client_as):
    refined = refined_at_share(refined, 0.0)
    client = client_as("researcher")
    base = reverse("refined:rebenchmark_plot", args=["holes", "ranks"]) + "?" + QUERY
    ranks = words(client.get(base).content.decode())
    assert "Refined order not tested: no interval (" in ranks
    assert "intervals need an audit share > 0" in ranks
    deltas = words(client.get(base.replace("/ranks", "/deltas")).content.decode())
    assert "No 95% interval: " in deltas and "intervals need an audit share > 0" in deltas
