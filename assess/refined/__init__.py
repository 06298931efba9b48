"""Refined benchmarks: final labels (their rules, :mod:`.labels`; a pool's labels read from the
database, :mod:`.pool_labels`), refining a pool into a refined qrel set (:mod:`.refine`) with
each label's provenance (:mod:`.provenance`) and the corrections of original grades
(:mod:`.corrections`), the cost per final label (and its panel on the job page) and the
exports (jobs, rows and file formats).
It reads ``assess.review`` (its judgments and agreement); never ``assess.evaluation``, whose
pages its URLconf includes by name only (a string, no import), so that they keep the
``refined`` URL namespace.

The rule table: tests/architecture/test_imports_follow_the_package_rules.py (RULES).
May import: core, corpora, debates, assess.models, assess.review.
"""
