"""Project configuration: settings, URLs, middleware, the Celery app; it wires the apps
together, so it is the one package with no import limit.

The rule table: tests/architecture/test_imports_follow_the_package_rules.py (RULES).
May import: anything.
"""

from .celery import app as celery_app

__all__ = ["celery_app"]
