"""A simulated agent's truth file is a path on the server (in DREAM_SIMULATION_DIRS). The job
page names it by its file name only; ``GET /api/v1/jobs`` and ``/api/v1/jobs/{id}`` show a
researcher the same: the agents' configs as stored but ``truth`` cut to its name, and the
folder nowhere in the answer. Other configs are shown as stored."""

import pytest

pytestmark = pytest.mark.django_db

FOLDER = "/srv/dream-private/truths"
SIMULATED = {
    "backend": "simulated",
    "model": "simulated:sens0.9-spec0.8-pers0.3-seed1",
    "truth": f"{FOLDER}/holes.qrels",
    "dataset": "holes",
    "sensitivity": 0.9,
    "specificity": 0.8,
    "persistence": 0.3,
    "seed": 1,
}
OPENAI = {"backend": "openai", "model": "gpt-4o-mini", "base_url": None, "timeout": 60.0}


@pytest.fixture
def job():
    from corpora.models import Dataset, Pool, QrelSet
    from debates.models import DebateJob

    dataset = Dataset.objects.create(name="Holes", slug="holes")
    qrel_set = QrelSet.objects.create(dataset=dataset, name="test")
    pool = Pool.objects.create(dataset=dataset, qrel_set=qrel_set, name="p", depth=10)
    return DebateJob.objects.create(
        pool=pool, agent_a=SIMULATED, agent_b=OPENAI, rounds=2, prompt_version="test"
    )


def test_a_researcher_reads_the_truth_files_name_and_not_its_folder(api_as, job):
    api = api_as("researcher")
    listed = api.get("/api/v1/jobs")
    detail = api.get(f"/api/v1/jobs/{job.pk}")

    expected = [{**SIMULATED, "truth": "holes.qrels"}, OPENAI]
    assert listed.json()["items"][0]["agents"] == expected
    assert detail.json()["agents"] == expected
    assert FOLDER not in listed.content.decode() and FOLDER not in detail.content.decode()


def test_the_job_page_names_the_truth_file_the_same_way(client_as, job):
    page = client_as("researcher").get(f"/jobs/{job.pk}/").content.decode()

    assert "from holes.qrels of holes" in page
    assert FOLDER not in page


@pytest.mark.parametrize(
    ("stored", "shown"),
    [
        (SIMULATED, {**SIMULATED, "truth": "holes.qrels"}),
        ({"backend": "simulated", "truth": "/t.tsv"}, {"backend": "simulated", "truth": "t.tsv"}),
        (OPENAI, OPENAI),
        (None, {}),
    ],
)
def test_only_the_truth_path_is_cut(stored, shown):
    from debates.llm.config import config_shown

    assert config_shown(stored) == shown
