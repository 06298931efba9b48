"""The RAG page lets the reader choose whose stored answers to show (a ``generator`` select:
backend kind, server and model); by default the generator with the most answers. An unknown
generator is reported, with status 400.

Two generators answered in the ``holes_rag`` world at k = 1: the rule generator of
tests/fixtures/refine.py for both queries and all three runs (6 answers; alpha's accuracy
0.5), and ``openai:http://gpu1:8000/v1:llama``, which says "the first answer" to everything,
for q1 only (3 answers; every run correct, accuracy 1.0 over 1 query).
"""

import pytest
from django.urls import reverse

from assess.evaluation.rag_eval import rag_evaluate
from debates.llm.scripted import RuleClient
from tests.fixtures.refine import rag_rule
from tests.fixtures.ui import html_elements, html_tables

LLAMA = "openai:http://gpu1:8000/v1:llama"
RULE = "test:default:rule-generator"


def evaluate(world, client, backend, **extra):
    rag_evaluate(
        dataset=world.dataset,
        runs=world.runs,
        k=1,
        original=world.test,
        refined=world.refined,
        client=client,
        backend=backend,
        **extra,
    )


@pytest.fixture
def two_generators(holes_rag):
    evaluate(holes_rag, RuleClient(rag_rule, model="rule-generator"), {"backend": "test"})
    llama = RuleClient(lambda messages: "the first answer", model="llama")
    backend = {"backend": "openai", "model": "llama", "base_url": "http://gpu1:8000/v1"}
    evaluate(holes_rag, llama, backend, limit=1)
    return holes_rag


def page(client, **params):
    url = reverse("refined:rag", args=["holes"])
    query = {"original": "test", "refined": "test-dream", "k": "1", **params}
    return client.get(url, query)


def generator_options(html: str) -> list[tuple[str, bool]]:
    """``(value, selected)`` of the generator select's options (generator keys hold a ":",
    qrel set names do not)."""
    elements, _ = html_elements(html)
    return [
        (a["value"], "selected" in a)
        for tag, a in elements
        if tag == "option" and ":" in a["value"]
    ]


@pytest.mark.django_db
def test_the_generator_with_most_answers_is_shown_first_and_another_can_be_chosen(
    two_generators, client_as
):
    client = client_as("researcher")
    default = page(client)
    assert default.status_code == 200
    html = default.content.decode()
    assert generator_options(html) == [(RULE, True), (LLAMA, False)]
    assert "test:default:rule-generator (6 answers)" in html
    rows = html_tables(html)[0][1:]
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("alpha", "2", "0.5000"),
        ("beta", "2", "0.0000"),
        ("gamma", "2", "1.0000"),
    ]
    chosen = page(client, generator=LLAMA)
    assert chosen.status_code == 200
    html = chosen.content.decode()
    assert generator_options(html) == [(RULE, False), (LLAMA, True)]
    rows = html_tables(html)[0][1:]
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("alpha", "1", "1.0000"),
        ("beta", "1", "1.0000"),
        ("gamma", "1", "1.0000"),
    ]


@pytest.mark.django_db
def test_an_unknown_generator_is_reported(two_generators, client_as):
    response = page(client_as("researcher"), generator="openai:http://nowhere/v1:llama")
    assert response.status_code == 400
    html = response.content.decode()
    assert (
        "No stored answers from generator &#x27;openai:http://nowhere/v1:llama&#x27; at k = 1."
        in html
    )
    assert html_tables(html) == []
