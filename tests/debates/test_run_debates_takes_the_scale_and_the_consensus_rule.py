"""run_debates --scale graded --consensus binary creates a graded job (G from the pool's
qrels), debates in grades and names the scale and rule in its summary."""

import pytest
from django.core.management import call_command

from corpora.services import dataset_import_beir
from debates.llm.base import LLMResult
from debates.llm.scripted import RuleClient
from debates.models import DebateJob
from tests.fixtures.datasets import write_beir
from tests.fixtures.engine import stance_in
from tests.fixtures.jobs import SMALL_CORPUS, SMALL_QUERIES, pool_of, reply

# TREC DL's scale: grades 0..3.
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t3\nq1\td2\t1\n"


def grades(messages):
    """A claims 3 and B 1 for the heat pump chunk, both 0 for the wind chunk."""
    user = messages[1]["content"]
    if "Heat pumps" in user:
        grade = 3 if stance_in(messages) == "relevant" else 1
        return LLMResult(reply(grade), "rule", 100, 10, 5.0, "stop")
    return LLMResult(reply(0), "rule", 100, 10, 5.0, "stop")


@pytest.mark.django_db
def test_a_graded_run_with_binary_consensus_keeps_the_lower_grade(tmp_path, monkeypatch, capsys):
    client = RuleClient(grades)
    monkeypatch.setattr(
        "debates.services.backends.agent_client_get", lambda *, config, api_key=None: client
    )
    folder = write_beir(
        tmp_path / "dl", corpus=SMALL_CORPUS, queries=SMALL_QUERIES, qrels={"test": QRELS}
    )
    pool_of(dataset_import_beir(path=folder, name="dl"), [("q1", "d10"), ("q2", "d3")])

    call_command(
        "run_debates", "dl/pool", "--scale", "graded", "--consensus", "binary", "--no-progress"
    )

    job = DebateJob.objects.get()
    assert (job.scale, job.max_grade, job.consensus) == ("graded", 3, "binary")
    labels = dict(job.debates.values_list("pair__document__doc_id", "final_label"))
    assert labels == {"d10": 1, "d3": 0}
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(
        f"job {job.pk} (finished): 2 pairs of pool dl/pool, R=2, graded 0..3 (consensus "
        "binary), agents: "
    )
