"""``study_systems`` builds the standard set of varied systems (seven BM25 settings, dense and
four fusions) on a dataset with only built-in retrieval, prints their nDCG@10 best first and
their names comma-separated on the last line; run again, it keeps what is done and builds
only what is missing."""

import io

import pytest
from django.core.management import CommandError, call_command

from corpora.models import Run
from corpora.services.systems import STUDY_SYSTEMS

NAMES = [
    "bm25",
    "bm25-k1.2-b0.75",
    "bm25-k1.5-b1.0",
    "bm25-k0.5-b0.3",
    "bm25-k2.0-b0.5",
    "bm25-b0",
    "bm25-k0",
    "dense",
    "rrf-bm25-dense",
    "combsum-bm25-dense",
    "combmnz-bm25-dense",
    "rrf-bm25-variants",
]


def study(*args: str) -> list[str]:
    out = io.StringIO()
    call_command("study_systems", "energy", "--no-progress", *args, stdout=out)
    return out.getvalue().splitlines()


@pytest.mark.django_db
def test_twelve_systems_are_built_scored_and_named_on_the_last_line(energy):
    lines = study()
    assert [s.name for s in STUDY_SYSTEMS] == NAMES
    assert lines[-1] == ",".join(NAMES)
    runs = {r.name: r for r in Run.objects.filter(dataset=energy)}
    assert sorted(runs) == sorted(NAMES)
    assert {r.status for r in runs.values()} == {"done"}
    assert (runs["bm25-k1.5-b1.0"].parameters["k1"], runs["bm25-k1.5-b1.0"].parameters["b"]) == (
        1.5,
        1.0,
    )
    assert (runs["bm25-b0"].parameters["k1"], runs["bm25-b0"].parameters["b"]) == (0.9, 0.0)
    assert runs["rrf-bm25-variants"].parameters["runs"] == NAMES[:7]
    assert runs["combsum-bm25-dense"].parameters == {
        "retriever": "fusion",
        "method": "combsum",
        "runs": ["bm25", "dense"],
        "k": 100,
    }
    assert lines[0].startswith("bm25: built in ")
    assert "nDCG@10 on qrels test, best first:" in lines
    board = lines[lines.index("nDCG@10 on qrels test, best first:") + 1 : -1]
    assert len(board) == 12
    # Every BM25 setting ranks d1 first for "solar" (a tie broken by id) and d3 alone for
    # "wind noise": nDCG@10 1 on both judged queries.
    assert "   1  1.0000  bm25" in board


@pytest.mark.django_db
def test_run_again_it_keeps_the_done_systems_and_builds_the_missing_ones(energy):
    study("--k", "3")
    kept = {r.name: r.pk for r in Run.objects.all()}
    Run.objects.filter(name__in=["bm25-k0", "rrf-bm25-variants"]).delete()
    lines = study("--k", "3")
    built = [line.split(":")[0] for line in lines if ": built in " in line]
    assert built == ["bm25-k0", "rrf-bm25-variants"]
    assert sum(": kept (already done); " in line for line in lines) == 10
    now = {r.name: r.pk for r in Run.objects.all()}
    assert {n: now[n] for n in kept if n not in built} == {
        n: kept[n] for n in kept if n not in built
    }
    assert Run.objects.get(name="bm25-k0").parameters["k"] == 3


@pytest.mark.django_db
def test_an_unknown_qrel_set_is_refused_before_anything_is_built(energy):
    with pytest.raises(CommandError, match="no qrel set 'dev' in 'energy' \\(known: test\\)"):
        study("--qrels", "dev")
    assert not Run.objects.exists()
