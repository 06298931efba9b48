"""Assess models: human judging (annotation.py: review items, gold pairs, judgments,
adjudications; guidelines.py: versioned guidelines and confirmations; quality.py: the gold
accuracy floor) and refined benchmarks (refined.py: refinements, label provenance, exports,
RAG generations); simulated.py says how a label's provenance marks it simulated, bundled.py
whether a refined set's labels came from the bundled tiny model.

The rule table: tests/architecture/test_imports_follow_the_package_rules.py (RULES).
May import: core, corpora, debates.
"""

from .annotation import Adjudication, GoldPair, Judgment, ReviewItem
from .guidelines import Guidelines, GuidelinesConfirmation
from .quality import QualityPolicy
from .refined import *  # noqa: F403  (models of the refined-benchmark side)

__all__ = [
    "Adjudication",
    "GoldPair",
    "Guidelines",
    "GuidelinesConfirmation",
    "Judgment",
    "QualityPolicy",
    "ReviewItem",
]
