"""A refined set is compared only with the qrels it was refined from (or one they were
refined from in turn): scored against another imported set, a refined set made from a
subset of the judgments reads as a refinement that halves every nDCG@10, with Wilcoxon
p < 0.0001, beside intervals "on the refined qrels" computed from its own origin (a new
user's trial: ``half``, half of SciFact's test qrels, refined as ``half-sim2``, was compared
with ``test`` by default on the page). The page's default original is the chosen refined
set's own. Two imported sets are still compared as before (no provenance, no intervals)."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assess.refined.refine import qrels_refine
from corpora.services.datasets import qrels_import

pytestmark = pytest.mark.django_db

REFUSAL = (
    "qrel set 'test-dream' was refined from 'test', not from 'other': compare it with 'test', "
    "the qrels it was refined from"
)


@pytest.fixture
def other(refined, tmp_path):
    path = tmp_path / "other.qrels"
    path.write_text("q1 0 d1 1\n", encoding="utf-8")
    refined.other = qrels_import(dataset=refined.dataset, path=path, name="other")
    return refined


def test_the_command_refuses_another_original(other):
    with pytest.raises(CommandError) as refused:
        call_command("rebenchmark", "holes", "--original", "other", "--refined", "test-dream")
    assert str(refused.value) == f"--original: {REFUSAL}"


def test_the_page_refuses_it_with_the_same_words(other, client_as):
    client = client_as("researcher")
    response = client.get("/datasets/holes/rebenchmark/?original=other&refined=test-dream")
    assert response.status_code == 400
    page = response.content.decode().replace("&#x27;", "'")
    assert f"Original qrels: {REFUSAL}." in page


def test_the_pages_default_original_is_the_refined_sets_own(other, client_as):
    """The page picked ``test`` by name; here the refined set's origin is ``test`` too, so a
    set refined from ``other`` shows the default: its own original."""
    from corpora.services import pool_build

    pool = pool_build(
        dataset=other.dataset, qrel_set=other.other, runs=other.runs, depth=3, name="p-other"
    ).pool
    qrels_refine(pool=pool, name="other-dream", allow_partial=True)
    response = client_as("researcher").get("/datasets/holes/rebenchmark/?refined=other-dream")
    assert response.status_code == 200
    sentence = 'on <span class="id">other</span> (original) and <span class="id">other-dream'
    assert sentence in response.content.decode()


def test_the_commands_default_original_is_the_refined_sets_own(other, capsys):
    from corpora.services import pool_build

    pool = pool_build(
        dataset=other.dataset, qrel_set=other.other, runs=other.runs, depth=3, name="p-other"
    ).pool
    qrels_refine(pool=pool, name="other-dream", allow_partial=True)
    call_command("rebenchmark", "holes", "--refined", "other-dream", "--no-intervals")
    assert "on qrels other (original) and other-dream (refined)" in capsys.readouterr().out


def test_a_chain_of_refinements_and_two_imported_sets_are_still_compared(other):
    from corpora.services import pool_build

    # A pool built on the refined set, refined in turn: test -> test-dream -> test-dream-2.
    pool = pool_build(
        dataset=other.dataset,
        qrel_set=other.refined,
        runs=other.runs,
        depth=3,
        name="p2",
        include_judged=True,
    ).pool
    qrels_refine(pool=pool, name="test-dream-2", allow_partial=True)
    for original in ("test", "test-dream"):
        call_command(
            "rebenchmark",
            "holes",
            "--original",
            original,
            "--refined",
            "test-dream-2",
            "--no-intervals",
        )
    call_command("rebenchmark", "holes", "--original", "test", "--refined", "other")


def test_rag_eval_refuses_it_too(other):
    """rag_eval compares answer accuracy on the original and the refined qrels: the same
    refusal, before any answer is generated."""
    with pytest.raises(CommandError) as refused:
        call_command(
            "rag_eval", "holes", "--runs", "alpha", "--original", "other", "--refined",
            "test-dream",
        )  # fmt: skip
    assert str(refused.value) == REFUSAL
