"""Fixtures for the judging, agreement, audit and job-page tests (import them explicitly).

``make_review_job(...)`` builds a finished debate job without any LLM: a dataset with one
query and one document per pair, a pool, a job, one debate per pair (escalated or agreed)
with stored turns, and optionally its review items. Fixtures carry ``name=`` (see
``ui_fixtures``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from .ui_fixtures import FAST_HASHERS, PASSWORD, _make_user

EMBEDDED = {"backend": "embedded", "model": "SmolLM2-135M-Instruct-Q4_1", "n_ctx": 2048}


@dataclass
class ReviewJob:
    job: object
    escalated: list  # Debate rows, in pair order
    agreed: list


def build_review_job(
    *,
    escalated: int = 3,
    agreed: int = 0,
    judgments_per_pair: int = 1,
    audit_share: float = 0.0,
    slug: str = "annot",
    query_text: str = "Does vitamin D reduce fractures?",
    chunk_text: str = (
        "We pooled eleven trials. Daily vitamin D reduced hip fractures by 30 percent. "
        "Lower doses showed no effect."
    ),
    evidence_a: tuple[str, ...] = ("Daily vitamin D reduced hip fractures by 30 percent.",),
    evidence_b: tuple[str, ...] = ("Lower doses showed no effect.",),
    argument_a: str = "The chunk reports the effect directly.",
    argument_b: str = "Only one dose helped.",
    agreed_label: int = 1,
    sync: bool = True,
) -> ReviewJob:
    """A finished job over ``escalated + agreed`` pairs (pairs q001/d001, q002/d002, ...):
    escalated debates disagree for 2 rounds, agreed ones agree in round 1 on
    ``agreed_label``. With ``sync`` the review items are created (``review_items_sync``)."""
    from corpora.models import Dataset, Document, Pair, Pool, QrelSet, Query
    from debates.models import Debate, DebateJob, Turn

    total = escalated + agreed
    dataset = Dataset.objects.create(name=f"Dataset {slug}", slug=slug)
    qrel_set = QrelSet.objects.create(dataset=dataset, name="test")
    pool = Pool.objects.create(dataset=dataset, qrel_set=qrel_set, name="p", depth=10)
    job = DebateJob.objects.create(
        pool=pool,
        agent_a=EMBEDDED,
        agent_b=EMBEDDED,
        rounds=2,
        prompt_version="test",
        status=DebateJob.Status.FINISHED,
        judgments_per_pair=judgments_per_pair,
        audit_share=audit_share,
    )
    out = ReviewJob(job=job, escalated=[], agreed=[])
    for i in range(1, total + 1):
        query = Query.objects.create(
            dataset=dataset, query_id=f"q{i:03d}", text=query_text, answers=["30 percent"]
        )
        document = Document.objects.create(
            dataset=dataset, doc_id=f"d{i:03d}", title=f"Title {i}", text=chunk_text
        )
        pair = Pair.objects.create(pool=pool, query=query, document=document)
        is_escalated = i <= escalated
        debate = Debate.objects.create(
            job=job,
            pair=pair,
            status=Debate.Status.ESCALATED if is_escalated else Debate.Status.AGREED,
            final_label=None if is_escalated else agreed_label,
            consensus_round=None if is_escalated else 1,
            escalation_reason=Debate.Reason.DISAGREEMENT if is_escalated else "",
            calls=4 if is_escalated else 2,
        )
        rounds = 2 if is_escalated else 1
        for number in range(1, rounds + 1):
            for agent, stance, label, argument, evidence in (
                ("A", "relevant", 1, argument_a, evidence_a),
                (
                    "B",
                    "irrelevant",
                    0 if is_escalated else agreed_label,
                    argument_b,
                    evidence_b,
                ),
            ):
                Turn.objects.create(
                    debate=debate,
                    round=number,
                    agent=agent,
                    stance=stance,
                    label=label if is_escalated or agent == "B" else agreed_label,
                    argument=f"{argument} (round {number})",
                    evidence=list(evidence),
                    raw="{}",
                    model="scripted",
                )
        (out.escalated if is_escalated else out.agreed).append(debate)
    if sync:
        from assess.review.services import review_items_sync

        review_items_sync(job=job)
    return out


@pytest.fixture(name="make_review_job")
def make_review_job_fixture(db):
    """``make_review_job(**kwargs)``: see :func:`build_review_job`."""
    return build_review_job


@pytest.fixture(name="annotators")
def annotators_fixture(db, settings):
    """``annotators(n)``: n annotator users ``ann1``..``annN`` (password ``PASSWORD``)."""
    settings.PASSWORD_HASHERS = FAST_HASHERS

    def make(n: int, prefix: str = "ann") -> list:
        return [_make_user("annotator", f"{prefix}{i}") for i in range(1, n + 1)]

    return make


# ---------------------------------------------------------------------------------------------
# Browser tests: Debian's Chromium driven by Playwright (never `playwright install`).

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless=new",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


@pytest.fixture(name="browser_page")
def browser_page_fixture(monkeypatch):
    """A fresh headless Chromium page (1280x900). Skips outside CI when Chromium is missing
    (``apt-get install chromium``); fails in CI."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing in CI (apt-get install -y chromium)")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread; the test's own ORM calls
    # are synchronous all the same.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    # The live server's request threads live as long as the browser's keep-alive sockets:
    # with persistent connections they would still hold a database session when the test
    # database is dropped.
    from django.db import connections

    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.set_default_timeout(30_000)
        try:
            yield page
        finally:
            context.close()
            browser.close()
            # Under Playwright's sync API the test body's ORM calls get their own connection
            # (another context); close it here or it outlives the test database.
            connections.close_all()


def browser_login(page, base_url: str, path: str, username: str, password: str = PASSWORD) -> None:
    """Open ``path``, land on the login page, and log in with the keyboard."""
    page.goto(base_url + path)
    page.wait_for_url(f"**/login/?next={path}")
    page.focus("#id_username")
    page.keyboard.type(username)
    page.keyboard.press("Tab")
    page.keyboard.type(password)
    page.keyboard.press("Enter")
    page.wait_for_url(base_url + path)


#: A demo account line the demo command prints: (role, username, password).
DEMO_ACCOUNT = re.compile(r"^\s+(\w+)\s+user (demo-\w+)\s+password (\S+)$", re.M)


def press_and_wait(page, key: str, previous: str) -> str:
    """Press ``key`` on the judging page and wait until another pair (or the empty queue)
    replaced pair ``previous`` and no request is in flight; returns the shown item id."""
    page.keyboard.press(key)
    page.wait_for_function(
        "previous => document.querySelector('#judge-item').dataset.item !== previous"
        " && document.querySelector('#judge-item').getAttribute('aria-busy') !== 'true'",
        arg=previous,
    )
    return page.get_attribute("#judge-item", "data-item")


def judge_everything(page) -> int:
    """Press 1 / 0 in turn until the queue is empty; returns how many pairs were judged."""
    judged = 0
    page.wait_for_selector("#judge-item")
    shown = page.get_attribute("#judge-item", "data-item")
    while shown:
        shown = press_and_wait(page, "1" if judged % 2 == 0 else "0", shown)
        judged += 1
    assert page.is_visible("#judge-empty")
    return judged


__all__ = [
    "ARTIFACTS",
    "DEMO_ACCOUNT",
    "PASSWORD",
    "ReviewJob",
    "browser_login",
    "build_review_job",
    "judge_everything",
    "press_and_wait",
]
