"""A GET of a refined set's export URL whose export was built but has gone out of date (new
turns in the pool, changed prices, a changed datasheet) answers 404 naming that export, when
it was built and what changed since, and asks for a POST to build the current one, instead
of saying none was ever built; the GET writes nothing."""

from datetime import UTC, datetime

import pytest

from assess.models import ExportFile
from assess.refined.exports import export_key_change, export_request
from corpora.models import Dataset
from debates.models import Turn

URL = "/api/v1/datasets/holes/refined/test-dream/exports/"
BUILT = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
THEN = "POST this URL to build {}, poll the answer's url until its status is done, then GET "
THEN += "this URL again"


def _built(django_capture_on_commit_callbacks, **source) -> ExportFile:
    with django_capture_on_commit_callbacks(execute=True):
        export, _ = export_request(**source)
    ExportFile.objects.filter(pk=export.pk).update(finished=BUILT)
    export.refresh_from_db()
    assert export.status == "done"
    return export


def _stale(api, kind: str) -> tuple[int, str]:
    before = list(ExportFile.objects.values_list("pk", "status", "key"))
    answer = api.get(URL + kind)
    assert list(ExportFile.objects.values_list("pk", "status", "key")) == before  # no write
    return answer.status_code, answer.json()["detail"]


@pytest.mark.django_db
def test_transcripts_built_before_a_new_turn_are_named_out_of_date(
    refined, var_dir, api_as, django_capture_on_commit_callbacks
):
    api = api_as("researcher")
    assert _stale(api, "transcripts") == (
        404,
        "no transcripts export of 'test-dream' built yet: " + THEN.format("it"),
    )
    export = _built(django_capture_on_commit_callbacks, kind="transcripts", pool=refined.pool)
    assert api.get(URL + "transcripts").status_code == 200
    # settle_all stored 1 + 2 + 2 + 1 rounds of two turns: 12; one more makes 13.
    Turn.objects.create(
        debate=refined.debate("q1", "d3"), round=2, agent="A", stance="relevant", model="m"
    )
    assert _stale(api, "transcripts") == (
        404,
        f"the newest transcripts export of 'test-dream', export {export.pk} (built "
        "2026-01-02T03:04:05+00:00), is out of date: the pool has debates or turns since "
        "(12 turns then, 13 now); " + THEN.format("the current one"),
    )


@pytest.mark.django_db
def test_labels_built_at_other_prices_are_named_out_of_date(
    refined, var_dir, api_as, settings, django_capture_on_commit_callbacks
):
    api = api_as("researcher")
    settings.DREAM_LLM_PRICES = '{"embedded": {"prompt": 1, "completion": 1}}'
    export = _built(django_capture_on_commit_callbacks, kind="labels", qrel_set=refined.refined)
    assert api.get(URL + "labels").status_code == 200
    settings.DREAM_LLM_PRICES = '{"embedded": {"prompt": 2, "completion": 1}}'
    assert _stale(api, "labels") == (
        404,
        f"the newest labels export of 'test-dream', export {export.pk} (built "
        "2026-01-02T03:04:05+00:00), is out of date: the LLM prices (DREAM_LLM_PRICES) "
        "changed since, and the file states money at them; " + THEN.format("the current one"),
    )


@pytest.mark.django_db
def test_a_benchmark_zip_whose_datasheet_changed_is_named_out_of_date(
    refined, var_dir, api_as, django_capture_on_commit_callbacks
):
    api = api_as("researcher")
    export = _built(django_capture_on_commit_callbacks, kind="benchmark", qrel_set=refined.refined)
    assert api.get(URL + "benchmark").status_code == 200
    Dataset.objects.filter(pk=refined.dataset.pk).update(licence="CC BY 4.0")
    assert _stale(api, "benchmark") == (
        404,
        f"the newest benchmark export of 'test-dream', export {export.pk} (built "
        "2026-01-02T03:04:05+00:00), is out of date: its datasheet README would read "
        "differently now (a dataset field, the audit's labels, a job or the prices changed "
        "since); " + THEN.format("the current one"),
    )


def test_a_key_of_another_format_version_says_the_format_changed():
    assert export_key_change(
        kind="trec", built_key="v4:trec:qrels:7", current_key="v5:trec:qrels:7"
    ) == ("the export format changed since (v4 then, v5 now)")
    assert export_key_change(
        kind="transcripts",
        built_key="v5:transcripts:pool:3:12:40:agreed4:20260102030405000000",
        current_key="v5:transcripts:pool:3:12:40:agreed3,failed1:20260102030405000000",
    ) == ("the pool's debates changed since (a status or finish time; no new turns)")
