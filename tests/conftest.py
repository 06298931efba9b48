"""Every fixture module is registered here once; tests name fixtures as parameters.

Each test folder holds one area of the project: ``corpora/`` (imports, runs, pools, dataset
pages), ``debates/`` (the engine, LLM backends, debate jobs, workers), ``assess/`` (judging,
agreement, final labels, refine, exports, metrics, RAG, the pipeline), ``core/`` (roles,
login, security), ``browser/`` (Chromium through Playwright). ``fixtures/`` holds the
fixtures and the plain helpers the folders share; a module is listed below before the
modules that import it, so that pytest rewrites the asserts of each.
"""

import os
import re

# Under pytest-xdist (``./dream test`` runs one worker per core, at most 8) each worker gets its own
# test database from pytest-django (``test_<name>_gw0``, ``..._gw1``), but the Redis database
# of ``CELERY_TEST_BROKER_URL`` would be shared: one worker's Celery worker could take the
# other's tasks and run them against the wrong database. Worker N therefore uses the Redis
# database N below the one given (15, 14, ..., 8 with eight workers; the worker tests flush
# theirs, so keep other Redis data out of that range). This runs before the fixture modules
# read it.
_XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
_BROKER = os.environ.get("CELERY_TEST_BROKER_URL", "")
_BROKER_DB = re.fullmatch(r"(redis://[^/]+/)(\d+)", _BROKER)
if _XDIST_WORKER.startswith("gw") and _BROKER_DB:
    _db = int(_BROKER_DB.group(2)) - int(_XDIST_WORKER[2:])
    if _db < 0:
        raise RuntimeError(f"CELERY_TEST_BROKER_URL {_BROKER}: too few Redis databases below it")
    os.environ["CELERY_TEST_BROKER_URL"] = f"{_BROKER_DB.group(1)}{_db}"

pytest_plugins = [
    "tests.fixtures.id_offset",
    "tests.fixtures.datasets",
    "tests.fixtures.paths",
    "tests.fixtures.ui",
    "tests.fixtures.annot",
    "tests.fixtures.browser",
    "tests.fixtures.budget",
    "tests.fixtures.identical",
    "tests.fixtures.llm",
    "tests.fixtures.llm_servers",
    "tests.fixtures.llm_policy",
    "tests.fixtures.recording_proxy",
    "tests.fixtures.jobs",
    "tests.fixtures.check_judged",
    "tests.fixtures.latency",
    "tests.fixtures.pooling",
    "tests.fixtures.refine",
    "tests.fixtures.refine_again",
    "tests.fixtures.api",
    "tests.fixtures.batch",
    "tests.fixtures.batch_api",
    "tests.fixtures.long_texts",
    "tests.fixtures.simulated",
    "tests.fixtures.stage0",
]
