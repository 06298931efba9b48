"""`import_run` and `export_run` move a TREC run file in and out; a canonical file (ranks in
rank order, strictly decreasing scores, single spaces) comes back byte-identical."""

import io

import pytest
from django.core.management import CommandError, call_command

CANONICAL = (
    "q1 Q0 d2 1 7.5 mine\nq1 Q0 d1 2 7.25 mine\nq1 Q0 d4 3 -0.5 mine\nq2 Q0 d3 1 12.0 mine\n"
)


@pytest.mark.django_db
def test_a_canonical_run_file_round_trips_through_the_commands(energy, tmp_path):
    source = tmp_path / "in.run"
    source.write_text(CANONICAL, encoding="utf-8")
    out = io.StringIO()
    call_command("import_run", "energy", str(source), stdout=out)
    assert out.getvalue() == "run mine: 2 queries, 4 entries; 0 queries re-ranked by score\n"
    target = tmp_path / "out.run"
    err = io.StringIO()
    call_command("export_run", "energy", "mine", "--out", str(target), stderr=err)
    assert target.read_bytes() == CANONICAL.encode()
    assert err.getvalue() == f"4 lines written to {target}\n"


@pytest.mark.django_db
def test_the_commands_name_what_went_wrong(energy, tmp_path):
    source = tmp_path / "bad.run"
    source.write_text("q1 Q0 d2 1 x mine\n", encoding="utf-8")
    with pytest.raises(CommandError) as err:
        call_command("import_run", "energy", str(source))
    assert (
        str(err.value) == f"import failed, nothing imported: {source}:1: score 'x' is not a number"
    )
    with pytest.raises(CommandError, match=r"no run 'mine' \(known: none\)"):
        call_command("export_run", "energy", "mine")
