"""Pointing this process's Celery app at a test broker, and back, without stale pools."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


def reset_producers(app) -> None:
    """Drop every producer and connection pool the app and kombu hold.

    Eager tasks earlier in the session leave a producer pool bound to the default broker URL,
    and kombu keeps pools in a process-wide registry: a pool closed by one worker fixture and
    left in place is handed to the next one ("Acquire on closed pool").
    """
    from kombu import pools

    if app._pool is not None:
        app._pool.force_close_all()
    app._pool = None
    app.amqp._producer_pool = None
    pools.reset()


@contextmanager
def app_on_broker(app, broker: str) -> Iterator[None]:
    """Within the block, ``app`` publishes to ``broker`` and does not run tasks eagerly."""
    saved = {key: app.conf[key] for key in ("broker_url", "task_always_eager")}
    app.conf.update(broker_url=broker, task_always_eager=False)
    reset_producers(app)
    try:
        yield
    finally:
        app.conf.update(saved)
        reset_producers(app)
