"""The job page's "for trying the pipeline" warning and SmolLM2's measured accuracy belong to
the bundled model: a job whose agents run a local GGUF file shows neither; one agent on the
bundled model brings the warning back."""

from debates.models import DebateJob

LOCAL = {
    "backend": "embedded",
    "model": "/models/qwen2.5-7b-instruct-q4_k_m.gguf",
    "model_path": "/models/qwen2.5-7b-instruct-q4_k_m.gguf",
    "n_ctx": 4096,
}
BUNDLED = {"backend": "embedded", "model": "SmolLM2-135M-Instruct-Q4_1", "n_ctx": 2048}


def test_a_job_on_a_local_gguf_has_no_smollm2_warning(client_as, make_review_job):
    job = make_review_job(escalated=1).job
    DebateJob.objects.filter(pk=job.pk).update(agent_a=LOCAL, agent_b=LOCAL)
    html = client_as("admin").get(f"/jobs/{job.pk}/").content.decode()
    assert 'id="embedded-warning"' not in html
    # The agents are named, their file by its name only (the folder is the server's).
    assert "embedded qwen2.5-7b-instruct-q4_k_m.gguf (local GGUF" in html
    assert "/models/qwen2.5-7b-instruct-q4_k_m.gguf" not in html


def test_one_agent_on_the_bundled_model_brings_the_warning_back(client_as, make_review_job):
    job = make_review_job(escalated=1).job
    DebateJob.objects.filter(pk=job.pk).update(agent_a=LOCAL, agent_b=BUNDLED)
    html = client_as("admin").get(f"/jobs/{job.pk}/").content.decode()
    assert 'id="embedded-warning"' in html
