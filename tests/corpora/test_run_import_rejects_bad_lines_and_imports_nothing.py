"""A bad TREC run file is reported with file, line and reason, and imports nothing."""

import pytest

from corpora.formats import FormatError
from corpora.services import run_import
from tests.fixtures.pooling import run_file

GOOD = ["q1 Q0 d1 1 2.5 sys", "q1 Q0 d2 2 1.5 sys", "q2 Q0 d3 1 4 sys"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (
            [*GOOD, "q1 Q0 d1 3 0.5 sys"],
            ":4: 1 document(s) listed twice for the same query\n"
            "  query 'q1' document 'd1' on lines 1, 4",
        ),
        (
            [*GOOD, "q9 Q0 d1 1 1.0 sys", "q1 Q0 d7 3 1.0 sys"],
            ":4: run names 1 unknown query id(s) and 1 unknown document id(s) in dataset "
            "'energy'; pass --unknown-ids drop to skip those rows (counted and listed)\n"
            "  line 4: unknown query id 'q9'\n  line 5: unknown document id 'd7'",
        ),
        ([*GOOD[:1], "q1 Q0 d2 2 high sys"], ":2: score 'high' is not a number"),
        ([*GOOD[:2], "q2 Q0 d3 1 nan sys"], ":3: score 'nan' is not a finite number"),
        (["q1 Q0 d1 first 1.0 sys"], ":1: rank 'first' is not an integer"),
        (["q1 Q0 d1 1 1.0"], ":1: expected 6 fields (qid Q0 docid rank score tag), got 5"),
        (["", "  "], ": file is empty (no run lines)"),
    ],
)
def test_a_bad_run_file_names_its_line_and_changes_nothing(
    energy, run_tables, tmp_path, lines, expected
):
    path = tmp_path / "bad.run"
    path.write_text(run_file(lines), encoding="utf-8")
    before = run_tables()
    with pytest.raises(FormatError) as err:
        run_import(dataset=energy, path=path, name="bad")
    assert str(err.value) == f"{path}{expected}"
    assert run_tables() == before


@pytest.mark.django_db
def test_a_run_name_already_taken_is_refused(energy, run_tables, tmp_path):
    path = tmp_path / "sys.run"
    path.write_text(run_file(GOOD), encoding="utf-8")
    run_import(dataset=energy, path=path)
    before = run_tables()
    with pytest.raises(FormatError, match="run 'sys' already exists in 'energy'"):
        run_import(dataset=energy, path=path)
    assert run_tables() == before


@pytest.mark.django_db
def test_a_file_with_two_tags_needs_an_explicit_name(energy, tmp_path):
    path = tmp_path / "mixed.run"
    path.write_text(run_file([GOOD[0], "q1 Q0 d2 2 1.5 other"]), encoding="utf-8")
    with pytest.raises(FormatError) as err:
        run_import(dataset=energy, path=path)
    assert str(err.value) == f"{path}:2: the file has 2 tags (sys, other); pass --name"
    assert run_import(dataset=energy, path=path, name="mixed").entries.count() == 2
