"""Human review: the review queue (its items created where debates end, :mod:`.receivers`)
and its claims, judgments and undo, the human budget, adjudication, agreement among
annotators and audits, and term highlighting on the judging page. No other assess package:
what the job page shows of refined sets is the refined package's own panel.

The rule table: tests/architecture/test_imports_follow_the_package_rules.py (RULES).
May import: core, corpora, debates, assess.models.
"""
