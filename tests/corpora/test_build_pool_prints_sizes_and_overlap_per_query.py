"""`build_pool` prints, per query, the pool size, each run's contribution, the overlap and the
judged pairs left out, then the totals; a second build says it created nothing."""

import io

import pytest
from django.core.management import CommandError, call_command

RUN_A = ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 2 A", "q2 Q0 d3 1 .9 A", "q2 Q0 d1 2 .8 A"]
RUN_B = ["q1 Q0 d2 1 .9 B", "q1 Q0 d4 2 .5 B", "q2 Q0 d2 1 .7 B", "q2 Q0 d3 2 .6 B"]


def build_pool(*args: str) -> str:
    out = io.StringIO()
    call_command("build_pool", "energy", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_the_per_query_table_and_totals(energy, import_run):
    import_run(energy, "alpha", RUN_A)
    import_run(energy, "beta", RUN_B)
    assert build_pool("--runs", "alpha,beta", "--depth", "2", "--qrels", "test") == (
        "query  pool alpha  beta shared  judged-out\n"
        "q1        2     1     2      1           1\n"
        "q2        2     1     1      0           1\n"
        "pool test-depth2 (runs alpha, beta; depth 2; qrels test): 2 queries, 4 pairs, "
        "4 unjudged, 1 found by 2+ runs, 2 judged pairs left out, 0 judged kept\n"
        "this build created 4 new pairs and 5 provenance rows\n"
    )
    again = build_pool("--runs", "alpha,beta", "--depth", "2", "--totals-only")
    assert again.endswith("this build created 0 new pairs and 0 provenance rows\n")
    audit = build_pool("--runs", "alpha,beta", "--depth", "2", "--include-judged")
    assert "pool test-depth2-judged " in audit
    assert (
        "6 pairs, 4 unjudged, 2 found by 2+ runs, 0 judged pairs left out, 2 judged kept" in audit
    )


@pytest.mark.django_db
def test_unknown_runs_and_qrel_sets_are_named(energy, import_run):
    import_run(energy, "alpha", RUN_A)
    with pytest.raises(CommandError, match=r"no run 'gamma' \(known: alpha\)"):
        build_pool("--runs", "alpha,gamma")
    with pytest.raises(CommandError, match=r"no qrel set 'dev' \(known: test\)"):
        build_pool("--runs", "alpha", "--qrels", "dev")
