"""LLM throughput of the debate stack against a bare async client, at C requests in flight.

A fixed-latency OpenAI-compatible server (:mod:`latency_server`, a subprocess) answers every
request after L seconds with a valid DREAM reply, however many are in flight, and counts the
requests and the most in flight at once. For each concurrency C:

(a) **bare**: ``openai.AsyncOpenAI``, C requests at once (asyncio), DREAM-sized prompts of the
    same pairs, as many calls as (b) made: the anchor;
(b) **in-process**: a job over P real SciFact pairs (R = 2) with ``concurrency=C``, run by
    ``debate_job_run_inline`` in this process (what ``run_debates`` does without a broker);
(c) **celery**: the same job on a real worker ``celery -A config worker -Q llm_remote -P
    threads -c C`` through Redis; wall time from enqueueing to the job's end.

Printed per run: calls/s (server-counted requests / wall time), CPU ms per call (this
process for (a) and (b), the worker process for (c): user + system, the HTTP client
included), the server's peak in flight, and requests counted at the server vs LLM calls
stored in turns (lost = requests without a stored turn, repeated = the same messages asked
twice). Then the ratios (b)/(a) and (c)/(a) of calls/s and of CPU per call. Targets: >= 0.95
at C = 16, >= 0.8 at C = 64; CPU per call at most 2x the bare client's; peak in flight = C;
0 lost, 0 repeated.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/14 \\
        .venv/bin/python bench/llm_throughput_bench.py [--latency 0.5] [--pairs 400]
        [--pairs-c1 20] [--concurrency 1,16,64] [--repeat 1] [--skip-celery] [--profile]

``--repeat K`` runs each level K times, its runs back to back, so (b), (a) and (c) alternate
and a drift in the machine's load hits the three alike; each run prints as above, then the
level's summary: for each ratio to (a), in-process and Celery, its median over the K runs and
its range (min-max), the target's verdict on the median and how many runs met it, and any run
that missed peak = C, 0 lost, 0 repeated or 0 failed. Medians, because one run is not enough
to call the CPU target: four single runs of one version on this shared 2-core machine gave
1.59-2.14x the bare client's CPU per call through Celery (docs/measured.md), a spread of
about +-0.2x or more around a bar of 2x; the median of K interleaved runs is not moved by one run
that a neighbour's burst of work slowed, and the range shows the spread it hides. A ratio is
taken within a run (against that run's bare client), never between runs.

The database is created if missing and migrated; the Redis database is flushed; the bench
dataset is deleted before and after.

DEBUG is off unless the environment sets ``DEBUG=1`` (as deployed; the figures before
2026-12-04 were taken with it on).

The worker of (c) runs at ``--loglevel WARNING``, Celery's default and the documented
worker's (``docs/production.md``); until 2026-12-05 the bench ran it at INFO, whose two log
lines a task cost ~0.1 ms of CPU a call.

``--profile`` measures where the CPU goes at the concurrency that matters (the last level of
``--concurrency``, e.g. ``--concurrency 64 --pairs 100``; ``--skip-celery`` leaves (c) out):
after a warm-up job, (b), (a) and (c) with the same number of requests, first unprofiled
(their CPU ms per call, as above), then each under cProfile, one profiler per thread timed by
that thread's own CPU clock (waiting on the server or PostgreSQL is not overhead), merged
(``bench/_profiles.py``; the worker of (c) is started by it, its start-up left out). Printed
for each: the top functions by own time and by cumulative time, in CPU ms per LLM call (the
profiler's own overhead inflates them; compare them with each other).
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Measured as deployed: DEBUG off (with it on, Django keeps every SQL statement's text and
# time in memory, work a production worker does not do). `DEBUG=1` runs it as before. The
# Celery worker started below inherits both.
os.environ.setdefault("DEBUG", "0")
os.environ.setdefault("SECRET_KEY", "bench-" + os.urandom(16).hex())

from _common import drop_bench_data as _drop_bench_data  # noqa: E402
from _common import jsonl_gz as _jsonl_gz  # noqa: E402
from _common import prepare_database  # noqa: E402
from _profiles import CLEAR_SIGNAL, ThreadProfiles, stats_print  # noqa: E402
from latency_server import MODEL, LatencyServer  # noqa: E402

SCIFACT = REPO / "data" / "scifact"
SLUG = "bench-throughput"
# CPU per LLM call at most this many times the bare client's, in-process and through Celery.
CPU_BAR = 2.0


def drop_bench_data() -> None:
    _drop_bench_data(SLUG)


def bench_dataset(folder: Path):
    """Bundled SciFact (5,183 documents, 300 test queries) imported as the bench dataset."""
    from corpora.services import dataset_import_beir

    folder.mkdir(parents=True)
    for name in ("corpus", "queries"):
        rows = _jsonl_gz(SCIFACT / f"{name}.jsonl.gz")
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "qrels").mkdir()
    (folder / "qrels" / "test.tsv").write_text(
        gzip.open(SCIFACT / "qrels" / "test.tsv.gz", "rt").read()
    )
    return dataset_import_beir(path=folder, name=SLUG, slug=SLUG)


def bench_pool(dataset, pairs: int, name: str):
    """A pool of ``pairs`` pairs: the first test queries, 10 documents each, spread over the
    corpus deterministically."""
    from corpora.models import Document, Pair, Pool, Query

    queries = list(Query.objects.filter(dataset=dataset).order_by("pk"))
    docs = list(
        Document.objects.filter(dataset=dataset).order_by("pk").values_list("pk", flat=True)
    )
    pool = Pool.objects.create(
        dataset=dataset, qrel_set=dataset.qrel_sets.get(), name=name, include_judged=True
    )
    rows = []
    for i in range(pairs):
        query = queries[i // 10]
        doc = docs[(i // 10 * 131 + (i % 10) * 997) % len(docs)]
        rows.append(Pair(pool=pool, query=query, document_id=doc))
    Pair.objects.bulk_create(rows)
    return pool


def agent(server: LatencyServer) -> dict:
    return {
        "backend": "openai",
        "model": MODEL,
        "base_url": server.url,
        "api_key_env": "BENCH_NO_KEY",
        "timeout": 60,
        "context_window": 8192,
    }


def job_counts(job) -> dict:
    from django.db.models import Sum

    from debates.models import Turn

    turns = Turn.objects.filter(debate__job=job)
    stored = turns.aggregate(calls=Sum("attempts"))["calls"] or 0
    return {
        "stored_calls": stored,
        "debate_calls": job.debates.aggregate(n=Sum("calls"))["n"] or 0,
        "finished": job.debates.filter(status__in=["agreed", "escalated"]).count(),
        "failed": job.debates.filter(status="failed").count(),
        "total": job.debates.count(),
    }


def prompts_of(pool, n: int) -> list[list[dict]]:
    """Round-1 debate prompts (agent A) of the pool's pairs, cycled to ``n`` requests."""
    from debates import prompts
    from debates.services import pair_text_build

    texts = [pair_text_build(pair=p) for p in pool.pairs.select_related("query", "document")]
    out = []
    for i in range(n):
        text = texts[i % len(texts)]
        system = prompts.debate_system_prompt(stance="relevant", answer_aware=False)
        user = prompts.debate_user_prompt(
            stance="relevant",
            round=1,
            query=text.query,
            answers=(),
            title=text.title,
            chunk=text.chunk,
        )
        # A distinct prefix per request, so the server counts no repeats.
        out.append(
            [
                {"role": "system", "content": system},
                {"role": "user", "content": f"[{i}] {user}"},
            ]
        )
    return out


def run_bare(
    server: LatencyServer,
    messages: list[list[dict]],
    concurrency: int,
    *,
    profiled: ThreadProfiles | None = None,
) -> dict:
    """(a): every request through one AsyncOpenAI client, ``concurrency`` at once; under
    ``profiled`` (every thread profiled) when given."""
    import openai

    from debates import prompts

    schema = {
        "type": "json_schema",
        "json_schema": {"name": "reply", "schema": prompts.REPLY_JSON_SCHEMA},
    }

    async def main() -> None:
        # A loaded machine can take seconds to accept 64 connections: the SDK's 5 s connect
        # timeout would fail the anchor, not measure it.
        client = openai.AsyncOpenAI(
            base_url=server.url,
            api_key="none",
            max_retries=0,
            timeout=openai.Timeout(120.0, connect=60.0),
        )
        gate = asyncio.Semaphore(concurrency)

        async def one(m: list[dict]) -> None:
            async with gate:
                response = await client.chat.completions.create(
                    model=MODEL,
                    messages=m,
                    temperature=0.0,
                    max_tokens=384,
                    seed=0,
                    response_format=schema,
                )
                json.loads(response.choices[0].message.content)

        await asyncio.gather(*(one(m) for m in messages))
        await client.close()

    server.reset()
    with profiled or nullcontext():
        cpu, wall = time.process_time(), time.perf_counter()
        asyncio.run(main())
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    counters = server.counters()
    return {"wall": wall, "cpu": cpu, "calls": counters["requests"], "server": counters}


def run_inline(
    server: LatencyServer, pool, concurrency: int, *, profiled: ThreadProfiles | None = None
) -> dict:
    """(b): the job run in this process by ``debate_job_run_inline``; under ``profiled``
    (every thread profiled) when given."""
    from debates.services import (
        JobSpec,
        debate_job_begin,
        debate_job_launch,
        debate_job_run_inline,
    )

    a = agent(server)
    # reuse=False: every job asks every pair, so each level measures the same work.
    spec = JobSpec(pool=pool, agent_a=a, agent_b=a, rounds=2, concurrency=concurrency, reuse=False)
    job = debate_job_launch(spec=spec, start=False)
    debate_job_begin(job=job, here=True)
    server.reset()
    with profiled or nullcontext():
        cpu, wall = time.process_time(), time.perf_counter()
        debate_job_run_inline(job=job)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    counters = server.counters()
    return {"wall": wall, "cpu": cpu, "calls": counters["requests"], "server": counters, "job": job}


def worker_command(concurrency: int, name: str, profile: Path | None) -> list[str]:
    """The (c) worker: ``celery -A config worker -Q llm_remote -P threads -c C`` at the
    documented worker's log level (WARNING, Celery's default; INFO logs two lines a task,
    ~0.1 ms of CPU a call); run by ``bench/_profiles.py``, which writes its profile to
    ``profile``, when given."""
    args = [
        "-A",
        "config",
        "worker",
        "-Q",
        "llm_remote",
        "-P",
        "threads",
        "-c",
        str(concurrency),
        "--without-gossip",
        "--without-mingle",
        "--loglevel",
        "WARNING",
        "-n",
        name,
    ]
    if profile is not None:
        return [sys.executable, str(REPO / "bench" / "_profiles.py"), str(profile), *args]
    return [sys.executable, "-m", "celery", *args]


def worker_wait_ready(worker: subprocess.Popen, name: str, log: Path) -> None:
    """Wait until worker ``name`` answers a ping (at WARNING it logs no "ready." line)."""
    from config.celery import app

    deadline = time.monotonic() + 120
    while not app.control.ping(destination=[name], timeout=0.5):
        if worker.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"worker did not start: {log.read_text()[-2000:]}")


def run_celery(
    server: LatencyServer, pool, concurrency: int, log: Path, *, profile: Path | None = None
) -> dict:
    """(c): the job on a real ``-P threads -c C`` worker of the llm_remote queue; with
    ``profile``, every thread of the worker under cProfile from the job's start (see
    :func:`worker_command`), the merged profile written to ``profile``."""
    import psutil

    from debates.models import DebateJob
    from debates.services import JobSpec, debate_job_begin, debate_job_launch

    name = f"bench-{time.monotonic_ns()}@localhost"
    worker = subprocess.Popen(
        worker_command(concurrency, name, profile),
        cwd=REPO,
        env=dict(os.environ),
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    try:
        worker_wait_ready(worker, name, log)
        a = agent(server)
        spec = JobSpec(
            pool=pool, agent_a=a, agent_b=a, rounds=2, concurrency=concurrency, reuse=False
        )
        job = debate_job_launch(spec=spec, start=False)
        server.reset()
        process = psutil.Process(worker.pid)
        if profile is not None:
            os.kill(worker.pid, CLEAR_SIGNAL)  # its start-up is not the LLM stage's cost
        before = process.cpu_times()
        wall = time.perf_counter()
        debate_job_begin(job=job)  # a broker is configured: enqueued
        while DebateJob.objects.filter(pk=job.pk, status="running").exists():
            time.sleep(0.1)
        wall = time.perf_counter() - wall
        after = process.cpu_times()
        cpu = (after.user - before.user) + (after.system - before.system)
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=60)
        except subprocess.TimeoutExpired:
            worker.kill()
    counters = server.counters()
    return {"wall": wall, "cpu": cpu, "calls": counters["requests"], "server": counters, "job": job}


def job_checked(result: dict, concurrency: int) -> dict:
    """The run's correctness figures: ``peak`` (the server's most in flight), ``repeated``
    (requests asking the same messages twice) and, for a job's run, ``counts``
    (:func:`job_counts`) and ``lost`` (requests without a stored turn); ``problems`` lists
    what misses peak = C, 0 repeated, 0 lost or 0 failed debates (empty when all hold)."""
    server = result["server"]
    checked: dict = {"peak": server["peak_in_flight"], "repeated": server["repeated"]}
    problems = []
    if checked["peak"] != concurrency:
        problems.append(f"peak in flight {checked['peak']}/{concurrency}")
    if checked["repeated"]:
        problems.append(f"repeated {checked['repeated']}")
    if "job" in result:
        counts = checked["counts"] = job_counts(result["job"])
        checked["lost"] = result["calls"] - counts["stored_calls"]
        if checked["lost"]:
            problems.append(f"lost {checked['lost']}")
        if counts["failed"]:
            problems.append(f"{counts['failed']} failed")
    checked["problems"] = problems
    return checked


def line(name: str, result: dict, concurrency: int, checked: dict) -> str:
    """One arm's printed line: calls/s, CPU ms per call, requests, wall time and the
    correctness figures of ``checked`` (:func:`job_checked`)."""
    calls = result["calls"]
    text = (
        f"  {name:<11} {calls / result['wall']:7.1f} calls/s  "
        f"{1000 * result['cpu'] / max(calls, 1):6.2f} ms CPU/call  "
        f"{calls:5d} requests in {result['wall']:6.1f} s  peak in flight "
        f"{checked['peak']}/{concurrency}  repeated {checked['repeated']}"
    )
    if "counts" in checked:
        counts = checked["counts"]
        text += (
            f"  stored {counts['stored_calls']} (debates count {counts['debate_calls']}), "
            f"lost {checked['lost']}, {counts['finished']}/{counts['total']} finished, "
            f"{counts['failed']} failed"
        )
    return text


def profile_both(
    server: LatencyServer,
    dataset,
    *,
    pairs: int,
    concurrency: int,
    dump: Path | None,
    celery: bool,
    tmp: Path,
) -> None:
    """``--profile``: (b) and (a), and (c) when ``celery``, at ``concurrency`` on ``pairs``
    pairs, unprofiled and then under :class:`ThreadProfiles` (the worker of (c) run by
    ``bench/_profiles.py``); prints their lines and the profiles (also written to
    ``dump``-product.prof, -bare.prof and -celery.prof when given)."""
    # A warm-up job first: the SDK's lazy imports and the first connections are not per-call
    # cost.
    run_inline(server, bench_pool(dataset, min(pairs, concurrency), "warm-up"), concurrency)
    print(f"profile at C = {concurrency}, {pairs} pairs; load {os.getloadavg()[0]:.2f}")
    inline = run_inline(server, bench_pool(dataset, pairs, "plain"), concurrency)
    bare = run_bare(server, prompts_of(inline["job"].pool, inline["calls"]), concurrency)
    for name, result in (("bare (a)", bare), ("in-proc (b)", inline)):
        print(line(name, result, concurrency, job_checked(result, concurrency)))
    if celery:
        plain = run_celery(server, bench_pool(dataset, pairs, "celery"), concurrency, tmp / "w.log")
        print(line("celery (c)", plain, concurrency, job_checked(plain, concurrency)))
    from debates.services.lane import lane_reset
    from debates.services.threads import helpers_reset

    product, anchor = ThreadProfiles(), ThreadProfiles()
    lane_reset()  # the database lane's threads start again, under the profiler
    helpers_reset()  # so do the helpers that ask a round's first turn
    pool = bench_pool(dataset, pairs, "profiled")
    inline = run_inline(server, pool, concurrency, profiled=product)
    bare = run_bare(
        server, prompts_of(inline["job"].pool, inline["calls"]), concurrency, profiled=anchor
    )
    for title, profiles, calls, name in (
        ("in-process (b), profiled", product, inline["calls"], "product"),
        ("bare client (a), profiled", anchor, bare["calls"], "bare"),
    ):
        out = dump.with_name(f"{dump.name}-{name}.prof") if dump is not None else None
        profiles.print_top(title, calls, dump=out)
    if celery:
        out = dump.with_name(f"{dump.name}-celery.prof") if dump is not None else None
        out = out or tmp / "celery.prof"
        pool = bench_pool(dataset, pairs, "celery-profiled")
        worker = run_celery(server, pool, concurrency, tmp / "w.log", profile=out)
        stats_print(pstats.Stats(str(out)), "celery worker (c), profiled", worker["calls"])


def level_measure(
    server: LatencyServer,
    dataset,
    concurrency: int,
    pairs: int,
    *,
    celery: bool,
    tmp: Path,
    tag: str,
) -> dict[str, dict]:
    """One run of a level: (b), then (a) with as many requests as (b) made, then (c) when
    ``celery``; keyed by the printed names ("bare (a)" first). ``tag`` keeps the pools'
    names apart between runs."""
    pool = bench_pool(dataset, pairs, f"inline-{concurrency}{tag}")
    inline = run_inline(server, pool, concurrency)
    bare = run_bare(server, prompts_of(inline["job"].pool, inline["calls"]), concurrency)
    results = {"bare (a)": bare, "in-proc (b)": inline}
    if celery:
        pool = bench_pool(dataset, pairs, f"celery-{concurrency}{tag}")
        results["celery (c)"] = run_celery(server, pool, concurrency, tmp / "w.log")
    return results


def level_print(results: dict[str, dict], concurrency: int, title: str) -> dict:
    """Print one run of a level (each arm's line, the ratios to (a) of calls/s and of CPU per
    call); return ``{"rate": {arm: ratio}, "cpu": {arm: ratio}, "problems": [...]}`` with
    arms "(b)" and "(c)" and the correctness problems of every arm (:func:`job_checked`)."""
    print(title)
    problems = []
    for name, result in results.items():
        checked = job_checked(result, concurrency)
        problems += [f"{name}: {problem}" for problem in checked["problems"]]
        print(line(name, result, concurrency, checked))
    rate = {k: v["calls"] / v["wall"] for k, v in results.items()}
    cpu = {k: v["cpu"] / max(v["calls"], 1) for k, v in results.items()}
    arms = [k for k in results if k != "bare (a)"]
    rate_ratio = {k.split()[-1]: rate[k] / rate["bare (a)"] for k in arms}
    cpu_ratio = {k.split()[-1]: cpu[k] / cpu["bare (a)"] for k in arms}
    text = ", ".join(f"{arm}/(a) = {value:.3f}" for arm, value in rate_ratio.items())
    print(f"  ratios: {text}  (load {os.getloadavg()[0]:.2f})")
    text = ", ".join(f"{arm}/(a) = {value:.2f}" for arm, value in cpu_ratio.items())
    print(f"  CPU per call: {text}  (target <= {CPU_BAR:g})")
    return {"rate": rate_ratio, "cpu": cpu_ratio, "problems": problems}


def throughput_target(concurrency: int) -> float:
    """The calls/s ratio to (a) a level must reach: 0.95 up to C = 16, 0.8 above (C = 64
    saturates this 2-core machine)."""
    return 0.95 if concurrency <= 16 else 0.8


def level_summary(runs: list[dict], concurrency: int) -> None:
    """Print a level's median and range (min-max) over its runs of each ratio to (a) (each
    run's ratio against the bare client of the same run), the target's verdict on the median
    and how many runs met it, and the runs' correctness problems (none when every run had
    peak = C, 0 lost, 0 repeated, 0 failed)."""
    floor = throughput_target(concurrency)
    print(f"C = {concurrency}, {len(runs)} runs: median (min-max) of the per-run ratios to (a)")
    for key, label, digits in (("rate", "calls/s     ", 3), ("cpu", "CPU per call", 2)):
        target = f">= {floor:g}" if key == "rate" else f"<= {CPU_BAR:g}"
        for arm in runs[0][key]:
            values = [run[key][arm] for run in runs]
            median = statistics.median(values)
            met = [v >= floor if key == "rate" else v <= CPU_BAR for v in values]
            holds = median >= floor if key == "rate" else median <= CPU_BAR
            print(
                f"  {label} {arm}/(a): {median:.{digits}f} "
                f"({min(values):.{digits}f}-{max(values):.{digits}f})  target {target}: "
                f"{'met' if holds else 'NOT MET'} on the median, met in {sum(met)}/{len(runs)} runs"
            )
    problems = [f"run {i}: {p}" for i, run in enumerate(runs, 1) for p in run["problems"]]
    ok = "every run: peak in flight = C, 0 lost, 0 repeated, 0 failed"
    print("  checks: " + ("; ".join(problems) if problems else ok))


def levels_run(server: LatencyServer, dataset, args: argparse.Namespace, tmp: Path) -> None:
    """Each level of ``--concurrency``, ``--repeat`` times: the runs of a level back to back,
    so (b), (a) and (c) alternate and a drift in the machine's load hits all three alike;
    then, when a level ran more than once, its summary (:func:`level_summary`)."""
    print(
        f"latency {args.latency} s; {args.pairs} pairs (C = 1: {args.pairs_c1}), R = 2; "
        f"load before: {os.getloadavg()[0]:.2f}"
    )
    for c in [int(c) for c in args.concurrency.split(",")]:
        pairs = args.pairs_c1 if c == 1 else args.pairs
        runs = []
        for k in range(1, args.repeat + 1):
            tag = "" if args.repeat == 1 else f"-{k}"
            results = level_measure(
                server, dataset, c, pairs, celery=not args.skip_celery, tmp=tmp, tag=tag
            )
            title = f"C = {c}:" if args.repeat == 1 else f"C = {c}, run {k} of {args.repeat}:"
            runs.append(level_print(results, c, title))
        if args.repeat > 1:
            level_summary(runs, c)


def arguments() -> argparse.Namespace:
    """The command line, checked (a broker unless ``--skip-celery``; ``--repeat`` >= 1)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--pairs", type=int, default=400)
    parser.add_argument("--pairs-c1", type=int, default=20, help="pairs at C = 1 (slow)")
    parser.add_argument("--concurrency", default="1,16,64")
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs of each level, interleaved; medians if > 1"
    )
    parser.add_argument("--skip-celery", action="store_true")
    parser.add_argument(
        "--profile", action="store_true", help="cProfile (b), (a) and (c) at the last level"
    )
    parser.add_argument(
        "--profile-dump",
        type=Path,
        help="with --profile: write PATH-product.prof, -bare.prof, -celery.prof",
    )
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if not args.skip_celery and not os.environ.get("CELERY_BROKER_URL", "").startswith("redis"):
        sys.exit("set CELERY_BROKER_URL=redis://127.0.0.1:6379/<db> (flushed) or --skip-celery")
    return args


def main() -> None:
    args = arguments()
    prepare_database()
    import redis

    if not args.skip_celery:
        redis.Redis.from_url(os.environ["CELERY_BROKER_URL"]).flushdb()
    drop_bench_data()
    with tempfile.TemporaryDirectory() as tmp, LatencyServer(args.latency) as server:
        dataset = bench_dataset(Path(tmp) / "scifact")
        try:
            if args.profile:
                profile_both(
                    server,
                    dataset,
                    pairs=args.pairs,
                    concurrency=int(args.concurrency.split(",")[-1]),
                    dump=args.profile_dump,
                    celery=not args.skip_celery,
                    tmp=Path(tmp),
                )
                return
            levels_run(server, dataset, args, Path(tmp))
        finally:
            drop_bench_data()


if __name__ == "__main__":
    main()
