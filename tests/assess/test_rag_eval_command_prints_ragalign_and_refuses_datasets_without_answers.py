"""`rag_eval DATASET --runs ... --k ... --backend ...` prints per system accuracy, Success@k
and RAGAlign@k with the original and refined qrels, the correlation and the formula; a
dataset without reference answers is refused with a clear error; the RAG page shows the
stored figures and documents the formula."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from tests.fixtures.ui import html_elements, html_tables

FACTORY = "tests.fixtures.refine:rag_rule_client"


def rag_eval(*args) -> str:
    out = io.StringIO()
    call_command("rag_eval", "holes", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.mark.django_db
def test_the_command_prints_each_system_and_the_correlation(holes_rag, monkeypatch):
    monkeypatch.setenv("DREAM_TEST_LLM_FACTORY", FACTORY)
    args = ["--runs", "alpha,beta,gamma", "--k", "1", "--backend", "test"]
    printed = rag_eval(*args, "--original", "test", "--refined", "test-dream")
    lines = [line.split() for line in printed.splitlines()]
    # F1 (SQuAD): "it is first answer" vs "first answer" 2/3; "forty two surely" vs
    # "forty two" 0.8; "unknown" 0. Pearson over (Success@1, accuracy), refined:
    # (0.5, 0.5), (0.5, 0), (1, 1) → 0.8660; original (0, 0.5), (0.5, 0), (0.5, 1) → 0.
    assert printed.startswith("RAG alignment at k = 1: 2 queries (judged in test, with reference")
    assert (
        lines[1]
        == (
            "system queries accuracy exact match F1 Success@1 original Success@1 refined "
            "RAGAlign@1 original RAGAlign@1 refined generated reused"
        ).split()
    )
    assert lines[3][:10] == [
        "alpha",
        "2",
        "0.5000",
        "0.0000",
        "0.3333",
        "0.0000",
        "0.5000",
        "0.5000",
        "1.0000",
        "2",
    ]  # noqa: E501
    assert lines[4][:10] == [
        "beta",
        "2",
        "0.0000",
        "0.0000",
        "0.0000",
        "0.5000",
        "0.5000",
        "0.5000",
        "0.5000",
        "2",
    ]  # noqa: E501
    assert lines[5][:10] == [
        "gamma",
        "2",
        "1.0000",
        "0.0000",
        "0.7333",
        "0.5000",
        "1.0000",
        "0.5000",
        "1.0000",
        "2",
    ]  # noqa: E501
    assert "Correlation across systems between Success@1 and answer accuracy" in printed
    assert "original qrels: Pearson r = 0.0000" in printed
    assert "refined qrels: Pearson r = 0.8660" in printed
    assert "RAGAlign@k = |{q : hit_k(q) = correct(q)}| / |Q|" in printed
    # Run again: everything is reused.
    again = [line.split() for line in rag_eval(*args, "--refined", "test-dream").splitlines()]
    assert [row[-2:] for row in again[3:6]] == [["0", "2"]] * 3


@pytest.mark.django_db
def test_a_dataset_without_reference_answers_is_refused(refined, monkeypatch):
    monkeypatch.setenv("DREAM_TEST_LLM_FACTORY", FACTORY)
    with pytest.raises(CommandError, match="dataset 'holes' has no reference answers"):
        rag_eval("--runs", "alpha", "--backend", "test")


@pytest.mark.django_db
def test_an_unknown_backend_is_refused_before_any_generation(holes_rag):
    with pytest.raises(CommandError, match="backend: must be one of embedded, openai"):
        rag_eval("--runs", "alpha", "--backend", "gpt")


@pytest.mark.django_db
def test_the_rag_page_shows_the_stored_figures_and_the_formula(holes_rag, client_as, monkeypatch):
    monkeypatch.setenv("DREAM_TEST_LLM_FACTORY", FACTORY)
    rag_eval(
        "--runs", "alpha,beta,gamma", "--k", "1", "--backend", "test", "--refined", "test-dream"
    )
    url = reverse("refined:rag", args=["holes"]) + "?original=test&refined=test-dream&k=1"
    html = client_as("researcher").get(url).content.decode()
    table = html_tables(html)[0]
    assert table[1][:9] == [
        "alpha",
        "2",
        "0.5000",
        "0.0000",
        "0.3333",
        "0.0000",
        "0.5000",
        "0.5000",
        "1.0000",
    ]  # noqa: E501
    assert "RAGAlign@k = |{q : hit_k(q) = correct(q)}| / |Q|" in html
    elements, inline_scripts = html_elements(html)
    assert inline_scripts == [] and all("style" not in attrs for _, attrs in elements)
