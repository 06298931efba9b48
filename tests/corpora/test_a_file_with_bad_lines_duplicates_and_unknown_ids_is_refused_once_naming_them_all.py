"""A run or qrels file with problems of several kinds (a line that cannot be read, a row
repeated, a row naming an unknown document) is read to the end and refused once, every
problem listed by line with the options that get past them; nothing is imported. Before,
each kind was only found once the one before it was fixed: three refusals for three lines."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from corpora.file_problems import UNCHECKED_NOTE
from corpora.formats import MAX_LISTED, FormatError
from corpora.services import qrels_import, run_import


def run_lines() -> list[str]:
    """52 lines of a run for q1: d1..d50 at lines 1-50, then line 7's rank is a word, line 51
    names the unknown document dX and line 52 repeats d3 (first on line 3)."""
    lines = [f"q1 Q0 d{n} {n} {100 - n} sys" for n in range(1, 51)]
    lines[6] = "q1 Q0 d7 seventh 93 sys"
    return [*lines, "q1 Q0 dX 51 49 sys", "q1 Q0 d3 52 48 sys"]


def write(path, lines):
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def counts():
    from corpora.models import ImportRecord, Qrel, QrelSet, Run, RunEntry

    return {m.__name__: m.objects.count() for m in (Run, RunEntry, QrelSet, Qrel, ImportRecord)}


@pytest.mark.django_db
def test_a_run_with_a_bad_rank_an_unknown_document_and_a_duplicate_is_refused_once(sixty, tmp_path):
    path = write(tmp_path / "three.run", run_lines())
    before = counts()
    expected = (
        f"{path}:7: 3 problems: 1 bad line, 1 document listed twice, 1 row with an unknown id; "
        f"{UNCHECKED_NOTE}; pass --unknown-ids drop to skip the rows with unknown ids "
        "(counted and listed)\n"
        "  line 7: rank 'seventh' is not an integer\n"
        "  line 51: unknown document id 'dX'\n"
        "  line 52: query 'q1' document 'd3' on lines 3, 52"
    )
    with pytest.raises(FormatError) as err:
        run_import(dataset=sixty, path=path, name="three")
    assert str(err.value) == expected
    with pytest.raises(CommandError) as caught:
        call_command("import_run", "sixty", str(path), "--name", "three", stdout=io.StringIO())
    assert str(caught.value) == f"import failed, nothing imported: {expected}"
    assert counts() == before


@pytest.mark.django_db
def test_a_run_with_a_duplicate_and_an_unknown_document_names_both_without_the_note(
    sixty, tmp_path
):
    lines = run_lines()
    lines[6] = "q1 Q0 d7 7 93 sys"  # line 7 mended: every line is read
    path = write(tmp_path / "two.run", lines)
    with pytest.raises(FormatError) as err:
        run_import(dataset=sixty, path=path, name="two")
    assert str(err.value) == (
        f"{path}:51: 2 problems: 1 document listed twice, 1 row with an unknown id; pass "
        "--unknown-ids drop to skip the rows with unknown ids (counted and listed)\n"
        "  line 51: unknown document id 'dX'\n"
        "  line 52: query 'q1' document 'd3' on lines 3, 52"
    )


@pytest.mark.django_db
def test_with_unknown_ids_dropped_only_the_bad_line_and_the_duplicate_are_named(sixty, tmp_path):
    path = write(tmp_path / "three.run", run_lines())
    before = counts()
    with pytest.raises(FormatError) as err:
        run_import(dataset=sixty, path=path, name="three", unknown_ids="drop")
    assert str(err.value) == (
        f"{path}:7: 2 problems: 1 bad line, 1 document listed twice; {UNCHECKED_NOTE}\n"
        "  line 7: rank 'seventh' is not an integer\n"
        "  line 52: query 'q1' document 'd3' on lines 3, 52"
    )
    assert counts() == before


@pytest.mark.django_db
def test_a_trec_qrels_file_with_the_same_three_problems_is_refused_once(sixty, tmp_path):
    lines = [f"q1 0 d{n} 1" for n in range(1, 51)]
    lines[6] = "q1 0 d7 high"
    path = write(tmp_path / "three.qrels", [*lines, "q1 0 dX 1", "q1 0 d3 0"])
    before = counts()
    expected = (
        f"{path}:7: 3 problems: 1 bad line, 1 duplicate pair, 1 row with an unknown id; "
        f"{UNCHECKED_NOTE}; pass --on-duplicate keep-max or keep-last to resolve duplicates; "
        "pass --unknown-ids drop to skip the rows with unknown ids (counted and listed)\n"
        "  line 7: relevance 'high' is not a number\n"
        "  line 51: unknown document id 'dX'\n"
        "  line 52: query 'q1' document 'd3' on lines 3, 52"
    )
    with pytest.raises(FormatError) as err:
        qrels_import(dataset=sixty, path=path, name="three")
    assert str(err.value) == expected
    with pytest.raises(CommandError) as caught:
        call_command("import_qrels", "sixty", str(path), "--name", "three")
    assert str(caught.value) == f"import failed, nothing imported: {expected}"
    assert counts() == before


@pytest.mark.django_db
def test_a_duplicate_policy_leaves_the_bad_line_and_the_unknown_id(sixty, tmp_path):
    lines = [f"q1 0 d{n} 1" for n in range(1, 51)]
    lines[6] = "q1 0 d7 high"
    path = write(tmp_path / "three.qrels", [*lines, "q1 0 dX 1", "q1 0 d3 0"])
    with pytest.raises(FormatError) as err:
        qrels_import(dataset=sixty, path=path, name="three", on_duplicate="keep-max")
    assert str(err.value).splitlines() == [
        f"{path}:7: 2 problems: 1 bad line, 1 row with an unknown id; {UNCHECKED_NOTE}; pass "
        "--unknown-ids drop to skip the rows with unknown ids (counted and listed)",
        "  line 7: relevance 'high' is not a number",
        "  line 51: unknown document id 'dX'",
    ]


@pytest.mark.django_db
def test_many_problems_of_several_kinds_are_cut_with_and_n_more(sixty, tmp_path):
    # 40 short lines (1-40), then 30 rows naming unknown documents (41-70).
    lines = [f"q1 0 d{n}" for n in range(1, 41)] + [f"q1 0 u{n} 1" for n in range(1, 31)]
    path = write(tmp_path / "many.qrels", lines)
    with pytest.raises(FormatError) as err:
        qrels_import(dataset=sixty, path=path, name="many")
    message = str(err.value).splitlines()
    assert message[0].startswith(f"{path}:1: 70 problems: 40 bad lines, 30 rows with unknown ids")
    assert message[1] == "  line 1: expected 4 fields (qid iter docid rel), got 3"
    assert message[41] == "  line 41: unknown document id 'u1'"
    assert len(message) == 1 + MAX_LISTED + 1
    assert message[-1] == f"  ... and {70 - MAX_LISTED} more"


# tiny (d1-d3, q1-q2): line 2 a field short, line 3 naming d9, line 4 repeating line 1.
THREE_QRELS = "q1 0 d1 1\nq2 0 d3\nq2 0 d9 1\nq1 0 d1 0\n"


@pytest.mark.django_db
def test_the_api_names_both_options_as_json_fields(tiny_dataset, api_as):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from corpora.models import QrelSet
    from corpora.services.operations import operation_run

    api = api_as("admin")
    upload = SimpleUploadedFile("three.qrels", THREE_QRELS.encode())
    answer = api.post("/api/v1/datasets/tiny/qrels", {"name": "three", "qrels": upload})
    assert answer.status_code == 202, answer.content
    operation_run(operation_id=answer.json()["id"])
    body = api.get(answer.json()["url"]).json()
    assert body["error"] == (
        "import failed, nothing imported: three.qrels:2: 3 problems: 1 bad line, 1 duplicate "
        f"pair, 1 row with an unknown id; {UNCHECKED_NOTE}\n"
        "  line 2: expected 4 fields (qid iter docid rel), got 3\n"
        "  line 3: unknown document id 'd9'\n"
        "  line 4: query 'q1' document 'd1' on lines 1, 4\n"
        'To get past this: send "on_duplicate": "keep-max" or keep-last to resolve duplicates; '
        'send "unknown_ids": "drop" to skip the rows with unknown ids (counted and listed)'
    )
    assert not QrelSet.objects.filter(name="three").exists()


@pytest.mark.django_db
def test_the_operation_page_names_both_of_the_forms_choices(tiny_dataset, client_as):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from corpora.models import Operation
    from corpora.services.operations import operation_run

    client = client_as("admin")
    upload = SimpleUploadedFile("three.qrels", THREE_QRELS.encode())
    answer = client.post(
        "/datasets/tiny/actions/qrels/",
        {"name": "three", "fmt": "trec", "unknown_ids": "reject", "qrels": upload},
    )
    assert answer.status_code == 302
    operation = Operation.objects.get()
    operation_run(operation_id=operation.pk)
    page = client.get(f"/operations/{operation.pk}/").content.decode()
    start = page.index('<p id="operation-fix">')
    assert page[start : page.index("</p>", start)] == (
        '<p id="operation-fix">To get past this, upload again and choose &quot;keep the '
        "highest&quot; for &quot;Duplicate rows&quot; or keep-last to resolve duplicates and "
        "choose &quot;drop those rows, counted&quot; for &quot;Unknown ids&quot; to skip the "
        "rows with unknown ids (counted and listed)."
    )
