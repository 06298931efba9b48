"""The pure rules of webhooks, against hand-worked cases, without a database: which hosts a
callback may name, which addresses it may reach, when a failed delivery is tried again, and
the exact bytes that are signed."""

import json
from datetime import UTC, datetime

import pytest

from debates.webhooks import (
    MAX_ATTEMPTS,
    CallbackRefused,
    CallbackTarget,
    address_refusal,
    addresses_check,
    allowed_hosts_parse,
    body_encode,
    callback_url_parse,
    host_allowed,
    host_listed,
    retry_delay,
)

ALLOWED = ("hooks.example.org", "*.lab.example.net", "127.0.0.1", "localhost")


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("hooks.example.org", True),
        ("HOOKS.Example.org.", True),  # case and a trailing dot do not matter
        ("other.example.org", False),  # exact names do not cover their siblings
        ("example.org", False),
        ("a.lab.example.net", True),
        ("a.b.lab.example.net", True),  # any depth below the suffix
        ("lab.example.net", False),  # the pattern is for names below, not the name itself
        ("evillab.example.net", False),  # a suffix match is on a dot boundary
        ("a.lab.example.net.evil.com", False),
        ("127.0.0.1", True),
        ("localhost", True),
        ("", False),
    ],
)
def test_a_host_is_allowed_by_an_exact_name_or_below_a_star_suffix(host, allowed):
    assert host_allowed(host, ALLOWED) is allowed


def test_only_an_exact_name_counts_as_listed():
    assert host_listed("Hooks.example.org", ALLOWED)
    assert not host_listed("a.lab.example.net", ALLOWED)  # a pattern is not a listing
    assert not host_listed("a.lab.example.net", ())


def test_the_setting_is_read_from_a_comma_separated_string_or_a_list():
    assert allowed_hosts_parse(" Hooks.Example.org, ,*.lab.example.net,") == (
        "hooks.example.org",
        "*.lab.example.net",
    )
    assert allowed_hosts_parse(["127.0.0.1", " "]) == ("127.0.0.1",)
    assert allowed_hosts_parse("") == ()


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.9", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),  # the cloud metadata address
        ("fe80::1%eth0", "link-local"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("0.0.0.0", "unspecified"),
        ("::ffff:10.0.0.1", "private"),  # IPv4 mapped into IPv6 is judged as IPv4
        ("100.64.0.1", "not globally routable"),  # carrier-grade NAT
        ("8.8.8.8", None),
        ("2606:4700::1111", None),
    ],
)
def test_an_internal_address_is_refused_with_its_kind(address, reason):
    assert address_refusal(address) == reason


def test_a_name_must_resolve_to_public_addresses_only_unless_listed_exactly():
    public = CallbackTarget("https", "a.lab.example.net", 443)
    assert addresses_check(public, ["8.8.8.8"], allowed=ALLOWED) == ["8.8.8.8"]
    with pytest.raises(CallbackRefused, match=r"resolves to 10\.0\.0\.5, a private address"):
        addresses_check(public, ["8.8.8.8", "10.0.0.5"], allowed=ALLOWED)
    listed = CallbackTarget("http", "localhost", 80)
    assert addresses_check(listed, ["127.0.0.1", "::1"], allowed=ALLOWED) == ["127.0.0.1", "::1"]
    with pytest.raises(CallbackRefused, match="has no address"):
        addresses_check(listed, [], allowed=ALLOWED)


def test_a_callback_url_is_http_or_https_without_credentials_to_an_allowed_host():
    assert callback_url_parse("https://hooks.example.org/dream?x=1", allowed=ALLOWED) == (
        CallbackTarget("https", "hooks.example.org", 443)
    )
    assert callback_url_parse("http://127.0.0.1:8123/", allowed=ALLOWED) == CallbackTarget(
        "http", "127.0.0.1", 8123
    )
    refused = {
        "ftp://hooks.example.org/": "only http and https",
        "file:///etc/passwd": "only http and https",
        "https://user:pw@hooks.example.org/": "user name or password",
        "https://token@hooks.example.org/": "user name or password",
        "https://hooks.example.org:99999/": "not a valid URL",
        "https:///path": "has no host",
        "https://hooks.example.org/a b": "whitespace",
        "https://evil.example.com/": "not allowed; list it in DREAM_WEBHOOK_ALLOWED_HOSTS",
        "https://hooks.example.org/" + "x" * 500: "longer than 500",
    }
    for url, message in refused.items():
        with pytest.raises(CallbackRefused, match=message):
            callback_url_parse(url, allowed=ALLOWED)
    with pytest.raises(CallbackRefused, match=r"allowed now: none"):
        callback_url_parse("https://hooks.example.org/", allowed=())


def test_retries_wait_10_s_1_min_5_min_30_min_2_h_then_give_up_after_six_attempts():
    assert MAX_ATTEMPTS == 6
    assert [retry_delay(n) for n in range(1, 8)] == [10, 60, 300, 1800, 7200, None, None]


def test_the_body_is_compact_sorted_json_with_the_time_it_was_sent():
    sent = datetime(2026, 3, 1, 12, 30, 5, 999_000, tzinfo=UTC)
    body = body_encode({"job": {"id": 7, "agreed": 2}, "event": "job.finished"}, sent_at=sent)
    assert body == (
        b'{"event":"job.finished","job":{"agreed":2,"id":7},"sent_at":"2026-03-01T12:30:05+00:00"}'
    )
    assert json.loads(body)["sent_at"] == "2026-03-01T12:30:05+00:00"
