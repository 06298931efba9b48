"""In Chromium, over what the demo built: the demo annotator judges every escalated pair,
the demo admin refines again, and the demo researcher downloads TREC qrels whose row count
equals the original qrels + consensus labels + human labels.

The demo command runs in-process on the bundled SciFact sample (BM25 only, 3 queries,
depth 5, R = 2) with the rule-based test agents, which escalate some pairs: the embedded
SmolLM2 agrees on nearly everything, so it would leave the annotator nothing to judge.
"""

from io import StringIO

import pytest
from django.core.management import call_command

from assess.models import Judgment, ReviewItem
from assess.review.agreement import wilson_interval
from assess.review.gold import gold_correct
from corpora.formats import parse_trec_qrels
from corpora.models import QrelSet
from debates.models import Debate
from tests.fixtures.annot import DEMO_ACCOUNT
from tests.fixtures.browser import browser_login, judge_everything

STANCE_RULE = {"backend": "test", "rule": "stance"}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_demo_annotator_judges_every_escalation_and_the_researcher_downloads_it_all(
    live_server, browser_page, fake_llms, settings, tmp_path
):
    settings.VAR_DIR = tmp_path
    settings.CELERY_TASK_ALWAYS_EAGER = True  # the demo's defaults: no broker
    out = StringIO()
    call_command(
        "demo",
        "--no-serve",
        "--queries=3",
        "--depth=5",
        "--rounds=2",
        "--retrievers=bm25",
        agent=STANCE_RULE,
        stdout=out,
    )
    printed = out.getvalue()
    accounts = {role: (user, password) for role, user, password in DEMO_ACCOUNT.findall(printed)}
    assert set(accounts) == {"admin", "annotator", "researcher"}
    assert "Leaderboard on the refined qrels" in printed

    original = QrelSet.objects.get(dataset__slug="scifact", name="test").qrels.count()
    agreed = Debate.objects.filter(status="agreed").count()
    escalated = Debate.objects.filter(status="escalated").count()
    assert original == 339
    assert agreed > 0 and escalated > 0  # the stance rule does both
    first = QrelSet.objects.get(origin="refined")
    assert first.qrels.count() == original + agreed
    # The queue also holds audits: a reproducible sample of a quarter of the agreed pairs
    # (the demo's audit share), unmarked.
    assert ReviewItem.objects.filter(kind="escalated").count() == escalated
    queue = ReviewItem.objects.count()

    page = browser_page
    browser_login(page, live_server.url, "/judge/", *accounts["annotator"])
    judged = judge_everything(page)
    # Known-answer pairs from the original qrels came among the audits (the demo's gold
    # share is a quarter), each on the annotator's own item.
    golds = ReviewItem.objects.filter(kind="gold")
    assert golds.count() > 0
    assert judged == queue + golds.count()
    assert Judgment.objects.filter(undone_at__isnull=True).count() == judged

    # The annotators page shows the demo annotator's accuracy on them with its interval.
    page.context.clear_cookies()
    browser_login(page, live_server.url, "/review/annotators/", *accounts["admin"])
    answers = Judgment.objects.filter(item__kind="gold").values_list("item__gold__label", "label")
    right = sum(gold_correct(known, given) for known, given in answers)
    wilson = wilson_interval(right, len(answers))
    row = page.inner_text(f"#annotator-{accounts['annotator'][0]} .gold-accuracy")
    assert row == (
        f"{round(wilson.estimate * 100)}% ({right} of {len(answers)}; 95% CI "
        f"{round(wilson.low * 100)}–{round(wilson.high * 100)}%)"
    )

    page.context.clear_cookies()
    refined_list = "/datasets/scifact/refined/"
    browser_login(page, live_server.url, refined_list, *accounts["admin"])
    name = page.input_value("#id_name")
    assert name and name != first.name
    page.click("#refine-submit")
    # Refining runs in the background: the form answers at once with the operation's page,
    # which polls until the link to the new set (the timeout only limits a hang).
    page.wait_for_url("**/datasets/scifact/refined/new/*/")
    page.click("#refined-set", timeout=120_000)
    page.wait_for_url(f"**/datasets/scifact/refined/{name}/")
    second = QrelSet.objects.get(name=name)
    assert second.qrels.count() == original + agreed + escalated

    page.context.clear_cookies()
    detail = f"/datasets/scifact/refined/{name}/"
    browser_login(page, live_server.url, detail, *accounts["researcher"])
    page.click("#export-trec button[type=submit]")
    link = page.wait_for_selector("#export-trec a[download]")
    with page.expect_download() as download:
        link.click()
    saved = tmp_path / "downloaded.trec"
    download.value.save_as(saved)
    rows = list(parse_trec_qrels(saved))
    assert len(rows) == original + agreed + escalated
    human = {(r.query_id, r.doc_id) for r in rows} - {
        (q, d) for q, d in first.qrels.values_list("query__query_id", "document__doc_id")
    }
    assert len(human) == escalated
