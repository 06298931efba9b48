"""A job using the embedded model says its labels are for trying the pipeline, not for a
benchmark, followed by the measured-accuracy sentence of
``debates.llm.embedded.MEASURED_ACCURACY_NOTE`` when it exists. A job with other models shows
no such warning."""

from debates import views
from debates.llm import embedded
from debates.models import DebateJob


def test_without_a_measured_note_the_generic_warning_is_shown(
    client_as, make_review_job, monkeypatch
):
    monkeypatch.delattr(embedded, "MEASURED_ACCURACY_NOTE", raising=False)
    job = make_review_job(escalated=1).job
    html = client_as("admin").get(f"/jobs/{job.pk}/").content.decode()
    assert views.GENERIC_EMBEDDED_WARNING.replace("'", "&#x27;") in html
    assert "not for a benchmark" in html


def test_the_measured_note_follows_it_when_the_constant_exists(
    client_as, make_review_job, monkeypatch
):
    note = "Measured on 200 SciFact pairs: 55% balanced accuracy <for trying only>."
    monkeypatch.setattr(embedded, "MEASURED_ACCURACY_NOTE", note, raising=False)
    job = make_review_job(escalated=1).job
    html = client_as("admin").get(f"/jobs/{job.pk}/").content.decode()
    warning = views.GENERIC_EMBEDDED_WARNING.replace("'", "&#x27;")
    assert (
        f"{warning} Measured on 200 SciFact pairs: 55% balanced accuracy &lt;for trying only&gt;."
        in html
    )


def test_a_job_without_the_embedded_model_has_no_warning(client_as, make_review_job):
    job = make_review_job(escalated=1).job
    openai = {"backend": "openai", "model": "big", "base_url": None, "api_key_env": "K"}
    DebateJob.objects.filter(pk=job.pk).update(agent_a=openai, agent_b=openai)
    html = client_as("admin").get(f"/jobs/{job.pk}/").content.decode()
    assert 'id="embedded-warning"' not in html
