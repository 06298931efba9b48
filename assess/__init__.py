"""Assess: what humans and researchers do with the debates. Owns the models
(:mod:`assess.models`), human review (:mod:`assess.review`), refined benchmarks and exports
(:mod:`assess.refined`) and evaluation (:mod:`assess.evaluation`); its own modules (apps,
admin, tasks, pipeline, management commands) wire them together and may import any of them,
while each package's own rule is narrower (see its ``__init__.py``).

Dependencies point one way, core ← corpora ← debates ← assess; a package may always import
itself. The rule table: tests/architecture/test_imports_follow_the_package_rules.py (RULES).
May import: core, corpora, debates.
"""
