"""Fixtures for the final-label, refine, export, re-benchmark and RAG tests.

Import the ``*_fixture`` functions explicitly; each registers the fixture named without the
suffix. The ``holes`` world is small enough to work every number out by hand:

Documents d1-d6, queries q1 and q2. Original qrels ``test``::

    q1: d1=1, d2=0        q2: d4=1, d5=-1

Runs (imported TREC runs, rank order)::

    alpha: q1 d3, d1, d2      q2 d6, d4
    beta:  q1 d1, d2, d5      q2 d5, d4, d3

Pool ``p`` (depth 3, judged pairs left out) holds 4 pairs: (q1, d3) and (q2, d6) from alpha,
(q1, d5) and (q2, d3) from beta. :func:`settle_all` gives them the outcomes

    (q1, d3) agreed relevant at round 1                    -> consensus 1
    (q1, d5) agreed not relevant at round 2                -> consensus 0
    (q2, d3) escalated (disagreement), alice judges 1      -> human 1
    (q2, d6) agreed relevant at round 1, audit: bob says 0 -> human 0 (overrides consensus)

so the refined set adds q1-d3=1, q1-d5=0, q2-d3=1, q2-d6=0 to the 4 original rows.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from .celery_support import app_on_broker
from .conftest import write_beir

HOLES_CORPUS = [
    {"_id": f"d{i}", "title": f"Title {i}", "text": f"text of document {i}"} for i in range(1, 7)
]
HOLES_QUERIES = [
    {"_id": "q1", "text": "first question"},
    {"_id": "q2", "text": "second question"},
]
HOLES_QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\nq2\td4\t1\nq2\td5\t-1\n"
ALPHA = ["q1 Q0 d3 1 3.0 alpha", "q1 Q0 d1 2 2.0 alpha", "q1 Q0 d2 3 1.0 alpha"]
ALPHA += ["q2 Q0 d6 1 2.0 alpha", "q2 Q0 d4 2 1.0 alpha"]
BETA = ["q1 Q0 d1 1 3.0 beta", "q1 Q0 d2 2 2.0 beta", "q1 Q0 d5 3 1.0 beta"]
BETA += ["q2 Q0 d5 1 3.0 beta", "q2 Q0 d4 2 2.0 beta", "q2 Q0 d3 3 1.0 beta"]
AGENT = {"backend": "embedded"}


def _write_run(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture(name="holes")
def holes_fixture(db, tmp_path: Path):
    """The ``holes`` dataset with runs alpha and beta, pool ``p`` and a debate job over it
    (every debate pending). Returns a namespace with ``dataset``, ``test`` (qrel set),
    ``pool``, ``job``, ``runs`` and ``debate(qid, did)``."""
    from corpora.services import dataset_import_beir, pool_build, run_import
    from debates.services import debate_job_create

    folder = write_beir(
        tmp_path / "holes",
        corpus=HOLES_CORPUS,
        queries=HOLES_QUERIES,
        qrels={"test": HOLES_QRELS},
    )
    dataset = dataset_import_beir(path=folder, name="holes")
    runs = [
        run_import(dataset=dataset, path=_write_run(tmp_path / "alpha.run", ALPHA), name="alpha"),
        run_import(dataset=dataset, path=_write_run(tmp_path / "beta.run", BETA), name="beta"),
    ]
    test = dataset.qrel_sets.get(name="test")
    pool = pool_build(dataset=dataset, qrel_set=test, runs=runs, depth=3, name="p").pool
    job = debate_job_create(pool=pool, agent_a=AGENT, agent_b=AGENT)
    return World(dataset=dataset, test=test, pool=pool, job=job, runs=runs)


class World:
    """The objects of the ``holes`` world."""

    def __init__(self, **items):
        self.__dict__.update(items)

    def debate(self, query_id: str, doc_id: str, job=None):
        from debates.models import Debate

        return Debate.objects.get(
            job=job or self.job,
            pair__query__query_id=query_id,
            pair__document__doc_id=doc_id,
        )


def settle(debate, status: str, *, label=None, round=None, reason="", minutes: int = 0):
    """Give a debate its outcome directly (no LLM): agreed with ``label`` at ``round``, or
    escalated with ``reason``, or failed; finished ``minutes`` after a fixed instant."""
    from debates.models import Debate

    finished = FIXED_NOW + timedelta(minutes=minutes)
    Debate.objects.filter(pk=debate.pk).update(
        status=status,
        final_label=label,
        consensus_round=round,
        escalation_reason=reason,
        finished=finished if status in ("agreed", "escalated", "failed") else None,
    )
    debate.refresh_from_db()
    return debate


FIXED_NOW = timezone.make_aware(timezone.datetime(2026, 1, 2, 3, 4, 5))


def user(name: str):
    from django.contrib.auth import get_user_model

    found = get_user_model().objects.filter(username=name).first()
    return found or get_user_model().objects.create_user(name, password="x")


def review(debate, kind: str, judgments=(), *, needed: int = 1, adjudication=None, minutes=10):
    """A review item for ``debate`` with live ``judgments`` ``[(username, label), ...]`` and
    optionally an adjudication ``(admin username, label)``."""
    from assess.models import Adjudication, Judgment, ReviewItem

    item = ReviewItem.objects.create(debate=debate, kind=kind, judgments_needed=needed)
    for offset, (name, label) in enumerate(judgments):
        j = Judgment.objects.create(
            item=item, annotator=user(name), label=label, client_id=uuid.uuid4()
        )
        Judgment.objects.filter(pk=j.pk).update(
            created=FIXED_NOW + timedelta(minutes=minutes + offset)
        )
    if adjudication is not None:
        a = Adjudication.objects.create(
            item=item, admin=user(adjudication[0]), label=adjudication[1]
        )
        Adjudication.objects.filter(pk=a.pk).update(
            created=FIXED_NOW + timedelta(minutes=minutes + 30)
        )
    return item


def add_turns(debate, rounds: list[tuple[tuple[int, str], tuple[int, str]]]):
    """Store turns for ``debate``: per round ``((label A, argument A), (label B, argument B))``."""
    from debates.models import Turn

    for number, ((label_a, arg_a), (label_b, arg_b)) in enumerate(rounds, start=1):
        for agent, stance, label, argument in (
            ("A", "relevant", label_a, arg_a),
            ("B", "irrelevant", label_b, arg_b),
        ):
            Turn.objects.create(
                debate=debate,
                round=number,
                agent=agent,
                stance=stance,
                label=label,
                argument=argument,
                evidence=[f"evidence {agent}{number}"],
                raw=f'{{"label": {label}}}',
                raw_attempts=[f'{{"label": {label}}}'],
                prompt_version="dream-v1",
                model="SmolLM2-135M-Instruct-Q4_1",
                prompt_tokens=100,
                completion_tokens=20,
                latency_ms=50.0,
                finish_reason="stop",
            )


def settle_all(world) -> None:
    """The outcomes of the module docstring, with turns for every debate."""
    d13 = settle(world.debate("q1", "d3"), "agreed", label=1, round=1, minutes=1)
    add_turns(d13, [((1, "d3 answers q1"), (1, "agreed, relevant"))])
    d15 = settle(world.debate("q1", "d5"), "agreed", label=0, round=2, minutes=2)
    add_turns(d15, [((1, "maybe"), (0, "off topic")), ((0, "conceded"), (0, "off topic"))])
    d23 = settle(world.debate("q2", "d3"), "escalated", reason="disagreement", minutes=3)
    add_turns(d23, [((1, "it helps"), (0, "it does not")), ((1, "still helps"), (0, "no"))])
    review(d23, "escalated", [("alice", 1)])
    d26 = settle(world.debate("q2", "d6"), "agreed", label=1, round=1, minutes=4)
    add_turns(d26, [((1, "relevant"), (1, '=HYPERLINK("http://x")'))])
    review(d26, "audit", [("bob", 0)])


@pytest.fixture(name="var_dir")
def var_dir_fixture(settings, tmp_path: Path) -> Path:
    """``settings.VAR_DIR`` pointed at a fresh temporary folder (export files land there)."""
    settings.VAR_DIR = tmp_path / "var"
    return settings.VAR_DIR


@pytest.fixture(name="refined")
def refined_fixture(holes):
    """The ``holes`` world settled (:func:`settle_all`) and refined as ``test-dream``."""
    from assess.refined.refine import qrels_refine

    settle_all(holes)
    holes.refined = qrels_refine(pool=holes.pool, name="test-dream").qrel_set
    return holes


HOLES_ANSWERS = {"q1": ["first answer"], "q2": ["forty two"]}


def rag_rule(messages) -> str:
    """A generator that answers q1 correctly only from d3 (the hole) and q2 only from d4."""
    prompt = messages[-1]["content"]
    if "first question" in prompt:
        return "It is the first answer." if "text of document 3" in prompt else "unknown"
    return "Forty two, surely" if "text of document 4" in prompt else "unknown"


def rag_rule_client(config=None):
    """Factory for ``DREAM_TEST_LLM_FACTORY`` (backend "test"): a :func:`rag_rule` client."""
    from debates.llm.scripted import RuleClient

    return RuleClient(rag_rule, model="rule-generator")


@pytest.fixture(name="holes_rag")
def holes_rag_fixture(refined, tmp_path: Path):
    """The refined ``holes`` world with reference answers and a third run, gamma
    (q1 d3, q2 d4: both answerable)."""
    from corpora.models import Query
    from corpora.services import run_import

    for query_id, answers in HOLES_ANSWERS.items():
        Query.objects.filter(dataset=refined.dataset, query_id=query_id).update(answers=answers)
    gamma = ["q1 Q0 d3 1 2.0 gamma", "q2 Q0 d4 1 2.0 gamma"]
    refined.runs.append(
        run_import(
            dataset=refined.dataset, path=_write_run(tmp_path / "g.run", gamma), name="gamma"
        )
    )
    return refined


@pytest.fixture(name="export_worker")
def export_worker_fixture():
    """An in-process Celery worker consuming from ``CELERY_TEST_BROKER_URL`` (e.g. Redis
    db 10), as in tests/test_retrieve_task_runs_on_a_celery_worker.py."""
    import os

    broker = os.environ.get("CELERY_TEST_BROKER_URL", "")
    if not broker:
        if os.environ.get("CI"):
            pytest.fail("CELERY_TEST_BROKER_URL is not set in CI")
        pytest.skip("set CELERY_TEST_BROKER_URL=redis://127.0.0.1:6379/<db> to run")
    from celery.contrib.testing.worker import start_worker

    from config.celery import app

    with app_on_broker(app, broker):
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
            yield app
