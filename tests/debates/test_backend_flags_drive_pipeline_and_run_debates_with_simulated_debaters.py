"""--backend simulated with --truth, --sensitivity, --specificity, --persistence and --seed
drives the pipeline and run_debates (the dataset taken from the command's dataset or pool):
perfect debaters that never hold a stance agree on the truth's label of every pair, and the
refined set's datasheet opens with the SIMULATED warning (a real job's does not). A flag of
the simulated backend given to another backend is refused naming it. run_debates' closing
summary marks its calls and tokens SIMULATED."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assess.refined.benchmark_zip import benchmark_datasheet
from assess.refined.datasheet import datasheet_render
from assess.refined.refine import refinement_get
from corpora.models import QrelSet
from debates.models import Debate, DebateJob
from tests.assess.test_benchmark_datasheet_says_how_the_labels_were_made import sheet
from tests.fixtures.jobs import pool_of
from tests.fixtures.simulated import ENERGY_TRUTH_RELEVANT

PERFECT = ["--sensitivity", "1", "--specificity", "1", "--persistence", "0", "--seed", "1"]


def _outcomes(job) -> dict[tuple[str, str], tuple[str, int | None]]:
    debates = Debate.objects.filter(job=job).select_related("pair__query", "pair__document")
    return {
        (d.pair.query.query_id, d.pair.document.doc_id): (d.status, d.final_label) for d in debates
    }


@pytest.mark.django_db
def test_the_pipeline_runs_perfect_simulated_debaters_on_the_truth(energy, truth_dir, tmp_path):
    out = io.StringIO()
    call_command(
        "pipeline", "energy", "--retrievers", "bm25", "--depth", "3", "--backend", "simulated",
        "--truth", str(truth_dir / "energy.qrels"), *PERFECT, "--out", str(tmp_path / "out"),
        stdout=out,
    )  # fmt: skip
    job = DebateJob.objects.get()
    assert job.agent_a["model"] == "simulated:sens1-spec1-pers0-seed1"
    assert job.agent_a["dataset"] == "energy"
    got = _outcomes(job)
    assert got
    assert got == {pair: ("agreed", int(pair in ENERGY_TRUTH_RELEVANT)) for pair in got}
    refined = QrelSet.objects.exclude(name="test").get()
    text = datasheet_render(sheet=benchmark_datasheet(refinement=refinement_get(qrel_set=refined)))
    assert "**Labels from SIMULATED debaters, not real judgments.**" in text
    assert "SIMULATED" not in datasheet_render(sheet=sheet())
    # The re-benchmark's printout says so before its tables.
    assert "\nSIMULATED labels: " in out.getvalue()
    assert "1 debate label from simulated debaters (backend simulated)" in out.getvalue()


@pytest.mark.django_db
def test_run_debates_runs_them_on_a_pool(energy, truth_dir):
    pairs = [("q1", "d2"), ("q1", "d4"), ("q3", "d4"), ("q3", "d1"), ("q2", "d1")]
    pool_of(energy, pairs)
    out = io.StringIO()
    call_command(
        "run_debates", "energy/pool", "--backend", "simulated",
        "--truth", str(truth_dir / "energy.qrels"), *PERFECT, "--no-progress", stdout=out,
    )  # fmt: skip
    got = _outcomes(DebateJob.objects.get())
    assert got == {pair: ("agreed", int(pair in ENERGY_TRUTH_RELEVANT)) for pair in pairs}
    # The summary's calls and tokens are the simulation's, and it says so.
    lines = out.getvalue().splitlines()
    assert [line.split(":")[0] for line in lines if line.startswith(("per pair", "tokens"))] == [
        "per pair (SIMULATED debaters",
        "tokens (SIMULATED debaters",
    ]
    assert "(SIMULATED debaters: no real LLM call): 2.00 LLM calls, " in out.getvalue()


@pytest.mark.django_db
def test_a_simulated_flag_for_another_backend_is_refused_naming_it(energy, truth_dir):
    with pytest.raises(CommandError) as caught:
        call_command("run_debates", "energy/pool", "--backend", "embedded", "--truth", "/x")
    assert str(caught.value) == (
        "--truth is a flag of the simulated backend, but agent A runs the embedded backend "
        "(--backend embedded)"
    )
    with pytest.raises(CommandError) as caught:
        call_command("run_debates", "energy/pool", "--backend", "embedded", "--seed-b", "3")
    assert str(caught.value) == (
        "--seed-b is a flag of the simulated backend, but agent B runs the embedded backend "
        "(--backend embedded)"
    )
    assert not DebateJob.objects.exists()
