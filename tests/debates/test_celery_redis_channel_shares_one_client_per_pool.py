"""A redis:// broker's channel builds one Redis client for its commands, not one per command,
and builds a new one on the pool kombu makes after dropping the old one."""

import os

import pytest
from kombu import Connection

from config.redis_transport import TRANSPORT_PATH, Transport

BROKER = os.environ.get("CELERY_TEST_BROKER_URL", "")


@pytest.fixture(name="channel")
def channel_fixture():
    if not BROKER.startswith("redis://"):
        if os.environ.get("CI"):
            pytest.fail("CELERY_TEST_BROKER_URL is not set in CI")
        pytest.skip("set CELERY_TEST_BROKER_URL=redis://127.0.0.1:6379/<db> to run")
    import redis

    redis.Redis.from_url(BROKER).flushdb()
    with Connection(BROKER, transport=TRANSPORT_PATH) as connection:
        assert isinstance(connection.transport, Transport)
        yield connection.default_channel


def test_every_command_without_a_client_gets_the_same_client(channel):
    with channel.conn_or_acquire() as first, channel.conn_or_acquire() as second:
        assert first is second
        assert first.connection_pool is channel.pool
        first.set("dream-test-key", "1")
        assert second.get("dream-test-key") == b"1"
        first.delete("dream-test-key")


def test_a_client_given_is_used_as_it_is(channel):
    given = channel._create_client()
    with channel.conn_or_acquire(given) as client:
        assert client is given


def test_a_dropped_pool_gets_a_new_client_on_the_new_pool(channel):
    with channel.conn_or_acquire() as before:
        pass
    channel._disconnect_pools()  # what kombu does when the connection is lost
    with channel.conn_or_acquire() as after:
        assert after is not before
        assert after.connection_pool is channel.pool
        assert after.ping() is True


def test_a_message_delivered_is_kept_unacknowledged_until_its_ack(channel):
    queue = channel.connection.client.SimpleQueue("dream-test-shared-client", channel=channel)
    queue.put({"n": 1})
    message = queue.get(timeout=5)
    assert message.payload == {"n": 1}
    with channel.conn_or_acquire() as client:
        assert client.hlen(channel.unacked_key) == 1  # delivered, not acknowledged yet
        message.ack()
        assert client.hlen(channel.unacked_key) == 0


@pytest.mark.parametrize(
    ("broker", "transport"),
    [
        ("redis://127.0.0.1:6379/3", TRANSPORT_PATH),
        ("rediss://127.0.0.1:6379/3", None),
        ("sentinel://127.0.0.1:26379", None),
        ("", None),
    ],
)
def test_only_a_redis_url_selects_the_shared_client_transport(broker, transport):
    import subprocess
    import sys

    code = "from django.conf import settings; print(settings.CELERY_BROKER_TRANSPORT)"
    env = {**os.environ, "CELERY_BROKER_URL": broker, "DJANGO_SETTINGS_MODULE": "config.settings"}
    out = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert out == str(transport)
