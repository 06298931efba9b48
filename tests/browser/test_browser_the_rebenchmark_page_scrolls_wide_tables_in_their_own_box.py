"""In Chromium at 1280 pixels wide: the re-benchmark page never scrolls sideways, even with
run names long enough to make its tables wider than the page; such a table scrolls inside
its own box instead. And the intervals plot keeps each "n = ... human labels" text inside
its axes, not running over their right edge."""

import pytest

from corpora.models import Run
from tests.fixtures.browser import browser_login

# Long enough that the rank-changes table (name, ranks, scores and RBP columns) is wider
# than the page's 72rem column.
LONG = "a-run-name-as-long-as-some-people-give-their-runs-{}-with-every-setting-spelt-out"
QUERY = "?original=test&refined=test-dream"


@pytest.mark.django_db(transaction=True)
def test_wide_tables_scroll_in_their_box_and_labels_stay_inside_the_axes(
    live_server, browser_page, refined, make_user
):
    for run in Run.objects.filter(dataset=refined.dataset):
        Run.objects.filter(pk=run.pk).update(name=LONG.format(run.name))
    make_user("researcher")
    page = browser_page
    path = "/datasets/holes/rebenchmark/"
    browser_login(page, live_server.url, path, "researcher")
    page.goto(live_server.url + path + QUERY)
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert widths[0] <= widths[1], widths
    boxes = page.evaluate(
        "() => [...document.querySelectorAll('.table-scroll')]"
        ".map(b => [b.scrollWidth > b.clientWidth, getComputedStyle(b).overflowX])"
    )
    assert [True, "auto"] in boxes  # at least one table is wider than its box, and scrolls

    page.goto(live_server.url + path + "intervals.svg" + QUERY)
    overruns = page.evaluate(
        """() => {
          const axes = document.querySelector('#axes_1 #patch_2 path').getBoundingClientRect();
          return [...document.querySelectorAll('text')]
            .filter(t => t.textContent.startsWith('n = '))
            .map(t => [t.textContent, t.getBoundingClientRect().right - axes.right]);
        }"""
    )
    assert overruns, "no sample-size label drawn"
    assert [label for label, over in overruns if over > 0] == []
