"""``fuse_runs`` (``run_fuse``) writes a fused run, done, with its entries ranked as worked by
hand; a taken name needs --replace (never for a pooled run), and runs it cannot fuse (one run,
a run of another dataset or not done, an unknown method) are refused, writing nothing."""

import io

import pytest
from django.core.management import CommandError, call_command

from corpora.models import Dataset, Run
from corpora.services import dataset_import_beir, pool_build, qrel_set_get, run_import, run_rows
from corpora.services.fusion import run_fuse
from corpora.services.runs import RunError

# a: q1 d1 3, d2 2; q2 d3 1          b: q1 d2 9, d4 1; q2 d4 5, d3 4
A = ["q1 Q0 d1 1 3.0 a", "q1 Q0 d2 2 2.0 a", "q2 Q0 d3 1 1.0 a"]
B = ["q1 Q0 d2 1 9.0 b", "q1 Q0 d4 2 1.0 b", "q2 Q0 d4 1 5.0 b", "q2 Q0 d3 2 4.0 b"]


@pytest.fixture
def two_runs(energy, import_run):
    return import_run(energy, "a", A), import_run(energy, "b", B)


def fuse_runs(*args: str) -> str:
    out = io.StringIO()
    call_command("fuse_runs", "energy", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_rrf_writes_a_done_built_in_run_ranked_by_fused_score(energy, two_runs):
    printed = fuse_runs("--runs", "a,b")
    run = Run.objects.get(dataset=energy, name="rrf-a-b")
    assert (run.status, run.source) == ("done", "builtin")
    assert run.parameters == {
        "retriever": "fusion",
        "method": "rrf",
        "runs": ["a", "b"],
        "k": 100,
        "rrf_k": 60,
    }
    assert run.system == ("reciprocal rank fusion (k = 60; Cormack et al., 2009) of a, b; top 100")
    rows = list(run_rows(run=run))
    # q1: d2 1/62 + 1/61, d1 1/61, d4 1/62; q2: d3 1/61 + 1/62, d4 1/61 + 1/62 (tie: d3)
    assert [row[:3] for row in rows] == [
        ("q1", "d2", 1),
        ("q1", "d1", 2),
        ("q1", "d4", 3),
        ("q2", "d3", 1),
        ("q2", "d4", 2),
    ]
    assert rows[0][3] == pytest.approx(1 / 61 + 1 / 62)
    assert rows[2][3] == pytest.approx(1 / 62)
    assert printed.startswith("run rrf-a-b: reciprocal rank fusion (k = 60; Cormack et al., ")
    assert "; 2 queries, 5 entries in " in printed


@pytest.mark.django_db
def test_combmnz_keeps_the_top_k_under_the_name_given(energy, two_runs):
    fuse_runs("--runs", "b,a", "--method", "combmnz", "--k", "1", "--name", "mnz")
    run = Run.objects.get(dataset=energy, name="mnz")
    assert run.parameters == {
        "retriever": "fusion",
        "method": "combmnz",
        "runs": ["b", "a"],
        "k": 1,
    }
    # q1: d2 (1 + 0) x 2 = 2 beats d1 1 x 1; q2: d4 1 + 0, d3 (0 + 1) x 2 = 2
    assert list(run_rows(run=run)) == [("q1", "d2", 1, 2.0), ("q2", "d3", 1, 2.0)]


@pytest.mark.django_db
def test_a_taken_name_needs_replace_and_a_pooled_run_is_never_replaced(energy, two_runs):
    fuse_runs("--runs", "a,b")
    first = Run.objects.get(name="rrf-a-b")
    with pytest.raises(CommandError, match="run 'rrf-a-b' already exists in 'energy'.*--replace"):
        fuse_runs("--runs", "a,b", "--method", "combsum", "--name", "rrf-a-b")
    fuse_runs("--runs", "a,b", "--method", "combsum", "--name", "rrf-a-b", "--replace")
    second = Run.objects.get(name="rrf-a-b")
    assert second.pk != first.pk and second.parameters["method"] == "combsum"
    pool_build(dataset=energy, qrel_set=qrel_set_get(dataset=energy, name="test"), runs=[second])
    with pytest.raises(CommandError, match="run 'rrf-a-b' is pooled in test-depth10"):
        fuse_runs("--runs", "a,b", "--name", "rrf-a-b", "--replace")
    assert Run.objects.get(name="rrf-a-b").pk == second.pk


@pytest.mark.django_db
def test_runs_that_cannot_be_fused_are_refused_and_nothing_is_written(energy, two_runs, run_tables):
    a, b = two_runs
    other = Dataset.objects.create(slug="other", name="other")
    foreign = Run.objects.create(dataset=other, name="c", status=Run.Status.DONE)
    pending = Run.objects.create(dataset=energy, name="p", status=Run.Status.PENDING)
    before = run_tables()
    refusals = [
        ({"runs": [a]}, "fusion needs at least 2 runs, got 1"),
        ({"runs": [a, a]}, "run 'a' is named twice"),
        ({"runs": [a, foreign]}, "run 'c' belongs to another dataset than 'energy'"),
        ({"runs": [a, pending]}, "run 'p' is pending, not done"),
        ({"runs": [a, b], "method": "borda"}, "unknown fusion method 'borda'"),
        ({"runs": [a, b], "k": 0}, "k must be at least 1, got 0"),
        ({"runs": [a, b], "name": "a"}, "run 'a' is one of the runs fused"),
        ({"runs": [a, b], "name": "bad name"}, "run name: it holds U\\+0020 SPACE"),
    ]
    for kwargs, message in refusals:
        with pytest.raises(RunError, match=message):
            run_fuse(dataset=energy, **kwargs)
    assert run_tables() == before
    with pytest.raises(CommandError, match=r"no run 'zz' in 'energy' \(known: a, b, p\)"):
        fuse_runs("--runs", "a,zz")


@pytest.mark.django_db
def test_with_identical_ids_excluded_a_fused_run_never_holds_a_query_own_document(
    selfish_folder, leaky_file
):
    dataset = dataset_import_beir(path=selfish_folder, name="selfish")
    runs = [run_import(dataset=dataset, path=leaky_file, name=n) for n in ("l1", "l2")]
    run = run_fuse(dataset=dataset, runs=runs, method="combsum")
    assert run.parameters["exclude_identical_ids"] is True
    # q1: d1 alone (1 + 1); q2: d3 5 and d2 4 of each run -> 1 + 1 and 0 + 0
    assert list(run_rows(run=run)) == [
        ("q1", "d1", 1, 2.0),
        ("q2", "d3", 1, 2.0),
        ("q2", "d2", 2, 0.0),
    ]
