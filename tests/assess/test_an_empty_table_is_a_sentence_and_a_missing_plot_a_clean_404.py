"""A table without a row is shown as its title and a sentence saying why, never as a header
over nothing (the page, the printout); and a plot that cannot be drawn (intervals without an
audit) answers the app's own 404 page with the words of what is missing, with ``DEBUG`` on
too, never Django's debug page (the ``holes`` world of tests/fixtures/refine.py)."""

import html
import io
import re

import pytest
from django.core.management import call_command

from tests.fixtures.refine import refined_at_share

pytestmark = pytest.mark.django_db

QUERY = "original=test&refined=test-dream"
ONE_RUN = "No system pair to compare: one run only."


def test_one_run_has_no_pair_table_but_a_sentence(refined, client_as):
    refined = refined_at_share(refined, 0.5)
    out = io.StringIO()
    call_command("rebenchmark", "holes", "--refined", "test-dream", "--runs", "alpha", stdout=out)
    text = out.getvalue()
    pairs = "System pairs: nDCG@10 difference on the refined qrels (a - b)"
    assert f"{pairs}\n{ONE_RUN}\n" in text
    shown = client_as("researcher").get(f"/datasets/holes/rebenchmark/?{QUERY}&runs=alpha")
    body = html.unescape(shown.content.decode())
    assert f'<p class="table-empty"><strong>{pairs}</strong>: {ONE_RUN}</p>' in body
    assert f"<caption>{pairs}</caption>" not in body


def test_without_an_audit_the_intervals_are_a_sentence(refined, client_as):
    refined = refined_at_share(refined, 0.0)
    body = client_as("researcher").get(f"/datasets/holes/rebenchmark/?{QUERY}").content
    body = html.unescape(body.decode())
    title = "Intervals (95%) on the refined qrels"
    assert f"<caption>{title}</caption>" not in body
    sentence = rf'<p class="table-empty"><strong>{re.escape(title)}</strong>: (.*?)</p>'
    found = re.search(sentence, body)
    assert found.group(1).startswith("No interval: ")
    assert "intervals need an audit share > 0" in found.group(1)


def test_a_missing_intervals_plot_is_the_apps_404_with_debug_on(refined, client_as, settings):
    refined = refined_at_share(refined, 0.0)
    settings.DEBUG = True
    response = client_as("researcher").get(f"/datasets/holes/rebenchmark/intervals.svg?{QUERY}")
    assert response.status_code == 404
    body = html.unescape(response.content.decode())
    assert "<h1>Not found</h1>" in body and "intervals need an audit share > 0" in body
    assert "DEBUG = True" not in body and "URLconf" not in body
