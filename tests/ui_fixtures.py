"""Fixtures and helpers for the page tests (import them explicitly).

Fixtures carry ``name=`` so a test can import the function (``..._fixture``) without the
parameter shadowing the import (ruff F811).
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.core.cache import cache

from .conftest import TINY_CORPUS, TINY_QUERIES, write_beir

PASSWORD = "correct horse battery"
ANONYMOUS = "anonymous"
NO_ROLE = "no role"
WHO = (ANONYMOUS, NO_ROLE, "annotator", "researcher", "admin")


FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _make_user(who: str, username: str | None = None):
    from django.contrib.auth import get_user_model

    from corpora.roles import user_ensure

    if who == ANONYMOUS:
        return None
    username = username or who.replace(" ", "-")
    if who == NO_ROLE:
        return get_user_model().objects.create_user(username, password=PASSWORD)
    user, _, _ = user_ensure(username=username, role=who, password=PASSWORD)
    return user


@pytest.fixture(name="fresh_cache")
def fresh_cache_fixture(settings):
    """An empty per-test memory cache (login failure counters live there). Never the Redis
    of ``REDIS_URL``: clearing that would flush a whole Redis database."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "ui-tests",
        }
    }
    cache.clear()
    yield cache
    cache.clear()


@pytest.fixture(name="make_user")
def make_user_fixture(db, settings):
    """``make_user(who, username=None)``: a user holding role ``who`` (no role for
    ``NO_ROLE``; None for ``ANONYMOUS``) with password ``PASSWORD``. Passwords are hashed
    with MD5 here: the production hasher takes about half a second per user."""
    settings.PASSWORD_HASHERS = FAST_HASHERS
    return _make_user


@pytest.fixture(name="client_as")
def client_as_fixture(client, db, settings):
    """``client_as(who)``: the test client, logged in as a fresh user of role ``who``."""
    settings.PASSWORD_HASHERS = FAST_HASHERS

    def login(who: str):
        user = _make_user(who)
        if user is not None:
            client.force_login(user)
        return client

    return login


@pytest.fixture(name="tiny_dataset")
def tiny_dataset_fixture(db, tmp_path: Path):
    """The conftest tiny BEIR dataset ``tiny`` (3 documents d1-d3, 2 queries, qrel set
    ``test``: q1-d1 = 1, q2-d3 = 1) plus run ``bm25`` (4 entries: q1 -> d2, d1; q2 -> d3, d2)
    and pool ``p`` (depth 2, judged pairs left out: (q1, d2) and (q2, d2))."""
    from corpora.models import Pair, PairSource, Pool, Run, RunEntry
    from corpora.services import dataset_import_beir

    folder = write_beir(
        tmp_path / "tiny",
        corpus=TINY_CORPUS,
        queries=TINY_QUERIES,
        qrels={"test": "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\n"},
    )
    dataset = dataset_import_beir(path=folder, name="tiny")
    docs = {d.doc_id: d for d in dataset.documents.all()}
    queries = {q.query_id: q for q in dataset.queries.all()}
    run = Run.objects.create(dataset=dataset, name="bm25", system="BM25 test")
    ranked = [
        ("q1", "d2", 1, 2.0),
        ("q1", "d1", 2, 1.0),
        ("q2", "d3", 1, 3.0),
        ("q2", "d2", 2, 1.5),
    ]
    for qid, did, rank, score in ranked:
        RunEntry.objects.create(
            run=run, query=queries[qid], document=docs[did], rank=rank, score=score
        )
    pool = Pool.objects.create(
        dataset=dataset, qrel_set=dataset.qrel_sets.get(name="test"), name="p", depth=2
    )
    pool.runs.add(run)
    for qid, did, rank, score in ranked:
        if (qid, did) in {("q1", "d2"), ("q2", "d2")}:
            pair = Pair.objects.create(pool=pool, query=queries[qid], document=docs[did])
            PairSource.objects.create(pair=pair, run=run, rank=rank, score=score)
    return dataset


class _Tables(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def html_tables(html: str) -> list[list[list[str]]]:
    """Every ``<table>`` of a page as rows of cell texts (whitespace collapsed), header first."""
    parser = _Tables()
    parser.feed(html)
    return parser.tables


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.script_text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.script_text.append(data)


def html_elements(html: str) -> tuple[list[tuple[str, dict[str, str | None]]], list[str]]:
    """``(elements, inline_script_texts)``: every start tag with its attributes, and the text
    found inside ``<script>`` elements."""
    parser = _Elements()
    parser.feed(html)
    return parser.elements, parser.script_text
