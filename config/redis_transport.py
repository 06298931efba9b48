"""kombu's Redis transport with one Redis client per channel, not one per broker command.

Why: kombu's Redis channel builds a new ``redis.Redis`` client each time it needs one
(``Channel.conn_or_acquire``): to record a delivered message as unacknowledged, to
acknowledge it, to publish one. Building a client copies its ~120 response callbacks into a
new dict, ~150 µs of CPU; a task costs two, ~2 % of a thread-pool worker's CPU per LLM call
(``bench/llm_throughput_bench.py --profile``: a third of the worker's Celery and kombu work
per task). A redis-py client may be shared between threads (each command, or pipeline, takes
a connection from the pool for its duration), so the channel keeps one, built on the
channel's current pool: kombu drops the pool when it reconnects, and the next command then
builds a client on the new one. Every command, key and pipeline stays kombu's.

Used for ``redis://`` brokers (``CELERY_BROKER_TRANSPORT`` in config/settings.py); other
schemes (``rediss://``, ``sentinel://``) keep kombu's own transport.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kombu.transport import redis as kombu_redis

#: The transport's path, as ``broker_transport`` names it.
TRANSPORT_PATH = "config.redis_transport:Transport"


class Channel(kombu_redis.Channel):
    """kombu's Redis channel, with :meth:`conn_or_acquire` yielding one shared client."""

    _shared_client: Any = None

    @contextmanager
    def conn_or_acquire(self, client: Any = None) -> Iterator[Any]:
        """``client`` when given, else this channel's client on its current pool (built
        again when kombu replaced the pool)."""
        if client:
            yield client
            return
        shared = self._shared_client
        if shared is None or shared.connection_pool is not self.pool:
            # kombu's own builder (the stubs leave it out), with its pool and credentials.
            shared = self._shared_client = self._create_client()  # type: ignore[attr-defined]
        yield shared


class Transport(kombu_redis.Transport):
    """kombu's Redis transport with :class:`Channel`."""

    Channel = Channel
