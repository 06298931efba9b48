"""Every re-benchmark plot of a set of simulated labels prints its "SIMULATED labels: ..."
line (``mark``) whole on its face: wrapped to the figure's width, inside the figure, above
the title and clear of every axes (its tick labels, legend and annotations), at every figure
size the plots make (one system or forty, one panel or a grid of them). Measured with
matplotlib's own layout: each text's extent from the figure's renderer."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from assess.evaluation import plots
from assess.evaluation.intervals import Interval
from assess.models.simulated import simulated_sentence

MARK = (
    simulated_sentence({"debate": 1_234, "human": 155, "stage0": 12})
    + " (copied with the rows: 3 from the refined set 'test-dream-second-pass')"
)


def _systems(n: int) -> list[str]:
    return [f"system-{i:02d}" for i in range(n)]


def _ranks(n: int) -> Callable[..., str]:
    return lambda **kw: plots.rank_slope_svg(
        {s: (i + 1, n - i) for i, s in enumerate(_systems(n))}, **kw
    )


def _bars(n: int) -> Callable[..., str]:
    return lambda **kw: plots.delta_bars_svg(
        {s: 0.01 * i - 0.1 for i, s in enumerate(_systems(n))}, **kw
    )


def _panels(measures: int, n: int) -> Callable[..., str]:
    by = {s: 0.01 * i - 0.02 for i, s in enumerate(_systems(n))}
    return lambda **kw: plots.delta_panels_svg(
        {f"R@{10 * (j + 1)}": by for j in range(measures)}, **kw
    )


def _holes() -> Callable[..., str]:
    return lambda **kw: plots.holes_histogram_svg({f"q{i}": i % 7 for i in range(50)}, **kw)


def _intervals(n: int, caveat: str) -> Callable[..., str]:
    after = {s: Interval(0.5 + 0.01 * i, 0.4, 0.9, 40) for i, s in enumerate(_systems(n))}
    return lambda **kw: plots.intervals_svg(
        {s: 0.5 for s in after}, after, caveat=caveat, detail={s: "2 audited" for s in after}, **kw
    )


PLOTS = {
    "ranks of one system": _ranks(1),
    "ranks of forty systems": _ranks(40),
    "bars of one system": _bars(1),
    "bars of forty systems": _bars(40),
    "one panel": _panels(1, 1),
    "two panels of thirty systems": _panels(2, 30),
    "five panels": _panels(5, 3),
    "holes": _holes(),
    "intervals of one system": _intervals(1, ""),
    "intervals of thirty systems with a caveat": _intervals(30, "Read them as approximate. " * 9),
}


def _layout(fig: Figure) -> dict:
    """The extents (display units) of the figure, its mark, its titles and its axes."""
    renderer = FigureCanvasAgg(fig).get_renderer()
    marks = [t for t in fig.texts if t.get_text().startswith("SIMULATED")]
    others = [t for t in fig.texts if t not in marks and t.get_text()]  # the suptitle
    axes = [ax for ax in fig.axes if ax.get_visible()]
    return {
        "figure": fig.bbox.frozen(),
        "marks": [(m.get_text(), m.get_window_extent(renderer)) for m in marks],
        "titles": [t.get_window_extent(renderer) for t in others]
        + [ax.title.get_window_extent(renderer) for ax in axes if ax.get_title()],
        "axes": [ax.get_tightbbox(renderer) for ax in axes],
    }


@pytest.fixture
def drawn(monkeypatch):
    """The layout of each figure a plot function saves, measured as it is saved."""
    layouts: list[dict] = []
    save = plots._svg

    def measured(fig: Figure) -> str:
        layouts.append(_layout(fig))
        return save(fig)

    monkeypatch.setattr(plots, "_svg", measured)
    return layouts


@pytest.mark.parametrize("plot", PLOTS)
def test_the_simulated_line_is_whole_inside_the_figure_and_clear_of_titles_and_axes(drawn, plot):
    svg = PLOTS[plot](mark=MARK)

    [layout] = drawn
    [(text, box)] = layout["marks"]
    assert " ".join(text.split()) == MARK  # whole: only wrapped
    assert len(text.splitlines()) > 1  # too long for one line at any of these widths
    figure = layout["figure"]
    assert figure.x0 <= box.x0 and box.x1 <= figure.x1, (box, figure)
    assert figure.y0 <= box.y0 and box.y1 <= figure.y1, (box, figure)
    assert layout["titles"], "every plot has a title"
    for title in layout["titles"]:
        assert box.y0 > title.y1, (box, title)  # above it, not over it
    for axes in layout["axes"]:
        assert not box.overlaps(axes), (box, axes)
    # The file carries every line of it, in red.
    lines = re.findall(r'fill: #b00020"[^>]*>([^<]*)</text>', svg)
    assert html.unescape(" ".join(lines)) == MARK


@pytest.mark.parametrize("plot", PLOTS)
def test_without_a_simulated_line_the_plot_has_no_mark(drawn, plot):
    svg = PLOTS[plot]()

    [layout] = drawn
    assert layout["marks"] == [] and "SIMULATED" not in svg and "#b00020" not in svg
