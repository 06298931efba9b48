"""The job page of a job using the embedded model shows the measured accuracy sentence that
README.md's "Measuring the assessor" table backs (``debates.llm.embedded.
MEASURED_ACCURACY_NOTE``, read by ``debates.views.embedded_warning``): deleting or emptying
the constant fails this test."""


def test_the_real_job_page_names_the_measured_balanced_accuracy_and_recalls(
    client_as, make_review_job
):
    job = make_review_job(escalated=1).job
    for who in ("admin", "researcher"):
        html = client_as(who).get(f"/jobs/{job.pk}/").content.decode()
        assert (
            '<p class="warning" id="embedded-warning" role="note">The embedded model '
            "(SmolLM2-135M) is tiny: its labels are for trying the pipeline, not for a "
            "benchmark. Use a strong model for real labels. Measured with evaluate_assessor: "
            "balanced accuracy 50% on med and on cranfield (recall relevant 100%, recall "
            "irrelevant 0%): the model calls almost every pair relevant.</p>"
        ) in html
