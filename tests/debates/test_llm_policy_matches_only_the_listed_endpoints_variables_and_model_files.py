"""The pure matching of debates.llm.policy, without a database: an endpoint matches a listed
base URL only by scheme, host, port and a path below the listed one; a key variable only by
its exact name; a model file only when its real path lies in the models folder or is the
bundled file."""

import os

import pytest

from debates.llm import policy

LISTED = ("http://127.0.0.1:9000/v1", "https://gpu.example.org/openai/v1", "https://bücher.example")


@pytest.mark.parametrize(
    "base_url",
    [
        "http://127.0.0.1:9000/v1",
        "http://127.0.0.1:9000/v1/",
        "HTTP://127.0.0.1:9000/v1",
        "https://gpu.example.org/openai/v1",
        "https://GPU.Example.ORG./openai/v1",
        "https://gpu.example.org:443/openai/v1",
        "https://gpu.example.org/openai/v1/deployments/x",
        "https://xn--bcher-kva.example/v1",
        "https://BÜCHER.example/v1",
    ],
)
def test_a_listed_endpoint_or_a_path_below_it_matches(base_url):
    assert policy.endpoint_allowed(base_url=base_url, allowed=LISTED) is True


@pytest.mark.parametrize(
    "base_url",
    [
        "http://127.0.0.1:9001/v1",  # another port
        "https://127.0.0.1:9000/v1",  # another scheme
        "http://127.0.0.1/v1",  # the default port 80
        "http://127.0.0.1:9000",  # above the listed path
        "http://127.0.0.1:9000/v10",  # not on a segment boundary
        "http://127.0.0.1:9000/other/v1",
        "http://127.0.0.1:9000/v1/../admin",
        "http://127.0.0.1:9000/v1/%2e%2e/admin",
        "http://127.0.0.1:9000/v1%2F..%2Fadmin",
        "http://127.0.0.1:9000/v1?x=1",
        "http://127.0.0.1:9000/v1#x",
        "http://gpu.example.org@127.0.0.1:9000/v1",
        "http://127.0.0.1:9000@gpu.example.org/openai/v1",
        "https://gpu.example.org.evil/openai/v1",
        "https://evil-gpu.example.org/openai/v1",
        "http://[::1]:9000/v1",
        "http://0x7f000001:9000/v1",
        "http://2130706433:9000/v1",
        "http://127.0.0.%31:9000/v1",
        "http://127.0.0.1:9000/v1\t/x",
        "http://127.0.0.1:9000\\@evil/v1",
        "http://127.0.0.1:99999/v1",
        "ftp://127.0.0.1:9000/v1",
        "https://straße.example/v1",
        "",  # no base URL: https://api.openai.com/v1, not listed here
        None,
    ],
)
def test_anything_else_does_not_match(base_url):
    assert policy.endpoint_allowed(base_url=base_url, allowed=LISTED) is False


def test_no_base_url_is_the_sdks_default_endpoint_and_is_checked_like_any_other():
    assert policy.endpoint_allowed(base_url=None, allowed=["https://api.openai.com/v1"]) is True
    assert policy.endpoint_allowed(base_url="", allowed=["https://api.openai.com"]) is True
    assert policy.endpoint_allowed(base_url=None, allowed=[]) is False


def test_an_ipv6_entry_matches_its_canonical_spellings_only():
    listed = ["http://[::1]:8000/v1"]
    assert policy.endpoint_allowed(base_url="http://[0:0:0:0:0:0:0:1]:8000/v1", allowed=listed)
    assert not policy.endpoint_allowed(base_url="http://127.0.0.1:8000/v1", allowed=listed)


def test_an_entry_that_cannot_be_parsed_matches_nothing():
    assert not policy.endpoint_allowed(base_url="http://h/v1", allowed=["h/v1", "http://"])


def test_endpoint_parse_says_what_is_wrong():
    with pytest.raises(ValueError, match="^credentials in the URL$"):
        policy.endpoint_parse("http://user:pw@h/v1")
    with pytest.raises(ValueError, match="^not an http\\(s\\) URL$"):
        policy.endpoint_parse("file:///etc/passwd")
    assert policy.endpoint_parse("https://H.example./a/%7Eb/") == policy.Endpoint(
        "https", "h.example", 443, ("a", "~b")
    )


def test_a_key_variable_matches_by_its_exact_name():
    allowed = ["OPENAI_API_KEY", " TEAM_KEY "]
    assert policy.key_env_allowed(name="OPENAI_API_KEY", allowed=allowed)
    assert policy.key_env_allowed(name="TEAM_KEY", allowed=allowed)
    for name in ("openai_api_key", "SECRET_KEY", "PATH", "DATABASE_URL", "OPENAI_API_KEY_2", ""):
        assert not policy.key_env_allowed(name=name, allowed=allowed), name
    assert not policy.key_env_allowed(name="", allowed=["", " "])


def test_a_model_file_must_resolve_inside_the_folder_or_be_the_bundled_file(tmp_path):
    models, outside = tmp_path / "models", tmp_path / "outside"
    models.mkdir()
    outside.mkdir()
    (models / "sub").mkdir()
    (models / "a.gguf").write_bytes(b"GGUF")
    (models / "sub" / "b.gguf").write_bytes(b"GGUF")
    (outside / "c.gguf").write_bytes(b"GGUF")
    (outside / "bundled.gguf").write_bytes(b"GGUF")
    os.symlink(outside / "c.gguf", models / "link-out.gguf")
    os.symlink(models / "a.gguf", models / "link-in.gguf")
    os.symlink(outside / "bundled.gguf", models / "link-bundled.gguf")
    os.symlink(outside, models / "dir-out")
    (tmp_path / "models-evil").mkdir()
    (tmp_path / "models-evil" / "d.gguf").write_bytes(b"GGUF")

    def allowed(path) -> bool:
        return policy.model_file_allowed(
            path=str(path), folder=str(models), bundled=str(outside / "bundled.gguf")
        )

    for path in (
        models / "a.gguf",
        models / "sub" / "b.gguf",
        models / "link-in.gguf",
        models / "sub" / ".." / "a.gguf",
        models / "link-bundled.gguf",
        outside / "bundled.gguf",
    ):
        assert allowed(path), path
    for path in (
        models / "link-out.gguf",
        models / "dir-out" / "c.gguf",
        models / ".." / "outside" / "c.gguf",
        tmp_path / "models-evil" / "d.gguf",  # a sibling whose name starts like the folder
        models,
        models / "sub",
        models / "missing.gguf",
        "/etc/passwd",
    ):
        assert not allowed(path), path


def test_without_a_folder_only_the_bundled_file_is_allowed(tmp_path):
    bundled = tmp_path / "smol.gguf"
    bundled.write_bytes(b"GGUF")
    (tmp_path / "other.gguf").write_bytes(b"GGUF")
    assert policy.model_file_allowed(path=str(bundled), folder="", bundled=str(bundled))
    assert not policy.model_file_allowed(
        path=str(tmp_path / "other.gguf"), folder="", bundled=str(bundled)
    )
    assert not policy.model_file_allowed(path=str(bundled), folder="", bundled=None)


def test_an_agent_without_a_base_url_goes_to_the_openai_api_whatever_openai_base_url_says(
    monkeypatch,
):
    # The allow-list checks a config without base_url as the OpenAI API: the SDK must not
    # be left to read the worker's OPENAI_BASE_URL and send the job elsewhere.
    from debates.llm.openai_backend import OpenAIClient

    monkeypatch.setenv("OPENAI_BASE_URL", "http://10.0.0.9:9000/v1")
    client = OpenAIClient(model="gpt-4o-mini", api_key="k")
    assert str(client._sdk.base_url).rstrip("/") == policy.DEFAULT_ENDPOINT
    named = OpenAIClient(model="m", base_url="http://127.0.0.1:9000/v1", api_key="k")
    assert str(named._sdk.base_url).rstrip("/") == "http://127.0.0.1:9000/v1"
