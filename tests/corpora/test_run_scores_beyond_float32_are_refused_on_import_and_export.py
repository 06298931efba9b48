"""trec_eval stores run scores as 32-bit floats: importing a score beyond that range is refused
with file and line, the largest float32 itself is accepted and exported, and a stored score
that cannot be exported makes export_run fail with a clear error, leaving no truncated file."""

import io

import ir_measures
import pytest
from django.core.management import CommandError, call_command

from corpora.formats import FormatError
from corpora.models import RunEntry
from corpora.services import run_export, run_import
from tests.fixtures.pooling import run_file

GOOD = ["q1 Q0 d1 1 2.5 sys", "q1 Q0 d2 2 1.5 sys", "q2 Q0 d3 1 4 sys"]
RANGE = "outside the 32-bit float range trec_eval stores scores in (|score| <= 3.4028235e+38)"


@pytest.mark.django_db
# 2**128 - 2**103 (the last number): the first double that rounds to float32 infinity
@pytest.mark.parametrize(
    "score", ["1e39", "-1e39", "3.4028236e38", "340282356779733661637539395458142568448"]
)
def test_a_score_beyond_float32_names_its_line_and_imports_nothing(
    energy, run_tables, tmp_path, score
):
    path = tmp_path / "big.run"
    path.write_text(run_file([GOOD[0], f"q1 Q0 d2 2 {score} sys", GOOD[2]]), encoding="utf-8")
    before = run_tables()
    with pytest.raises(FormatError) as err:
        run_import(dataset=energy, path=path, name="big")
    assert str(err.value) == f"{path}:2: score {score!r} is {RANGE}"
    assert run_tables() == before


@pytest.mark.django_db
def test_the_largest_float32_is_imported_exported_and_read_by_ir_measures(
    energy, tmp_path, import_run
):
    # 3.4028235e38 is how float32's maximum prints; as a double it is slightly above it but
    # still rounds to it, so trec_eval reads a finite score
    run = import_run(
        energy,
        "edge",
        ["q1 Q0 d1 1 3.4028235e38 edge", "q1 Q0 d2 2 -3.4028235e38 edge", "q2 Q0 d3 1 0 edge"],
    )
    out = io.StringIO()
    assert run_export(run=run, out=out) == 3
    assert out.getvalue() == (
        "q1 Q0 d1 1 3.4028235e+38 edge\nq1 Q0 d2 2 -3.4028235e+38 edge\nq2 Q0 d3 1 0.0 edge\n"
    )
    path = tmp_path / "edge.run"
    path.write_text(out.getvalue(), encoding="utf-8")
    qrels = {"q1": {"d1": 1}, "q2": {"d3": 1}}
    result = ir_measures.calc_aggregate(
        [ir_measures.nDCG @ 10], qrels, ir_measures.read_trec_run(str(path))
    )
    assert result[ir_measures.nDCG @ 10] == 1.0


@pytest.mark.django_db
def test_export_of_a_stored_score_beyond_float32_fails_and_writes_nothing(
    energy, tmp_path, import_run
):
    run = import_run(energy, "legacy", GOOD)
    # a row stored before imports checked the range
    RunEntry.objects.filter(run=run, document__doc_id="d3").update(score=1e39)
    expected = (
        "run 'legacy' cannot be exported as a TREC run: query 'q2': score 1e+39 is "
        f"{RANGE}; nothing written"
    )
    target = tmp_path / "out.run"
    target.write_text("an earlier export\n", encoding="utf-8")
    with pytest.raises(CommandError) as err:
        call_command("export_run", "energy", "legacy", "--out", str(target))
    assert str(err.value) == expected
    assert target.read_text(encoding="utf-8") == "an earlier export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["energy", "legacy.run", "out.run"]

    fresh = tmp_path / "fresh.run"
    with pytest.raises(CommandError) as err:
        call_command("export_run", "energy", "legacy", "--out", str(fresh))
    assert str(err.value) == expected
    assert not fresh.exists()

    stdout = io.StringIO()
    with pytest.raises(CommandError):
        call_command("export_run", "energy", "legacy", stdout=stdout)
    assert stdout.getvalue() == ""


@pytest.mark.django_db
def test_ties_at_the_lowest_float32_cannot_be_separated_and_are_reported(energy, import_run):
    run = import_run(
        energy, "floor", ["q1 Q0 d1 1 -3.4028235e38 floor", "q1 Q0 d2 2 -3.4028235e38 floor"]
    )
    out = io.StringIO()
    with pytest.raises(CommandError) as err:
        call_command("export_run", "energy", "floor", stdout=out)
    assert str(err.value) == (
        "run 'floor' cannot be exported as a TREC run: query 'q1': score -3.4028235e+38 ties "
        "with the lowest 32-bit float -3.4028234663852886e+38: it cannot be lowered to keep "
        "the exported scores strictly decreasing; nothing written"
    )
    assert out.getvalue() == ""
    with pytest.raises(Exception, match="cannot be exported"):
        run_export(run=run, out=io.StringIO())
