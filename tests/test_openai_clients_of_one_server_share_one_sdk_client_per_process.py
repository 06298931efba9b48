"""Every debate builds two OpenAI clients; they share one SDK client (its HTTP connections
and TLS context) per server, key and timeout in a process, never across keys or timeouts,
and each keeps its own key and schema-mode state."""

from __future__ import annotations

import threading

from debates.llm import openai_backend
from debates.llm.openai_backend import OpenAIClient, shared_sdk


def test_clients_of_the_same_server_key_and_timeout_share_one_sdk_client():
    a = OpenAIClient(model="m", base_url="http://127.0.0.1:9/v1", api_key="k1", timeout=30)
    b = OpenAIClient(model="m", base_url="http://127.0.0.1:9/v1", api_key="k1", timeout=30)
    assert a._sdk is b._sdk
    assert a._sdk.max_retries == 0
    assert a._sdk.api_key == "k1"


def test_another_key_timeout_or_server_gets_its_own_sdk_client():
    base = OpenAIClient(model="m", base_url="http://127.0.0.1:9/v1", api_key="k1", timeout=30)
    other_key = OpenAIClient(model="m", base_url="http://127.0.0.1:9/v1", api_key="k2", timeout=30)
    other_timeout = OpenAIClient(
        model="m", base_url="http://127.0.0.1:9/v1", api_key="k1", timeout=31
    )
    other_server = OpenAIClient(
        model="m", base_url="http://127.0.0.1:10/v1", api_key="k1", timeout=30
    )
    sdks = {id(c._sdk) for c in (base, other_key, other_timeout, other_server)}
    assert len(sdks) == 4
    assert other_key._sdk.api_key == "k2"


def test_threads_asking_at_once_get_the_same_sdk_client():
    found = []

    def ask() -> None:
        found.append(shared_sdk(base_url="http://127.0.0.1:11/v1", api_key="t", timeout=5.0))

    threads = [threading.Thread(target=ask) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 16 and len({id(sdk) for sdk in found}) == 1


def test_the_cache_keeps_at_most_its_limit_dropping_the_oldest():
    first = shared_sdk(base_url="http://127.0.0.1:12/v1", api_key="first", timeout=5.0)
    for n in range(openai_backend._SDKS_MAX):
        shared_sdk(base_url="http://127.0.0.1:12/v1", api_key=f"fill-{n}", timeout=5.0)
    assert len(openai_backend._SDKS) == openai_backend._SDKS_MAX
    again = shared_sdk(base_url="http://127.0.0.1:12/v1", api_key="first", timeout=5.0)
    assert again is not first  # the oldest entry was dropped and built anew
