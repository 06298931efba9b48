"""Fixtures for the debate-job tests: small pools, test LLM backends, a real Celery worker.

Import what you use explicitly::

    from tests.jobs_fixtures import fake_llms_fixture, small_pool_fixture  # noqa: F401

Test backends. A job agent config ``{"backend": "test", ...}`` is accepted only when
``DREAM_TEST_LLM_FACTORY`` names :func:`make_test_llm` (the ``fake_llms`` fixture and
the worker fixture set it). The factory builds:

- ``{"backend": "test", "name": "a"}``: the client the test registered in
  :data:`REGISTERED` under that name (in-process tests, e.g. a ScriptedClient);
- ``{"backend": "test", "rule": "stance", "delay": 0.3}`` (or just ``{"backend": "test"}``,
  what ``--backend test`` gives a command): a :class:`RuleClient` whose
  labels follow :func:`stance_rule` (some pairs agree in round 1, some in round 2, some
  never), each call taking ``delay`` seconds (to kill a worker mid-debate);
- ``{"backend": "test", "inner": "embedded"}``: the real embedded SmolLM2 model.

Every call of a rule or embedded test client is appended to the file named by
``DREAM_TEST_LLM_LOG`` (one line: pair key, round, agent, process id; see
:func:`call_key`), so a test can prove across worker restarts that no LLM call was repeated.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from debates.llm.base import ChatMessage, GenerationParams, LLMClient, LLMResult
from debates.llm.scripted import RuleClient

from .celery_support import app_on_broker
from .conftest import BUNDLED_SCIFACT, REPO, write_beir

FACTORY = "tests.jobs_fixtures:make_test_llm"
REGISTERED: dict[str, LLMClient] = {}
BROKER = os.environ.get("CELERY_TEST_BROKER_URL", "")


def reply(label: int, argument: str = "because", evidence: tuple[str, ...] = ()) -> str:
    """A well-formed agent reply."""
    return json.dumps({"label": label, "argument": argument, "evidence": list(evidence)})


# ---------------------------------------------------------------------------------------------
# Test LLM backends


_PAIR_BLOCKS = re.compile(r"<<<QUERY\n.*?\nCHUNK>>>", re.DOTALL)


def pair_key(text: str) -> str:
    """A short fingerprint of the pair (query and chunk blocks) a prompt is about."""
    match = _PAIR_BLOCKS.search(text)
    return hashlib.sha1((match.group(0) if match else text).encode()).hexdigest()[:16]


def call_key(messages: list[ChatMessage]) -> tuple[str, int, str]:
    """``(pair key, round, agent)`` of a debate request (agent "J" for the single judge)."""
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    user = next(m["content"] for m in messages if m["role"] == "user")
    rounds = re.findall(r"Round (\d+)\.", user)
    if "initial stance: RELEVANT" in system:
        agent = "A"
    elif "initial stance: IRRELEVANT" in system:
        agent = "B"
    else:
        agent = "J"
    return pair_key(user), int(rounds[-1]) if rounds else 1, agent


def read_call_log(path: Path) -> list[tuple[str, int, str, int]]:
    """The lines a :class:`LoggingClient` wrote: ``(pair key, round, agent, pid)``."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        key, round_no, agent, pid = line.split()
        rows.append((key, int(round_no), agent, int(pid)))
    return rows


class LoggingClient:
    """Wraps a client; appends ``<pair key> <round> <agent> <pid>`` to ``log`` as each call
    starts (so a call in flight when its worker is killed is logged too)."""

    def __init__(self, inner: LLMClient, log: str | None) -> None:
        self.inner, self.log = inner, log
        self.model, self.context_window = inner.model, inner.context_window

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def chat(self, messages: list[ChatMessage], params: GenerationParams) -> LLMResult:
        if self.log:
            key, round_no, agent = call_key(messages)
            with open(self.log, "a", encoding="utf-8") as out:
                out.write(f"{key} {round_no} {agent} {os.getpid()}\n")
                out.flush()
                os.fsync(out.fileno())
        return self.inner.chat(messages, params)


def _bucket(key: str) -> int:
    return int(key[:2], 16) % 3


def stance_rule(messages: list[ChatMessage]) -> str:
    """Replies by pair (a hash of the chunk, 3 buckets), round and stance.

    Bucket 0: both agents say relevant in round 1 (agreed, round 1). Bucket 1: round 1 split
    by stance, round 2 both irrelevant (agreed, round 2). Bucket 2: always split by stance
    (escalated after R rounds).
    """
    system = next(m["content"] for m in messages if m["role"] == "system")
    user = [m["content"] for m in messages if m["role"] == "user"][-1]
    stance_label = 1 if "initial stance: RELEVANT" in system else 0
    round_no = int(re.findall(r"Round (\d+)\.", user)[-1])
    bucket = _bucket(call_key(messages)[0])
    if bucket == 0:
        label = 1
    elif bucket == 1:
        label = stance_label if round_no == 1 else 0
    else:
        label = stance_label
    return reply(label, f"round {round_no}, stance label {stance_label}")


def debate_pair_key(debate) -> str:
    """The pair key (see :func:`pair_key`) of a stored debate's prompts."""
    from debates import prompts
    from debates.services import pair_text_build

    text = pair_text_build(pair=debate.pair)
    blocks = prompts.pair_blocks(
        query=text.query, answers=text.answers, title=text.title, chunk=text.chunk
    )
    return pair_key(blocks)


def expected_outcome(key: str, rounds: int) -> tuple[str, int | None, int]:
    """``(status, consensus round, turns)`` :func:`stance_rule` leads to for a pair key."""
    bucket = _bucket(key)
    if bucket == 0:
        return "agreed", 1, 2
    if bucket == 1 and rounds >= 2:
        return "agreed", 2, 4
    return "escalated", None, 2 * rounds


def make_test_llm(config: dict[str, Any]) -> LLMClient:
    """Build a test client from a ``{"backend": "test", ...}`` job config (see module doc)."""
    log = os.environ.get("DREAM_TEST_LLM_LOG")
    if "name" in config:
        return REGISTERED[config["name"]]
    if config.get("inner") == "embedded":
        from debates.llm.embedded import EmbeddedClient

        return LoggingClient(EmbeddedClient(), log)
    if config.get("rule", "stance") == "stance" and set(config) <= {"backend", "rule", "delay"}:
        delay = float(config.get("delay", 0))

        def rule(messages: list[ChatMessage]) -> str:
            time.sleep(delay)
            return stance_rule(messages)

        return LoggingClient(RuleClient(rule, model="stance-rule"), log)
    raise ValueError(f"unknown test backend config {config!r}")


@pytest.fixture(name="fake_llms")
def fake_llms_fixture(monkeypatch):
    """Enable the test backend; ``fake_llms(a=client, b=client)`` registers clients for
    configs ``{"backend": "test", "name": "a"}`` etc. Cached clients are dropped after."""
    from debates.services import backends

    monkeypatch.setenv("DREAM_TEST_LLM_FACTORY", FACTORY)
    backends._clients.clear()
    REGISTERED.clear()

    def register(**clients: LLMClient) -> None:
        REGISTERED.update(clients)
        backends._clients.clear()

    yield register
    REGISTERED.clear()
    backends._clients.clear()


AGENT_A = {"backend": "test", "name": "a"}
AGENT_B = {"backend": "test", "name": "b"}


# ---------------------------------------------------------------------------------------------
# Pools

SMALL_CORPUS = [
    {"_id": "d1", "title": "Solar", "text": "Solar panels convert sunlight into electricity."},
    {"_id": "d2", "title": "Tax", "text": "A solar tax credit lowers the cost of panels."},
    {"_id": "d3", "title": "Wind", "text": "Wind turbines make a low humming noise."},
    {"_id": "d10", "title": "Heat", "text": "Heat pumps move heat from outside air."},
]
SMALL_QUERIES = [
    {"_id": "q1", "text": "what do solar panels do"},
    {"_id": "q2", "text": "wind turbine noise"},
]
# Canonical order (query id, doc id, code point): q1 d1, q1 d10, q1 d2, q2 d3.
SMALL_PAIRS = [("q2", "d3"), ("q1", "d2"), ("q1", "d1"), ("q1", "d10")]


def pool_of(dataset, pairs: list[tuple[str, str]], *, name: str = "pool", grades=None):
    """A Pool of ``dataset`` (judged against its first qrel set) holding exactly ``pairs``
    of (query id, doc id); ``grades`` maps a pair to its original relevance."""
    from corpora.models import Pool

    pool = Pool.objects.create(
        dataset=dataset, qrel_set=dataset.qrel_sets.first(), name=name, include_judged=True
    )
    add_pairs(pool, pairs, grades=grades)
    return pool


def add_pairs(pool, pairs: list[tuple[str, str]], *, grades=None) -> None:
    """Add pairs (query id, doc id) to ``pool``."""
    from corpora.models import Document, Pair, Query

    grades = grades or {}
    for query_id, doc_id in pairs:
        Pair.objects.create(
            pool=pool,
            query=Query.objects.get(dataset=pool.dataset, query_id=query_id),
            document=Document.objects.get(dataset=pool.dataset, doc_id=doc_id),
            original_relevance=grades.get((query_id, doc_id)),
        )


@pytest.fixture(name="small_pool")
def small_pool_fixture(tmp_path: Path):
    """A pool of 4 pairs over a 4-document dataset ``small`` (see SMALL_PAIRS)."""
    from corpora.services import dataset_import_beir

    folder = write_beir(
        tmp_path / "small",
        corpus=SMALL_CORPUS,
        queries=SMALL_QUERIES,
        qrels={"test": "query-id\tcorpus-id\tscore\nq1\td1\t1\n"},
    )
    dataset = dataset_import_beir(path=folder, name="small")
    return pool_of(dataset, SMALL_PAIRS, grades={("q1", "d1"): 1})


def _read_jsonl_gz(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def scifact_pairs_folder(folder: Path, *, pairs: int) -> tuple[Path, list[tuple[str, str]]]:
    """A BEIR folder with the first ``pairs`` judged test pairs of the bundled (real) SciFact:
    their queries and documents only, so the import takes a moment. Returns the folder and
    the (query id, doc id) pairs."""
    qrels_lines = gzip.open(BUNDLED_SCIFACT / "qrels" / "test.tsv.gz", "rt").read().splitlines()
    chosen = [tuple(line.split("\t")[:2]) for line in qrels_lines[1 : pairs + 1]]
    doc_ids = {d for _, d in chosen}
    query_ids = {q for q, _ in chosen}
    corpus = [d for d in _read_jsonl_gz(BUNDLED_SCIFACT / "corpus.jsonl.gz") if d["_id"] in doc_ids]
    queries = [
        q for q in _read_jsonl_gz(BUNDLED_SCIFACT / "queries.jsonl.gz") if q["_id"] in query_ids
    ]
    qrels = "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, d in chosen)
    write_beir(folder, corpus=corpus, queries=queries, qrels={"test": qrels})
    return folder, chosen


@pytest.fixture(name="scifact_pool")
def scifact_pool_fixture(tmp_path: Path):
    """``scifact_pool(n)``: a pool of the first n judged SciFact test pairs (real text)."""
    from corpora.services import dataset_import_beir

    def make(n: int):
        folder, chosen = scifact_pairs_folder(tmp_path / "scifact", pairs=n)
        dataset = dataset_import_beir(path=folder, name="scifact")
        return pool_of(dataset, chosen, grades=dict.fromkeys(chosen, 1))

    return make


# ---------------------------------------------------------------------------------------------
# A real Celery worker process


def redis_flush(url: str) -> None:
    import redis

    redis.Redis.from_url(url).flushdb()


class WorkerProcess:
    """``celery -A config worker`` in a subprocess, on the test database and broker; ``pool``
    is the execution pool (``solo``: tasks run in the worker process; ``prefork``: in one
    forked child, see :meth:`pool_children`)."""

    def __init__(
        self, env: dict[str, str], log: Path, *, beat: bool = False, pool: str = "solo"
    ) -> None:
        self.env, self.log, self.beat, self.pool = env, log, beat, pool
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 60.0) -> None:
        args = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-P",
            self.pool,
            "-c",
            "1",
            "--loglevel",
            "INFO",
            "--without-gossip",
            "--without-mingle",
            "-n",
            f"test-{os.getpid()}-{time.monotonic_ns()}@localhost",
        ]
        if self.beat:
            args += ["-B", "--schedule", str(self.log.with_suffix(".beat"))]
        handle = self.log.open("ab")
        self.process = subprocess.Popen(
            args, cwd=REPO, env=self.env, stdout=handle, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + timeout
        while "ready." not in self.log.read_text(errors="replace"):
            if self.process.poll() is not None:
                raise RuntimeError(f"worker exited: {self.log.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"worker not ready: {self.log.read_text()[-3000:]}")
            time.sleep(0.2)

    def pool_children(self) -> list[int]:
        """Process ids of the worker's pool children (prefork), oldest first."""
        import psutil

        if self.process is None:
            return []
        children = psutil.Process(self.process.pid).children()
        return [c.pid for c in sorted(children, key=lambda c: c.create_time())]

    def kill(self) -> None:
        """SIGKILL: the worker dies at once, mid-task, acknowledging nothing."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)


@pytest.fixture(name="celery_worker_process")
def celery_worker_process_fixture(tmp_path: Path, settings):
    """``start(**env)`` launches a real worker process on the test database and the broker
    ``CELERY_TEST_BROKER_URL`` (flushed first) and points this process's Celery app at the
    same broker; every worker started is killed at the end. Needs a transactional test
    (``django_db(transaction=True)``) so the worker sees committed rows."""
    if not BROKER:
        if os.environ.get("CI"):
            pytest.fail("CELERY_TEST_BROKER_URL is not set in CI")
        pytest.skip("set CELERY_TEST_BROKER_URL=redis://127.0.0.1:6379/<db> to run")
    from django.db import connection

    from config.celery import app

    redis_flush(BROKER)
    db = connection.settings_dict
    credentials = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
    database_url = (
        f"postgres://{credentials}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    )
    settings.CELERY_BROKER_URL = BROKER
    workers: list[WorkerProcess] = []

    def start(*, beat: bool = False, pool: str = "solo", **extra: str) -> WorkerProcess:
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "CELERY_BROKER_URL": BROKER,
            "DREAM_TEST_LLM_FACTORY": FACTORY,
            "LOG_LEVEL": "INFO",
            **extra,
        }
        worker = WorkerProcess(env, tmp_path / f"worker{len(workers)}.log", beat=beat, pool=pool)
        workers.append(worker)
        worker.start()
        return worker

    with app_on_broker(app, BROKER):
        try:
            yield start
        finally:
            for worker in workers:
                worker.kill()
            redis_flush(BROKER)


def wait_for(predicate, *, timeout: float, every: float = 0.2, what: str = "condition"):
    """Poll ``predicate()`` until truthy (returned) or raise AssertionError after timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(every)


# ---------------------------------------------------------------------------------------------
# Killing a worker mid-job (the solo and prefork SIGKILL tests)

KILL_RULE = {"backend": "test", "rule": "stance", "delay": 0.4}


def kill_test_job(scifact_pool, log: Path):
    """A job of 12 SciFact pairs debated at R = 2 by the rule agents (0.4 s a call, so a kill
    lands mid-debate), logging every call to ``log``. Returns ``(job, {debate id: pair key},
    worker env)``; the caller sets ``DREAM_TEST_LLM_FACTORY`` to :data:`FACTORY`."""
    from debates.services import debate_job_create

    env = {
        "DREAM_TEST_LLM_LOG": str(log),
        "DREAM_DEBATE_LEASE_SECONDS": "3",
        "DREAM_REQUEUE_EVERY_SECONDS": "1",
    }
    job = debate_job_create(pool=scifact_pool(12), agent_a=KILL_RULE, agent_b=KILL_RULE, rounds=2)
    keys = {
        d.pk: debate_pair_key(d)
        for d in job.debates.select_related("pair__query", "pair__document")
    }
    assert len(set(keys.values())) == 12
    return job, keys, env


def wait_mid_debate(job) -> None:
    """Wait until two debates ended and a running one has stored a turn."""
    from django.db.models import Count

    from debates.models import Debate

    def mid_debate():
        done = job.debates.filter(status__in=["agreed", "escalated"]).count()
        started = (
            Debate.objects.filter(job=job, status="running")
            .annotate(n=Count("turns"))
            .filter(n__gte=1)
        )
        return done >= 2 and started.exists()

    wait_for(mid_debate, timeout=120, every=0.05, what="a debate with stored turns running")


def stored_turn_keys(job, keys: dict[int, str]) -> set[tuple[str, int, str]]:
    """``(pair key, round, agent)`` of every turn stored for ``job``."""
    from debates.models import Turn

    rows = Turn.objects.filter(debate__job=job).values_list("debate_id", "round", "agent")
    return {(keys[d], r, a) for d, r, a in rows}


def wait_job_finished(job, *, what: str) -> None:
    def finished():
        job.refresh_from_db()
        return job.status == "finished"

    wait_for(finished, timeout=240, what=what)


def assert_every_debate_finished_once(
    job,
    keys: dict[int, str],
    *,
    killed: list[int],
    calls_before: list[tuple[str, int, str, int]],
    calls: list[tuple[str, int, str, int]],
    calls_after: list[tuple[str, int, str]],
    stored_at_kill: set[tuple[str, int, str]],
) -> None:
    """After a kill mid-job: every debate ended once, as the rule dictates, with exactly its
    turns; no Turn is duplicated; no call for a turn stored before the kill was made again;
    the only call made twice is the one in flight at the kill (its turn never stored); and
    every call made ended up as exactly one stored turn."""
    from collections import Counter

    from django.db.models import Count

    from debates.models import Turn

    for debate in job.debates.all():
        status, consensus, turns = expected_outcome(keys[debate.pk], rounds=2)
        assert (debate.status, debate.consensus_round) == (status, consensus), debate.pk
        assert debate.turns.count() == turns
        assert debate.calls == turns  # one call per turn: nothing counted twice
        assert debate.finished is not None
        assert debate.attempts == (1 if debate.pk in killed else 0)
    assert (
        not Turn.objects.filter(debate__job=job)
        .values("debate", "round", "agent")
        .annotate(n=Count("pk"))
        .filter(n__gt=1)
    )
    assert calls_after, "a new process did the rest of the job"
    assert not set(calls_after) & stored_at_kill
    repeated = [key for key, n in Counter(c[:3] for c in calls).items() if n > 1]
    assert len(repeated) <= 1
    if repeated:
        assert repeated[0] == calls_before[-1][:3]
        assert repeated[0] not in stored_at_kill
    stored = stored_turn_keys(job, keys)
    assert stored == {c[:3] for c in calls}
    assert len(calls) == len(stored) + len(repeated)
