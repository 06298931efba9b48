"""Refining a pool built on a refined set copies that set's rows into the new one, and the
simulated labels among them stay marked: the new set counts them (its downloads' header and
file names, its benchmark README, its re-benchmark), and its labels JSONL flags each with
``"simulated": true``, ``"source": "original"`` and the set it came from
(``simulated_from``), through any number of refinements; a real label the new set writes
over a copied one (a human correction) ends that row's mark.

The ``holes`` world of tests/fixtures/refine.py with simulated debaters and real people:
``test-dream`` (A) holds the test qrels (q1 d1 1, q1 d2 0, q2 d4 1, q2 d5 -1) and four new
labels: (q1, d3) 1 and (q1, d5) 0 by simulated consensus, (q2, d3) 1 by alice and (q2, d6)
0 by bob (real people). Pool ``p2`` on A, depth 3 over alpha and beta with its judged pairs,
holds q1: d1 d2 d3 d5 and q2: d3 d4 d5 d6, every one judged in A; a real job (embedded
agents) agrees 1 on each. Refined as ``second`` (B), no human deciding one, every pair keeps
A's grade: B's rows are A's, (q1, d3) and (q1, d5) simulated there, so B holds 2 simulated
debate labels, both from ``test-dream``."""

import json
import zipfile

import pytest

from assess.refined.export_rows import labels_records
from assess.refined.exports import export_file_write
from assess.refined.refine import qrels_refine
from corpora.services import pool_build
from corpora.simulated import qrel_set_simulated_counts
from debates.models import Debate, DebateJob
from debates.services import JobSpec, debate_job_launch
from tests.fixtures.refine import (
    AGENT,
    HOLES_SIMULATED_AGENT,
    refined_at_share,
    review,
    settle,
    simulated_world,
)

pytestmark = pytest.mark.django_db

HEADER = "X-DREAM-Simulated-Labels"
TWO = {"debate": 2, "human": 0, "stage0": 0}


def _refine_on(world, qrel_set, *, pool: str, name: str, corrected=(), simulated=False):
    """Refine a pool ``pool`` built on ``qrel_set`` (depth 3, judged pairs included) after a
    real job agreed 1 on every pair; each pair of ``corrected`` audited by carol, who says
    1 (a correction where the set held 0)."""
    built = pool_build(
        dataset=world.dataset,
        qrel_set=qrel_set,
        runs=world.runs,
        depth=3,
        name=pool,
        include_judged=True,
    ).pool
    spec = JobSpec(pool=built, agent_a=AGENT, agent_b=AGENT, prompt_version="dream-v1")
    job = debate_job_launch(spec=spec, start=False)
    if simulated:  # as simulated_world stores them (the truth file is never read here)
        agent = HOLES_SIMULATED_AGENT
        DebateJob.objects.filter(pk=job.pk).update(agent_a=agent, agent_b=agent)
    for debate in Debate.objects.filter(job=job).select_related("pair__query", "pair__document"):
        settle(debate, "agreed", label=1, round=1, minutes=20)
        if (debate.pair.query.query_id, debate.pair.document.doc_id) in corrected:
            review(debate, "audit", [("carol", 1)])
    return qrels_refine(pool=built, name=name).qrel_set


@pytest.fixture
def second(refined):
    simulated_world(refined)
    world = refined_at_share(refined, 0.5)
    assert qrel_set_simulated_counts(qrel_set=world.refined) == TWO
    world.second = _refine_on(world, world.refined, pool="p2", name="second")
    return world


def _flags(qrel_set) -> dict[tuple[str, str], tuple]:
    return {
        (r["query_id"], r["doc_id"]): (r["label"], r["source"], r["simulated"], r["simulated_from"])
        for r in labels_records(qrel_set=qrel_set)
    }


def test_the_copied_simulated_rows_are_counted_and_the_download_says_so(second, api_as):
    assert qrel_set_simulated_counts(qrel_set=second.second) == TWO
    response = api_as("researcher").get("/api/v1/datasets/holes/qrels/second/download")
    assert response.status_code == 200
    assert response[HEADER] == "debate=2; human=0; stage0=0"
    assert response["Content-Disposition"] == 'attachment; filename="SIMULATED-holes-second.qrels"'
    listed = api_as("researcher").get("/api/v1/datasets/holes/refined").json()["items"]
    mine = {item["name"]: (item["simulated"], item["simulated_labels"]) for item in listed}
    assert mine["second"] == (True, TWO)


def test_the_labels_jsonl_flags_each_copied_simulated_row_with_its_set(second, tmp_path):
    assert _flags(second.second) == {
        ("q1", "d1"): (1, "original", False, None),
        ("q1", "d2"): (0, "original", False, None),
        ("q1", "d3"): (1, "original", True, "test-dream"),
        ("q1", "d5"): (0, "original", True, "test-dream"),
        ("q2", "d3"): (1, "original", False, None),
        ("q2", "d4"): (1, "original", False, None),
        ("q2", "d5"): (-1, "original", False, None),
        ("q2", "d6"): (0, "original", False, None),
    }
    # The file's fast writer gives the same two fields.
    export_file_write(kind="labels", path=tmp_path / "b.jsonl", qrel_set=second.second)
    lines = [json.loads(line) for line in (tmp_path / "b.jsonl").read_text().splitlines()]
    assert [(r["doc_id"], r["simulated"], r["simulated_from"]) for r in lines[:4]] == [
        ("d1", False, None),
        ("d2", False, None),
        ("d3", True, "test-dream"),
        ("d5", True, "test-dream"),
    ]


def test_the_benchmark_readme_opens_with_the_copied_simulated_labels(second, tmp_path):
    export_file_write(kind="benchmark", path=tmp_path / "b.zip", qrel_set=second.second)
    with zipfile.ZipFile(tmp_path / "b.zip") as z:
        names = z.namelist()
        readme = z.read("holes/README.md").decode()
    assert "holes/qrels/SIMULATED-test-dream.tsv" in names
    assert (
        "**SIMULATED labels in this set's final labels: 2 debate labels from simulated "
        "debaters (backend simulated); for planning a study, never a benchmark (copied with "
        "the rows: 2 from the refined set 'test-dream').**"
    ) in readme


def test_the_rebenchmark_counts_the_copied_simulated_labels(second, api_as):
    from assess.evaluation.refined_intervals import refined_simulated

    assert refined_simulated(refined=second.second) == TWO


def test_a_third_refinement_still_marks_the_first_sets_simulated_rows(second):
    third = _refine_on(second, second.second, pool="p3", name="third")
    assert qrel_set_simulated_counts(qrel_set=third) == TWO
    flagged = {key: row[2:] for key, row in _flags(third).items() if row[2]}
    assert flagged == {("q1", "d3"): (True, "test-dream"), ("q1", "d5"): (True, "test-dream")}


def test_a_real_correction_over_a_copied_simulated_row_ends_its_mark(refined):
    simulated_world(refined)
    world = refined_at_share(refined, 0.5)
    # carol says (q1, d5) is relevant: a human correction of A's simulated 0.
    b = _refine_on(world, world.refined, pool="p2", name="second", corrected={("q1", "d5")})
    assert qrel_set_simulated_counts(qrel_set=b) == {"debate": 1, "human": 0, "stage0": 0}
    flags = _flags(b)
    assert flags[("q1", "d5")] == (1, "human", False, None)
    assert flags[("q1", "d3")] == (1, "original", True, "test-dream")


def test_simulated_debaters_agreeing_on_judged_pairs_leave_their_real_grades_unmarked(second):
    """A pool on B with its judged pairs, debated by simulated agents agreeing 1 on every
    pair: each pair keeps B's grade (the original's, never the debate's), so the new set
    marks only the two rows that were simulated already, not the real grades beside them."""
    third = _refine_on(second, second.second, pool="p3", name="third", simulated=True)

    assert qrel_set_simulated_counts(qrel_set=third) == TWO
    flags = _flags(third)
    assert flags[("q1", "d2")] == (0, "original", False, None)  # real 0, the debate said 1
    assert flags[("q1", "d1")][2:] == (False, None)
    assert flags[("q1", "d3")][2:] == (True, "test-dream")


def test_the_apis_lists_of_qrel_sets_mark_the_sets_holding_simulated_labels(second, api_as):
    listed = api_as("researcher").get("/api/v1/datasets/holes/qrels").json()["items"]
    marks = {row["name"]: (row["simulated"], row["simulated_labels"]) for row in listed}

    assert marks["test"] == (False, {"debate": 0, "human": 0, "stage0": 0})
    assert marks["test-dream"] == (True, TWO)
    assert marks["second"] == (True, TWO)  # copied rows count
    dataset = api_as("researcher").get("/api/v1/datasets/holes").json()
    assert {q["name"]: q["simulated"] for q in dataset["qrel_sets"]}["second"] is True
