"""`refine --relevant-grade 2` on a binary job writes each new "relevant" label as grade 2
and 0 as 0, keeps original rows, stores 2 on the refinement and its provenance rows, and
records the refined set's grades; a relevant grade above the original qrels' top grade is
refused, writing nothing.

The holes world (tests/fixtures/refine.py) with q1-d1 graded 2 instead of 1, so the original
qrels are q1 d1=2, d2=0; q2 d4=1, d5=-1 (top grade 2). Settled as in settle_all: q1-d3
consensus 1, q1-d5 consensus 0, q2-d3 human 1, q2-d6 human 0 (audit override).
"""

import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from assess.models import LabelProvenance, Refinement
from corpora.models import QrelSet
from corpora.services import dataset_import_beir, pool_build, qrels_rows, run_import
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.datasets import write_beir
from tests.fixtures.refine import (
    AGENT,
    ALPHA,
    BETA,
    HOLES_CORPUS,
    HOLES_QUERIES,
    World,
    _write_run,
    settle_all,
)

GRADED_QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\nq2\td4\t1\nq2\td5\t-1\n"


@pytest.fixture
def graded_holes(db, tmp_path: Path):
    folder = write_beir(
        tmp_path / "holes", corpus=HOLES_CORPUS, queries=HOLES_QUERIES, qrels={"test": GRADED_QRELS}
    )
    dataset = dataset_import_beir(path=folder, name="holes")
    runs = [
        run_import(dataset=dataset, path=_write_run(tmp_path / "a.run", ALPHA), name="alpha"),
        run_import(dataset=dataset, path=_write_run(tmp_path / "b.run", BETA), name="beta"),
    ]
    test = dataset.qrel_sets.get(name="test")
    pool = pool_build(dataset=dataset, qrel_set=test, runs=runs, depth=3, name="p").pool
    world = World(dataset=dataset, test=test, pool=pool, runs=runs)
    world.job = debate_job_launch(
        spec=JobSpec(pool=pool, agent_a=AGENT, agent_b=AGENT), start=False
    )
    settle_all(world)
    return world


def refine(*args) -> str:
    out = io.StringIO()
    call_command("refine", "holes/p", *args, stdout=out)
    return out.getvalue()


def test_new_relevant_labels_become_grade_2_and_the_grade_is_stored(graded_holes):
    text = refine("--name", "g2", "--relevant-grade", "2")
    assert "new rows by grade: 0: 2, 2: 2 (a binary 'relevant' is written as grade 2;" in text
    refined = QrelSet.objects.get(dataset=graded_holes.dataset, name="g2")
    assert list(qrels_rows(qrel_set=refined)) == [
        ("q1", "d1", 2),
        ("q1", "d2", 0),
        ("q1", "d3", 2),
        ("q1", "d5", 0),
        ("q2", "d3", 2),
        ("q2", "d4", 1),
        ("q2", "d5", -1),
        ("q2", "d6", 0),
    ]
    assert Refinement.objects.get(qrel_set=refined).relevant_grade == 2
    provenance = LabelProvenance.objects.filter(qrel_set=refined).order_by(
        "query__query_id", "document__doc_id"
    )
    assert [(p.label, p.grade, p.relevant_grade) for p in provenance] == [
        (1, 2, 2),  # q1-d3 consensus
        (0, 0, 2),  # q1-d5 consensus
        (1, 2, 2),  # q2-d3 human
        (0, 0, 2),  # q2-d6 audit override
    ]
    assert refined.grade_counts == {-1: 1, 0: 3, 1: 1, 2: 3}


def test_the_default_writes_grade_1(graded_holes):
    refine("--name", "g1")
    refined = QrelSet.objects.get(dataset=graded_holes.dataset, name="g1")
    rows = dict(((q, d), g) for q, d, g in qrels_rows(qrel_set=refined))
    assert (rows[("q1", "d3")], rows[("q2", "d3")]) == (1, 1)
    assert Refinement.objects.get(qrel_set=refined).relevant_grade == 1


def test_a_grade_above_the_original_top_grade_is_refused(graded_holes):
    with pytest.raises(
        CommandError,
        match=r"the relevant grade must be a whole number from 1 to 2 \(the top grade of qrels "
        r"'test'\), got 3",
    ):
        refine("--name", "g3", "--relevant-grade", "3")
    with pytest.raises(
        CommandError, match=r"the relevant grade must be a whole number from 1 to 127, got 0"
    ):
        refine("--name", "g0", "--relevant-grade", "0")
    assert not QrelSet.objects.filter(name__in=["g3", "g0"]).exists()
