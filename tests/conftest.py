"""Every fixture module is registered here once; tests name fixtures as parameters.

Each test folder holds one area of the project: ``corpora/`` (imports, runs, pools, dataset
pages), ``debates/`` (the engine, LLM backends, debate jobs, workers), ``assess/`` (judging,
agreement, final labels, refine, exports, metrics, RAG, the pipeline), ``core/`` (roles,
login, security), ``browser/`` (Chromium through Playwright). ``fixtures/`` holds the
fixtures and the plain helpers the folders share; a module is listed below before the
modules that import it, so that pytest rewrites the asserts of each.
"""

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
