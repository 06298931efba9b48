"""An embedded agent's ``model_path`` (stored as its ``model`` too) is a path on the server. The
job page, the API's agents, a label's provenance, the transcripts export and the datasheet's
agent lines (``AgentConfig.label`` and ``describe()``) name the file by its name only, as a
simulated truth file is named; a command's output (the operator's) keeps the full path.
Remote model names with a slash (``Qwen/Qwen3-8B``) are left as they are."""

import pytest

from assess.refined.export_rows import transcripts_records
from assess.refined.labels import provenance_models
from debates.llm.config import AgentConfig, config_shown, model_shown
from debates.management.commands._jobs import describe_agents
from debates.models import Debate, DebateJob, Turn

FOLDER = "/srv/dream-private/models"
PATH = f"{FOLDER}/qwen2.5-7b-q4_k_m.gguf"
EMBEDDED = {"backend": "embedded", "model": PATH, "model_path": PATH, "n_ctx": 4096}
OPENAI = {"backend": "openai", "model": "Qwen/Qwen3-8B", "base_url": None, "timeout": 60.0}
NAME = "qwen2.5-7b-q4_k_m.gguf"


@pytest.fixture
def job(tiny_dataset):
    pool = tiny_dataset.pools.get()
    job = DebateJob.objects.create(
        pool=pool, agent_a=EMBEDDED, agent_b=OPENAI, rounds=1, prompt_version="dream-v2"
    )
    debate = Debate.objects.create(job=job, pair=pool.pairs.first())
    Turn.objects.create(debate=debate, round=1, agent="A", stance="relevant", label=1, model=PATH)
    return job


@pytest.mark.django_db
def test_the_api_and_the_job_page_show_a_researcher_the_file_name(api_as, client_as, job):
    api = api_as("researcher")
    listed = api.get("/api/v1/jobs")
    detail = api.get(f"/api/v1/jobs/{job.pk}")
    shown = {**EMBEDDED, "model": NAME, "model_path": NAME}
    assert listed.json()["items"][0]["agents"] == [shown, OPENAI]
    assert detail.json()["agents"] == [shown, OPENAI]
    page = client_as("researcher").get(f"/jobs/{job.pk}/").content.decode()
    assert f"embedded {NAME} (local GGUF in-process" in page
    for text in (listed.content.decode(), detail.content.decode(), page):
        assert FOLDER not in text


@pytest.mark.django_db
def test_exports_and_the_datasheet_name_the_file_and_a_command_the_path(job):
    assert provenance_models(EMBEDDED, OPENAI, settled_by="", stage0_hash="") == (
        NAME,
        "Qwen/Qwen3-8B",
    )
    (record,) = transcripts_records(pool=job.pool)
    assert record["model"] == NAME
    config = AgentConfig.stored(EMBEDDED)
    assert config.label == NAME  # the datasheet's model and its backend line
    assert config.describe() == f"embedded {NAME} (local GGUF in-process, context 4096)"
    assert PATH in describe_agents(job)  # run_debates, evaluate_assessor, debate_job


@pytest.mark.parametrize(
    ("model", "shown"),
    [(PATH, NAME), ("Qwen/Qwen3-8B", "Qwen/Qwen3-8B"), ("SmolLM2-135M-Instruct", None), (None, "")],
)
def test_only_an_absolute_path_is_cut(model, shown):
    assert model_shown(model) == (model if shown is None else shown)
    assert config_shown({"backend": "openai", "model": model}) == {
        "backend": "openai",
        "model": model if shown is None or model is None else shown,
    }
