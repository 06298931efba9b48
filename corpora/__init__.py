"""Corpora: benchmarks. Owns datasets (documents, queries, qrel sets, reference answers),
runs and retrieval (BM25, dense), pools of (query, document) pairs, the file formats (BEIR,
TREC), the dataset pages and the import/export, retrieval and pooling commands.

Dependencies point one way, core ← corpora ← debates ← assess; a package may always import
itself. The rule table: tests/architecture/test_imports_follow_the_package_rules.py (RULES).
May import: core.
"""
