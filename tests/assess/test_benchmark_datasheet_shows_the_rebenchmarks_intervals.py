"""The benchmark zip's datasheet has a section on the refined measures' 95% intervals: the
method and its source, the sample sizes, per run and measure the same numbers as
``report_intervals`` with their n, the settled run pairs, Kendall's tau and the caveat; or the
words of what is missing. Computed by evaluation and handed to the refined package as plain
values (the ``holes`` world of tests/fixtures/refine.py, half its agreed labels audited)."""

from __future__ import annotations

import zipfile

import pytest

from assess.evaluation.rebench import rebench_compute
from assess.evaluation.refined_intervals import COVERAGE_CAVEAT, report_intervals
from assess.refined.benchmark_zip import benchmark_datasheet, benchmark_zip_write
from assess.refined.datasheet import (
    IntervalCell,
    IntervalsSheet,
    datasheet_render,
)
from tests.assess.test_benchmark_datasheet_says_how_the_labels_were_made import (
    render_html,
    sheet,
)
from tests.assess.test_rebenchmark_shows_intervals_from_the_audit import drawn_waiting
from tests.fixtures.refine import refined_at_share

pytestmark = pytest.mark.django_db


def cell(i, plain: float) -> str:
    # The run's value on the zip's qrels first, then the estimate; n = 2: the holes world's
    # one audited label and its one escalated pair's label; n_b: those that move the value,
    # here fewer than 5, so the bracket is marked as the whole range.
    return (
        f"{plain:.4f} on the qrels, estimate {i.estimate:.4f} [{i.low:.4f}, {i.high:.4f}] "
        f"(whole range; n = 2; n_b = {i.n_bearing})"
    )


def test_the_datasheet_holds_the_numbers_of_report_intervals(refined, tmp_path):
    refined = refined_at_share(refined, 0.5)
    refinement = refined.refined.refinement
    report = rebench_compute(
        dataset=refined.dataset, original=refined.test, refined=refined.refined
    )
    found = report_intervals(report=report, original=refined.test, refined=refined.refined)
    sheet = benchmark_datasheet(refinement=refinement).intervals
    assert sheet.error == "" and sheet.tau == found.tau
    for system, by in found.ppi.by_system.items():
        for measure, i in by.items():
            # n: every human label behind the interval, the 1 audited and the 1 escalated.
            assert sheet.systems[system][measure] == IntervalCell(
                i.estimate,
                i.low,
                i.high,
                2,
                i.n_bearing,
                plain=found.plain[system][measure],
                whole_range=True,
            )
            assert i.n_bearing is not None  # n_b, the audited labels that move the value
    benchmark_zip_write(qrel_set=refined.refined, path=tmp_path / "b.zip")
    with zipfile.ZipFile(tmp_path / "b.zip") as archive:
        readme = archive.read("holes/README.md").decode()
    section = readme.split("## Intervals on the refined measures")[1].split("\n## ")[0]
    alpha = found.ppi.by_system["alpha"]
    # alpha on the refined qrels, worked by hand in tests/assess/test_rebenchmark_command_
    # prints_the_hand_worked_tables.py: nDCG@10 0.6934, P@10 0.15, R@100 0.75.
    assert (
        f"  - `alpha`: `nDCG@10` {cell(alpha['nDCG@10'], 0.6934)}; "
        f"`P@10` {cell(alpha['P@10'], 0.15)}; `R@100` {cell(alpha['R@100'], 0.75)}"
    ) in section
    waiting = drawn_waiting(refined)
    more = f" ({waiting} more drawn, not judged yet)" if waiting else ""
    assert sheet.audit_waiting == waiting
    # The hand-worked P@10 of alpha (tests/assess/test_rebenchmark_shows_intervals_...).
    assert "`P@10` 0.1500 on the qrels, estimate 0.1000 [" in section
    assert (
        f"- Sample sizes: 2 human labels (1 audited agreed pair{more}, 1 escalated pair); "
        "3 machine labels (the debates' consensus); 0 pairs without a final label, left out "
        "of the qrels"
    ) in section
    settled = sum(p.settled for p in found.pairs)
    assert f"settled at 95%: {settled} of 1 ({settled:.0%})" in section
    # Each pair on its own: the reader is told the pairs are not adjusted for multiplicity.
    assert "each pair's interval on its own, not adjusted for the 1 pair compared" in section
    # What the interval covers, and the parts of the method beyond the cited estimator.
    assert "cover the value under the annotators' labels" in section
    assert "a model-assisted (GREG) survey estimator" in section
    assert "in the spirit of prediction-powered inference" in section
    assert "a floor beyond the GREG variance that is a heuristic, tuned in simulation" in section
    assert "with n_b below 5 (a convention) it is every value the unjudged pairs" in section
    assert "nDCG@10 has binary gains here" in section
    tau, low, high = found.tau
    assert (
        f"- Kendall's tau, original vs PPI estimates (nDCG@10) [95% interval]: {tau:.3f} "
        f"[{low:.3f}, {high:.3f}], n = 2 human labels (1 audited + 1 escalated)"
    ) in section
    assert "Science 382, 2023" in section and "`docs/rebenchmarking.md`" in section
    assert f"- Caveat: {COVERAGE_CAVEAT}" in section


def test_without_an_audit_the_datasheet_says_what_is_missing(refined):
    refined = refined_at_share(refined, 0.0)
    text = datasheet_render(sheet=benchmark_datasheet(refinement=refined.refined.refinement))
    section = text.split("## Intervals on the refined measures")[1].split("\n## ")[0]
    assert "- No interval: " in section and "intervals need an audit share \\> 0" in section
    assert "- Per run:" not in section


def test_hostile_run_names_and_errors_stay_inert():
    hostile = IntervalsSheet(
        systems={"[x](javascript:alert(1))\n# H": {"nDCG@10": IntervalCell(0.5, 0.4, 0.6, 3)}},
        audited=3,
        agreed=10,
        notes=("stratum '<b>label 1</b>' has no human label",),
    )
    text = _render(hostile)
    lines = [line for line in text.splitlines() if "javascript" in line or "label 1" in line]
    assert lines == [
        "  - `[x](javascript:alert(1)) # H`: `nDCG@10` 0.5000 [0.4000, 0.6000] (n = 3)",
        r"- Note: stratum '\<b\>label 1\</b\>' has no human label",
    ]
    html = render_html(text)
    assert "<a " not in html and "<b>" not in html and "<h1>H" not in html
    failed = _render(IntervalsSheet(error="query 'q1' document '`d`' has no human label"))
    assert r"- No interval: query 'q1' document '\`d\`' has no human label" in failed


def _render(intervals: IntervalsSheet) -> str:
    return datasheet_render(sheet=sheet(intervals=intervals))
