"""Assess models: human judging (annotation.py: review items, judgments, adjudications) and
refined benchmarks (refined.py: refinements, label provenance, exports, RAG generations).

The rule table: tests/architecture/test_imports_follow_the_package_rules.py (RULES).
May import: core, corpora, debates.
"""

from .annotation import Adjudication, Judgment, ReviewItem
from .refined import *  # noqa: F403  (models of the refined-benchmark side)

__all__ = ["Adjudication", "Judgment", "ReviewItem"]
