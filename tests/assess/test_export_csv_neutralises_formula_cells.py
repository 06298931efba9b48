"""The human-readable disagreements CSV neutralises cells a spreadsheet would run as a
formula (leading =, +, -, @, tab, CR get a ' prefix); machine formats are never altered."""

import csv
import io

import pytest

from assess.refined.export_formats import neutralise_cell, write_csv
from assess.refined.exports import export_stream
from corpora.models import Document, Query


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("=1+1", "'=1+1"),
        ("+cmd", "'+cmd"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tindented", "'\tindented"),
        ("\rreturn", "'\rreturn"),
        ("a=b", "a=b"),
        ("plain", "plain"),
        ("", ""),
        (None, ""),
        (-1, -1),
        (2, 2),
        (0.5, 0.5),
    ],
)
def test_a_cell_starting_with_a_formula_character_gets_a_quote(value, cell):
    assert neutralise_cell(value) == cell


def test_write_csv_neutralises_every_text_cell_and_ends_lines_with_crlf():
    out = io.StringIO()
    assert write_csv(["=h", "n"], [["=x", -1], ["ok", 3]], out) == 2
    assert out.getvalue() == "'=h,n\r\n'=x,-1\r\nok,3\r\n"


@pytest.mark.django_db
def test_the_disagreements_csv_quotes_formulas_from_texts_and_arguments(refined):
    Query.objects.filter(query_id="q2").update(text="-2+3 cmd")
    Document.objects.filter(doc_id="d6").update(title="@SUM(A1)")
    out = io.StringIO()
    rows = export_stream(kind="disagreements", out=out, qrel_set=refined.refined)
    table = list(csv.reader(io.StringIO(out.getvalue())))
    header, body = table[0], table[1:]
    assert rows == len(body) == 2
    listed = [dict(zip(header, row, strict=True)) for row in body]
    assert [(r["query_id"], r["doc_id"], r["why listed"]) for r in listed] == [
        ("q2", "d3", "escalated"),
        ("q2", "d6", "human overrode consensus"),
    ]
    audit = listed[1]
    assert audit["query"] == "'-2+3 cmd"
    assert audit["title"] == "'@SUM(A1)"
    assert audit["agent B argument"] == '\'=HYPERLINK("http://x")'
    assert (audit["final label"], audit["consensus label"], audit["human judgments"]) == (
        "0",
        "1",
        "bob=0",
    )
    # The same texts leave the machine formats untouched.
    jsonl = io.StringIO()
    export_stream(kind="transcripts", out=jsonl, pool=refined.pool)
    assert '"argument":"=HYPERLINK(\\"http://x\\")"' in jsonl.getvalue()
    trec = io.StringIO()
    export_stream(kind="trec", out=trec, qrel_set=refined.refined)
    assert trec.getvalue().splitlines()[-1] == "q2 0 d6 0"
