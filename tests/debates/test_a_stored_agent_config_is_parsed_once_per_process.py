"""AgentConfig.stored parses each distinct stored config once per process (its docstring:
readers call it once per debate row, e.g. DebateJob.agents); the decorator caching it had
slid onto truth_file_shown when that was added above it, so every call validated again."""

from debates.llm.config import AgentConfig


def test_the_second_read_of_one_stored_config_is_not_parsed_again(monkeypatch):
    calls = []
    load = AgentConfig.load.__func__

    def counted(cls, raw, **kwargs):
        calls.append(raw)
        return load(cls, raw, **kwargs)

    monkeypatch.setattr(AgentConfig, "load", classmethod(counted))
    raw = {"backend": "openai", "model": "parsed-once-check", "base_url": "http://h:1/v1"}
    first = AgentConfig.stored(raw)
    second = AgentConfig.stored(dict(raw))
    assert second is first
    assert len(calls) == 1
