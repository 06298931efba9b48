"""Re-benchmark plots as SVG text, rendered server-side with matplotlib. Pure, no database.

Each function returns a complete, standalone SVG document (a page embeds it and offers it
as a download). Output is byte-for-byte deterministic for equal input: no creation date in
the metadata, a fixed ``svg.hashsalt`` for the clip-path ids, and text kept as ``<text>``
elements (``svg.fonttype = none``), which also keeps system names searchable in the file.
The object-oriented ``Figure`` API is used instead of pyplot, so no global figure state is
shared between web requests. Each takes a ``mark`` (the "SIMULATED labels: ..." line of a set
of simulated labels, or ""): printed in red across the top of the figure, wrapped to its
width, above the title (:func:`_place_mark`), so that a downloaded plot says so on its face.
"""

from __future__ import annotations

import io
import textwrap
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import matplotlib

matplotlib.use("Agg")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.text import Annotation  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

# shown_ranks is re-exported: the plots' callers and tests name it here.
from .ranking import TIE_DECIMALS  # noqa: E402
from .ranking import shown_ranks as shown_ranks  # noqa: E402

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.typing import RcKeyType

_RC: dict[RcKeyType, Any] = {
    "svg.hashsalt": "dream-assess",
    "svg.fonttype": "none",
    "font.family": "DejaVu Sans",
    "font.size": 9,
    # Names in the plots are the users' (runs, qrel sets): a "$...$" in one must print as
    # typed, not be parsed as mathtext (which renders markup or raises on a bad command).
    "text.parse_math": False,
}
_UP, _DOWN, _SAME = "#1b7837", "#b2182b", "#777777"
_BEFORE, _AFTER = "#777777", "#2166ac"
_MARK_COLOR, _MARK_SIZE = "#b00020", 8
_MARK_PAD, _MARK_GAP = 4 / 72, 6 / 72  # inches: around the mark; between it and the plot
_LABEL_GAP = 6  # points: between an interval's end and its sample-size label


class _RanksLike(Protocol):
    @property
    def before(self) -> int: ...

    @property
    def after(self) -> int: ...


class _IntervalLike(Protocol):
    @property
    def estimate(self) -> float: ...

    @property
    def low(self) -> float: ...

    @property
    def high(self) -> float: ...

    @property
    def n_human(self) -> int: ...


def _svg(fig: Figure) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    return buffer.getvalue()


def _render(draw: Callable[[Figure], None], size: tuple[float, float], mark: str = "") -> str:
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=size)
        draw(fig)
        if mark:
            _place_mark(fig, mark)
        return _svg(fig)


def _place_mark(fig: Figure, mark: str) -> None:
    """``mark`` (our own words) in red across the top of ``fig``, wrapped to the figure's
    width and above everything drawn (titles, legends, axes, even what sticks out over the
    figure's top edge): the figure grows by the mark's height, and what was drawn keeps its
    size and its place in inches from the bottom, below the mark. Measured with matplotlib's
    own layout (an Agg renderer, whose font metrics are the SVG's to within hinting: the
    pads absorb the difference)."""
    renderer = FigureCanvasAgg(fig).get_renderer()
    width, height = (float(v) for v in fig.get_size_inches())
    top = max(height, fig.get_tightbbox(renderer).y1)  # inches
    moved = list(fig.texts)  # the suptitle, if any, in figure fractions
    text = fig.text(0, 1, mark, ha="left", va="top", fontsize=_MARK_SIZE, color=_MARK_COLOR)
    room = (width - 2 * _MARK_PAD) * fig.dpi
    columns = len(mark)
    while True:
        text.set_text(textwrap.fill(mark, columns, break_on_hyphens=False))
        drawn = text.get_window_extent(renderer).width
        if drawn <= room or columns <= 20:
            break
        columns = min(columns - 1, int(columns * room / drawn))
    grown = top + _MARK_GAP + text.get_window_extent(renderer).height / fig.dpi + _MARK_PAD
    scale = height / grown
    fig.set_size_inches(width, grown)
    for ax in fig.axes:
        box = ax.get_position()
        ax.set_position((box.x0, box.y0 * scale, box.width, box.height * scale))
    for other in moved:
        x, y = other.get_position()
        other.set_position((x, y * scale))
    text.set_position((_MARK_PAD / width, 1 - _MARK_PAD / grown))


def _ranks(value: _RanksLike | tuple[int, int]) -> tuple[int, int]:
    if isinstance(value, tuple):
        return int(value[0]), int(value[1])
    return int(value.before), int(value.after)


def _slope_labels(
    ranks: Mapping[str, tuple[int, int]], scores: Mapping[str, tuple[float, float]] | None
) -> dict[str, tuple[str, str]]:
    """The rank labels of each system, before and after: the plot's positions as they are,
    or with ``scores`` (before, after) their competition ranks, ties marked ``=k``."""
    if not scores:
        return {s: (str(b), str(a)) for s, (b, a) in ranks.items()}
    left = shown_ranks({s: scores[s][0] for s in ranks})
    right = shown_ranks({s: scores[s][1] for s in ranks})
    return {s: (left[s], right[s]) for s in ranks}


def _rank_number(label: str) -> int:
    return int(label.lstrip("="))


def rank_slope_svg(
    rank_changes: Mapping[str, _RanksLike | tuple[int, int]],
    *,
    scores: Mapping[str, tuple[float, float]] | None = None,
    caption: str = "",
    title: str = "System ranks on nDCG@10: original → refined qrels",
    mark: str = "",
) -> str:
    """Slope chart: one line per system from its rank on the original qrels (left) to its
    rank on the refined qrels (right); rank 1 on top; green moved up, red down.

    ``rank_changes`` maps system names to ``RankChange`` (``assess.evaluation.metrics``) or to
    ``(rank_before, rank_after)``: the rows they are drawn on (a tie broken by name, so no
    two lines share a row). With ``scores`` ``{system: (score before, score after)}`` the
    labels give each side's competition rank instead, systems tied on a side labelled alike
    (``=2``: :func:`shown_ranks`) and coloured by those ranks, and the caption says how ties
    are drawn. ``caption`` (our own words, e.g. how settled the refined order is) is printed
    under the axes. Returns SVG text. ValueError when empty.
    """
    if not rank_changes:
        raise ValueError("rank_slope_svg needs at least one system")
    ranks = {s: _ranks(v) for s, v in sorted(rank_changes.items())}
    labels = _slope_labels(ranks, scores)
    n = max(max(b, a) for b, a in ranks.values())
    tied = any(label.startswith("=") for pair in labels.values() for label in pair)
    words = " ".join(
        w
        for w in (
            f"=k: systems whose nDCG@10 is equal to {TIE_DECIMALS} decimals (as the tables "
            "print it) share rank k; their rows keep the leaderboard's order."
            if tied
            else "",
            caption,
        )
        if w
    )

    def draw(fig: Figure) -> None:
        ax = fig.add_subplot()
        for system, (before, after) in ranks.items():
            left, right = (_rank_number(label) for label in labels[system])
            color = _UP if right < left else _DOWN if right > left else _SAME
            ax.plot([0, 1], [before, after], marker="o", color=color, linewidth=1.5)
            for x, y, text, ha, dx in (
                (0, before, f"{labels[system][0]}. {system}", "right", -6),
                (1, after, f"{labels[system][1]}. {system}", "left", 6),
            ):
                ax.annotate(text, (x, y), xytext=(dx, 0), textcoords="offset points", ha=ha,
                            va="center")  # fmt: skip
        ax.set_xlim(0, 1)
        ax.set_ylim(n + 0.5, 0.5)
        ax.set_xticks([0, 1], ["original qrels", "refined qrels"])
        ax.set_yticks([])
        for side in ("left", "right", "top"):
            ax.spines[side].set_visible(False)
        ax.set_title(title)
        if words:
            _caption_under(ax, words, columns=100)

    return _render(draw, (6.0, max(2.5, 0.3 * n + 1.2)), mark)


def _caption_under(ax: Axes, words: str, *, columns: int, below: float = 30) -> None:
    """``words`` (our own) wrapped to ``columns`` under ``ax``, ``below`` points under its
    bottom edge (clear of the tick labels), whatever the figure's height."""
    text = textwrap.fill(words, columns, break_on_hyphens=False)  # names keep their hyphens
    ax.annotate(text, (0, 0), xycoords="axes fraction", xytext=(0, -below),
                textcoords="offset points", ha="left", va="top", fontsize=7,
                color="#444444")  # fmt: skip


def _error_bars(ax: Axes, positions: Sequence[int], found: Sequence[_IntervalLike | None]) -> None:
    """Each interval of ``found`` (None: none) as a black dot and error bar on its bar's row:
    the estimate and its 95% interval, drawn over the bars."""
    for y, interval in zip(positions, found, strict=True):
        if interval is None:
            continue
        below = max(0.0, interval.estimate - interval.low)
        above = max(0.0, interval.high - interval.estimate)
        ax.errorbar([interval.estimate], [y], xerr=[[below], [above]], fmt="o", color="black",
                    markersize=3, capsize=3, elinewidth=1, zorder=3)  # fmt: skip


def _readable_ticks(fig: Figure, axes: Sequence[Axes]) -> None:
    """At most about four x ticks per axes, and their labels turned 30 degrees where they
    would still run into each other (measured with an Agg renderer, as :func:`_place_mark`
    does): a narrow panel of small changes otherwise prints "0.00000.00250.0050..."."""
    for ax in axes:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)  # the tick labels' texts exist once drawn
    for ax in axes:
        shown = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        boxes = sorted((t.get_window_extent(renderer) for t in shown), key=lambda b: b.x0)
        if any(a.x1 + 2 > b.x0 for a, b in zip(boxes, boxes[1:], strict=False)):
            ax.tick_params(axis="x", labelrotation=30)
            for text in ax.get_xticklabels():
                text.set_horizontalalignment("right")


def delta_bars_svg(
    deltas: Mapping[str, float],
    *,
    measure: str = "nDCG@10",
    intervals: Mapping[str, _IntervalLike] | None = None,
    caption: str = "",
    mark: str = "",
) -> str:
    """Horizontal bars of each system's change in ``measure`` (refined − original).

    ``deltas`` maps system names to the change of the mean score. Bars are sorted by change
    descending, then name; positive green, negative red. ``intervals`` (``{system:
    interval}``, anything with ``estimate``, ``low``, ``high``) draws each system's Δ
    interval as a dot with error bars on its bar (a system without one: its bar alone);
    ``caption`` (our own words: what the bars are, n) is printed under the axes. Returns SVG
    text. ValueError when empty.
    """
    if not deltas:
        raise ValueError("delta_bars_svg needs at least one system")
    ordered = sorted(deltas, key=lambda s: (-deltas[s], s))

    def draw(fig: Figure) -> None:
        ax = fig.add_subplot()
        values = [deltas[s] for s in ordered]
        colors = [_UP if v > 0 else _DOWN if v < 0 else _SAME for v in values]
        positions = list(range(len(ordered)))
        ax.barh(positions, values, color=colors)
        _error_bars(ax, positions, [(intervals or {}).get(s) for s in ordered])
        ax.set_yticks(positions, ordered)
        ax.invert_yaxis()
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_xlabel(f"Δ {measure} (refined − original)")
        ax.set_title(f"Change in {measure} per system")
        _readable_ticks(fig, [ax])
        if caption:
            _caption_under(ax, caption, columns=100, below=40)

    return _render(draw, (6.0, max(2.5, 0.3 * len(ordered) + 1.2)), mark)


def delta_panels_svg(
    deltas: Mapping[str, Mapping[str, float]],
    *,
    intervals: Mapping[str, Mapping[str, _IntervalLike]] | None = None,
    caption: str = "",
    mark: str = "",
) -> str:
    """One panel of horizontal bars per measure: each system's change in that measure
    (refined − original), in a grid of two columns.

    ``deltas`` maps measure labels (panel order) to ``{system: change of the mean score}``.
    Every panel lists the systems in the same order (change in the first measure
    descending, then name) so a system sits on the same row everywhere; positive green,
    negative red. ``intervals`` ``{measure: {system: interval}}`` draws each Δ interval as
    a dot with error bars on its bar (a measure without any: bars alone); ``caption`` (our
    own words: what the bars are, n, which panels have none) is printed under the grid.
    At most about four x ticks a panel, turned where they would still collide. Returns SVG
    text. ValueError when there is no measure or no system.
    """
    if not deltas or not any(deltas.values()):
        raise ValueError("delta_panels_svg needs at least one measure and one system")
    measures = list(deltas)
    first = deltas[measures[0]]
    ordered = sorted({s for d in deltas.values() for s in d}, key=lambda s: (-first.get(s, 0), s))
    columns = 2 if len(measures) > 1 else 1
    rows = -(-len(measures) // columns)
    panel_height = max(1.6, 0.25 * len(ordered) + 0.9)

    def draw(fig: Figure) -> None:
        axes = fig.subplots(rows, columns, squeeze=False)
        shown = []
        for index, ax in enumerate(axes.flat):
            if index >= len(measures):
                ax.set_visible(False)
                continue
            measure = measures[index]
            values = [deltas[measure].get(s, 0.0) for s in ordered]
            colors = [_UP if v > 0 else _DOWN if v < 0 else _SAME for v in values]
            positions = list(range(len(ordered)))
            ax.barh(positions, values, color=colors)
            found = (intervals or {}).get(measure, {})
            _error_bars(ax, positions, [found.get(s) for s in ordered])
            ax.set_yticks(positions, ordered)
            ax.invert_yaxis()
            ax.axvline(0, color="black", linewidth=0.8)
            ax.set_title(f"Δ {measure}", fontsize=9)
            shown.append(ax)
        fig.suptitle("Change per system and measure (refined − original)")
        fig.tight_layout()
        _readable_ticks(fig, shown)
        fig.tight_layout()  # room for turned tick labels
        if caption:
            # Under the grid, hanging below the figure's edge: the saved file's tight box
            # takes it in, and tight_layout's panels keep their places.
            text = textwrap.fill(caption, 80 * columns, break_on_hyphens=False)
            fig.text(0.01, 0, text, ha="left", va="top", fontsize=7, color="#444444")

    return _render(draw, (5.0 * columns, rows * panel_height + 0.6), mark)


def holes_histogram_svg(
    holes: Mapping[str, int], *, title: str = "Holes filled per query", mark: str = ""
) -> str:
    """Histogram of holes per query: how many queries had 0, 1, 2, ... holes filled
    (``assess.evaluation.metrics.holes_per_query``). One bar per integer count. Returns SVG text.
    ValueError when empty.
    """
    if not holes:
        raise ValueError("holes_histogram_svg needs at least one query")
    counts = Counter(int(v) for v in holes.values())
    xs = list(range(0, max(counts) + 1))

    def draw(fig: Figure) -> None:
        ax = fig.add_subplot()
        ax.bar(xs, [counts.get(x, 0) for x in xs], width=0.8, color="#2166ac")
        ax.set_xlabel("holes filled (unjudged in original, relevant in refined)")
        ax.set_ylabel("queries")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(f"{title} ({len(holes):,} queries, {sum(holes.values()):,} holes)")
        if len(xs) <= 30:
            ax.set_xticks(xs)

    return _render(draw, (6.0, 3.5), mark)


def _right_room(fig: Figure, ax: Axes, labels: Mapping[float, list[Annotation]]) -> None:
    """Widen ``ax``'s x-axis to the right so that each of ``labels`` (texts drawn from the
    data x they are keyed by, leftwards aligned, offset in points) ends inside the axes
    instead of running over their right edge. Measured with an Agg renderer, as
    :func:`_place_mark` does; a label longer than 80% of the axes is left as it is (no
    x-range would fit it). With x on [a, b] over W pixels, a label of w pixels starting
    o pixels right of x ends inside when (x - a) / (b' - a) * W + o + w <= W."""
    renderer = FigureCanvasAgg(fig).get_renderer()
    low, high = ax.get_xlim()
    width = ax.get_window_extent(renderer).width
    right = high
    for start, texts in labels.items():
        for text in texts:
            used = text.get_window_extent(renderer).width + _LABEL_GAP * fig.dpi / 72 * 2
            if used < 0.8 * width:
                right = max(right, low + (start - low) * width / (width - used))
    if right > high:
        # The widened range is room for text, not values: no tick beyond the data's margin.
        ax.set_xticks([t for t in ax.get_xticks() if low <= t <= high])
    ax.set_xlim(low, right)


def intervals_svg(
    before: Mapping[str, float],
    after: Mapping[str, _IntervalLike],
    *,
    caveat: str = "",
    measure: str = "nDCG@10",
    detail: Mapping[str, str] | None = None,
    mark: str = "",
) -> str:
    """Each system's ``measure`` on the original qrels (``before``: a grey ring, no interval:
    every label there is a human one) and on the refined qrels (``after``: a blue dot with
    its 95% interval as a bar), one row per system, best refined estimate on top; beside
    each interval its sample size, "n = N human labels (``detail[system]``, if any)", kept
    inside the axes (:func:`_right_room` widens the x-axis for it).
    ``caveat`` (our own text) is printed under the axes: a downloaded file carries it;
    ``mark`` across the top, as on every plot here.

    ``after`` maps system names to :class:`assess.evaluation.intervals.Interval` (or
    anything with ``estimate``, ``low``, ``high``, ``n_human``); a system missing from
    ``before`` is drawn without its ring. Returns SVG text. ValueError when ``after`` is
    empty.
    """
    if not after:
        raise ValueError("intervals_svg needs at least one system")
    ordered = sorted(after, key=lambda s: (-after[s].estimate, s))
    note = textwrap.fill(caveat, 110) if caveat else ""

    def draw(fig: Figure) -> None:
        ax = fig.add_subplot()
        labels: dict[float, list[Annotation]] = {}  # by the x they start from (a high end)
        for row, system in enumerate(ordered):
            found = after[system]
            ax.errorbar(
                [found.estimate],
                [row + 0.15],
                xerr=[[found.estimate - found.low], [found.high - found.estimate]],
                fmt="o",
                color=_AFTER,
                capsize=3,
                label="refined qrels: estimate, 95% interval" if row == 0 else None,
            )
            more = (detail or {}).get(system)
            labels[found.high] = labels.get(found.high, []) + [
                ax.annotate(
                    f"n = {found.n_human:,} human labels" + (f" ({more})" if more else ""),
                    (found.high, row + 0.15),
                    xytext=(_LABEL_GAP, 0),
                    textcoords="offset points",
                    ha="left",
                    va="center",
                    fontsize=8,
                    color=_AFTER,
                )
            ]
            if system in before:
                ax.plot(
                    [before[system]],
                    [row - 0.15],
                    marker="o",
                    markerfacecolor="none",
                    color=_BEFORE,
                    linestyle="none",
                    label="original qrels (all human: no interval)" if row == 0 else None,
                )
        ax.set_yticks(list(range(len(ordered))), ordered)
        ax.set_ylim(len(ordered) - 0.5, -0.5)
        ax.margins(x=0.25)
        _right_room(fig, ax, labels)
        ax.set_xlabel(f"{measure} (95% interval, prediction-powered)")
        ax.set_title(f"{measure} per system: original and refined qrels", pad=24)
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=8, frameon=False)
        if note:
            # Below the axis label, whatever the figure's height (an offset in points).
            ax.annotate(note, (0, 0), xycoords="axes fraction", xytext=(0, -34),
                        textcoords="offset points", ha="left", va="top", fontsize=7,
                        color="#444444")  # fmt: skip

    return _render(draw, (7.0, max(2.5, 0.45 * len(ordered) + 1.4)), mark)
