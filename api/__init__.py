"""The HTTP API, versioned under ``/api/v1/`` (django-ninja): datasets and uploads, qrel
sets and their downloads, runs, pools, debate jobs and their controls, review figures,
refined sets and re-benchmark tables, for scripts and notebooks. Token auth (``Authorization:
Bearer``, :mod:`core.tokens`), the same roles as the pages, and the same services as the
pages and commands: every endpoint validates with a schema and calls one service.

Dependencies point one way, core ← corpora ← debates ← assess ← api; a package may always
import itself. The rule table: tests/architecture/test_imports_follow_the_package_rules.py
(RULES).
May import: core, corpora, debates, assess.
"""
