"""N threads starting N debates at once share one LLM client per process, agent config and
API key: it is built once (the others wait for it), never once per thread."""

from __future__ import annotations

import threading
import time

from debates.llm.config import AgentConfig
from debates.services import backends

BUILT: list[dict] = []


def slow_factory(config: dict) -> object:
    """A client factory as slow as a first SDK import, counting its builds."""
    time.sleep(0.05)
    BUILT.append(config)
    return object()


def _clients_at_once(n: int, config: dict, api_key: str | None = None) -> list[object]:
    found: list[object] = []
    start = threading.Barrier(n)
    typed = AgentConfig.stored(config)

    def ask() -> None:
        start.wait()
        found.append(backends.agent_client_get(config=typed, api_key=api_key))

    threads = [threading.Thread(target=ask) for _ in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return found


def test_sixteen_threads_asking_at_once_get_one_client_built_once(monkeypatch):
    monkeypatch.setenv(backends.TEST_FACTORY_ENV, f"{__name__}:slow_factory")
    monkeypatch.setattr(backends, "_clients", {})
    BUILT.clear()
    config = {"backend": "test", "name": "slow"}
    found = _clients_at_once(16, config)
    assert len(found) == 16 and len({id(client) for client in found}) == 1
    assert BUILT == [config]


def test_another_config_or_key_gets_a_client_of_its_own(monkeypatch):
    monkeypatch.setenv(backends.TEST_FACTORY_ENV, f"{__name__}:slow_factory")
    monkeypatch.setattr(backends, "_clients", {})
    BUILT.clear()
    first = _clients_at_once(4, {"backend": "test", "name": "a"})
    other_config = _clients_at_once(4, {"backend": "test", "name": "b"})
    other_key = _clients_at_once(4, {"backend": "test", "name": "a"}, api_key="sk-other")
    assert {len({id(c) for c in group}) for group in (first, other_config, other_key)} == {1}
    assert len({id(first[0]), id(other_config[0]), id(other_key[0])}) == 3
    assert len(BUILT) == 3
