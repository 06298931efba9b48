"""Every debated label of a refined set made by simulated debaters names the simulated model
in its exported row, so no export passes it as a real judgment."""

import pytest

from assess.pipeline import pipeline_run
from assess.refined.export_rows import labels_records
from corpora.models import QrelSet
from tests.fixtures.jobs import pipeline_spec
from tests.fixtures.simulated import simulated_agent


@pytest.mark.django_db
def test_each_debated_label_row_names_the_simulated_model(energy, truth_dir, tmp_path):
    agent = simulated_agent(truth_dir / "energy.qrels", sensitivity=1.0, persistence=0.0, seed=2)
    pipeline_run(
        dataset=energy,
        echo=lambda _: None,
        spec=pipeline_spec(retrievers=["bm25"], depth=3, agent=agent, out_dir=tmp_path / "out"),
    )
    refined = QrelSet.objects.exclude(name="test").get()
    rows = [r for r in labels_records(qrel_set=refined) if r["source"] == "consensus"]
    assert rows
    model = "simulated:sens1-spec0.8-pers0-seed2"
    assert all(r["models"] == [model, model] for r in rows)
