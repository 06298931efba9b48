"""A job whose agents are simulated debaters with sensitivity = specificity = 1 and no stance
persistence ends with every pair agreed in round 1 on the truth file's label; every turn's
model says it is simulated."""

import pytest

from assess.pipeline import pipeline_run
from debates.models import Debate, Turn
from tests.fixtures.jobs import pipeline_spec
from tests.fixtures.simulated import ENERGY_TRUTH_RELEVANT, simulated_agent


@pytest.mark.django_db
def test_every_consensus_of_perfect_simulated_debaters_is_the_truth(energy, truth_dir, tmp_path):
    agent = simulated_agent(
        truth_dir / "energy.qrels", sensitivity=1.0, specificity=1.0, persistence=0.0, seed=1
    )
    report = pipeline_run(
        dataset=energy,
        echo=lambda _: None,
        spec=pipeline_spec(
            retrievers=["bm25"], depth=3, agent=agent, rounds=2, out_dir=tmp_path / "out"
        ),
    )
    debates = list(Debate.objects.select_related("pair__query", "pair__document"))
    assert len(debates) == report.pairs > 0
    got = {
        (d.pair.query.query_id, d.pair.document.doc_id): (
            d.status,
            d.final_label,
            d.consensus_round,
        )
        for d in debates
    }
    want = {pair: ("agreed", int(pair in ENERGY_TRUTH_RELEVANT), 1) for pair in got}
    assert got == want
    # The truth's relevant pairs that were pooled unjudged are among them.
    assert ("q1", "d2") in got and got[("q1", "d2")][1] == 1
    models = set(Turn.objects.values_list("model", flat=True))
    assert models == {"simulated:sens1-spec1-pers0-seed1"}
    assert "SIMULATED reply" in Turn.objects.first().argument
