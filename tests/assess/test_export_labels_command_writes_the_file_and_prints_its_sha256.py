"""`export_labels DATASET QRELSET --kind K --out FILE` writes the same bytes as the page's
export job and prints rows, bytes and the sha256; transcripts come from the refined set's
pool (or --pool)."""

import hashlib
import io

import pytest
from django.core.management import CommandError, call_command


def export(*args) -> str:
    err = io.StringIO()
    call_command("export_labels", "holes", *args, stdout=io.StringIO(), stderr=err)
    return err.getvalue().strip()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kind", "rows"), [("labels", 8), ("trec", 8), ("disagreements", 2), ("transcripts", 12)]
)
def test_each_kind_is_written_with_its_checksum(refined, tmp_path, kind, rows):
    out = tmp_path / f"out.{kind}"
    printed = export("test-dream", "--kind", kind, "--out", str(out))
    data = out.read_bytes()
    assert printed == (
        f"wrote {rows:,} rows ({len(data):,} bytes) to {out}; "
        f"sha256 {hashlib.sha256(data).hexdigest()}"
    )


@pytest.mark.django_db
def test_wrong_sources_are_refused(refined, tmp_path):
    with pytest.raises(CommandError, match="qrel set 'test' was not refined"):
        export("test", "--kind", "disagreements", "--out", str(tmp_path / "x"))
    with pytest.raises(CommandError, match="qrel set 'test' was not refined; pass --pool"):
        export("test", "--kind", "transcripts", "--out", str(tmp_path / "x"))
    with pytest.raises(CommandError, match=r"no qrel set 'nope' \(known: test, test-dream\)"):
        export("nope", "--out", str(tmp_path / "x"))
    assert not (tmp_path / "x").exists()
    export("--kind", "transcripts", "--pool", "p", "--out", str(tmp_path / "t"))
    assert (tmp_path / "t").read_text().count("\n") == 12
