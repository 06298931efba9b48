"""The benchmark zip's datasheet names the DREAM Assess that wrote it, version and commit,
where it says it was written and where its method cites the manual; a version that cannot
be read says so and never stops the export. The ``holes`` world of tests/fixtures/refine.py."""

from __future__ import annotations

import zipfile

import pytest

from assess.refined import benchmark_zip
from assess.refined.benchmark_zip import benchmark_zip_write
from assess.refined.datasheet import datasheet_render
from core.version import software, software_text
from tests.assess.test_benchmark_datasheet_says_how_the_labels_were_made import sheet
from tests.fixtures.refine import refined_at_share


def readme_of(refined, tmp_path) -> str:
    benchmark_zip_write(qrel_set=refined.refined, path=tmp_path / "b.zip")
    with zipfile.ZipFile(tmp_path / "b.zip") as archive:
        return archive.read("holes/README.md").decode()


@pytest.mark.django_db
def test_the_zip_names_this_checkouts_version_and_commit(refined, tmp_path):
    readme = readme_of(refined_at_share(refined, 0.5), tmp_path)
    assert software().startswith("DREAM Assess ")
    assert f"Written by {software()}." in readme
    assert f'`docs/rebenchmarking.md` of {software()}, section "Intervals".' in readme


@pytest.mark.django_db
def test_a_version_that_cannot_be_read_is_unknown_and_the_zip_is_written(
    refined, tmp_path, monkeypatch
):
    empty = tmp_path / "no-checkout"
    empty.mkdir()
    monkeypatch.setattr(benchmark_zip, "software", lambda: software_text(empty))
    readme = readme_of(refined_at_share(refined, 0.5), tmp_path)
    assert "Written by DREAM Assess unknown (commit unknown)." in readme
    assert "`docs/rebenchmarking.md` of DREAM Assess unknown (commit unknown), section" in readme


def test_a_sheet_that_does_not_know_its_software_says_so():
    text = datasheet_render(sheet=sheet(software=""))
    assert "Written by DREAM Assess (version unknown)." in text
    named = datasheet_render(sheet=sheet(software="DREAM Assess 1.2 (commit abc1234)"))
    assert "Written by DREAM Assess 1.2 (commit abc1234)." in named
