"""Judging under load: concurrent annotator sessions doing claim -> submit against gunicorn.

The app is served by gunicorn on 127.0.0.1 (a free port) with PostgreSQL. A bench dataset of
``--pairs`` escalated debates (two rounds, four turns each, ~1,000-character chunks) is put
in the review queue; ``--sessions`` annotators log in through the login form and then, for
``--seconds``, repeat: GET the judging fragment (claims or resumes a pair) and POST a
judgment for it (saves, then claims the next pair), exactly as ``static/judge.js`` does
(``HX-Request`` header, a fresh client id per submission). ``--think`` seconds of pause
between claim and submit model a person reading (0: as fast as the server answers).

Reported: requests per second, latency p50/p95/p99 (overall and per request kind), errors,
and double assignments, which must be 0. A double assignment is either a 409 answer (a
session submitted for a pair someone else held), two sessions holding the same pair at
overlapping times as seen by the clients (from receiving a pair to sending its judgment,
an interval inside the server's lease, so an overlap is a real one), or a pair with more
live judgments than it needs. Target: p95 < 100 ms.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/dream_ui_bench \\
        .venv/bin/python bench/ui_load.py [--sessions 20] [--seconds 60] [--workers 4]
        [--pairs 6000] [--think 0] [--keep]

The database named in DATABASE_URL is created if missing and migrated; the bench dataset,
users and judgments are deleted afterwards unless --keep. Requests go to 127.0.0.1 only,
and every loop is bounded by the --seconds deadline.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

SLUG = "ui-bench"
USER_PREFIX = "bench-annotator-"
PASSWORD = "bench password 1234"
WORDS = (
    "protein cell gene expression tumour receptor binding pathway signal immune response "
    "clinical trial patient dose effect model analysis data method result increase decrease "
    "level risk factor disease treatment therapy growth mutation sequence structure function"
).split()
ITEM_RE = re.compile(r'id="judge-item"[^>]*data-item="(\d*)"')


def ensure_database(url: str) -> None:
    """Create the PostgreSQL database named in ``url`` if it does not exist."""
    import psycopg

    parts = urllib.parse.urlsplit(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def cleanup() -> None:
    """Delete the bench dataset, its jobs, review items, judgments and users."""
    from django.contrib.auth import get_user_model

    from assess.models import Judgment
    from corpora.models import Dataset
    from debates.models import DebateJob

    Judgment.objects.filter(annotator__username__startswith=USER_PREFIX).delete()
    DebateJob.objects.filter(pool__dataset__slug=SLUG).delete()
    Dataset.objects.filter(slug=SLUG).delete()
    get_user_model().objects.filter(username__startswith=USER_PREFIX).delete()


def build(*, pairs: int, sessions: int, seed: int = 7) -> int:
    """The bench dataset: ``pairs`` escalated debates in the review queue and ``sessions``
    annotators. Returns the number of review items."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.db import transaction

    from assess.models import Guidelines, ReviewItem
    from assess.review.guidelines import guidelines_confirm
    from assess.review.services import review_items_sync
    from core.roles import roles_ensure
    from corpora.models import Dataset, Document, Pair, Pool, QrelSet, Query
    from debates.models import Debate, DebateJob, Turn

    rng = random.Random(seed)
    config = {"backend": "embedded", "model": "SmolLM2-135M-Instruct-Q4_1", "n_ctx": 2048}
    with transaction.atomic():
        group = roles_ensure()["annotator"]
        hashed = make_password(PASSWORD)  # one hash for all: the production hasher is slow
        users = get_user_model().objects.bulk_create(
            [
                get_user_model()(username=f"{USER_PREFIX}{i:02d}", password=hashed)
                for i in range(1, sessions + 1)
            ]
        )
        for user in users:
            user.groups.add(group)
        # Each annotator has read and confirmed the guidelines once, as a person would
        # before their first pair (else every answer is refused until they confirm).
        default = Guidelines.objects.filter(dataset__isnull=True, job__isnull=True).first()
        if default is not None:
            for user in users:
                guidelines_confirm(annotator=user, guidelines=default)
        dataset = Dataset.objects.create(name="UI bench", slug=SLUG)
        qrel_set = QrelSet.objects.create(dataset=dataset, name="test")
        pool = Pool.objects.create(dataset=dataset, qrel_set=qrel_set, name="bench", depth=10)
        docs = Document.objects.bulk_create(
            [
                Document(
                    dataset=dataset,
                    doc_id=f"d{i:06d}",
                    title=" ".join(rng.choices(WORDS, k=5)),
                    text=" ".join(rng.choices(WORDS, k=130)) + ".",
                )
                for i in range(pairs)
            ],
            batch_size=2000,
        )
        queries = Query.objects.bulk_create(
            [
                Query(dataset=dataset, query_id=f"q{i:06d}", text=" ".join(rng.choices(WORDS, k=6)))
                for i in range(pairs)
            ],
            batch_size=2000,
        )
        pair_rows = Pair.objects.bulk_create(
            [Pair(pool=pool, query=q, document=d) for q, d in zip(queries, docs, strict=True)],
            batch_size=2000,
        )
        job = DebateJob.objects.create(
            pool=pool,
            agent_a=config,
            agent_b=config,
            rounds=2,
            prompt_version="bench",
            status=DebateJob.Status.FINISHED,
            judgments_per_pair=1,
            audit_share=0.0,
        )
        debates = Debate.objects.bulk_create(
            [
                Debate(
                    job=job,
                    pair=p,
                    status=Debate.Status.ESCALATED,
                    escalation_reason=Debate.Reason.DISAGREEMENT,
                )
                for p in pair_rows
            ],
            batch_size=2000,
        )
        turns = []
        for debate, doc in zip(debates, docs, strict=True):
            sentence = " ".join(doc.text.split()[10:25])
            for number in (1, 2):
                for agent, stance, label in (("A", "relevant", 1), ("B", "irrelevant", 0)):
                    turns.append(
                        Turn(
                            debate=debate,
                            round=number,
                            agent=agent,
                            stance=stance,
                            label=label,
                            argument=" ".join(rng.choices(WORDS, k=40)),
                            evidence=[sentence],
                            raw="{}",
                            model="bench",
                        )
                    )
        Turn.objects.bulk_create(turns, batch_size=4000)
        review_items_sync(job=job)
    # A database in use is vacuumed and analysed; without it the planner works from stale
    # statistics of earlier runs' deleted rows.
    from django.db import connection

    with connection.cursor() as cursor:
        for table in ("assess_reviewitem", "assess_judgment", "debates_debate", "debates_turn"):
            cursor.execute(f"VACUUM ANALYZE {table}")
    return ReviewItem.objects.filter(debate__job=job).count()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_gunicorn(port: int, workers: int, threads: int) -> subprocess.Popen:
    """gunicorn serving config.wsgi on 127.0.0.1:port (DEBUG off); waits until it answers."""
    env = dict(os.environ)
    env.update(
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(40),
        ALLOWED_HOSTS="127.0.0.1",
        LOG_LEVEL="ERROR",
    )
    command = [
        str(REPO / ".venv" / "bin" / "gunicorn"),
        "config.wsgi",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--threads",
        str(threads),
        "--log-level",
        "warning",
        "--backlog",
        "256",
    ]
    process = subprocess.Popen(command, cwd=REPO, env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/login/")
            if conn.getresponse().status == 200:
                conn.close()
                return process
        except OSError:
            time.sleep(0.3)
    process.terminate()
    raise RuntimeError("gunicorn did not answer within 60 s")


@dataclass
class Session:
    """One annotator's HTTP session: cookies, CSRF token and what it measured."""

    port: int
    username: str
    cookies: dict[str, str] = field(default_factory=dict)
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    holds: list[tuple[int, float, float]] = field(default_factory=list)
    submitted: int = 0
    empty: int = 0
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    def request(
        self, kind: str, method: str, path: str, body: dict | None = None, htmx: bool = False
    ):
        encoded = urllib.parse.urlencode(body) if body is not None else None
        all_headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        if encoded is not None:
            all_headers["Content-Type"] = "application/x-www-form-urlencoded"
        if "csrftoken" in self.cookies:
            all_headers["X-CSRFToken"] = self.cookies["csrftoken"]
        if htmx:
            all_headers["HX-Request"] = "true"
        start = time.perf_counter()
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=encoded, headers=all_headers)
                response = self.conn.getresponse()
                text = response.read().decode("utf-8", "replace")
                break
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                # The server may close an idle keep-alive connection; like a browser, send
                # once more on a new one (a judgment re-sent keeps its client id).
                if attempt == 2:
                    raise
        elapsed = time.perf_counter() - start
        self.latencies[kind].append(elapsed)
        self.statuses[response.status] += 1
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name] = rest.split(";", 1)[0]
        return response, text

    def login(self) -> None:
        _, page = self.request("login", "GET", "/login/?next=/judge/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        response, _ = self.request(
            "login",
            "POST",
            "/login/",
            {"username": self.username, "password": PASSWORD, "csrfmiddlewaretoken": token},
        )
        if response.status != 302:
            raise RuntimeError(f"{self.username}: login answered {response.status}")

    def run(self, deadline: float, think: float, rng: random.Random) -> None:
        holding: tuple[int, float] | None = None
        while time.monotonic() < deadline:
            try:
                _, html = self.request("claim", "GET", "/judge/", htmx=True)
            except (OSError, http.client.HTTPException) as exc:
                self.errors.append(f"claim: {exc}")
                continue
            match = ITEM_RE.search(html)
            item = int(match.group(1)) if match and match.group(1) else None
            if item is None:
                self.empty += 1
                time.sleep(0.2)
                continue
            if holding is None or holding[0] != item:
                holding = (item, time.monotonic())
            if think:
                time.sleep(
                    min(think * rng.uniform(0.5, 1.5), max(0.0, deadline - time.monotonic()))
                )
            body = {
                "client_id": str(uuid.uuid4()),
                "label": rng.choice("01"),
                "seconds": f"{think:.2f}",
            }
            sent_at = time.monotonic()
            self.holds.append((item, holding[1], sent_at))
            try:
                response, html = self.request(
                    "submit", "POST", f"/judge/{item}/submit/", body, htmx=True
                )
            except (OSError, http.client.HTTPException) as exc:
                self.errors.append(f"submit: {exc}")
                holding = None
                continue
            if response.status == 200:
                self.submitted += 1
            else:
                self.errors.append(f"submit {response.status}: {html[:120]}")
            match = ITEM_RE.search(html)
            following = int(match.group(1)) if match and match.group(1) else None
            holding = (following, time.monotonic()) if following else None


def overlaps(holds: list[tuple[str, int, float, float]]) -> int:
    """Pairs of intervals on the same item held by different sessions that overlap."""
    by_item: dict[int, list[tuple[float, float, str]]] = defaultdict(list)
    for who, item, start, end in holds:
        by_item[item].append((start, end, who))
    found = 0
    for intervals in by_item.values():
        for i, (s1, e1, w1) in enumerate(intervals):
            for s2, e2, w2 in intervals[i + 1 :]:
                if w1 != w2 and s1 < e2 and s2 < e1:
                    found += 1
    return found


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


class CpuMeter:
    """CPU seconds (user + system) used by gunicorn (master and workers) and by the
    PostgreSQL backends serving ``database`` between :meth:`start` and :meth:`stop`: the
    contention-independent cost of the run. Backends come and go (connections are recycled
    after CONN_MAX_AGE), so they are sampled every half second and each keeps its last
    reading."""

    def __init__(self, server: subprocess.Popen, database: str) -> None:
        self.server, self.database = server, database
        self.backends: dict[int, float] = {}
        self.baseline: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample_loop, daemon=True)

    @staticmethod
    def _used(process) -> float:
        import psutil

        try:
            times = process.cpu_times()
        except psutil.Error:
            return 0.0
        return times.user + times.system

    def _web(self) -> float:
        import psutil

        master = psutil.Process(self.server.pid)
        return self._used(master) + sum(self._used(c) for c in master.children(recursive=True))

    def _sample(self) -> None:
        import psutil

        for process in psutil.process_iter(["cmdline"]):
            cmdline = " ".join(process.info["cmdline"] or [])
            if cmdline.startswith("postgres:") and f" {self.database} " in f"{cmdline} ":
                self.backends[process.pid] = self._used(process)

    def _sample_loop(self) -> None:
        while not self._stop.wait(0.5):
            self._sample()

    def start(self) -> None:
        self._sample()
        self.baseline = dict(self.backends)
        self.web_start = self._web()
        self._thread.start()

    def stop(self) -> tuple[float, float]:
        """``(gunicorn seconds, postgresql seconds)`` since :meth:`start`."""
        self._stop.set()
        self._thread.join()
        self._sample()
        db = sum(cpu - self.baseline.get(pid, 0.0) for pid, cpu in self.backends.items())
        return self._web() - self.web_start, db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=1, help="threads per gunicorn worker")
    parser.add_argument("--pairs", type=int, default=6000)
    parser.add_argument("--think", type=float, default=0.0, help="seconds between claim and submit")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()

    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        sys.exit("set DATABASE_URL to a PostgreSQL database, e.g. .../dream_ui_bench")
    ensure_database(url)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    cleanup()
    t0 = time.monotonic()
    items = build(pairs=args.pairs, sessions=args.sessions)
    print(f"bench data: {items} escalated pairs in the queue ({time.monotonic() - t0:.1f} s)")

    port = free_port()
    server = start_gunicorn(port, args.workers, args.threads)
    try:
        sessions = [Session(port, f"{USER_PREFIX}{i:02d}") for i in range(1, args.sessions + 1)]
        for session in sessions:
            session.login()
            session.latencies.clear()
            session.statuses.clear()
        meter = CpuMeter(server, urllib.parse.urlsplit(url).path.lstrip("/"))
        meter.start()
        load_before = os.getloadavg()[0]
        start = time.monotonic()
        deadline = start + args.seconds
        threads = [
            threading.Thread(target=s.run, args=(deadline, args.think, random.Random(i)))
            for i, s in enumerate(sessions)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=args.seconds + 120)
        wall = time.monotonic() - start
        web_cpu, db_cpu = meter.stop()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)

    from django.db.models import Count, F, Q

    from assess.models import Judgment, ReviewItem

    kinds: dict[str, list[float]] = defaultdict(list)
    statuses: dict[int, int] = defaultdict(int)
    holds = []
    for session in sessions:
        for kind, values in session.latencies.items():
            kinds[kind].extend(values)
        for status, n in session.statuses.items():
            statuses[status] += n
        holds += [(session.username, *hold) for hold in session.holds]
    every = [v for values in kinds.values() for v in values]
    conflicts = statuses.get(409, 0)
    overlapping = overlaps(holds)
    items_q = ReviewItem.objects.filter(debate__job__pool__dataset__slug=SLUG)
    overfull = (
        items_q.annotate(live=Count("judgments", filter=Q(judgments__undone_at__isnull=True)))
        .filter(live__gt=F("judgments_needed"))
        .count()
    )
    saved = Judgment.objects.filter(annotator__username__startswith=USER_PREFIX).count()
    submitted = sum(s.submitted for s in sessions)
    errors = [e for s in sessions for e in s.errors]
    result = {
        "sessions": args.sessions,
        "seconds": round(wall, 1),
        "gunicorn": f"{args.workers} workers x {args.threads} threads",
        "think_seconds": args.think,
        "requests": len(every),
        "requests_per_second": round(len(every) / wall, 1),
        "latency_ms": {
            "all": {q: round(percentile(every, q) * 1000, 1) for q in (50, 95, 99)},
            **{
                kind: {q: round(percentile(values, q) * 1000, 1) for q in (50, 95, 99)}
                for kind, values in sorted(kinds.items())
            },
        },
        "cpu_ms_per_request": {
            "gunicorn": round(web_cpu / max(len(every), 1) * 1000, 1),
            "postgresql": round(db_cpu / max(len(every), 1) * 1000, 1),
        },
        "load_average_before": round(load_before, 2),
        "judgments_saved": saved,
        "submits_confirmed": submitted,
        "queue_empty_answers": sum(s.empty for s in sessions),
        "statuses": dict(sorted(statuses.items())),
        "errors": len(errors),
        "double_assignments": conflicts + overlapping + overfull,
        "double_assignment_parts": {
            "409_conflicts": conflicts,
            "overlapping_holds": overlapping,
            "pairs_over_their_judgments": overfull,
        },
        "target_p95_under_100_ms": percentile(every, 95) < 0.1,
    }
    print(json.dumps(result, indent=2))
    for error in errors[:5]:
        print("error:", error)
    if not args.keep:
        cleanup()
    if result["double_assignments"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
