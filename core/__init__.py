"""Core: what every app uses, and nothing app-specific. Owns the three roles and the role
check around every view (:mod:`core.roles`), accounts and the login rate limit
(:mod:`core.accounts`; the login page, :mod:`core.views`), the htmx fragment-or-page rule
(:mod:`core.htmx`), whether tasks run in this process or on Celery workers
(:mod:`core.broker`), text made storable (:mod:`core.text`, :mod:`core.fields`), the file
paths a command is given, read from where it was typed (:mod:`core.paths`), a share's
confidence interval (:mod:`core.proportions`), which DREAM Assess wrote a file
(:mod:`core.version`), the
``dream_roles`` template filters and the ``createuser`` command.

Dependencies point one way, core ← corpora ← debates ← assess; a package may always import
itself. The rule table: tests/architecture/test_imports_follow_the_package_rules.py (RULES).
May import: nothing.
"""
