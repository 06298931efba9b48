"""The pipeline writes a refined set of simulated debaters' labels to ``var/exports`` (its
``out_dir``) under a name that says so, ``SIMULATED-<dataset>-<name>.trec``: a TREC file has
no room for a comment, so its name is the mark."""

import pytest

from assess.pipeline import pipeline_run
from tests.fixtures.jobs import pipeline_spec
from tests.fixtures.simulated import simulated_agent


@pytest.mark.django_db
def test_the_trec_file_of_simulated_labels_is_named_simulated(energy, truth_dir, tmp_path):
    agent = simulated_agent(truth_dir / "energy.qrels", sensitivity=1.0, persistence=0.0, seed=2)
    out = tmp_path / "out"
    pipeline_run(
        dataset=energy,
        echo=lambda _: None,
        spec=pipeline_spec(retrievers=["bm25"], depth=3, agent=agent, out_dir=out),
    )
    (written,) = (path.name for path in out.glob("*.trec"))
    assert written.startswith("SIMULATED-energy-")
