"""Evaluation: IR metrics, re-benchmarking (tables and plots) and RAG alignment. Reads only
qrel sets, runs, queries and stored RAG generations; never ``assess.review`` nor
``assess.refined``.

The rule table: tests/architecture/test_imports_follow_the_package_rules.py (RULES).
May import: core, corpora, debates, assess.models.
"""
