"""parse_retry_after reads Retry-After as seconds or an HTTP date, and retry-after-ms."""

from __future__ import annotations

import pytest

from debates.llm.openai_backend import parse_retry_after

NOW = 1_700_000_000.0  # 2023-11-14 22:13:20 UTC


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "2"}, 2.0),
        ({"Retry-After": " 1.5 "}, 1.5),
        ({"Retry-After": "Tue, 14 Nov 2023 22:13:50 GMT"}, 30.0),
        ({"Retry-After": "Tue, 14 Nov 2023 22:00:00 GMT"}, 0.0),  # in the past
        ({"retry-after-ms": "250", "Retry-After": "9"}, 0.25),
        ({"Retry-After": "-3"}, 0.0),
        ({"Retry-After": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after_in_every_form(headers, seconds):
    assert parse_retry_after(headers, now=NOW) == seconds


def test_no_headers_means_no_retry_after():
    assert parse_retry_after(None) is None
