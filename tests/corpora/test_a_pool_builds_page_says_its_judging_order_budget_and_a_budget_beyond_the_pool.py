"""A pool build's operation page says the pool's judging order and budget, and when the
budget asked for is more than the pool, that every pair is judged: the note the command
prints and the API's ``result.note`` hold. Before, the page said only "Pool X: 249 pairs"
after a form asking for 2,000."""

import pytest

from corpora.models import Operation
from corpora.services.operations import STEPS


def _built(tiny_dataset, **params):
    operation = Operation.objects.create(
        kind=Operation.Kind.BUILD_POOL,
        dataset=tiny_dataset,
        params={"qrels": "test", "runs": ["bm25"], "depth": 2, **params},
        status="running",
    )
    result = STEPS[Operation.Kind.BUILD_POOL](operation, None)
    Operation.objects.filter(pk=operation.pk).update(status="done", stage="done", result=result)
    return operation, result


def _result_line(page: str) -> str:
    start = page.index('id="operation-result"')
    return " ".join(page[start : page.index("</p>", start)].split())


@pytest.mark.django_db
def test_a_budget_beyond_the_pool_is_said_on_the_page(tiny_dataset, client_as):
    operation, result = _built(tiny_dataset, name="big", strategy="bandit", budget=1000)
    pairs = result["pairs"]
    assert result["note"] == (
        f"budget 1,000 is more than the pool's {pairs:,} pairs: every pair is judged"
    )
    line = _result_line(client_as("admin").get(f"/operations/{operation.pk}/").content.decode())
    assert f"judging order bandit, budget {pairs:,} pairs" in line
    note = f"budget 1,000 is more than the pool&#x27;s {pairs:,} pairs: every pair is judged"
    assert note in line


@pytest.mark.django_db
def test_a_depth_pool_without_a_budget_says_nothing_more(tiny_dataset, client_as):
    operation, result = _built(tiny_dataset, name="plain")
    assert "note" not in result and "budget" not in result
    line = _result_line(client_as("admin").get(f"/operations/{operation.pk}/").content.decode())
    assert "budget" not in line and "judging order" not in line
