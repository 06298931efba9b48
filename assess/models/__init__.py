"""Assess models: human judging (annotation.py) and refined benchmarks (refined.py)."""

from .annotation import Adjudication, Judgment, ReviewItem
from .refined import *  # noqa: F403  (models of the refined-benchmark side)

__all__ = ["Adjudication", "Judgment", "ReviewItem"]
